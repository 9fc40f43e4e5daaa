/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP output for the userspace unit tests: CHECK() prints one
 * "ok"/"not ok" line per assertion, tap_done() the plan and exit status.
 */
#ifndef ASMC_UNIT_TAP_H
#define ASMC_UNIT_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;
static const char *tap_suite = "unit";

#define CHECK(cond, ...) do {						\
	int tap_ok_ = !!(cond);						\
									\
	tap_n++;							\
	if (tap_ok_) {							\
		printf("ok %d - %s: ", tap_n, tap_suite);		\
	} else {							\
		tap_failed++;						\
		printf("not ok %d - %s: ", tap_n, tap_suite);		\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!tap_ok_)							\
		printf("# %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
} while (0)

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
