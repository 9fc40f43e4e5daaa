/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Socket options of this smc module at level SOL_SMC beyond those of
 * <linux/smc.h>; Linux's own smc module answers them with ENOPROTOOPT.
 */
#ifndef SMC_SOCKOPT_H
#define SMC_SOCKOPT_H

/* SO_REUSEPORT of an AF_SMC socket (int, 0 or 1; getsockopt reads it).
 * Since Linux 6.13 and 6.1.124 the socket core refuses SOL_SOCKET
 * SO_REUSEPORT for every family but AF_INET and AF_INET6 (EOPNOTSUPP)
 * before the protocol sees it; this option sets it on the internal TCP
 * socket, which is the one that binds and listens. The number keeps clear
 * of the small ones <linux/smc.h> hands out.
 */
#define ASMC_SO_REUSEPORT	0x800f

#endif /* SMC_SOCKOPT_H */
