// SPDX-License-Identifier: GPL-2.0
/* The LLC codec tests of ../unit as the KUnit suite smc_llc_wire. */
#include "../unit/llc_wire_test.c"
