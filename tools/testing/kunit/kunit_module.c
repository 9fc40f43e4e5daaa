// SPDX-License-Identifier: GPL-2.0
/* smc_wire_kunit.ko: the pure-code tests of tools/testing/unit as KUnit
 * suites (smc_clc_wire, smc_llc_wire, smc_cdc_wire, smc_llc_keepalive).
 * They run when the module loads; the module has no other function.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests of the smc wire codecs and keepalive");
MODULE_LICENSE("GPL");
