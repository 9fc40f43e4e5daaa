/* SPDX-License-Identifier: GPL-2.0 */
/* Version of the smc module and its tools, shown by modinfo and `smc -V`.
 * Bump with every user-visible change.
 */
#ifndef SMC_VERSION_H
#define SMC_VERSION_H

#define SMC_MODULE_VERSION "0.1.0"

#endif /* SMC_VERSION_H */
