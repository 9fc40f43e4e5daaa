// SPDX-License-Identifier: GPL-2.0
/* LD_PRELOAD library: turns TCP stream sockets (AF_INET/AF_INET6) created
 * with socket() into AF_SMC sockets, falling back to TCP when AF_SMC fails;
 * SO_REUSEPORT, which the socket core refuses to AF_SMC, goes by SOL_SMC.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <smc/sockopt.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
/* protocol argument of socket(AF_SMC, ...): address family of the
 * TCP connection underneath
 */
#define SMC_PROTO_IPV4 0
#define SMC_PROTO_IPV6 1
#ifndef SOL_SMC
#define SOL_SMC 286
#endif

#define PRELOAD_API __attribute__((visibility("default")))

typedef int (*socket_fn)(int domain, int type, int protocol);
typedef int (*setsockopt_fn)(int fd, int level, int name, const void *val,
			     socklen_t len);
typedef int (*getsockopt_fn)(int fd, int level, int name, void *val,
			     socklen_t *len);

static socket_fn real_socket;
static setsockopt_fn real_setsockopt;
static getsockopt_fn real_getsockopt;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int debug;
static int sndbuf;		/* 0: leave the default */
static int rcvbuf;
/* set once socket(AF_SMC) answered EAFNOSUPPORT: no module holds the
 * family, so later calls go straight to TCP
 */
static int smc_absent;

static void dbg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void dbg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n, len;

	if (!debug)
		return;
	len = snprintf(line, sizeof(line), "smc-preload[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len += n;
	if (len > (int)sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* one write() per line: lines of concurrent threads stay whole */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}

/* "65536", "64k", "64K", "1m", "1M": bytes, or -1 when malformed or out
 * of range for an int socket option
 */
static long parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v *= 1024;
		end++;
		break;
	case 'm': case 'M':
		v *= 1024 * 1024;
		end++;
		break;
	}
	if (*end || v == 0 || v > INT_MAX)
		return -1;
	return (long)v;
}

static int size_from_env(const char *name)
{
	const char *s = getenv(name);
	long v;

	if (!s || !*s)
		return 0;
	v = parse_size(s);
	if (v < 0) {
		/* always shown: a knob the user set is being ignored */
		fprintf(stderr, "smc-preload: ignoring %s=%s (want a number of bytes with optional k/K/m/M suffix)\n",
			name, s);
		return 0;
	}
	return (int)v;
}

static int raw_socket(int domain, int type, int protocol)
{
	return syscall(SYS_socket, domain, type, protocol);
}

static int raw_setsockopt(int fd, int level, int name, const void *val,
			  socklen_t len)
{
	return syscall(SYS_setsockopt, fd, level, name, val, len);
}

static int raw_getsockopt(int fd, int level, int name, void *val,
			  socklen_t *len)
{
	return syscall(SYS_getsockopt, fd, level, name, val, len);
}

/* the next definition of @name, or @fallback (the system call) */
static void *next_sym(const char *name, void *fallback)
{
	void *sym = dlsym(RTLD_NEXT, name);

	if (sym)
		return sym;
	dbg("dlsym(%s) failed (%s), using the system call", name, dlerror());
	return fallback;
}

static void preload_init(void)
{
	const char *d = getenv("SMC_DEBUG");

	debug = d && *d && strcmp(d, "0") != 0;
	sndbuf = size_from_env("SMC_SNDBUF");
	rcvbuf = size_from_env("SMC_RCVBUF");
	/* POSIX lets a data pointer become a function pointer */
	*(void **)&real_socket = next_sym("socket", (void *)raw_socket);
	*(void **)&real_setsockopt = next_sym("setsockopt",
					      (void *)raw_setsockopt);
	*(void **)&real_getsockopt = next_sym("getsockopt",
					      (void *)raw_getsockopt);
	dbg("loaded: SMC_SNDBUF=%d SMC_RCVBUF=%d (0: system default)",
	    sndbuf, rcvbuf);
}

__attribute__((constructor))
static void preload_ctor(void)
{
	pthread_once(&init_once, preload_init);
}

static const char *family_name(int domain)
{
	return domain == AF_INET ? "AF_INET" : "AF_INET6";
}

static void set_buf(int fd, int opt, const char *name, int bytes)
{
	if (!bytes)
		return;
	if (setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes)) < 0)
		dbg("fd %d: setsockopt(%s, %d): %s", fd, name, bytes,
		    strerror(errno));
	else
		dbg("fd %d: %s set to %d", fd, name, bytes);
}

/* A TCP stream socket the way applications ask for one: AF_INET or
 * AF_INET6, SOCK_STREAM with optional SOCK_NONBLOCK/SOCK_CLOEXEC flags,
 * protocol 0 or IPPROTO_TCP. Nothing else is touched.
 */
static int is_tcp_stream(int domain, int type, int protocol)
{
	if (domain != AF_INET && domain != AF_INET6)
		return 0;
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_STREAM)
		return 0;
	return protocol == 0 || protocol == IPPROTO_TCP;
}

PRELOAD_API int socket(int domain, int type, int protocol)
{
	int fd, err, saved_errno = errno;

	pthread_once(&init_once, preload_init);
	if (!is_tcp_stream(domain, type, protocol) ||
	    __atomic_load_n(&smc_absent, __ATOMIC_RELAXED))
		return real_socket(domain, type, protocol);

	fd = real_socket(AF_SMC, type,
			 domain == AF_INET ? SMC_PROTO_IPV4 : SMC_PROTO_IPV6);
	if (fd >= 0) {
		dbg("socket(%s, 0x%x, %d): AF_SMC fd %d", family_name(domain),
		    type, protocol, fd);
		set_buf(fd, SO_SNDBUF, "SO_SNDBUF", sndbuf);
		set_buf(fd, SO_RCVBUF, "SO_RCVBUF", rcvbuf);
		errno = saved_errno;
		return fd;
	}
	/* whatever went wrong (no module, a sandbox refusing the family,
	 * no memory), the caller gets what it asked for: a TCP socket, or
	 * the error that creating it gives
	 */
	err = errno;
	if (err == EAFNOSUPPORT)
		__atomic_store_n(&smc_absent, 1, __ATOMIC_RELAXED);
	dbg("socket(AF_SMC) failed: %s; using TCP (%s)", strerror(err),
	    err == EAFNOSUPPORT ? "AF_SMC unavailable: not tried again" :
				  "will try AF_SMC again next time");
	errno = saved_errno;
	return real_socket(domain, type, protocol);
}

static int is_smc_fd(int fd)
{
	socklen_t len = sizeof(int);
	int domain;

	return real_getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
	       domain == AF_SMC;
}

/* Since Linux 6.13 and 6.1.124 setsockopt(SOL_SOCKET, SO_REUSEPORT) fails
 * with EOPNOTSUPP on every socket but an inet one: on an AF_SMC socket it
 * is asked of the smc module at SOL_SMC instead (ASMC_SO_REUSEPORT; Linux's
 * own module does not know it, and the caller then sees EOPNOTSUPP).
 */
PRELOAD_API int setsockopt(int fd, int level, int name, const void *val,
			   socklen_t len)
{
	int rc, err;

	pthread_once(&init_once, preload_init);
	rc = real_setsockopt(fd, level, name, val, len);
	if (rc == 0 || level != SOL_SOCKET || name != SO_REUSEPORT ||
	    errno != EOPNOTSUPP)
		return rc;
	err = errno;
	if (!is_smc_fd(fd)) {
		errno = err;
		return rc;
	}
	rc = real_setsockopt(fd, SOL_SMC, ASMC_SO_REUSEPORT, val, len);
	dbg("fd %d: SO_REUSEPORT through SOL_SMC: %s", fd,
	    rc ? strerror(errno) : "set");
	if (rc)
		errno = err;
	return rc;
}

/* SO_REUSEPORT read back: the module's value when set the way above */
PRELOAD_API int getsockopt(int fd, int level, int name, void *val,
			   socklen_t *len)
{
	socklen_t olen = sizeof(int);
	int rc, on, err;

	pthread_once(&init_once, preload_init);
	rc = real_getsockopt(fd, level, name, val, len);
	if (rc || level != SOL_SOCKET || name != SO_REUSEPORT || !val ||
	    !len || *len < sizeof(int))
		return rc;
	memcpy(&on, val, sizeof(on));
	if (on)
		return rc;
	err = errno;
	if (is_smc_fd(fd) &&
	    real_getsockopt(fd, SOL_SMC, ASMC_SO_REUSEPORT, &on, &olen) == 0 &&
	    olen == sizeof(on))
		memcpy(val, &on, sizeof(on));
	errno = err;
	return rc;
}
