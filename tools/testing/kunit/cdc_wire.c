// SPDX-License-Identifier: GPL-2.0
/* The module's CDC codec, compiled into the test module (see Kbuild). */
#include "../../../net/smc/cdc_wire.c"
