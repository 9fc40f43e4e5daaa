// SPDX-License-Identifier: GPL-2.0
/* The CDC codec tests of ../unit as the KUnit suite smc_cdc_wire. */
#include "../unit/cdc_wire_test.c"
