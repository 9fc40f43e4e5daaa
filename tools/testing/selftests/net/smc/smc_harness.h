/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_harness.h - small self-contained TAP (v13) test harness for the AF_SMC selftests:
 * fixtures, variants, one forked child per case with a timeout, kselftest-like asserts.
 *
 * Usage (one test program = one .c file that includes this header):
 *
 *	FIXTURE(foo) { int fd; };			// per-case data, reached as self->
 *	FIXTURE_VARIANT(foo) { int family; };		// optional, reached as variant->
 *	FIXTURE_VARIANT_ADD(foo, v4) { .family = AF_INET, };
 *	FIXTURE_SETUP(foo) { self->fd = -1; }		// both are mandatory
 *	FIXTURE_TEARDOWN(foo) { if (self->fd >= 0) close(self->fd); }
 *	TEST_F(foo, bar) { ASSERT_EQ(0, 0); }		// runs once per variant
 *	TEST_F_TIMEOUT(foo, slow, 60) { ... }		// per-case timeout in seconds
 *	TEST(plain) { ... }				// no fixture: "global.plain"
 *	TEST_HARNESS_MAIN
 *
 * Every case x variant runs in its own forked child, so a crash or a hang (killed after
 * the timeout, default TH_DEFAULT_TIMEOUT seconds) fails only that case. The setup runs,
 * then the case; the teardown runs when the setup returned, even if the case failed.
 *
 * Checks: ASSERT_* stop the case (teardown still runs), EXPECT_* record a failure and go
 * on. Both work from helper functions (no _metadata parameter needed); from a thread
 * other than the case's main thread an ASSERT_* failure or SKIP() ends the whole child.
 *	ASSERT_EQ/NE/LT/GT/LE/GE(expected, seen)	integers/pointers as intmax_t, floats
 *							as long double
 *	ASSERT_TRUE(x), ASSERT_FALSE(x)
 *	ASSERT_STREQ(a, b), ASSERT_STRNE(a, b), ASSERT_MEMEQ(a, b, len)
 *	ASSERT_ERRNO(call, err)		call must return -1 with errno == err
 *	ASSERT_SYS(call)		call must not return < 0; evaluates to its result
 *	EXPECT_* for all of the above but ASSERT_SYS
 *	SKIP(fmt, ...)			ends the case as skipped (TAP "# SKIP reason")
 *	TH_LOG(fmt, ...)		diagnostic line "# file:line: ..."
 *
 * Output: "TAP version 13", "1..N", "ok N - fixture.variant.case" / "not ok ..." /
 * "ok N - ... # SKIP reason", diagnostics as "# ..." lines, then a "# Totals:" line.
 * Exit status: 0 no failure, 1 some failure, 4 (KSFT_SKIP) when nothing passed or
 * failed. Options: -l list the cases; -f FIXTURE, -v VARIANT, -t CASE select by
 * substring (each may repeat: a case is run if it matches one of each given kind).
 */
#ifndef SMC_HARNESS_H
#define SMC_HARNESS_H

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#ifndef TH_DEFAULT_TIMEOUT
#define TH_DEFAULT_TIMEOUT	20	/* seconds, per case */
#endif

#define TH_UNUSED	__attribute__((unused))

struct th_test;

struct th_variant {
	const char *name;
	const void *data;
	int line;
	struct th_variant *next;
};

struct th_fixture {
	const char *name;
	int line;
	struct th_variant *variants;
	struct th_fixture *next;
};

struct th_test {
	const char *name;
	struct th_fixture *fixture;
	void (*fn)(const void *variant);
	unsigned int timeout;
	int line;
	struct th_test *next;
};

/* Shared with the parent (MAP_SHARED) so that it can print the skip reason. */
struct th_shared {
	char reason[256];
};

/* State of the case running in this (child) process. */
struct th_meta {
	jmp_buf env;
	pthread_t tid;
	volatile int failed;
	volatile int skipped;
	volatile int setup_done;
	struct th_shared *shared;
};

static struct th_fixture *th_fixtures TH_UNUSED;
static struct th_test *th_tests TH_UNUSED;
static struct th_meta *th_cur TH_UNUSED;
static struct th_fixture th_global_fixture TH_UNUSED = { .name = "global", .line = 0 };

/* ---- registration (constructors), lists kept sorted by source line ---- */

static TH_UNUSED void th_register_fixture(struct th_fixture *f)
{
	struct th_fixture **pp = &th_fixtures;

	while (*pp && (*pp)->line <= f->line)
		pp = &(*pp)->next;
	f->next = *pp;
	*pp = f;
}

static TH_UNUSED void th_register_variant(struct th_fixture *f, struct th_variant *v)
{
	struct th_variant **pp = &f->variants;

	while (*pp && (*pp)->line <= v->line)
		pp = &(*pp)->next;
	v->next = *pp;
	*pp = v;
}

static TH_UNUSED void th_register_test(struct th_test *t)
{
	struct th_test **pp = &th_tests;

	static bool global_registered;

	if (t->fixture == &th_global_fixture && !global_registered) {
		global_registered = true;
		th_register_fixture(&th_global_fixture);
	}
	while (*pp && (*pp)->line <= t->line)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
}

/* ---- failure reporting ---- */

#define TH_ERRNOS(X) \
	X(EPERM) X(ENOENT) X(EINTR) X(EIO) X(EBADF) X(EAGAIN) X(ENOMEM) X(EACCES) \
	X(EFAULT) X(EBUSY) X(EEXIST) X(ENODEV) X(EINVAL) X(ENFILE) X(EMFILE) X(ENOTTY) \
	X(ENOSPC) X(ESPIPE) X(EPIPE) X(ERANGE) X(ENOSYS) X(ENOTSOCK) X(EDESTADDRREQ) \
	X(EMSGSIZE) X(EPROTOTYPE) X(ENOPROTOOPT) X(EPROTONOSUPPORT) \
	X(ESOCKTNOSUPPORT) X(EOPNOTSUPP) X(EPFNOSUPPORT) X(EAFNOSUPPORT) \
	X(EADDRINUSE) X(EADDRNOTAVAIL) X(ENETDOWN) X(ENETUNREACH) X(ENETRESET) \
	X(ECONNABORTED) X(ECONNRESET) X(ENOBUFS) X(EISCONN) X(ENOTCONN) \
	X(ESHUTDOWN) X(ETIMEDOUT) X(ECONNREFUSED) X(EHOSTDOWN) X(EHOSTUNREACH) \
	X(EALREADY) X(EINPROGRESS)

/* Name of an errno value ("EAGAIN"), or its number for the rare ones. */
static TH_UNUSED const char *th_errname(int err)
{
	static __thread char buf[16];

	switch (err) {
	case 0:
		return "0";
#define TH_ERRCASE(e) case e: return #e;
	TH_ERRNOS(TH_ERRCASE)
#undef TH_ERRCASE
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static TH_UNUSED __attribute__((format(printf, 1, 2)))
void th_print(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line: lines of different threads do not interleave. */
	fflush(stdout);
	dprintf(STDOUT_FILENO, "# %s\n", line);
}

static TH_UNUSED __attribute__((noreturn)) void th_abort(int code)
{
	if (th_cur && pthread_equal(pthread_self(), th_cur->tid))
		longjmp(th_cur->env, 1);
	fflush(stdout);
	_exit(code);
}

/* Records a failure; an assert (fatal) also ends the case. */
static TH_UNUSED void th_failed(bool fatal)
{
	if (!th_cur)
		exit(KSFT_FAIL);
	th_cur->failed = 1;
	if (fatal)
		th_abort(KSFT_FAIL);
}

static TH_UNUSED __attribute__((noreturn, format(printf, 1, 2)))
void th_skip(const char *fmt, ...)
{
	va_list ap;

	if (th_cur && th_cur->shared) {
		va_start(ap, fmt);
		vsnprintf(th_cur->shared->reason, sizeof(th_cur->shared->reason), fmt, ap);
		va_end(ap);
	}
	if (th_cur)
		th_cur->skipped = 1;
	th_abort(KSFT_SKIP);
}

#ifdef __FILE_NAME__
#define TH_FILE		__FILE_NAME__
#else
#define TH_FILE		__FILE__
#endif

#define TH_LOG(fmt, ...) \
	th_print("%s:%d: " fmt, TH_FILE, __LINE__, ##__VA_ARGS__)

#define SKIP(fmt, ...)	th_skip(fmt, ##__VA_ARGS__)

/*
 * Integers (and pointers) compare as intmax_t, so that mixed signedness compares by value
 * (size_t values above INTMAX_MAX are out of range); if either side is floating point,
 * both compare as long double.
 */
#define __th_isfp(x)	_Generic((x), float: 1, double: 1, long double: 1, default: 0)
#define __th_ld(x)	((long double)_Generic((x), float: (x), double: (x),	\
					       long double: (x), default: (intmax_t)(x)))

#define __TH_CMP(fatal, exp, op, seen) do {					\
	if (__th_isfp(exp) || __th_isfp(seen)) {				\
		long double __e = __th_ld(exp), __s = __th_ld(seen);		\
		if (!(__e op __s)) {						\
			TH_LOG("Expected %s (%Lg) %s %s (%Lg)", #exp, __e, #op,	\
			       #seen, __s);					\
			th_failed(fatal);					\
		}								\
	} else {								\
		intmax_t __e = (intmax_t)(exp), __s = (intmax_t)(seen);		\
		if (!(__e op __s)) {						\
			TH_LOG("Expected %s (%jd) %s %s (%jd)", #exp, __e, #op,	\
			       #seen, __s);					\
			th_failed(fatal);					\
		}								\
	}									\
} while (0)

#define ASSERT_EQ(exp, seen)	__TH_CMP(true, exp, ==, seen)
#define ASSERT_NE(exp, seen)	__TH_CMP(true, exp, !=, seen)
#define ASSERT_LT(exp, seen)	__TH_CMP(true, exp, <, seen)
#define ASSERT_GT(exp, seen)	__TH_CMP(true, exp, >, seen)
#define ASSERT_LE(exp, seen)	__TH_CMP(true, exp, <=, seen)
#define ASSERT_GE(exp, seen)	__TH_CMP(true, exp, >=, seen)
#define EXPECT_EQ(exp, seen)	__TH_CMP(false, exp, ==, seen)
#define EXPECT_NE(exp, seen)	__TH_CMP(false, exp, !=, seen)
#define EXPECT_LT(exp, seen)	__TH_CMP(false, exp, <, seen)
#define EXPECT_GT(exp, seen)	__TH_CMP(false, exp, >, seen)
#define EXPECT_LE(exp, seen)	__TH_CMP(false, exp, <=, seen)
#define EXPECT_GE(exp, seen)	__TH_CMP(false, exp, >=, seen)

#define __TH_BOOL(fatal, cond, want) do {					\
	bool __c = (cond);							\
	if (__c != (want)) {							\
		TH_LOG("Expected %s to be %s", #cond, (want) ? "true" : "false"); \
		th_failed(fatal);						\
	}									\
} while (0)

#define ASSERT_TRUE(cond)	__TH_BOOL(true, cond, true)
#define ASSERT_FALSE(cond)	__TH_BOOL(true, cond, false)
#define EXPECT_TRUE(cond)	__TH_BOOL(false, cond, true)
#define EXPECT_FALSE(cond)	__TH_BOOL(false, cond, false)

#define __TH_STR(fatal, a, b, want_eq) do {					\
	const char *__a = (a), *__b = (b);					\
	if ((strcmp(__a, __b) == 0) != (want_eq)) {				\
		TH_LOG("Expected %s (\"%s\") %s %s (\"%s\")", #a, __a,		\
		       (want_eq) ? "==" : "!=", #b, __b);			\
		th_failed(fatal);						\
	}									\
} while (0)

#define ASSERT_STREQ(a, b)	__TH_STR(true, a, b, true)
#define ASSERT_STRNE(a, b)	__TH_STR(true, a, b, false)
#define EXPECT_STREQ(a, b)	__TH_STR(false, a, b, true)
#define EXPECT_STRNE(a, b)	__TH_STR(false, a, b, false)

#define __TH_MEM(fatal, a, b, len) do {						\
	const unsigned char *__a = (const void *)(a);				\
	const unsigned char *__b = (const void *)(b);				\
	size_t __n = (len), __i;						\
	for (__i = 0; __i < __n; __i++)						\
		if (__a[__i] != __b[__i])					\
			break;							\
	if (__i < __n) {							\
		TH_LOG("%s and %s differ at byte %zu of %zu (0x%02x != 0x%02x)", \
		       #a, #b, __i, __n, __a[__i], __b[__i]);			\
		th_failed(fatal);						\
	}									\
} while (0)

#define ASSERT_MEMEQ(a, b, len)	__TH_MEM(true, a, b, len)
#define EXPECT_MEMEQ(a, b, len)	__TH_MEM(false, a, b, len)

#define __TH_ERRNO(fatal, call, err) do {					\
	int __want = (err), __got;						\
	long __r;								\
	errno = 0;								\
	__r = (long)(call);							\
	__got = errno;								\
	if (__r != -1 || __got != __want) {					\
		TH_LOG("Expected %s to fail with %s, got %ld (errno %s)",	\
		       #call, th_errname(__want), __r,				\
		       __r == -1 ? th_errname(__got) : "untouched");		\
		th_failed(fatal);						\
	}									\
} while (0)

#define ASSERT_ERRNO(call, err)	__TH_ERRNO(true, call, err)
#define EXPECT_ERRNO(call, err)	__TH_ERRNO(false, call, err)

/* Evaluates to the call's result; a negative result fails the case. */
#define ASSERT_SYS(call) ({							\
	long __r = (long)(call);						\
	if (__r < 0) {								\
		int __e = errno;						\
		TH_LOG("%s failed: %ld (errno %s: %s)", #call, __r,		\
		       th_errname(__e), strerror(__e));				\
		th_failed(true);						\
	}									\
	__r;									\
})

/* ---- declarations ---- */

#define FIXTURE_DATA(fx)	struct _th_fd_##fx
#define FIXTURE_VARIANT(fx)	struct _th_fv_##fx

#define FIXTURE(fx)								\
	FIXTURE_VARIANT(fx);							\
	FIXTURE_DATA(fx);							\
	static struct th_fixture _th_fx_##fx = { .name = #fx, .line = __LINE__ }; \
	static void __attribute__((constructor)) _th_fx_reg_##fx(void)		\
	{									\
		th_register_fixture(&_th_fx_##fx);				\
	}									\
	static void _th_setup_##fx(FIXTURE_DATA(fx) *self,			\
				   const FIXTURE_VARIANT(fx) *variant);		\
	static void _th_teardown_##fx(FIXTURE_DATA(fx) *self,			\
				      const FIXTURE_VARIANT(fx) *variant);	\
	FIXTURE_DATA(fx)

#define FIXTURE_SETUP(fx)							\
	static void _th_setup_##fx(FIXTURE_DATA(fx) *self TH_UNUSED,		\
				   const FIXTURE_VARIANT(fx) *variant TH_UNUSED)

#define FIXTURE_TEARDOWN(fx)							\
	static void _th_teardown_##fx(FIXTURE_DATA(fx) *self TH_UNUSED,		\
				      const FIXTURE_VARIANT(fx) *variant TH_UNUSED)

#define FIXTURE_VARIANT_ADD(fx, vn)						\
	static const FIXTURE_VARIANT(fx) _th_fv_##fx##_##vn;			\
	static struct th_variant _th_fvm_##fx##_##vn = {			\
		.name = #vn, .data = &_th_fv_##fx##_##vn, .line = __LINE__,	\
	};									\
	static void __attribute__((constructor)) _th_fv_reg_##fx##_##vn(void)	\
	{									\
		th_register_variant(&_th_fx_##fx, &_th_fvm_##fx##_##vn);	\
	}									\
	static const FIXTURE_VARIANT(fx) _th_fv_##fx##_##vn =

#define TEST_F(fx, tn)	TEST_F_TIMEOUT(fx, tn, TH_DEFAULT_TIMEOUT)

#define TEST_F_TIMEOUT(fx, tn, secs)						\
	static void _th_tf_##fx##_##tn(FIXTURE_DATA(fx) *self,			\
				       const FIXTURE_VARIANT(fx) *variant);	\
	static void _th_tw_##fx##_##tn(const void *v)				\
	{									\
		static FIXTURE_DATA(fx) self;					\
									\
		memset(&self, 0, sizeof(self));					\
		if (!setjmp(th_cur->env)) {					\
			_th_setup_##fx(&self, v);				\
			th_cur->setup_done = 1;					\
			_th_tf_##fx##_##tn(&self, v);				\
		}								\
		if (th_cur->setup_done && !setjmp(th_cur->env))			\
			_th_teardown_##fx(&self, v);				\
	}									\
	static struct th_test _th_t_##fx##_##tn = {				\
		.name = #tn, .fixture = &_th_fx_##fx,				\
		.fn = _th_tw_##fx##_##tn, .timeout = (secs), .line = __LINE__,	\
	};									\
	static void __attribute__((constructor)) _th_t_reg_##fx##_##tn(void)	\
	{									\
		th_register_test(&_th_t_##fx##_##tn);				\
	}									\
	static void _th_tf_##fx##_##tn(FIXTURE_DATA(fx) *self TH_UNUSED,	\
				       const FIXTURE_VARIANT(fx) *variant TH_UNUSED)

#define TEST(tn)	TEST_TIMEOUT(tn, TH_DEFAULT_TIMEOUT)

#define TEST_TIMEOUT(tn, secs)							\
	static void _th_tf_global_##tn(void);					\
	static void _th_tw_global_##tn(const void *v TH_UNUSED)			\
	{									\
		if (!setjmp(th_cur->env))					\
			_th_tf_global_##tn();					\
	}									\
	static struct th_test _th_t_global_##tn = {				\
		.name = #tn, .fixture = &th_global_fixture,			\
		.fn = _th_tw_global_##tn, .timeout = (secs), .line = __LINE__,	\
	};									\
	static void __attribute__((constructor)) _th_t_reg_global_##tn(void)	\
	{									\
		th_register_test(&_th_t_global_##tn);				\
	}									\
	static void _th_tf_global_##tn(void)

/* ---- runner ---- */

#define TH_MAX_FILTERS	32

struct th_filter {
	const char *pat[TH_MAX_FILTERS];
	int n;
};

static TH_UNUSED bool th_match(const struct th_filter *f, const char *s)
{
	int i;

	if (!f->n)
		return true;
	for (i = 0; i < f->n; i++)
		if (strstr(s, f->pat[i]))
			return true;
	return false;
}

static volatile sig_atomic_t th_alarm_fired;

static TH_UNUSED void th_on_alarm(int sig)
{
	(void)sig;
	th_alarm_fired = 1;
}

static TH_UNUSED void th_name(char *buf, size_t len, const struct th_fixture *f,
			      const struct th_variant *v, const struct th_test *t)
{
	if (v)
		snprintf(buf, len, "%s.%s.%s", f->name, v->name, t->name);
	else
		snprintf(buf, len, "%s.%s", f->name, t->name);
}

/* Runs one case in a child; returns KSFT_PASS/FAIL/SKIP, reason filled for a skip. */
static TH_UNUSED int th_run_one(const struct th_test *t, const struct th_variant *v,
				struct th_shared *sh)
{
	struct sigaction sa = { .sa_handler = th_on_alarm };
	int status = 0;
	pid_t pid, r;

	memset(sh, 0, sizeof(*sh));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		th_print("fork: %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (!pid) {
		struct th_meta m;

		memset(&m, 0, sizeof(m));
		m.tid = pthread_self();
		m.shared = sh;
		th_cur = &m;
		signal(SIGALRM, SIG_DFL);
		t->fn(v ? v->data : NULL);
		fflush(stdout);
		_exit(m.failed ? KSFT_FAIL : m.skipped ? KSFT_SKIP : KSFT_PASS);
	}

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	th_alarm_fired = 0;
	alarm(t->timeout);
	do {
		r = waitpid(pid, &status, 0);
	} while (r < 0 && errno == EINTR && !th_alarm_fired);
	alarm(0);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		th_print("timeout: killed after %u s", t->timeout);
		return KSFT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		th_print("died by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
		return KSFT_FAIL;
	}
	if (WEXITSTATUS(status) == KSFT_PASS || WEXITSTATUS(status) == KSFT_SKIP)
		return WEXITSTATUS(status);
	if (WEXITSTATUS(status) != KSFT_FAIL)
		th_print("exited with status %d", WEXITSTATUS(status));
	return KSFT_FAIL;
}

static TH_UNUSED void th_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-l] [-f FIXTURE] [-v VARIANT] [-t CASE] ...\n"
		"  -l          list the cases (fixture.variant.case) and exit\n"
		"  -f/-v/-t    run only cases whose fixture/variant/case name contains\n"
		"              the string (repeatable: any of the same option matches)\n",
		prog);
}

typedef void (*th_visit_fn)(const struct th_fixture *f, const struct th_variant *v,
			    const struct th_test *t, void *arg);

static TH_UNUSED void th_walk(const struct th_filter *flt, th_visit_fn fn, void *arg)
{
	const struct th_fixture *f;
	const struct th_variant *v;
	const struct th_test *t;
	static const struct th_variant none;

	for (f = th_fixtures; f; f = f->next) {
		for (v = f->variants ? f->variants : &none; v; v = v->next) {
			const struct th_variant *vv = v == &none ? NULL : v;

			if (!th_match(&flt[0], f->name) ||
			    !th_match(&flt[1], vv ? vv->name : ""))
				continue;
			for (t = th_tests; t; t = t->next)
				if (t->fixture == f && th_match(&flt[2], t->name))
					fn(f, vv, t, arg);
		}
	}
}

struct th_run_state {
	unsigned int n, pass, fail, skip;
	bool list;
	struct th_shared *sh;
};

static TH_UNUSED void th_visit(const struct th_fixture *f, const struct th_variant *v,
			       const struct th_test *t, void *arg)
{
	struct th_run_state *st = arg;
	char name[256];
	int rc;

	th_name(name, sizeof(name), f, v, t);
	if (st->list) {
		printf("%s\n", name);
		return;
	}
	if (!st->sh) {		/* counting pass */
		st->n++;
		return;
	}
	rc = th_run_one(t, v, st->sh);
	st->n++;
	switch (rc) {
	case KSFT_PASS:
		st->pass++;
		printf("ok %u - %s\n", st->n, name);
		break;
	case KSFT_SKIP:
		st->skip++;
		printf("ok %u - %s # SKIP %s\n", st->n, name,
		       st->sh->reason[0] ? st->sh->reason : "no reason given");
		break;
	default:
		st->fail++;
		printf("not ok %u - %s\n", st->n, name);
	}
	fflush(stdout);
}

static TH_UNUSED int th_main(int argc, char **argv)
{
	struct th_filter flt[3];	/* fixture, variant, case */
	struct th_run_state st;
	int opt, idx;

	memset(flt, 0, sizeof(flt));
	memset(&st, 0, sizeof(st));
	while ((opt = getopt(argc, argv, "lf:v:t:h")) != -1) {
		switch (opt) {
		case 'l':
			st.list = true;
			break;
		case 'f':
		case 'v':
		case 't':
			idx = opt == 'f' ? 0 : opt == 'v' ? 1 : 2;
			if (flt[idx].n == TH_MAX_FILTERS) {
				fprintf(stderr, "too many -%c filters\n", opt);
				return KSFT_FAIL;
			}
			flt[idx].pat[flt[idx].n++] = optarg;
			break;
		case 'h':
			th_usage(argv[0]);
			return KSFT_PASS;
		default:
			th_usage(argv[0]);
			return KSFT_FAIL;
		}
	}
	if (optind < argc) {
		th_usage(argv[0]);
		return KSFT_FAIL;
	}
	if (st.list) {
		th_walk(flt, th_visit, &st);
		return KSFT_PASS;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	th_walk(flt, th_visit, &st);		/* count */
	printf("TAP version 13\n1..%u\n", st.n);
	st.n = 0;
	st.sh = mmap(NULL, sizeof(*st.sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st.sh == MAP_FAILED) {
		perror("mmap");
		return KSFT_FAIL;
	}
	th_walk(flt, th_visit, &st);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       st.pass, st.fail, st.skip);
	fflush(stdout);
	if (st.fail)
		return KSFT_FAIL;
	return st.pass ? KSFT_PASS : KSFT_SKIP;
}

#define TEST_HARNESS_MAIN							\
	int main(int argc, char **argv)						\
	{									\
		return th_main(argc, argv);					\
	}

#endif /* SMC_HARNESS_H */
