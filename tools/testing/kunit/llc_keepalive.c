// SPDX-License-Identifier: GPL-2.0
/* The module's keepalive decision, compiled into the test module (see Kbuild). */
#include "../../../net/smc/llc_keepalive.c"
