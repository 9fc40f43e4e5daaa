// SPDX-License-Identifier: GPL-2.0
/* The keepalive tests of ../unit as the KUnit suite smc_llc_keepalive. */
#include "../unit/llc_keepalive_test.c"
