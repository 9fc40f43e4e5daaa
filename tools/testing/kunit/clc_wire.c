// SPDX-License-Identifier: GPL-2.0
/* The module's CLC codec, compiled into the test module (see Kbuild). */
#include "../../../net/smc/clc_wire.c"
