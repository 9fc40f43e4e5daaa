// SPDX-License-Identifier: GPL-2.0
/* The module's LLC codec, compiled into the test module (see Kbuild). */
#include "../../../net/smc/llc_wire.c"
