// SPDX-License-Identifier: GPL-2.0
/*
 * smc_sockapi.c - socket API conformance of AF_SMC in TCP fallback: every call on an
 * AF_SMC socket must give the same data and the same errno as on a plain TCP socket.
 *
 * Run:	./smc_sockapi			all cases in all variants (TAP v13 output)
 *	./smc_sockapi -v smc_smc_v4	one variant
 *	./smc_sockapi -t peek		cases whose name contains "peek"
 *	./smc_sockapi -l		list fixture.variant.case names
 *
 * Variants are <client>_<server>_<ip>: smc_smc (AF_SMC client and listener), smc_tcp
 * (AF_SMC client to an AF_INET[6] listener), tcp_smc (AF_INET[6] client to an AF_SMC
 * listener) and tcp_tcp (the reference: plain TCP), each over 127.0.0.1 (SMCPROTO_SMC)
 * and ::1 (SMCPROTO_SMC6). Where AF_SMC sockets cannot be created (EAFNOSUPPORT: the
 * module is not loaded) the smc variants are skipped and tcp_tcp still runs, which
 * shows that the expectations are what the kernel's TCP really does.
 *
 * Which socket a case tests: connected cases work on self->s, the AF_SMC end of the
 * connection (the client end in smc_smc and tcp_tcp), with self->p its peer. Cases
 * about a lone socket use an AF_SMC one in every variant but tcp_tcp (solo_smc());
 * listener cases use the server kind, connect cases the client kind.
 *
 * Everything stays on the loopback device. A connect that gets no answer (connect
 * timeout, backlog overflow) is made with a listener whose accept queue is full: the
 * kernel then drops the SYNs, so no packet leaves the machine.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/smc.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <smc/sockopt.h>
#include <time.h>

#include "smc_harness.h"

#ifndef AF_SMC
#define AF_SMC		43
#endif
#define SMCPROTO_SMC	0	/* AF_SMC over IPv4 */
#define SMCPROTO_SMC6	1	/* AF_SMC over IPv6 */

#ifndef SIOCOUTQNSD
#define SIOCOUTQNSD	0x894B
#endif

#define POLL_WAIT_MS	5000	/* generous: waits end as soon as the event is there */

FIXTURE(sockapi) {
	int lfd;		/* listener */
	int cfd;		/* connected client */
	int afd;		/* accepted socket */
	int s;			/* tested end: cfd or afd (the AF_SMC one if any) */
	int p;			/* its peer */
	uint16_t port;		/* port of lfd */
};

FIXTURE_VARIANT(sockapi) {
	bool cli_smc;
	bool srv_smc;
	int family;
};

FIXTURE_VARIANT_ADD(sockapi, smc_smc_v4) { .cli_smc = true, .srv_smc = true, .family = AF_INET };
FIXTURE_VARIANT_ADD(sockapi, smc_tcp_v4) { .cli_smc = true, .srv_smc = false, .family = AF_INET };
FIXTURE_VARIANT_ADD(sockapi, tcp_smc_v4) { .cli_smc = false, .srv_smc = true, .family = AF_INET };
FIXTURE_VARIANT_ADD(sockapi, tcp_tcp_v4) { .cli_smc = false, .srv_smc = false, .family = AF_INET };
FIXTURE_VARIANT_ADD(sockapi, smc_smc_v6) { .cli_smc = true, .srv_smc = true, .family = AF_INET6 };
FIXTURE_VARIANT_ADD(sockapi, smc_tcp_v6) { .cli_smc = true, .srv_smc = false, .family = AF_INET6 };
FIXTURE_VARIANT_ADD(sockapi, tcp_smc_v6) { .cli_smc = false, .srv_smc = true, .family = AF_INET6 };
FIXTURE_VARIANT_ADD(sockapi, tcp_tcp_v6) { .cli_smc = false, .srv_smc = false, .family = AF_INET6 };

typedef FIXTURE_DATA(sockapi) self_t;
typedef FIXTURE_VARIANT(sockapi) variant_t;

static volatile sig_atomic_t sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

FIXTURE_SETUP(sockapi)
{
	struct sigaction sa = { .sa_handler = on_sigpipe };
	int fd;

	self->lfd = self->cfd = self->afd = self->s = self->p = -1;
	sigemptyset(&sa.sa_mask);
	ASSERT_SYS(sigaction(SIGPIPE, &sa, NULL));
	sigpipes = 0;

	fd = socket(variant->family, SOCK_STREAM, 0);
	if (fd < 0 && errno == EAFNOSUPPORT)
		SKIP("%s not available (EAFNOSUPPORT)",
		     variant->family == AF_INET6 ? "IPv6" : "IPv4");
	ASSERT_SYS(fd);
	close(fd);
	if (variant->cli_smc || variant->srv_smc) {
		fd = socket(AF_SMC, SOCK_STREAM,
			    variant->family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
		if (fd < 0 && errno == EAFNOSUPPORT)
			SKIP("AF_SMC not available (EAFNOSUPPORT)");
		ASSERT_SYS(fd);
		close(fd);
	}
}

FIXTURE_TEARDOWN(sockapi)
{
	if (self->cfd >= 0)
		close(self->cfd);
	if (self->afd >= 0)
		close(self->afd);
	if (self->lfd >= 0)
		close(self->lfd);
}

/* ---- helpers ---- */

static int smc_proto(int family)
{
	return family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC;
}

/* The kind of socket a case about one lone socket tests. */
static bool solo_smc(const variant_t *v)
{
	return v->cli_smc || v->srv_smc;
}

/* A stream socket of the variant's IP version: AF_SMC or plain TCP. */
static int new_sock(const variant_t *v, bool smc, int flags)
{
	if (smc)
		return socket(AF_SMC, SOCK_STREAM | flags, smc_proto(v->family));
	return socket(v->family, SOCK_STREAM | flags, 0);
}

static int tcp_sock(const variant_t *v)
{
	return ASSERT_SYS(socket(v->family, SOCK_STREAM, 0));
}

/* The IPv4 address the cases use: 127.0.0.1, or $SMC_TEST_ADDR4 (an
 * address of this host on an interface with an RDMA device, so AF_SMC
 * connections between the two ends run over SMC-R instead of falling back).
 */
static in_addr_t test_addr4(void)
{
	static in_addr_t addr;
	const char *env;

	if (!addr) {
		env = getenv("SMC_TEST_ADDR4");
		addr = htonl(INADDR_LOOPBACK);
		if (env && *env && inet_pton(AF_INET, env, &addr) != 1)
			addr = htonl(INADDR_LOOPBACK);
	}
	return addr;
}

/* Loopback address (127.0.0.1 or ::1) with the given port, host order. */
static socklen_t lo_addr(int family, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr = in6addr_loopback;
		return sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = test_addr4();
		return sizeof(*sin);
	}
}

static uint16_t ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static bool ss_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
			       &in6addr_loopback, sizeof(struct in6_addr));
	return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == test_addr4();
}

static bool ss_is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
			       &in6addr_any, sizeof(struct in6_addr));
	return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
}

static uint16_t local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ASSERT_SYS(getsockname(fd, (struct sockaddr *)&ss, &len));
	return ss_port(&ss);
}

static void bind_lo(const variant_t *v, int fd, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(v->family, port, &ss);

	ASSERT_SYS(bind(fd, (struct sockaddr *)&ss, len));
}

static int connect_lo(const variant_t *v, int fd, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(v->family, port, &ss);

	return connect(fd, (struct sockaddr *)&ss, len);
}

/* Listener of the given kind on loopback, ephemeral port. */
static int make_listener(const variant_t *v, bool smc, int backlog, uint16_t *port)
{
	int fd = ASSERT_SYS(new_sock(v, smc, 0));

	bind_lo(v, fd, 0);
	ASSERT_SYS(listen(fd, backlog));
	if (port)
		*port = local_port(fd);
	return fd;
}

/* Blocking connect of a new socket of the given kind. */
static int make_client(const variant_t *v, bool smc, uint16_t port)
{
	int fd = ASSERT_SYS(new_sock(v, smc, 0));

	ASSERT_SYS(connect_lo(v, fd, port));
	return fd;
}

/* Returns the revents (0 on timeout). */
static short poll1(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n = ASSERT_SYS(poll(&pfd, 1, timeout_ms));

	return n ? pfd.revents : 0;
}

static int accept_wait(int lfd)
{
	ASSERT_TRUE(poll1(lfd, POLLIN, POLL_WAIT_MS) & POLLIN);
	return ASSERT_SYS(accept(lfd, NULL, NULL));
}

/* Wait until the listener's accept queue holds @n connections: a client's
 * connect() returns before the server has processed its final ACK. A TCP
 * listener's TCP_INFO reports the queue length in tcpi_unacked (AF_SMC
 * passes SOL_TCP to its internal TCP socket). An AF_SMC listener counts a
 * connection it takes from TCP's queue twice for a moment (its slot is
 * kept before TCP lets it go): a read right then saw 2 with one connection
 * in (listen_backlog_overflow, once). So @n must hold on five reads 10 ms
 * apart.
 */
static void wait_acceptq(int lfd, unsigned int n)
{
	struct tcp_info ti;
	socklen_t len;
	int i, seen = 0;

	for (i = 0; i < POLL_WAIT_MS / 10; i++) {
		len = sizeof(ti);
		ASSERT_SYS(getsockopt(lfd, SOL_TCP, TCP_INFO, &ti, &len));
		seen = ti.tcpi_unacked >= n ? seen + 1 : 0;
		if (seen == 5)
			return;
		usleep(10000);
	}
	ASSERT_TRUE(ti.tcpi_unacked >= n);
}

/* listener + client + accepted socket in self, s = the AF_SMC end if any. */
static void connect_pair(self_t *self, const variant_t *v)
{
	self->lfd = make_listener(v, v->srv_smc, 16, &self->port);
	self->cfd = make_client(v, v->cli_smc, self->port);
	self->afd = accept_wait(self->lfd);
	if (!v->cli_smc && v->srv_smc) {
		self->s = self->afd;
		self->p = self->cfd;
	} else {
		self->s = self->cfd;
		self->p = self->afd;
	}
}

/* Closes one of the fixture's sockets and forgets it. */
static void close_fd(self_t *self, int fd)
{
	ASSERT_SYS(close(fd));
	if (self->lfd == fd)
		self->lfd = -1;
	if (self->cfd == fd)
		self->cfd = -1;
	if (self->afd == fd)
		self->afd = -1;
	if (self->s == fd)
		self->s = -1;
	if (self->p == fd)
		self->p = -1;
}

static int get_int(int fd, int level, int opt)
{
	int val = -12345;
	socklen_t len = sizeof(val);

	ASSERT_SYS(getsockopt(fd, level, opt, &val, &len));
	ASSERT_EQ(sizeof(int), len);
	return val;
}

static void set_int(int fd, int level, int opt, int val)
{
	ASSERT_SYS(setsockopt(fd, level, opt, &val, sizeof(val)));
}

static void set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	ASSERT_SYS(setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_nonblock(int fd, bool on)
{
	int fl = ASSERT_SYS(fcntl(fd, F_GETFL));

	ASSERT_SYS(fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK));
}

/* Waits until FIONREAD reports at least n bytes; returns the count. */
static int wait_inq(int fd, int n)
{
	double end = now() + POLL_WAIT_MS / 1000.0;
	int inq;

	for (;;) {
		ASSERT_SYS(ioctl(fd, FIONREAD, &inq));
		if (inq >= n || now() > end)
			return inq;
		poll1(fd, POLLIN, 10);
		usleep(1000);
	}
}

static void fill_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = x >> 24;
	}
}

static uint64_t fnv1a(const uint8_t *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= buf[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * Reads until len bytes, EOF or an error, each wait bounded by POLL_WAIT_MS.
 * Returns the byte count, or -1 (errno set) if an error came before any byte.
 */
static ssize_t recv_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		if (!poll1(fd, POLLIN, POLL_WAIT_MS))
			break;
		r = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r < 0)
			return got ? (ssize_t)got : -1;
		if (!r)
			break;
		got += r;
	}
	return got;
}

/* Byte at stream offset off of the fill_sndbuf() stream. */
static uint8_t stream_byte(uint64_t off)
{
	return (off % 251) ^ 0x5a;
}

/*
 * Sends the fill_sndbuf() stream from offset @total with MSG_DONTWAIT until a
 * send fails, which must be with EAGAIN. Returns the new total.
 */
static size_t send_until_eagain(int fd, size_t total)
{
	static uint8_t chunk[65536];
	size_t i;
	ssize_t r;

	for (;;) {
		for (i = 0; i < sizeof(chunk); i++)
			chunk[i] = stream_byte(total + i);
		r = send(fd, chunk, sizeof(chunk), MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r <= 0)
			break;
		total += r;
		ASSERT_LT(total, 512u << 20);
	}
	ASSERT_EQ(-1, r);
	ASSERT_EQ(EAGAIN, errno);
	return total;
}

/*
 * Sends with MSG_DONTWAIT until the send buffer is full: EAGAIN and no POLLOUT
 * for 200 ms. Returns the bytes queued; the last send's errno must be EAGAIN.
 */
static size_t fill_sndbuf(int fd)
{
	size_t total = 0;

	for (;;) {
		total = send_until_eagain(fd, total);
		if (!(poll1(fd, POLLOUT, 200) & POLLOUT))
			return total;
	}
}

/* Reads len bytes of the fill_sndbuf() stream and checks them. */
static void drain_check(int fd, size_t len)
{
	static uint8_t buf[65536];
	size_t got = 0, i;
	ssize_t r;

	while (got < len) {
		size_t want = len - got < sizeof(buf) ? len - got : sizeof(buf);

		r = recv_all(fd, buf, want);
		ASSERT_EQ(want, r);
		for (i = 0; i < want; i++)
			if (buf[i] != stream_byte(got + i))
				break;
		if (i < want)
			TH_LOG("stream differs at offset %zu", got + i);
		ASSERT_EQ(want, i);
		got += want;
	}
}

struct sender {
	pthread_t th;
	int fd;
	const uint8_t *buf;
	size_t len;
	size_t chunk;		/* bytes per send() (0: all) */
	unsigned int gap_ms;	/* pause between sends */
	size_t sent;
	int err;
};

static void *sender_fn(void *arg)
{
	struct sender *sd = arg;
	ssize_t r;

	while (sd->sent < sd->len) {
		size_t n = sd->len - sd->sent;

		if (sd->chunk && n > sd->chunk)
			n = sd->chunk;
		r = send(sd->fd, sd->buf + sd->sent, n, MSG_NOSIGNAL);
		if (r < 0) {
			sd->err = errno;
			break;
		}
		sd->sent += r;
		if (sd->gap_ms)
			usleep(sd->gap_ms * 1000);
	}
	return NULL;
}

static void sender_start(struct sender *sd)
{
	ASSERT_EQ(0, pthread_create(&sd->th, NULL, sender_fn, sd));
}

static void sender_join(struct sender *sd)
{
	ASSERT_EQ(0, pthread_join(sd->th, NULL));
	ASSERT_EQ(0, sd->err);
	ASSERT_EQ(sd->len, sd->sent);
}

static void send_str(int fd, const char *str)
{
	ASSERT_EQ(strlen(str), send(fd, str, strlen(str), MSG_NOSIGNAL));
}

/* Receives exactly strlen(str) bytes and compares them. */
static void recv_str(int fd, const char *str)
{
	char buf[256];
	size_t len = strlen(str);

	ASSERT_LT(len, sizeof(buf));
	ASSERT_EQ(len, recv_all(fd, buf, len));
	buf[len] = 0;
	ASSERT_STREQ(str, buf);
}

/* The accepted end @a closes first; the client @c sees EOF, then closes.
 * As in TCP, the server's port is the one left with TIME_WAIT.
 */
static void server_closes_first(int a, int c)
{
	char ch;

	ASSERT_SYS(close(a));
	ASSERT_TRUE(poll1(c, POLLIN, POLL_WAIT_MS) & POLLIN);
	ASSERT_EQ(0, ASSERT_SYS(recv(c, &ch, 1, 0)));
	ASSERT_SYS(close(c));
}

/* ---- socket() ---- */

TEST_F(sockapi, socket_dgram)
{
	if (!solo_smc(variant))
		SKIP("AF_SMC only (SOCK_DGRAM is UDP for AF_INET)");
	ASSERT_ERRNO(socket(AF_SMC, SOCK_DGRAM, smc_proto(variant->family)),
		     ESOCKTNOSUPPORT);
	ASSERT_ERRNO(socket(AF_SMC, SOCK_SEQPACKET, smc_proto(variant->family)),
		     ESOCKTNOSUPPORT);
}

TEST_F(sockapi, socket_raw)
{
	if (!solo_smc(variant))
		SKIP("AF_SMC only (SOCK_RAW is raw IP for AF_INET)");
	ASSERT_ERRNO(socket(AF_SMC, SOCK_RAW, smc_proto(variant->family)),
		     ESOCKTNOSUPPORT);
}

TEST_F(sockapi, socket_bad_protocol)
{
	int fd;

	if (!solo_smc(variant)) {
		/* The AF_INET[6] equivalent: a protocol that is not TCP. */
		ASSERT_ERRNO(socket(variant->family, SOCK_STREAM, 99), EPROTONOSUPPORT);
		ASSERT_ERRNO(socket(variant->family, SOCK_STREAM, IPPROTO_UDP),
			     EPROTONOSUPPORT);
		fd = ASSERT_SYS(socket(variant->family, SOCK_STREAM, IPPROTO_TCP));
		close(fd);
		return;
	}
	ASSERT_ERRNO(socket(AF_SMC, SOCK_STREAM, 2), EPROTONOSUPPORT);
	ASSERT_ERRNO(socket(AF_SMC, SOCK_STREAM, 99), EPROTONOSUPPORT);
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC));
	close(fd);
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC6));
	close(fd);
}

TEST_F(sockapi, socket_flags)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), SOCK_NONBLOCK | SOCK_CLOEXEC));
	int plain = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	ASSERT_TRUE(ASSERT_SYS(fcntl(fd, F_GETFL)) & O_NONBLOCK);
	ASSERT_TRUE(ASSERT_SYS(fcntl(fd, F_GETFD)) & FD_CLOEXEC);
	ASSERT_FALSE(ASSERT_SYS(fcntl(plain, F_GETFL)) & O_NONBLOCK);
	ASSERT_FALSE(ASSERT_SYS(fcntl(plain, F_GETFD)) & FD_CLOEXEC);
	ASSERT_EQ(SOCK_STREAM, get_int(fd, SOL_SOCKET, SO_TYPE));
	close(fd);
	close(plain);
}

/* ---- bind() ---- */

TEST_F(sockapi, bind_addrinuse)
{
	struct sockaddr_storage ss;
	socklen_t len;
	uint16_t port;
	int l, b, fd;

	/* A listener holds its port ... */
	l = make_listener(variant, variant->srv_smc, 4, &port);
	len = lo_addr(variant->family, port, &ss);
	fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, len), EADDRINUSE);
	/* ... and so does a socket that is only bound. */
	b = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	bind_lo(variant, b, 0);
	len = lo_addr(variant->family, local_port(b), &ss);
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, len), EADDRINUSE);
	/* The failed binds left fd unbound. */
	bind_lo(variant, fd, 0);
	ASSERT_NE(0, local_port(fd));
	close(fd);
	close(b);
	close(l);
}

TEST_F(sockapi, bind_twice)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	struct sockaddr_storage ss;
	socklen_t len;
	uint16_t port;

	bind_lo(variant, fd, 0);
	port = local_port(fd);
	ASSERT_NE(0, port);
	len = lo_addr(variant->family, 0, &ss);
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, len), EINVAL);
	len = lo_addr(variant->family, port, &ss);
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, len), EINVAL);
	ASSERT_EQ(port, local_port(fd));
	close(fd);
}

TEST_F(sockapi, bind_bad_family)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	struct sockaddr_storage ss;
	socklen_t len;

	/* Full-size address of the other IP family. */
	lo_addr(variant->family, 0, &ss);
	ss.ss_family = variant->family == AF_INET ? AF_INET6 : AF_INET;
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, sizeof(ss)), EAFNOSUPPORT);
	ss.ss_family = AF_UNIX;
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, sizeof(ss)), EAFNOSUPPORT);
	/* Right family, address too short. */
	len = lo_addr(variant->family, 0, &ss);
	ASSERT_ERRNO(bind(fd, (struct sockaddr *)&ss, len - 8), EINVAL);
	/* Nothing got bound on the way. */
	ASSERT_EQ(0, local_port(fd));
	bind_lo(variant, fd, 0);
	close(fd);
}

TEST_F(sockapi, bind_reuseaddr)
{
	bool smc = variant->srv_smc;
	struct sockaddr_storage ss;
	uint16_t port;
	socklen_t len;
	int l, c, a, x, y;

	l = ASSERT_SYS(new_sock(variant, smc, 0));
	set_int(l, SOL_SOCKET, SO_REUSEADDR, 1);
	ASSERT_EQ(1, get_int(l, SOL_SOCKET, SO_REUSEADDR));
	bind_lo(variant, l, 0);
	ASSERT_SYS(listen(l, 4));
	port = local_port(l);
	len = lo_addr(variant->family, port, &ss);

	/* SO_REUSEADDR does not allow a second bind while a listener is there. */
	x = ASSERT_SYS(new_sock(variant, smc, 0));
	set_int(x, SOL_SOCKET, SO_REUSEADDR, 1);
	ASSERT_ERRNO(bind(x, (struct sockaddr *)&ss, len), EADDRINUSE);
	close(x);

	/* The server end closes first: it keeps the port in TIME_WAIT. */
	c = make_client(variant, variant->cli_smc, port);
	a = accept_wait(l);
	server_closes_first(a, c);
	ASSERT_SYS(close(l));

	x = ASSERT_SYS(new_sock(variant, smc, 0));
	ASSERT_ERRNO(bind(x, (struct sockaddr *)&ss, len), EADDRINUSE);
	close(x);

	y = ASSERT_SYS(new_sock(variant, smc, 0));
	set_int(y, SOL_SOCKET, SO_REUSEADDR, 1);
	ASSERT_SYS(bind(y, (struct sockaddr *)&ss, len));
	ASSERT_SYS(listen(y, 4));
	c = make_client(variant, variant->cli_smc, port);
	a = accept_wait(y);
	send_str(c, "again");
	recv_str(a, "again");
	close(a);
	close(c);
	close(y);
}

#define TCP_ST_TIME_WAIT	6	/* state number in /proc/net/tcp */

/* States (bit 1 << st) of the TCP sockets with local port @lport and remote
 * port @rport, from /proc/net/tcp or tcp6: one connection's end, seen from
 * the kernel's socket table (an AF_SMC socket's internal TCP socket too).
 */
static unsigned int tcp_states(int family, uint16_t lport, uint16_t rport)
{
	FILE *f = fopen(family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "r");
	unsigned int lp, rp, st, mask = 0;
	char line[512];

	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		/* "  sl: local_address:port rem_address:port st ..." */
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x %x",
			   &lp, &rp, &st) == 3 && lp == lport && rp == rport && st < 32)
			mask |= 1u << st;
	}
	fclose(f);
	return mask;
}

TEST_F(sockapi, close_time_wait)
{
	unsigned int srv = 0, cli = 0, tw = 1u << TCP_ST_TIME_WAIT;
	uint16_t port, cport;
	int l, c, a, i;

	/* The server end closes first: as in TCP, its port keeps the connection
	 * in TIME_WAIT once both ends are closed, and the client's keeps none.
	 */
	l = make_listener(variant, variant->srv_smc, 4, &port);
	c = make_client(variant, variant->cli_smc, port);
	a = accept_wait(l);
	cport = local_port(c);
	ASSERT_SYS(close(l));
	server_closes_first(a, c);
	/* AF_SMC ends its internal TCP connection after close() returned */
	for (i = 0; i < POLL_WAIT_MS / 10; i++) {
		srv = tcp_states(variant->family, port, cport);
		cli = tcp_states(variant->family, cport, port);
		if (!((srv | cli) & ~tw))
			break;
		usleep(10000);
	}
	ASSERT_EQ(tw, srv);
	ASSERT_EQ(0, cli);
}

TEST_F(sockapi, bind_reuseport)
{
	int l[2], x, c[8], i, accepted = 0, lvl = SOL_SOCKET, opt = SO_REUSEPORT;
	bool smc = variant->srv_smc;
	struct sockaddr_storage ss;
	uint16_t port;
	socklen_t len;

	l[0] = ASSERT_SYS(new_sock(variant, smc, 0));
	/* Since 6.1.124 (and 6.13) the socket core itself refuses
	 * SO_REUSEPORT on non-inet families before any protocol sees it;
	 * our module takes it at SOL_SMC instead (Linux's does not).
	 */
	if (smc && setsockopt(l[0], SOL_SOCKET, SO_REUSEPORT, &(int){ 1 },
			      sizeof(int))) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		lvl = SOL_SMC;
		opt = ASMC_SO_REUSEPORT;
		if (setsockopt(l[0], lvl, opt, &(int){ 1 }, sizeof(int)) &&
		    errno == ENOPROTOOPT) {
			close(l[0]);
			SKIP("SO_REUSEPORT refused at SOL_SOCKET (socket core) and SOL_SMC (module)");
		}
		/* an int, 0 or 1, as at SOL_SOCKET */
		ASSERT_ERRNO(setsockopt(l[0], lvl, opt, "", 1), EINVAL);
		set_int(l[0], lvl, opt, 0);
		ASSERT_EQ(0, get_int(l[0], lvl, opt));
		set_int(l[0], lvl, opt, 7);
		ASSERT_EQ(1, get_int(l[0], lvl, opt));
	}
	set_int(l[0], lvl, opt, 1);
	ASSERT_EQ(1, get_int(l[0], lvl, opt));
	bind_lo(variant, l[0], 0);
	ASSERT_SYS(listen(l[0], 16));
	port = local_port(l[0]);
	len = lo_addr(variant->family, port, &ss);

	l[1] = ASSERT_SYS(new_sock(variant, smc, 0));
	set_int(l[1], lvl, opt, 1);
	ASSERT_SYS(bind(l[1], (struct sockaddr *)&ss, len));
	ASSERT_SYS(listen(l[1], 16));

	x = ASSERT_SYS(new_sock(variant, smc, 0));
	ASSERT_ERRNO(bind(x, (struct sockaddr *)&ss, len), EADDRINUSE);
	close(x);

	for (i = 0; i < 8; i++)
		c[i] = make_client(variant, variant->cli_smc, port);
	while (accepted < 8) {
		struct pollfd pfd[2] = {
			{ .fd = l[0], .events = POLLIN },
			{ .fd = l[1], .events = POLLIN },
		};

		ASSERT_LT(0, ASSERT_SYS(poll(pfd, 2, POLL_WAIT_MS)));
		for (i = 0; i < 2; i++) {
			if (pfd[i].revents & POLLIN) {
				close(ASSERT_SYS(accept(l[i], NULL, NULL)));
				accepted++;
			}
		}
	}
	for (i = 0; i < 8; i++)
		close(c[i]);
	close(l[0]);
	close(l[1]);
}

/* ---- listen() ---- */

/* Nonblocking connect that must complete within CONNECT_WAIT_MS: longer
 * than other waits, as the first SMC-R connection of a guest builds the
 * link group (QP, CONFIRM_LINK, RMB registration), and connections behind
 * it wait for that; with four TCG guests on two host cores this once took
 * more than 5 s (sockapi_smcr.listen_backlog).
 */
#define CONNECT_WAIT_MS	20000

static void connect_completes(int fd)
{
	ASSERT_TRUE(poll1(fd, POLLOUT, CONNECT_WAIT_MS) & POLLOUT);
	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ERROR));
}

TEST_F(sockapi, listen_backlog)
{
	int c[3], i;

	/* TCP queues backlog + 1 established connections before any accept(). */
	self->lfd = make_listener(variant, variant->srv_smc, 2, &self->port);
	for (i = 0; i < 3; i++) {
		c[i] = ASSERT_SYS(new_sock(variant, variant->cli_smc, SOCK_NONBLOCK));
		ASSERT_ERRNO(connect_lo(variant, c[i], self->port), EINPROGRESS);
	}
	for (i = 0; i < 3; i++)
		connect_completes(c[i]);
	for (i = 0; i < 3; i++)
		close(accept_wait(self->lfd));
	set_nonblock(self->lfd, true);
	ASSERT_ERRNO(accept(self->lfd, NULL, NULL), EAGAIN);
	for (i = 0; i < 3; i++)
		close(c[i]);
}

TEST_F(sockapi, listen_backlog_overflow)
{
	int c[3], i;

	/* backlog 1: two connections complete, the SYN of the third is dropped ... */
	self->lfd = make_listener(variant, variant->srv_smc, 1, &self->port);
	c[0] = make_client(variant, variant->cli_smc, self->port);
	c[1] = make_client(variant, variant->cli_smc, self->port);
	wait_acceptq(self->lfd, 2);
	c[2] = ASSERT_SYS(new_sock(variant, variant->cli_smc, SOCK_NONBLOCK));
	ASSERT_ERRNO(connect_lo(variant, c[2], self->port), EINPROGRESS);
	ASSERT_EQ(0, poll1(c[2], POLLOUT, 300));
	/* ... until accept() makes room: the retransmitted SYN (after ~1 s) gets in. */
	close(accept_wait(self->lfd));
	close(accept_wait(self->lfd));
	connect_completes(c[2]);
	close(accept_wait(self->lfd));
	for (i = 0; i < 3; i++)
		close(c[i]);
}

TEST_F(sockapi, listen_autobind)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int c, a;

	self->lfd = ASSERT_SYS(new_sock(variant, variant->srv_smc, 0));
	ASSERT_SYS(listen(self->lfd, 4));
	ASSERT_SYS(getsockname(self->lfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(variant->family, ss.ss_family);
	ASSERT_TRUE(ss_is_any(&ss));
	self->port = ss_port(&ss);
	ASSERT_NE(0, self->port);
	/* Bound to the wildcard address: loopback reaches it. */
	c = make_client(variant, variant->cli_smc, self->port);
	a = accept_wait(self->lfd);
	send_str(c, "auto");
	recv_str(a, "auto");
	close(a);
	close(c);
}

TEST_F(sockapi, listen_connected)
{
	connect_pair(self, variant);
	ASSERT_ERRNO(listen(self->cfd, 4), EINVAL);
	ASSERT_ERRNO(listen(self->afd, 4), EINVAL);
	/* listen() again on a listener just updates the backlog. */
	ASSERT_SYS(listen(self->lfd, 8));
	ASSERT_EQ(1, get_int(self->lfd, SOL_SOCKET, SO_ACCEPTCONN));
}

/* ---- accept() ---- */

struct delayed_connect {
	pthread_t th;
	int fd;
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned int delay_ms;
	int ret;
	int err;
};

static void *delayed_connect_fn(void *arg)
{
	struct delayed_connect *dc = arg;

	usleep(dc->delay_ms * 1000);
	dc->ret = connect(dc->fd, (struct sockaddr *)&dc->ss, dc->len);
	dc->err = errno;
	return NULL;
}

TEST_F(sockapi, accept_blocking)
{
	struct sockaddr_storage peer, cname;
	socklen_t plen = sizeof(peer), clen = sizeof(cname);
	struct delayed_connect dc = { .delay_ms = 200 };
	double t0;
	int a;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	dc.fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	self->cfd = dc.fd;
	dc.len = lo_addr(variant->family, self->port, &dc.ss);
	ASSERT_EQ(0, pthread_create(&dc.th, NULL, delayed_connect_fn, &dc));
	t0 = now();
	a = ASSERT_SYS(accept(self->lfd, (struct sockaddr *)&peer, &plen));
	ASSERT_LE(0.1, now() - t0);	/* it did block for the connect */
	ASSERT_EQ(0, pthread_join(dc.th, NULL));
	ASSERT_EQ(0, dc.ret);
	self->afd = a;
	ASSERT_SYS(getsockname(self->cfd, (struct sockaddr *)&cname, &clen));
	ASSERT_EQ(clen, plen);
	ASSERT_MEMEQ(&cname, &peer, plen);
	send_str(self->afd, "hi");
	recv_str(self->cfd, "hi");
}

TEST_F(sockapi, accept_nonblock)
{
	int c, a;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	set_nonblock(self->lfd, true);
	ASSERT_ERRNO(accept(self->lfd, NULL, NULL), EAGAIN);
	ASSERT_ERRNO(accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC), EAGAIN);
	c = make_client(variant, variant->cli_smc, self->port);
	a = accept_wait(self->lfd);
	ASSERT_ERRNO(accept(self->lfd, NULL, NULL), EAGAIN);
	close(a);
	close(c);
}

TEST_F(sockapi, accept4_flags)
{
	int c1, c2, a1, a2;
	char ch;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	set_nonblock(self->lfd, true);
	ASSERT_ERRNO(accept4(self->lfd, NULL, NULL, 0x1), EINVAL);

	/* The file flags of the listener are not inherited. */
	c1 = make_client(variant, variant->cli_smc, self->port);
	a1 = accept_wait(self->lfd);
	ASSERT_FALSE(ASSERT_SYS(fcntl(a1, F_GETFL)) & O_NONBLOCK);
	ASSERT_FALSE(ASSERT_SYS(fcntl(a1, F_GETFD)) & FD_CLOEXEC);

	c2 = make_client(variant, variant->cli_smc, self->port);
	ASSERT_TRUE(poll1(self->lfd, POLLIN, POLL_WAIT_MS) & POLLIN);
	a2 = ASSERT_SYS(accept4(self->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
	ASSERT_TRUE(ASSERT_SYS(fcntl(a2, F_GETFL)) & O_NONBLOCK);
	ASSERT_TRUE(ASSERT_SYS(fcntl(a2, F_GETFD)) & FD_CLOEXEC);
	ASSERT_ERRNO(recv(a2, &ch, 1, 0), EAGAIN);
	send_str(c2, "x");
	recv_str(a2, "x");
	close(a1);
	close(a2);
	close(c1);
	close(c2);
}

TEST_F(sockapi, accept_rcvtimeo)
{
	double t0, dt;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	set_timeo(self->lfd, SO_RCVTIMEO, 300);
	t0 = now();
	ASSERT_ERRNO(accept(self->lfd, NULL, NULL), EAGAIN);
	dt = now() - t0;
	ASSERT_LE(0.25, dt);
	ASSERT_GT(3.0, dt);
}

TEST_F(sockapi, accept_not_listening)
{
	int fd = ASSERT_SYS(new_sock(variant, variant->srv_smc, 0));

	ASSERT_ERRNO(accept(fd, NULL, NULL), EINVAL);
	bind_lo(variant, fd, 0);
	ASSERT_ERRNO(accept(fd, NULL, NULL), EINVAL);
	close(fd);
	connect_pair(self, variant);
	ASSERT_ERRNO(accept(self->s, NULL, NULL), EINVAL);
	ASSERT_ERRNO(accept(self->p, NULL, NULL), EINVAL);
}

/* ---- connect() ---- */

TEST_F(sockapi, connect_blocking)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	self->cfd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	ASSERT_EQ(0, connect_lo(variant, self->cfd, self->port));
	ASSERT_EQ(0, get_int(self->cfd, SOL_SOCKET, SO_ERROR));
	ASSERT_SYS(getpeername(self->cfd, (struct sockaddr *)&ss, &len));
	ASSERT_EQ(self->port, ss_port(&ss));
	/* A connect binds the socket to an ephemeral port. */
	ASSERT_NE(0, local_port(self->cfd));
	self->afd = accept_wait(self->lfd);
	send_str(self->cfd, "ping");
	recv_str(self->afd, "ping");
	send_str(self->afd, "pong");
	recv_str(self->cfd, "pong");
}

/* TCP acks a fresh connection quickly (TCP_QUICKACK reads 1 until TCP
 * itself finds it interactive). Our CLC socket starts in interactive mode
 * to let the handshake's messages carry its ACKs; a connection that fell
 * back must have left it on both ends, or the peer's first small writes
 * wait for delayed ACKs.
 */
TEST_F(sockapi, connect_quickack)
{
	if (variant->cli_smc && variant->srv_smc &&
	    variant->family == AF_INET &&
	    test_addr4() != htonl(INADDR_LOOPBACK))
		SKIP("an SMC-R connection: its TCP carries no data to ack");
	connect_pair(self, variant);
	ASSERT_EQ(1, get_int(self->cfd, IPPROTO_TCP, TCP_QUICKACK));
	ASSERT_EQ(1, get_int(self->afd, IPPROTO_TCP, TCP_QUICKACK));
	send_str(self->cfd, "ping");
	recv_str(self->afd, "ping");
}

/* A port that is bound (so nobody else takes it) but not listening: RST. */
static int closed_port(const variant_t *v, uint16_t *port)
{
	int fd = ASSERT_SYS(new_sock(v, v->srv_smc, 0));

	bind_lo(v, fd, 0);
	*port = local_port(fd);
	return fd;
}

TEST_F(sockapi, connect_refused)
{
	uint16_t port;
	int holder = closed_port(variant, &port);
	int fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));

	ASSERT_ERRNO(connect_lo(variant, fd, port), ECONNREFUSED);
	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ERROR));
	/* The socket can try again. */
	ASSERT_ERRNO(connect_lo(variant, fd, port), ECONNREFUSED);
	close(fd);
	close(holder);
}

TEST_F(sockapi, connect_nonblock)
{
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	self->cfd = ASSERT_SYS(new_sock(variant, variant->cli_smc, SOCK_NONBLOCK));
	ASSERT_ERRNO(connect_lo(variant, self->cfd, self->port), EINPROGRESS);
	ASSERT_EQ(POLLOUT, poll1(self->cfd, POLLOUT, POLL_WAIT_MS));
	ASSERT_EQ(0, get_int(self->cfd, SOL_SOCKET, SO_ERROR));
	/* The first connect() after completion reports success, later ones EISCONN. */
	ASSERT_EQ(0, connect_lo(variant, self->cfd, self->port));
	ASSERT_ERRNO(connect_lo(variant, self->cfd, self->port), EISCONN);
	self->afd = accept_wait(self->lfd);
	send_str(self->cfd, "nb");
	recv_str(self->afd, "nb");
}

TEST_F(sockapi, connect_nonblock_refused)
{
	uint16_t port;
	int holder = closed_port(variant, &port);
	int fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, SOCK_NONBLOCK));
	short ev = POLLIN | POLLOUT | POLLRDHUP;

	ASSERT_ERRNO(connect_lo(variant, fd, port), EINPROGRESS);
	ASSERT_EQ(POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDHUP,
		  poll1(fd, ev, POLL_WAIT_MS));
	ASSERT_EQ(ECONNREFUSED, get_int(fd, SOL_SOCKET, SO_ERROR));
	/* Reading SO_ERROR clears it. */
	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ERROR));
	ASSERT_EQ(POLLIN | POLLOUT | POLLHUP | POLLRDHUP, poll1(fd, ev, 0));
	close(fd);
	close(holder);
}

TEST_F(sockapi, connect_timeout)
{
	double t0, dt;
	int filler, fd;

	/*
	 * A plain TCP listener with backlog 0 and one queued connection drops
	 * further SYNs: a connect to it gets no answer, all on loopback.
	 */
	self->lfd = tcp_sock(variant);
	bind_lo(variant, self->lfd, 0);
	ASSERT_SYS(listen(self->lfd, 0));
	self->port = local_port(self->lfd);
	filler = tcp_sock(variant);
	ASSERT_SYS(connect_lo(variant, filler, self->port));
	/*
	 * connect() returns on the SYN-ACK; the queue holds the filler only
	 * once its final ACK got processed (later, under TCG): before, our
	 * SYN would be taken.
	 */
	ASSERT_TRUE(poll1(self->lfd, POLLIN, POLL_WAIT_MS) & POLLIN);

	fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	set_timeo(fd, SO_SNDTIMEO, 1000);
	t0 = now();
	ASSERT_ERRNO(connect_lo(variant, fd, self->port), EINPROGRESS);
	dt = now() - t0;
	ASSERT_LE(0.9, dt);
	ASSERT_GT(3.0, dt);
	/* Still connecting: no POLLOUT, and a new connect() says so. */
	ASSERT_EQ(0, poll1(fd, POLLOUT, 0));
	set_timeo(fd, SO_SNDTIMEO, 200);
	t0 = now();
	ASSERT_ERRNO(connect_lo(variant, fd, self->port), EALREADY);
	ASSERT_LE(0.15, now() - t0);
	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ERROR));
	close(fd);
	close(filler);
}

TEST_F(sockapi, connect_twice)
{
	uint16_t other;
	int l2;

	connect_pair(self, variant);
	l2 = make_listener(variant, variant->srv_smc, 4, &other);
	ASSERT_ERRNO(connect_lo(variant, self->cfd, self->port), EISCONN);
	ASSERT_ERRNO(connect_lo(variant, self->cfd, other), EISCONN);
	ASSERT_ERRNO(connect_lo(variant, self->afd, other), EISCONN);
	ASSERT_EQ(0, get_int(self->cfd, SOL_SOCKET, SO_ERROR));
	send_str(self->cfd, "still");
	recv_str(self->afd, "still");
	close(l2);
}

TEST_F(sockapi, connect_listening)
{
	uint16_t other;
	int l2;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	l2 = make_listener(variant, variant->srv_smc, 4, &other);
	ASSERT_ERRNO(connect_lo(variant, self->lfd, other), EISCONN);
	ASSERT_ERRNO(connect_lo(variant, self->lfd, self->port), EISCONN);
	ASSERT_EQ(1, get_int(self->lfd, SOL_SOCKET, SO_ACCEPTCONN));
	close(l2);
}

TEST_F(sockapi, connect_bad_family)
{
	int fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	struct sockaddr_storage ss;
	socklen_t len;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	lo_addr(variant->family, self->port, &ss);
	ss.ss_family = variant->family == AF_INET ? AF_INET6 : AF_INET;
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&ss, sizeof(ss)), EAFNOSUPPORT);
	len = lo_addr(variant->family, self->port, &ss);
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&ss, len - 8), EINVAL);
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&ss, 1), EINVAL);
	/* The socket is still usable. */
	ASSERT_SYS(connect(fd, (struct sockaddr *)&ss, len));
	close(accept_wait(self->lfd));
	close(fd);
}

/* ---- data transfer ---- */

/* len bytes each way (s -> p, then p -> s), checksummed, then EOF both ways. */
static void roundtrip(self_t *self, const variant_t *v, size_t len)
{
	uint8_t *rbuf, *buf;
	int dir;
	char ch;

	connect_pair(self, v);
	buf = malloc(len);
	rbuf = malloc(len);
	ASSERT_TRUE(buf && rbuf);
	for (dir = 0; dir < 2; dir++) {
		int from = dir ? self->p : self->s;
		int to = dir ? self->s : self->p;
		struct sender sd = { .fd = from, .buf = buf, .len = len };

		fill_pattern(buf, len, len + dir);
		memset(rbuf, 0, len);
		sender_start(&sd);
		ASSERT_EQ(len, recv_all(to, rbuf, len));
		sender_join(&sd);
		ASSERT_EQ(fnv1a(buf, len), fnv1a(rbuf, len));
		ASSERT_MEMEQ(buf, rbuf, len);
		ASSERT_ERRNO(recv(to, &ch, 1, MSG_DONTWAIT), EAGAIN);
	}
	ASSERT_SYS(shutdown(self->s, SHUT_WR));
	ASSERT_EQ(0, recv_all(self->p, &ch, 1));
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	ASSERT_EQ(0, recv_all(self->s, &ch, 1));
	free(buf);
	free(rbuf);
}

TEST_F(sockapi, data_1)
{
	roundtrip(self, variant, 1);
}

TEST_F(sockapi, data_1000)
{
	roundtrip(self, variant, 1000);
}

TEST_F(sockapi, data_64k)
{
	roundtrip(self, variant, 65536);
}

TEST_F(sockapi, data_1m)
{
	roundtrip(self, variant, 1 << 20);
}

TEST_F(sockapi, recv_peek)
{
	const char *msg = "peekaboo-12345";
	char a[32] = "", b[32] = "", c[32] = "";

	connect_pair(self, variant);
	send_str(self->p, msg);
	ASSERT_EQ(14, wait_inq(self->s, 14));
	ASSERT_EQ(14, recv(self->s, a, sizeof(a), MSG_PEEK));
	ASSERT_EQ(4, recv(self->s, b, 4, MSG_PEEK));
	ASSERT_EQ(14, wait_inq(self->s, 14));
	ASSERT_EQ(14, recv(self->s, c, sizeof(c), 0));
	ASSERT_MEMEQ(msg, a, 14);
	ASSERT_MEMEQ(msg, b, 4);
	ASSERT_MEMEQ(msg, c, 14);
	ASSERT_ERRNO(recv(self->s, a, sizeof(a), MSG_PEEK | MSG_DONTWAIT), EAGAIN);
}

TEST_F(sockapi, recv_waitall)
{
	uint8_t buf[800], rbuf[800];
	struct sender sd = { .buf = buf, .len = sizeof(buf), .chunk = 100, .gap_ms = 20 };
	char small[100];

	connect_pair(self, variant);
	fill_pattern(buf, sizeof(buf), 7);
	sd.fd = self->p;
	sender_start(&sd);
	ASSERT_EQ(sizeof(rbuf), recv(self->s, rbuf, sizeof(rbuf), MSG_WAITALL));
	sender_join(&sd);
	ASSERT_MEMEQ(buf, rbuf, sizeof(buf));
	/* EOF ends MSG_WAITALL early. */
	send_str(self->p, "0123456789");
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	ASSERT_EQ(10, recv(self->s, small, sizeof(small), MSG_WAITALL));
	ASSERT_MEMEQ("0123456789", small, 10);
	ASSERT_EQ(0, ASSERT_SYS(recv(self->s, small, sizeof(small), MSG_WAITALL)));
}

TEST_F(sockapi, recv_dontwait)
{
	char buf[16];

	connect_pair(self, variant);
	ASSERT_ERRNO(recv(self->s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	ASSERT_ERRNO(recv(self->p, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	/* The socket itself stays blocking. */
	ASSERT_FALSE(ASSERT_SYS(fcntl(self->s, F_GETFL)) & O_NONBLOCK);
	send_str(self->p, "data");
	ASSERT_EQ(4, wait_inq(self->s, 4));
	ASSERT_EQ(4, recv(self->s, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_MEMEQ("data", buf, 4);
}

struct blocked_reader {
	pthread_t th;
	int fd;
	int started;
	ssize_t got;
	char byte;
	long nvcsw;	/* the thread's voluntary context switches in recv() */
};

static void *blocked_reader_fn(void *arg)
{
	struct blocked_reader *br = arg;
	struct rusage r0, r1;

	getrusage(RUSAGE_THREAD, &r0);
	__atomic_store_n(&br->started, 1, __ATOMIC_RELEASE);
	br->got = recv(br->fd, &br->byte, 1, 0);
	getrusage(RUSAGE_THREAD, &r1);
	br->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	return NULL;
}

/*
 * A reader blocked in recv() sleeps on while another thread sends on the
 * same socket: what completes those sends (TCP's ACKs, SMC-R's CDC
 * completions) is not data and must not wake it. Counted as the reader
 * thread's voluntary context switches: one to block, not one per message.
 */
TEST_F(sockapi, recv_blocked_sleeps)
{
	struct blocked_reader br = { .fd = -1 };
	char buf[64] = { 0 }, rbuf[64];
	int i, msgs = 64;

	connect_pair(self, variant);
	set_timeo(self->s, SO_RCVTIMEO, 20000);	/* never hang the suite */
	br.fd = self->s;
	ASSERT_EQ(0, pthread_create(&br.th, NULL, blocked_reader_fn, &br));
	while (!__atomic_load_n(&br.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(50 * 1000);	/* into its sleep */
	for (i = 0; i < msgs; i++) {
		/* one at a time: each its own message on the wire */
		ASSERT_EQ(sizeof(buf), send(self->s, buf, sizeof(buf), MSG_NOSIGNAL));
		ASSERT_EQ(sizeof(rbuf), recv_all(self->p, rbuf, sizeof(rbuf)));
	}
	usleep(100 * 1000);	/* the last completions */
	send_str(self->p, "z");
	ASSERT_EQ(0, pthread_join(br.th, NULL));
	ASSERT_EQ(1, br.got);
	ASSERT_EQ('z', br.byte);
	TH_LOG("reader: %ld voluntary context switches for %d messages sent", br.nvcsw, msgs);
	ASSERT_LT(br.nvcsw, msgs / 8);
}

TEST_F(sockapi, send_dontwait_full)
{
	size_t total;

	connect_pair(self, variant);
	total = fill_sndbuf(self->s);
	ASSERT_LT(0, total);
	drain_check(self->p, total);
	ASSERT_TRUE(poll1(self->s, POLLOUT, POLL_WAIT_MS) & POLLOUT);
	ASSERT_EQ(1, send(self->s, "x", 1, MSG_DONTWAIT));
	recv_str(self->p, "x");
}

TEST_F(sockapi, send_msg_more)
{
	connect_pair(self, variant);
	ASSERT_EQ(3, send(self->s, "aaa", 3, MSG_MORE));
	ASSERT_EQ(4, send(self->s, "bbbb", 4, MSG_MORE));
	ASSERT_EQ(2, send(self->s, "cc", 2, 0));
	recv_str(self->p, "aaabbbbcc");
	/* And the other way round. */
	ASSERT_EQ(2, send(self->p, "dd", 2, MSG_MORE));
	ASSERT_EQ(1, send(self->p, "e", 1, 0));
	recv_str(self->s, "dde");
}

/* The peer closes; a first send still goes out, the RST answering it breaks the pipe. */
static void send_after_peer_close(self_t *self, const variant_t *v, int flags)
{
	int want_sig = flags & MSG_NOSIGNAL ? 0 : 1;
	char ch;

	connect_pair(self, v);
	close_fd(self, self->p);
	ASSERT_TRUE(poll1(self->s, POLLRDHUP, POLL_WAIT_MS) & POLLRDHUP);
	ASSERT_EQ(0, ASSERT_SYS(recv(self->s, &ch, 1, MSG_DONTWAIT)));
	ASSERT_EQ(1, send(self->s, "x", 1, flags));
	ASSERT_TRUE(poll1(self->s, 0, POLL_WAIT_MS) & POLLHUP);
	ASSERT_EQ(0, sigpipes);
	ASSERT_ERRNO(send(self->s, "x", 1, flags), EPIPE);
	ASSERT_EQ(want_sig, sigpipes);
	ASSERT_ERRNO(send(self->s, "x", 1, flags), EPIPE);
	ASSERT_EQ(2 * want_sig, sigpipes);
	if (want_sig) {
		ASSERT_ERRNO(write(self->s, "x", 1), EPIPE);
		ASSERT_EQ(3, sigpipes);
	}
}

TEST_F(sockapi, send_sigpipe)
{
	send_after_peer_close(self, variant, 0);
}

TEST_F(sockapi, send_nosignal)
{
	send_after_peer_close(self, variant, MSG_NOSIGNAL);
}

TEST_F(sockapi, readv_writev)
{
	uint8_t a[10], b[100], c[1], d[1000], all[1111], out[1111];
	struct iovec wv[4] = {
		{ a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) }, { d, sizeof(d) },
	};
	struct iovec rv[3] = {
		{ out, 500 }, { out + 500, 11 }, { out + 511, 600 },
	};
	int dir;

	connect_pair(self, variant);
	for (dir = 0; dir < 2; dir++) {
		int from = dir ? self->p : self->s;
		int to = dir ? self->s : self->p;

		fill_pattern(all, sizeof(all), 11 + dir);
		memcpy(a, all, 10);
		memcpy(b, all + 10, 100);
		memcpy(c, all + 110, 1);
		memcpy(d, all + 111, 1000);
		memset(out, 0, sizeof(out));
		ASSERT_EQ(1111, writev(from, wv, 4));
		ASSERT_EQ(1111, wait_inq(to, 1111));
		ASSERT_EQ(1111, readv(to, rv, 3));
		ASSERT_MEMEQ(all, out, sizeof(all));
	}
}

TEST_F(sockapi, sendmsg_recvmsg)
{
	char hello[] = "hello, ", world[] = "world", r1[5], r2[100];
	struct iovec wv[2] = { { hello, 7 }, { world, 5 } };
	struct iovec rv[2] = { { r1, sizeof(r1) }, { r2, sizeof(r2) } };
	struct sockaddr_storage name, other;
	char cbuf[64];
	struct msghdr wm = { .msg_iov = wv, .msg_iovlen = 2 };
	struct msghdr rm = {
		.msg_name = &name, .msg_namelen = sizeof(name),
		.msg_iov = rv, .msg_iovlen = 2,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		.msg_flags = -1,
	};
	socklen_t olen;

	connect_pair(self, variant);
	ASSERT_EQ(12, sendmsg(self->s, &wm, 0));
	ASSERT_EQ(12, wait_inq(self->p, 12));
	ASSERT_EQ(12, recvmsg(self->p, &rm, 0));
	/* TCP reports no address, no control data, no flags. */
	ASSERT_EQ(0, rm.msg_namelen);
	ASSERT_EQ(0, rm.msg_controllen);
	ASSERT_EQ(0, rm.msg_flags);
	ASSERT_MEMEQ("hello", r1, 5);
	ASSERT_MEMEQ(", world", r2, 7);

	/* An address on a connected stream socket is ignored. */
	olen = lo_addr(variant->family, 9, &other);
	ASSERT_EQ(3, sendto(self->p, "abc", 3, 0, (struct sockaddr *)&other, olen));
	wm.msg_name = &other;
	wm.msg_namelen = olen;
	wm.msg_iovlen = 1;
	ASSERT_EQ(7, sendmsg(self->p, &wm, 0));
	recv_str(self->s, "abchello, ");
}

TEST_F(sockapi, recv_trunc)
{
	char buf[16], small[4];
	struct iovec iov = { small, sizeof(small) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_flags = -1 };

	connect_pair(self, variant);
	/* On TCP, MSG_TRUNC discards the bytes instead of copying them. */
	send_str(self->p, "ABCDEFGH");
	ASSERT_EQ(8, wait_inq(self->s, 8));
	memset(buf, 'z', sizeof(buf));
	ASSERT_EQ(4, recv(self->s, buf, 4, MSG_TRUNC));
	ASSERT_MEMEQ("zzzz", buf, 4);
	ASSERT_EQ(4, recv(self->s, buf, sizeof(buf), 0));
	ASSERT_MEMEQ("EFGH", buf, 4);
	/* A short buffer is no truncation for a stream: msg_flags stay 0. */
	send_str(self->p, "0123456789");
	ASSERT_EQ(10, wait_inq(self->s, 10));
	ASSERT_EQ(4, recvmsg(self->s, &m, 0));
	ASSERT_EQ(0, m.msg_flags);
	ASSERT_MEMEQ("0123", small, 4);
	recv_str(self->s, "456789");
}

struct sendfile_arg {
	pthread_t th;
	int sock, file;
	off_t off;
	size_t count, done;
	int err;
};

static void *sendfile_fn(void *arg)
{
	struct sendfile_arg *sa = arg;
	ssize_t r;

	while (sa->done < sa->count) {
		r = sendfile(sa->sock, sa->file, &sa->off, sa->count - sa->done);
		if (r <= 0) {
			sa->err = r < 0 ? errno : -1;
			break;
		}
		sa->done += r;
	}
	return NULL;
}

TEST_F(sockapi, sendfile)
{
	static uint8_t data[300000], rbuf[200000];
	struct sendfile_arg sa = { .off = 1000, .count = 200000 };
	char tmpl[] = "/tmp/smc_sockapi.XXXXXX";
	int fd;

	connect_pair(self, variant);
	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	if (fd < 0) {
		fd = ASSERT_SYS(mkstemp(tmpl));
		unlink(tmpl);
	}
	fill_pattern(data, sizeof(data), 3);
	ASSERT_EQ(sizeof(data), write(fd, data, sizeof(data)));

	sa.sock = self->s;
	sa.file = fd;
	ASSERT_EQ(0, pthread_create(&sa.th, NULL, sendfile_fn, &sa));
	ASSERT_EQ(sizeof(rbuf), recv_all(self->p, rbuf, sizeof(rbuf)));
	ASSERT_EQ(0, pthread_join(sa.th, NULL));
	ASSERT_EQ(0, sa.err);
	ASSERT_EQ(200000, sa.done);
	ASSERT_EQ(201000, sa.off);
	ASSERT_MEMEQ(data + 1000, rbuf, sizeof(rbuf));
	/* With an offset pointer the file position is not used ... */
	ASSERT_EQ(sizeof(data), lseek(fd, 0, SEEK_CUR));
	/* ... without, it is used and advanced. */
	ASSERT_EQ(10, lseek(fd, 10, SEEK_SET));
	ASSERT_EQ(100, sendfile(self->s, fd, NULL, 100));
	ASSERT_EQ(110, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(100, recv_all(self->p, rbuf, 100));
	ASSERT_MEMEQ(data + 10, rbuf, 100);
	close(fd);
}

TEST_F(sockapi, splice)
{
	uint8_t buf[4000], out[4000];
	int pfd[2];
	size_t n;
	ssize_t r;

	connect_pair(self, variant);
	ASSERT_SYS(pipe(pfd));
	/* Nothing to read on a non-blocking socket (SPLICE_F_NONBLOCK is about the pipe). */
	set_nonblock(self->s, true);
	ASSERT_ERRNO(splice(self->s, NULL, pfd[1], NULL, 100, 0), EAGAIN);
	set_nonblock(self->s, false);

	/* socket -> pipe */
	fill_pattern(buf, sizeof(buf), 21);
	ASSERT_EQ(sizeof(buf), send(self->p, buf, sizeof(buf), 0));
	for (n = 0; n < sizeof(buf); n += r)
		r = ASSERT_SYS(splice(self->s, NULL, pfd[1], NULL, sizeof(buf) - n, 0));
	ASSERT_EQ(sizeof(out), read(pfd[0], out, sizeof(out)));
	ASSERT_MEMEQ(buf, out, sizeof(buf));

	/* pipe -> socket */
	fill_pattern(buf, sizeof(buf), 22);
	ASSERT_EQ(sizeof(buf), write(pfd[1], buf, sizeof(buf)));
	for (n = 0; n < sizeof(buf); n += r)
		r = ASSERT_SYS(splice(pfd[0], NULL, self->s, NULL, sizeof(buf) - n, 0));
	ASSERT_EQ(sizeof(out), recv_all(self->p, out, sizeof(out)));
	ASSERT_MEMEQ(buf, out, sizeof(buf));
	close(pfd[0]);
	close(pfd[1]);
}

/* ---- readiness: poll, select, epoll ---- */

TEST_F(sockapi, poll_in)
{
	char ch;

	connect_pair(self, variant);
	ASSERT_EQ(0, poll1(self->s, POLLIN | POLLPRI | POLLRDHUP, 0));
	send_str(self->p, "x");
	ASSERT_EQ(POLLIN, poll1(self->s, POLLIN | POLLPRI | POLLRDHUP, POLL_WAIT_MS));
	ASSERT_EQ(POLLIN | POLLRDNORM, poll1(self->s, POLLIN | POLLRDNORM, 0));
	ASSERT_EQ(1, recv(self->s, &ch, 1, 0));
	ASSERT_EQ(0, poll1(self->s, POLLIN, 0));
}

TEST_F(sockapi, poll_out)
{
	size_t total;

	connect_pair(self, variant);
	ASSERT_EQ(POLLOUT, poll1(self->s, POLLIN | POLLOUT, 0));
	ASSERT_EQ(POLLOUT | POLLWRNORM, poll1(self->s, POLLOUT | POLLWRNORM, 0));
	total = fill_sndbuf(self->s);
	ASSERT_EQ(0, poll1(self->s, POLLOUT, 0));
	drain_check(self->p, total);
	ASSERT_EQ(POLLOUT, poll1(self->s, POLLOUT, POLL_WAIT_MS));
}

TEST_F(sockapi, poll_rdhup)
{
	char ch;

	connect_pair(self, variant);
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	/* POLLOUT alone would end the wait before the FIN is in */
	ASSERT_TRUE(poll1(self->s, POLLRDHUP, POLL_WAIT_MS) & POLLRDHUP);
	ASSERT_EQ(POLLIN | POLLOUT | POLLRDHUP,
		  poll1(self->s, POLLIN | POLLOUT | POLLRDHUP, 0));
	ASSERT_EQ(0, ASSERT_SYS(recv(self->s, &ch, 1, 0)));
	/* Still writable. */
	send_str(self->s, "y");
	recv_str(self->p, "y");
	ASSERT_EQ(POLLIN | POLLOUT | POLLRDHUP,
		  poll1(self->s, POLLIN | POLLOUT | POLLRDHUP, 0));
}

TEST_F(sockapi, poll_hup)
{
	short ev = POLLIN | POLLOUT | POLLRDHUP;
	char ch;

	connect_pair(self, variant);
	ASSERT_EQ(POLLOUT, poll1(self->s, ev, 0));
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	ASSERT_TRUE(poll1(self->s, POLLRDHUP, POLL_WAIT_MS) & POLLRDHUP);
	ASSERT_SYS(shutdown(self->s, SHUT_WR));
	ASSERT_EQ(POLLIN | POLLOUT | POLLHUP | POLLRDHUP, poll1(self->s, ev, 0));
	ASSERT_EQ(0, ASSERT_SYS(recv(self->p, &ch, 1, 0)));
	ASSERT_EQ(POLLIN | POLLOUT | POLLHUP | POLLRDHUP, poll1(self->p, ev, POLL_WAIT_MS));
}

TEST_F(sockapi, poll_unconnected)
{
	short ev = POLLIN | POLLOUT | POLLRDHUP;
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	int c;

	/* A new TCP socket is "closed": writable and hung up. */
	ASSERT_EQ(POLLOUT | POLLHUP, poll1(fd, ev, 0));
	bind_lo(variant, fd, 0);
	ASSERT_EQ(POLLOUT | POLLHUP, poll1(fd, ev, 0));
	close(fd);
	/* A listener: nothing until a connection is ready to accept. */
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	ASSERT_EQ(0, poll1(self->lfd, ev, 0));
	c = make_client(variant, variant->cli_smc, self->port);
	ASSERT_EQ(POLLIN, poll1(self->lfd, ev, POLL_WAIT_MS));
	close(accept_wait(self->lfd));
	close(c);
}

TEST_F(sockapi, select)
{
	struct timeval tv = { 0, 0 };
	fd_set r, w;

	connect_pair(self, variant);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(self->s, &r);
	FD_SET(self->s, &w);
	ASSERT_EQ(1, select(self->s + 1, &r, &w, NULL, &tv));
	ASSERT_FALSE(FD_ISSET(self->s, &r));
	ASSERT_TRUE(FD_ISSET(self->s, &w));

	send_str(self->p, "sel");
	FD_ZERO(&r);
	FD_SET(self->s, &r);
	tv.tv_sec = POLL_WAIT_MS / 1000;
	ASSERT_EQ(1, select(self->s + 1, &r, NULL, NULL, &tv));
	ASSERT_TRUE(FD_ISSET(self->s, &r));
	recv_str(self->s, "sel");
	FD_ZERO(&r);
	FD_SET(self->s, &r);
	tv.tv_sec = 0;
	tv.tv_usec = 50000;
	ASSERT_EQ(0, select(self->s + 1, &r, NULL, NULL, &tv));
}

static int epoll_for(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };
	int ep = ASSERT_SYS(epoll_create1(EPOLL_CLOEXEC));

	ASSERT_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	return ep;
}

/* Returns the events reported for fd (0 if none within timeout). */
static uint32_t epoll_once(int ep, int fd, int timeout_ms)
{
	struct epoll_event ev[4];
	int n = ASSERT_SYS(epoll_wait(ep, ev, 4, timeout_ms));

	if (!n)
		return 0;
	ASSERT_EQ(1, n);
	ASSERT_EQ(fd, ev[0].data.fd);
	return ev[0].events;
}

TEST_F(sockapi, epoll_lt)
{
	char buf[16];
	int ep, i;

	connect_pair(self, variant);
	ep = epoll_for(self->s, EPOLLIN | EPOLLRDHUP);
	ASSERT_EQ(0, epoll_once(ep, self->s, 0));
	send_str(self->p, "level");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(EPOLLIN, epoll_once(ep, self->s, POLL_WAIT_MS));
	ASSERT_EQ(5, wait_inq(self->s, 5));
	ASSERT_EQ(5, recv(self->s, buf, sizeof(buf), 0));
	ASSERT_EQ(0, epoll_once(ep, self->s, 100));
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	ASSERT_EQ(EPOLLIN | EPOLLRDHUP, epoll_once(ep, self->s, POLL_WAIT_MS));
	ASSERT_EQ(EPOLLIN | EPOLLRDHUP, epoll_once(ep, self->s, 0));
	close(ep);
}

TEST_F(sockapi, epoll_et)
{
	char buf[16];
	int ep;

	connect_pair(self, variant);
	ep = epoll_for(self->s, EPOLLIN | EPOLLET);
	ASSERT_EQ(0, epoll_once(ep, self->s, 0));
	send_str(self->p, "edge");
	ASSERT_EQ(EPOLLIN, epoll_once(ep, self->s, POLL_WAIT_MS));
	/* Not read, but no new arrival: no new event. */
	ASSERT_EQ(0, epoll_once(ep, self->s, 100));
	send_str(self->p, "more");
	ASSERT_EQ(EPOLLIN, epoll_once(ep, self->s, POLL_WAIT_MS));
	ASSERT_EQ(0, epoll_once(ep, self->s, 100));
	ASSERT_EQ(8, wait_inq(self->s, 8));
	ASSERT_EQ(8, recv(self->s, buf, sizeof(buf), 0));
	ASSERT_MEMEQ("edgemore", buf, 8);
	ASSERT_EQ(0, epoll_once(ep, self->s, 50));
	close(ep);
}

/*
 * Edge-triggered EPOLLOUT: a send that fails with EAGAIN is the promise of
 * an event once there is room again, with no poll() in between.
 */
TEST_F(sockapi, epoll_et_out)
{
	size_t total;
	int ep;

	connect_pair(self, variant);
	ep = epoll_for(self->s, EPOLLOUT | EPOLLET);
	ASSERT_EQ(EPOLLOUT, epoll_once(ep, self->s, POLL_WAIT_MS));
	total = send_until_eagain(self->s, 0);
	drain_check(self->p, total);
	ASSERT_EQ(EPOLLOUT, epoll_once(ep, self->s, POLL_WAIT_MS));
	close(ep);
}

/* ---- shutdown() and close() ---- */

TEST_F(sockapi, shutdown_wr)
{
	char ch;

	connect_pair(self, variant);
	send_str(self->s, "last");
	ASSERT_SYS(shutdown(self->s, SHUT_WR));
	recv_str(self->p, "last");
	ASSERT_EQ(0, ASSERT_SYS(recv(self->p, &ch, 1, 0)));
	ASSERT_EQ(0, ASSERT_SYS(recv(self->p, &ch, 1, 0)));
	ASSERT_ERRNO(send(self->s, "x", 1, MSG_NOSIGNAL), EPIPE);
	ASSERT_EQ(0, sigpipes);
	/* The other direction still works. */
	send_str(self->p, "back");
	recv_str(self->s, "back");
	ASSERT_SYS(shutdown(self->p, SHUT_WR));
	ASSERT_EQ(0, recv_all(self->s, &ch, 1));
}

TEST_F(sockapi, shutdown_rd)
{
	double t0;
	char ch;

	connect_pair(self, variant);
	ASSERT_SYS(shutdown(self->s, SHUT_RD));
	set_timeo(self->s, SO_RCVTIMEO, 2000);	/* a safety net: it must not block */
	t0 = now();
	ASSERT_EQ(0, ASSERT_SYS(recv(self->s, &ch, 1, 0)));
	ASSERT_GT(1.0, now() - t0);
	ASSERT_EQ(POLLIN | POLLOUT | POLLRDHUP,
		  poll1(self->s, POLLIN | POLLOUT | POLLRDHUP, 0));
	/* Sending still works. */
	send_str(self->s, "z");
	recv_str(self->p, "z");
}

TEST_F(sockapi, shutdown_rdwr)
{
	char ch;

	connect_pair(self, variant);
	ASSERT_SYS(shutdown(self->s, SHUT_RDWR));
	ASSERT_EQ(0, recv_all(self->p, &ch, 1));
	ASSERT_EQ(0, ASSERT_SYS(recv(self->s, &ch, 1, 0)));
	ASSERT_ERRNO(send(self->s, "x", 1, MSG_NOSIGNAL), EPIPE);
	ASSERT_EQ(0, sigpipes);
	/* The peer may still send; s just does not read it. */
	send_str(self->p, "ignored");
}

TEST_F(sockapi, shutdown_unconnected)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	ASSERT_ERRNO(shutdown(fd, 3), EINVAL);
	ASSERT_ERRNO(shutdown(fd, -1), EINVAL);
	ASSERT_ERRNO(shutdown(fd, SHUT_RD), ENOTCONN);
	ASSERT_ERRNO(shutdown(fd, SHUT_WR), ENOTCONN);
	ASSERT_ERRNO(shutdown(fd, SHUT_RDWR), ENOTCONN);
	bind_lo(variant, fd, 0);
	ASSERT_ERRNO(shutdown(fd, SHUT_RDWR), ENOTCONN);
	close(fd);
}

TEST_F(sockapi, shutdown_listener)
{
	uint16_t port;
	int c;

	self->lfd = make_listener(variant, variant->srv_smc, 4, &port);
	/* SHUT_WR does nothing to a listener ... */
	ASSERT_EQ(0, shutdown(self->lfd, SHUT_WR));
	c = make_client(variant, variant->cli_smc, port);
	close(accept_wait(self->lfd));
	close(c);
	/* ... SHUT_RD stops it (and wakes a blocked accept()). */
	ASSERT_EQ(0, shutdown(self->lfd, SHUT_RD));
	ASSERT_EQ(0, get_int(self->lfd, SOL_SOCKET, SO_ACCEPTCONN));
	ASSERT_ERRNO(accept(self->lfd, NULL, NULL), EINVAL);
	c = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	ASSERT_ERRNO(connect_lo(variant, c, port), ECONNREFUSED);
	close(c);
}

TEST_F(sockapi, close_unread_rst)
{
	char ch;

	connect_pair(self, variant);
	send_str(self->p, "unread");
	ASSERT_EQ(6, wait_inq(self->s, 6));
	close_fd(self, self->s);
	ASSERT_TRUE(poll1(self->p, POLLIN, POLL_WAIT_MS) & POLLERR);
	ASSERT_ERRNO(recv(self->p, &ch, 1, 0), ECONNRESET);
	/* The error is reported once; then the connection reads as closed. */
	ASSERT_EQ(0, ASSERT_SYS(recv(self->p, &ch, 1, 0)));
	ASSERT_ERRNO(send(self->p, "x", 1, MSG_NOSIGNAL), EPIPE);
}

TEST_F(sockapi, linger_zero)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char ch;

	connect_pair(self, variant);
	ASSERT_SYS(setsockopt(self->s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close_fd(self, self->s);
	ASSERT_TRUE(poll1(self->p, POLLIN, POLL_WAIT_MS) & POLLERR);
	ASSERT_ERRNO(recv(self->p, &ch, 1, 0), ECONNRESET);
	ASSERT_EQ(0, get_int(self->p, SOL_SOCKET, SO_ERROR));
}

TEST_F(sockapi, linger_data)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 2 }, got;
	static uint8_t buf[32768], rbuf[32768 + 1];
	socklen_t len = sizeof(got);
	double t0;

	connect_pair(self, variant);
	ASSERT_SYS(setsockopt(self->s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_SYS(getsockopt(self->s, SOL_SOCKET, SO_LINGER, &got, &len));
	ASSERT_EQ(sizeof(got), len);
	ASSERT_EQ(1, got.l_onoff);
	ASSERT_EQ(2, got.l_linger);
	fill_pattern(buf, sizeof(buf), 99);
	ASSERT_EQ(sizeof(buf), send(self->s, buf, sizeof(buf), 0));
	t0 = now();
	close_fd(self, self->s);
	ASSERT_GT(2.5, now() - t0);
	ASSERT_EQ(sizeof(buf), recv_all(self->p, rbuf, sizeof(rbuf)));
	ASSERT_MEMEQ(buf, rbuf, sizeof(buf));
	ASSERT_EQ(0, recv_all(self->p, rbuf, 1));
}

/* ---- addresses ---- */

static void get_names(int fd, struct sockaddr_storage *local, struct sockaddr_storage *peer,
		      int family)
{
	socklen_t want = family == AF_INET6 ? sizeof(struct sockaddr_in6)
					    : sizeof(struct sockaddr_in);
	socklen_t len = sizeof(*local);

	memset(local, 0xee, sizeof(*local));
	ASSERT_SYS(getsockname(fd, (struct sockaddr *)local, &len));
	ASSERT_EQ(want, len);
	ASSERT_EQ(family, local->ss_family);
	if (!peer)
		return;
	len = sizeof(*peer);
	memset(peer, 0xee, sizeof(*peer));
	ASSERT_SYS(getpeername(fd, (struct sockaddr *)peer, &len));
	ASSERT_EQ(want, len);
	ASSERT_EQ(family, peer->ss_family);
}

TEST_F(sockapi, getsockname_getpeername)
{
	struct sockaddr_storage cl, cp, al, ap, ll;
	socklen_t len = variant->family == AF_INET6 ? sizeof(struct sockaddr_in6)
						    : sizeof(struct sockaddr_in);
	struct sockaddr_storage want;

	connect_pair(self, variant);
	get_names(self->lfd, &ll, NULL, variant->family);
	get_names(self->cfd, &cl, &cp, variant->family);
	get_names(self->afd, &al, &ap, variant->family);
	lo_addr(variant->family, self->port, &want);
	ASSERT_MEMEQ(&want, &ll, len);
	ASSERT_MEMEQ(&want, &cp, len);
	ASSERT_MEMEQ(&want, &al, len);
	ASSERT_MEMEQ(&cl, &ap, len);
	ASSERT_TRUE(ss_is_loopback(&cl));
	ASSERT_NE(self->port, ss_port(&cl));
	/* A short buffer is filled up to its size, the full length returned. */
	memset(&ap, 0, sizeof(ap));
	len = 4;
	ASSERT_SYS(getpeername(self->afd, (struct sockaddr *)&ap, &len));
	ASSERT_EQ(variant->family == AF_INET6 ? sizeof(struct sockaddr_in6)
					      : sizeof(struct sockaddr_in), len);
	ASSERT_MEMEQ(&cl, &ap, 4);
	ASSERT_EQ(0, ((char *)&ap)[4]);
}

TEST_F(sockapi, getpeername_unconnected)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ASSERT_ERRNO(getpeername(fd, (struct sockaddr *)&ss, &len), ENOTCONN);
	get_names(fd, &ss, NULL, variant->family);
	ASSERT_EQ(0, ss_port(&ss));
	ASSERT_TRUE(ss_is_any(&ss));
	close(fd);
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	len = sizeof(ss);
	ASSERT_ERRNO(getpeername(self->lfd, (struct sockaddr *)&ss, &len), ENOTCONN);
}

/* ---- SOL_SOCKET options ---- */

TEST_F(sockapi, so_keepalive)
{
	connect_pair(self, variant);
	ASSERT_EQ(0, get_int(self->s, SOL_SOCKET, SO_KEEPALIVE));
	set_int(self->s, SOL_SOCKET, SO_KEEPALIVE, 1);
	ASSERT_EQ(1, get_int(self->s, SOL_SOCKET, SO_KEEPALIVE));
	set_int(self->s, SOL_SOCKET, SO_KEEPALIVE, 0);
	ASSERT_EQ(0, get_int(self->s, SOL_SOCKET, SO_KEEPALIVE));
	set_int(self->s, SOL_SOCKET, SO_KEEPALIVE, 42);	/* any non-zero is on */
	ASSERT_EQ(1, get_int(self->s, SOL_SOCKET, SO_KEEPALIVE));
	send_str(self->s, "ka");
	recv_str(self->p, "ka");
}

TEST_F(sockapi, so_bufs)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	/* Linux doubles the value for its bookkeeping overhead. */
	set_int(fd, SOL_SOCKET, SO_RCVBUF, 65536);
	ASSERT_EQ(131072, get_int(fd, SOL_SOCKET, SO_RCVBUF));
	set_int(fd, SOL_SOCKET, SO_SNDBUF, 65536);
	ASSERT_EQ(131072, get_int(fd, SOL_SOCKET, SO_SNDBUF));
	close(fd);
	connect_pair(self, variant);
	set_int(self->s, SOL_SOCKET, SO_RCVBUF, 50000);
	ASSERT_EQ(100000, get_int(self->s, SOL_SOCKET, SO_RCVBUF));
	set_int(self->s, SOL_SOCKET, SO_SNDBUF, 40000);
	ASSERT_EQ(80000, get_int(self->s, SOL_SOCKET, SO_SNDBUF));
	send_str(self->s, "bufs");
	recv_str(self->p, "bufs");
}

TEST_F(sockapi, so_rcvtimeo)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);
	double t0, dt;
	char ch;

	connect_pair(self, variant);
	set_timeo(self->s, SO_RCVTIMEO, 300);
	ASSERT_SYS(getsockopt(self->s, SOL_SOCKET, SO_RCVTIMEO, &tv, &len));
	ASSERT_EQ(sizeof(tv), len);
	ASSERT_EQ(0, tv.tv_sec);
	ASSERT_LE(290000, tv.tv_usec);
	ASSERT_GE(310000, tv.tv_usec);
	t0 = now();
	ASSERT_ERRNO(recv(self->s, &ch, 1, 0), EAGAIN);
	dt = now() - t0;
	ASSERT_LE(0.25, dt);
	ASSERT_GT(3.0, dt);
	t0 = now();
	ASSERT_ERRNO(read(self->s, &ch, 1), EAGAIN);
	ASSERT_LE(0.25, now() - t0);
	/* Data arriving in time is returned. */
	send_str(self->p, "t");
	recv_str(self->s, "t");
}

TEST_F(sockapi, so_sndtimeo)
{
	static uint8_t chunk[65536];
	double t0 = 0, dt = 0;
	size_t total;
	ssize_t r = 0;
	int i;

	connect_pair(self, variant);
	total = fill_sndbuf(self->s);
	set_timeo(self->s, SO_SNDTIMEO, 300);
	/* A blocking send returns what it could queue, or EAGAIN after the timeout. */
	for (i = 0; i < 50; i++) {
		size_t k;

		for (k = 0; k < sizeof(chunk); k++)
			chunk[k] = stream_byte(total + k);
		t0 = now();
		r = send(self->s, chunk, sizeof(chunk), MSG_NOSIGNAL);
		dt = now() - t0;
		if (r < 0)
			break;
		total += r;
	}
	ASSERT_EQ(-1, r);
	ASSERT_EQ(EAGAIN, errno);
	ASSERT_LE(0.25, dt);
	ASSERT_GT(3.0, dt);
	drain_check(self->p, total);
}

TEST_F(sockapi, so_type)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	ASSERT_EQ(SOCK_STREAM, get_int(fd, SOL_SOCKET, SO_TYPE));
	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ACCEPTCONN));
	close(fd);
	connect_pair(self, variant);
	ASSERT_EQ(SOCK_STREAM, get_int(self->lfd, SOL_SOCKET, SO_TYPE));
	ASSERT_EQ(SOCK_STREAM, get_int(self->cfd, SOL_SOCKET, SO_TYPE));
	ASSERT_EQ(SOCK_STREAM, get_int(self->afd, SOL_SOCKET, SO_TYPE));
	ASSERT_EQ(1, get_int(self->lfd, SOL_SOCKET, SO_ACCEPTCONN));
	ASSERT_EQ(0, get_int(self->cfd, SOL_SOCKET, SO_ACCEPTCONN));
	ASSERT_EQ(0, get_int(self->afd, SOL_SOCKET, SO_ACCEPTCONN));
	ASSERT_ERRNO(setsockopt(self->s, SOL_SOCKET, SO_TYPE, &(int){ SOCK_DGRAM },
				sizeof(int)), ENOPROTOOPT);
}

TEST_F(sockapi, so_domain)
{
	int cli = variant->cli_smc ? AF_SMC : variant->family;
	int srv = variant->srv_smc ? AF_SMC : variant->family;

	/* The one place where an AF_SMC socket does not look like TCP. */
	connect_pair(self, variant);
	ASSERT_EQ(cli, get_int(self->cfd, SOL_SOCKET, SO_DOMAIN));
	ASSERT_EQ(srv, get_int(self->lfd, SOL_SOCKET, SO_DOMAIN));
	ASSERT_EQ(srv, get_int(self->afd, SOL_SOCKET, SO_DOMAIN));
}

TEST_F(sockapi, so_error)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	ASSERT_EQ(0, get_int(fd, SOL_SOCKET, SO_ERROR));
	close(fd);
	connect_pair(self, variant);
	ASSERT_EQ(0, get_int(self->lfd, SOL_SOCKET, SO_ERROR));
	ASSERT_EQ(0, get_int(self->cfd, SOL_SOCKET, SO_ERROR));
	ASSERT_EQ(0, get_int(self->afd, SOL_SOCKET, SO_ERROR));
	ASSERT_ERRNO(setsockopt(self->s, SOL_SOCKET, SO_ERROR, &(int){ 0 }, sizeof(int)),
		     ENOPROTOOPT);
}

/* ---- IPPROTO_TCP options ---- */

TEST_F(sockapi, tcp_nodelay)
{
	connect_pair(self, variant);
	ASSERT_EQ(0, get_int(self->s, IPPROTO_TCP, TCP_NODELAY));
	set_int(self->s, IPPROTO_TCP, TCP_NODELAY, 1);
	ASSERT_EQ(1, get_int(self->s, IPPROTO_TCP, TCP_NODELAY));
	send_str(self->s, "n");
	recv_str(self->p, "n");
	set_int(self->s, IPPROTO_TCP, TCP_NODELAY, 0);
	ASSERT_EQ(0, get_int(self->s, IPPROTO_TCP, TCP_NODELAY));
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_NODELAY, "", 1), EINVAL);
}

TEST_F(sockapi, tcp_cork)
{
	connect_pair(self, variant);
	ASSERT_EQ(0, get_int(self->s, IPPROTO_TCP, TCP_CORK));
	set_int(self->s, IPPROTO_TCP, TCP_CORK, 1);
	ASSERT_EQ(1, get_int(self->s, IPPROTO_TCP, TCP_CORK));
	send_str(self->s, "co");
	send_str(self->s, "rk");
	send_str(self->s, "ed");
	set_int(self->s, IPPROTO_TCP, TCP_CORK, 0);
	ASSERT_EQ(0, get_int(self->s, IPPROTO_TCP, TCP_CORK));
	recv_str(self->p, "corked");
}

TEST_F(sockapi, tcp_maxseg)
{
	int fd = ASSERT_SYS(new_sock(variant, variant->cli_smc, 0));
	int mss;

	ASSERT_EQ(536, get_int(fd, IPPROTO_TCP, TCP_MAXSEG));	/* TCP's default */
	set_int(fd, IPPROTO_TCP, TCP_MAXSEG, 1200);
	ASSERT_EQ(1200, get_int(fd, IPPROTO_TCP, TCP_MAXSEG));
	ASSERT_ERRNO(setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &(int){ 10 }, sizeof(int)),
		     EINVAL);
	ASSERT_ERRNO(setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &(int){ 70000 },
				sizeof(int)), EINVAL);
	ASSERT_EQ(1200, get_int(fd, IPPROTO_TCP, TCP_MAXSEG));
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	ASSERT_SYS(connect_lo(variant, fd, self->port));
	self->cfd = fd;
	self->afd = accept_wait(self->lfd);
	/* Connected: the MSS in use, within the clamp (less TCP options). */
	mss = get_int(fd, IPPROTO_TCP, TCP_MAXSEG);
	ASSERT_LT(1000, mss);
	ASSERT_GE(1200, mss);
	mss = get_int(self->afd, IPPROTO_TCP, TCP_MAXSEG);
	ASSERT_LT(1000, mss);
	ASSERT_GE(1200, mss);
	send_str(fd, "mss");
	recv_str(self->afd, "mss");
}

static int read_sysctl(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int val = dflt;

	if (f) {
		if (fscanf(f, "%d", &val) != 1)
			val = dflt;
		fclose(f);
	}
	return val;
}

TEST_F(sockapi, tcp_keepalive)
{
	connect_pair(self, variant);
	/* Unset, they read back as the sysctl defaults. */
	ASSERT_EQ(read_sysctl("/proc/sys/net/ipv4/tcp_keepalive_time", 7200),
		  get_int(self->s, IPPROTO_TCP, TCP_KEEPIDLE));
	ASSERT_EQ(read_sysctl("/proc/sys/net/ipv4/tcp_keepalive_intvl", 75),
		  get_int(self->s, IPPROTO_TCP, TCP_KEEPINTVL));
	ASSERT_EQ(read_sysctl("/proc/sys/net/ipv4/tcp_keepalive_probes", 9),
		  get_int(self->s, IPPROTO_TCP, TCP_KEEPCNT));
	set_int(self->s, IPPROTO_TCP, TCP_KEEPIDLE, 30);
	set_int(self->s, IPPROTO_TCP, TCP_KEEPINTVL, 5);
	set_int(self->s, IPPROTO_TCP, TCP_KEEPCNT, 3);
	ASSERT_EQ(30, get_int(self->s, IPPROTO_TCP, TCP_KEEPIDLE));
	ASSERT_EQ(5, get_int(self->s, IPPROTO_TCP, TCP_KEEPINTVL));
	ASSERT_EQ(3, get_int(self->s, IPPROTO_TCP, TCP_KEEPCNT));
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_KEEPIDLE, &(int){ 0 },
				sizeof(int)), EINVAL);
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_KEEPINTVL, &(int){ 0 },
				sizeof(int)), EINVAL);
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_KEEPCNT, &(int){ 0 },
				sizeof(int)), EINVAL);
	ASSERT_EQ(30, get_int(self->s, IPPROTO_TCP, TCP_KEEPIDLE));
}

/* SOL_SMC SMC_LIMIT_HS (<linux/smc.h>): a socket starts from
 * net.smc.limit_smc_hs and keeps a value of its own; an unknown SOL_SMC
 * option fails with ENOPROTOOPT, as an unknown TCP one does.
 */
TEST_F(sockapi, sol_smc_limit_hs)
{
	int sys = read_sysctl("/proc/sys/net/smc/limit_smc_hs", -1);
	socklen_t len = 0;
	int fd, val = -1;

	if (!solo_smc(variant))
		SKIP("AF_SMC only (SOL_SMC)");
	fd = ASSERT_SYS(new_sock(variant, true, 0));
	ASSERT_LE(0, sys);
	ASSERT_EQ(sys, get_int(fd, SOL_SMC, SMC_LIMIT_HS));
	set_int(fd, SOL_SMC, SMC_LIMIT_HS, !sys);
	ASSERT_EQ(!sys, get_int(fd, SOL_SMC, SMC_LIMIT_HS));
	ASSERT_EQ(sys, read_sysctl("/proc/sys/net/smc/limit_smc_hs", -1));
	set_int(fd, SOL_SMC, SMC_LIMIT_HS, 5);
	ASSERT_EQ(1, get_int(fd, SOL_SMC, SMC_LIMIT_HS));
	set_int(fd, SOL_SMC, SMC_LIMIT_HS, 0);
	ASSERT_EQ(0, get_int(fd, SOL_SMC, SMC_LIMIT_HS));
	ASSERT_ERRNO(setsockopt(fd, SOL_SMC, SMC_LIMIT_HS, "", 1), EINVAL);
	ASSERT_ERRNO(setsockopt(fd, SOL_SMC, 77, &(int){ 1 }, sizeof(int)),
		     ENOPROTOOPT);
	ASSERT_ERRNO(getsockopt(fd, SOL_SMC, 77, &val,
				&(socklen_t){ sizeof(val) }), ENOPROTOOPT);
	/* a zero length reads nothing, as at SOL_TCP */
	ASSERT_SYS(getsockopt(fd, SOL_SMC, SMC_LIMIT_HS, &val, &len));
	ASSERT_EQ(0, len);
	ASSERT_EQ(-1, val);
	close(fd);
}

TEST_F(sockapi, tcp_user_timeout)
{
	connect_pair(self, variant);
	ASSERT_EQ(0, get_int(self->s, IPPROTO_TCP, TCP_USER_TIMEOUT));
	set_int(self->s, IPPROTO_TCP, TCP_USER_TIMEOUT, 5000);
	ASSERT_EQ(5000, get_int(self->s, IPPROTO_TCP, TCP_USER_TIMEOUT));
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_USER_TIMEOUT, &(int){ -1 },
				sizeof(int)), EINVAL);
	ASSERT_EQ(5000, get_int(self->s, IPPROTO_TCP, TCP_USER_TIMEOUT));
}

static void get_cc(int fd, char *name)
{
	socklen_t len = 16;

	memset(name, 0, 17);
	ASSERT_SYS(getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len));
	ASSERT_GE(16, len);
}

TEST_F(sockapi, tcp_congestion)
{
	char name[17], dflt[32] = "";
	FILE *f;

	connect_pair(self, variant);
	get_cc(self->s, name);
	f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
	if (f) {
		if (fscanf(f, "%31s", dflt) == 1)
			ASSERT_STREQ(dflt, name);
		fclose(f);
	}
	ASSERT_SYS(setsockopt(self->s, IPPROTO_TCP, TCP_CONGESTION, "reno", 4));
	get_cc(self->s, name);
	ASSERT_STREQ("reno", name);
	ASSERT_ERRNO(setsockopt(self->s, IPPROTO_TCP, TCP_CONGESTION, "smc_no_such_cc", 14),
		     ENOENT);
	get_cc(self->s, name);
	ASSERT_STREQ("reno", name);
	send_str(self->s, "cc");
	recv_str(self->p, "cc");
}

/* ---- ioctl() and fcntl() ---- */

TEST_F(sockapi, ioctl_inq)
{
	static char buf[777];
	int n = -1;

	connect_pair(self, variant);
	ASSERT_SYS(ioctl(self->s, FIONREAD, &n));
	ASSERT_EQ(0, n);
	memset(buf, 'q', sizeof(buf));
	ASSERT_EQ(777, send(self->p, buf, sizeof(buf), 0));
	ASSERT_EQ(777, wait_inq(self->s, 777));
	ASSERT_SYS(ioctl(self->s, SIOCINQ, &n));
	ASSERT_EQ(777, n);
	ASSERT_EQ(700, recv(self->s, buf, 700, 0));
	ASSERT_SYS(ioctl(self->s, FIONREAD, &n));
	ASSERT_EQ(77, n);
	ASSERT_SYS(ioctl(self->s, SIOCATMARK, &n));
	ASSERT_EQ(0, n);
	ASSERT_EQ(77, recv(self->s, buf, sizeof(buf), 0));
	ASSERT_SYS(ioctl(self->s, SIOCINQ, &n));
	ASSERT_EQ(0, n);
}

/* Polls until SIOCOUTQ and SIOCOUTQNSD are both 0. */
static void wait_outq_empty(int fd)
{
	double end = now() + POLL_WAIT_MS / 1000.0;
	int outq, nsd;

	for (;;) {
		ASSERT_SYS(ioctl(fd, SIOCOUTQ, &outq));
		ASSERT_SYS(ioctl(fd, SIOCOUTQNSD, &nsd));
		if ((!outq && !nsd) || now() > end)
			break;
		usleep(5000);
	}
	ASSERT_EQ(0, outq);
	ASSERT_EQ(0, nsd);
}

TEST_F(sockapi, ioctl_outq)
{
	int outq = -1, nsd = -1;
	size_t total;

	connect_pair(self, variant);
	ASSERT_SYS(ioctl(self->s, SIOCOUTQ, &outq));
	ASSERT_SYS(ioctl(self->s, SIOCOUTQNSD, &nsd));
	ASSERT_EQ(0, outq);
	ASSERT_EQ(0, nsd);
	/* The peer does not read: its window closes and data waits here. */
	total = fill_sndbuf(self->s);
	ASSERT_SYS(ioctl(self->s, SIOCOUTQ, &outq));
	ASSERT_SYS(ioctl(self->s, SIOCOUTQNSD, &nsd));
	ASSERT_LT(0, outq);
	ASSERT_LT(0, nsd);
	ASSERT_LE(nsd, outq);
	ASSERT_GE(total, outq);
	drain_check(self->p, total);
	wait_outq_empty(self->s);
	send_str(self->s, "abc");
	recv_str(self->p, "abc");
	wait_outq_empty(self->s);
}

TEST_F(sockapi, ioctl_listen)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	int n = -1;

	/* Unconnected: empty queues. */
	ASSERT_SYS(ioctl(fd, SIOCINQ, &n));
	ASSERT_EQ(0, n);
	ASSERT_SYS(ioctl(fd, SIOCOUTQ, &n));
	ASSERT_EQ(0, n);
	close(fd);
	/* A listener has no queues to count. */
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	ASSERT_ERRNO(ioctl(self->lfd, SIOCINQ, &n), EINVAL);
	ASSERT_ERRNO(ioctl(self->lfd, FIONREAD, &n), EINVAL);
	ASSERT_ERRNO(ioctl(self->lfd, SIOCOUTQ, &n), EINVAL);
	ASSERT_ERRNO(ioctl(self->lfd, SIOCOUTQNSD, &n), EINVAL);
}

TEST_F(sockapi, fcntl_nonblock)
{
	double t0;
	char ch;

	connect_pair(self, variant);
	set_nonblock(self->s, true);
	ASSERT_TRUE(ASSERT_SYS(fcntl(self->s, F_GETFL)) & O_NONBLOCK);
	ASSERT_ERRNO(recv(self->s, &ch, 1, 0), EAGAIN);
	ASSERT_ERRNO(read(self->s, &ch, 1), EAGAIN);
	set_nonblock(self->s, false);
	ASSERT_FALSE(ASSERT_SYS(fcntl(self->s, F_GETFL)) & O_NONBLOCK);
	/* Blocking again: recv waits (here until SO_RCVTIMEO). */
	set_timeo(self->s, SO_RCVTIMEO, 200);
	t0 = now();
	ASSERT_ERRNO(recv(self->s, &ch, 1, 0), EAGAIN);
	ASSERT_LE(0.15, now() - t0);
	/* FIONBIO toggles the same flag. */
	ASSERT_SYS(ioctl(self->s, FIONBIO, &(int){ 1 }));
	ASSERT_TRUE(ASSERT_SYS(fcntl(self->s, F_GETFL)) & O_NONBLOCK);
	t0 = now();
	ASSERT_ERRNO(recv(self->s, &ch, 1, 0), EAGAIN);
	ASSERT_GT(0.1, now() - t0);
}

TEST_F(sockapi, oob)
{
	char buf[16];
	int mark = -1;

	connect_pair(self, variant);
	send_str(self->p, "abc");
	ASSERT_EQ(1, send(self->p, "X", 1, MSG_OOB));
	send_str(self->p, "def");
	ASSERT_TRUE(poll1(self->s, POLLPRI, POLL_WAIT_MS) & POLLPRI);
	/* FIONREAD counts up to the urgent mark only. */
	ASSERT_EQ(3, wait_inq(self->s, 3));
	ASSERT_SYS(ioctl(self->s, SIOCATMARK, &mark));
	ASSERT_EQ(0, mark);
	ASSERT_EQ(1, recv(self->s, buf, 1, MSG_OOB));
	ASSERT_EQ('X', buf[0]);
	/* Read once only; the normal stream stops at the mark. */
	ASSERT_ERRNO(recv(self->s, buf, 1, MSG_OOB), EINVAL);
	ASSERT_EQ(3, recv(self->s, buf, sizeof(buf), 0));
	ASSERT_MEMEQ("abc", buf, 3);
	ASSERT_SYS(ioctl(self->s, SIOCATMARK, &mark));
	ASSERT_EQ(1, mark);
	ASSERT_EQ(3, recv_all(self->s, buf, 3));
	ASSERT_MEMEQ("def", buf, 3);
	ASSERT_SYS(ioctl(self->s, SIOCATMARK, &mark));
	ASSERT_EQ(0, mark);
	/* No urgent data pending. */
	ASSERT_ERRNO(recv(self->p, buf, 1, MSG_OOB), EINVAL);
}

/* ---- unconnected sockets ---- */

TEST_F(sockapi, recv_unconnected)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));
	char ch;

	ASSERT_ERRNO(recv(fd, &ch, 1, 0), ENOTCONN);
	ASSERT_ERRNO(recv(fd, &ch, 1, MSG_DONTWAIT), ENOTCONN);
	ASSERT_ERRNO(read(fd, &ch, 1), ENOTCONN);
	close(fd);
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	ASSERT_ERRNO(recv(self->lfd, &ch, 1, 0), ENOTCONN);
}

TEST_F(sockapi, send_unconnected)
{
	int fd = ASSERT_SYS(new_sock(variant, solo_smc(variant), 0));

	ASSERT_ERRNO(send(fd, "x", 1, MSG_NOSIGNAL), EPIPE);
	ASSERT_EQ(0, sigpipes);
	ASSERT_ERRNO(send(fd, "x", 1, 0), EPIPE);
	ASSERT_EQ(1, sigpipes);
	ASSERT_ERRNO(write(fd, "x", 1), EPIPE);
	ASSERT_EQ(2, sigpipes);
	close(fd);
	self->lfd = make_listener(variant, variant->srv_smc, 4, &self->port);
	ASSERT_ERRNO(send(self->lfd, "x", 1, MSG_NOSIGNAL), EPIPE);
	ASSERT_EQ(2, sigpipes);
}

TEST_HARNESS_MAIN
