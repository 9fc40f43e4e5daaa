// SPDX-License-Identifier: GPL-2.0
/* The CLC codec tests of ../unit as the KUnit suite smc_clc_wire. */
#include "../unit/clc_wire_test.c"
