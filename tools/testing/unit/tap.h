/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP output for the userspace unit tests: tap_check() prints one
 * "ok"/"not ok" line per assertion, tap_done() the plan and exit status.
 */
#ifndef ASMC_UNIT_TAP_H
#define ASMC_UNIT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;
static const char *tap_suite = "unit";

/* One result: "ok N - SUITE: message", and on failure where and what. */
static inline void tap_vcheck(int ok, const char *file, int line,
			      const char *cond, const char *fmt, va_list args)
{
	tap_n++;
	tap_failed += !ok;
	printf("%sok %d - %s: ", ok ? "" : "not ", tap_n, tap_suite);
	vprintf(fmt, args);
	printf("\n");
	if (!ok)
		printf("# %s:%d: %s\n", file, line, cond);
}

static inline void tap_start(const char *suite)
{
	tap_suite = suite;
	printf("TAP version 13\n");
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* ASMC_UNIT_TAP_H */
