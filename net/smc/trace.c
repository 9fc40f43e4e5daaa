// SPDX-License-Identifier: GPL-2.0
/* Instantiates the module's tracepoints (events/smc/ in tracefs); the
 * events themselves are described in trace.h.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
