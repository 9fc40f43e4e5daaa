/* SPDX-License-Identifier: GPL-2.0 */
/* One source for the wire codec tests, two harnesses. In the kernel
 * (tools/testing/kunit builds smc_wire_kunit.ko) a test file is a set of
 * KUnit suites; in userspace (this directory's Makefile, ASan/UBSan) the
 * same file is a program that runs its cases under the small stand-in for
 * KUnit below and prints TAP (tap.h), one line per check.
 *
 * A test file is written as for KUnit, using only this interface:
 *
 *	static void test_x(struct kunit *test)
 *	{
 *		u8 *buf = wt_alloc(test, 8192);
 *
 *		CHECK(cond, "what it shows, printf format", ...);
 *	}
 *	static struct kunit_case x_cases[] = { KUNIT_CASE(test_x), {} };
 *	WIRE_TEST_SUITE(x_wire, x_cases);
 *
 * CHECK(cond, fmt, ...)	one expectation; needs `test` in scope
 * wt_alloc(test, size)		zeroed memory of exactly @size bytes (overruns
 *				are seen by KASAN/ASan), freed when the case
 *				ends or earlier by wt_free(test, p)
 * WIRE_TEST_SUITE(name, cases)	the KUnit suite "smc_<name>", or main()
 * ARRAY_SIZE(a)		as in the kernel
 *
 * Large buffers go through wt_alloc(): kernel stacks are small.
 */
#ifndef ASMC_WIRE_TEST_SHIM_H
#define ASMC_WIRE_TEST_SHIM_H

#define CHECK(cond, ...)						\
	wt_check(test, !!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

#ifdef __KERNEL__

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

static inline __printf(6, 7)
void wt_check(struct kunit *test, bool ok, const char *file, int line,
	      const char *cond, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ok)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	KUNIT_FAIL(test, "%s:%d: %s\n%pV", kbasename(file), line, cond, &vaf);
	va_end(args);
}

static inline void *wt_alloc(struct kunit *test, size_t size)
{
	void *p = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static inline void wt_free(struct kunit *test, void *p)
{
	kunit_kfree(test, p);
}

#define WIRE_TEST_SUITE(sname, cases)					\
	static struct kunit_suite sname##_suite = {			\
		.name = "smc_" #sname,					\
		.test_cases = cases,					\
	};								\
	kunit_test_suite(sname##_suite)

#else /* userspace */

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include "tap.h"

/* memory of the running case; kept apart from the caller's bytes, so ASan
 * sees an access just before a buffer as well as one just after it
 */
struct wt_alloc {
	struct wt_alloc *next;
	void *p;
};

struct kunit {
	struct wt_alloc *allocs;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
};

#define KUNIT_CASE(fn) { .run_case = fn, .name = #fn }

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline __attribute__((format(printf, 6, 7)))
void wt_check(struct kunit *test, bool ok, const char *file, int line,
	      const char *cond, const char *fmt, ...)
{
	va_list args;

	(void)test;
	va_start(args, fmt);
	tap_vcheck(ok, file, line, cond, fmt, args);
	va_end(args);
}

static inline void *wt_alloc(struct kunit *test, size_t size)
{
	struct wt_alloc *a = malloc(sizeof(*a));

	if (!a || !(a->p = calloc(1, size))) {
		printf("Bail out! out of memory\n");
		exit(2);
	}
	a->next = test->allocs;
	test->allocs = a;
	return a->p;
}

static inline void wt_free(struct kunit *test, void *p)
{
	struct wt_alloc **pp, *a;

	for (pp = &test->allocs; (a = *pp); pp = &a->next) {
		if (a->p == p) {
			*pp = a->next;
			free(a->p);
			free(a);
			return;
		}
	}
}

/* each case as a "# name" comment followed by its checks */
static inline int wt_run_suite(const char *name, const struct kunit_case *c)
{
	struct kunit test;

	tap_start(name);
	for (; c->run_case; c++) {
		test.allocs = NULL;
		printf("# %s\n", c->name);
		c->run_case(&test);
		while (test.allocs)
			wt_free(&test, test.allocs->p);
	}
	return tap_done();
}

#define WIRE_TEST_SUITE(sname, cases)					\
	int main(void)							\
	{								\
		return wt_run_suite(#sname, cases);			\
	}

#endif /* __KERNEL__ */
#endif /* ASMC_WIRE_TEST_SHIM_H */
