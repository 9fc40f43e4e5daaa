// SPDX-License-Identifier: GPL-2.0
/* smc_bench: bulk throughput, request/response latency, connection rate and
 * idle connections over AF_SMC or TCP between two hosts; JSON line output.
 *
 * Server: smc_bench -s [-f smc|tcp] [-6] [-p PORT] [-b BUF] [-t LIFETIME]
 * Client: smc_bench -m stream|rr|crr|idle [-f smc|tcp] [-6] [-p PORT]
 *                   [-b BUF] [-P N] [-t SECS] [-n ITERS] [-S SIZE]
 *                   [-x JSON-FIELDS] HOST
 *
 * One server (a single epoll loop, no thread per connection, so that idle
 * connections cost only their sockets) serves every mode; the client's
 * first byte selects it:
 *   'S' stream: the client sends for SECS, half-closes; the server answers
 *       with the byte count it received (8 bytes, big endian) and closes.
 *       -P N parallel connections; throughput = bytes the server received
 *       / time from the common start to the last count received.
 *   'R' rr: 4 more bytes (size, big endian); then the client sends SIZE
 *       bytes, the server sends SIZE bytes back, repeated for SECS or
 *       ITERS rounds (after 5 unrecorded warm-up rounds); latency
 *       percentiles of the rounds.
 *   'C' crr: the byte is the request, the server answers one byte and
 *       closes after the client's close; -P N clients each loop socket,
 *       connect, request, response, close for SECS; connections/s.
 *   'I' idle: the client opens N (-P) connections, prints a line, holds
 *       them for SECS (or until SIGTERM/SIGUSR1) and closes them.
 * Pace: smc_bench -m pace (no server, no HOST) times a fixed CPU loop and
 * prints {"pace_ms":MS}, the fastest of three runs: in a TCG guest, how
 * fast the host runs the guest just then (the bench records it around
 * every test, so a report can tell a slower host from a slower module).
 * -b BUF sets SO_SNDBUF and SO_RCVBUF (before connect; on the server on
 * the listening socket, inherited by accepted ones). -x adds raw JSON
 * fields ("k":v,...) to every client result line.
 *
 * Nothing waits forever: reads poll with a timeout, writes have
 * SO_SNDTIMEO, the client main thread stops waiting for its workers after
 * SECS + 60 s and reports what it has, and alarm() ends the process after
 * that with an "error" line. Exit status 0 when the measurement ran
 * without errors, 1 with errors, 2 on usage errors, 3 on the watchdog.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../selftests/net/smc/smc_sockutil.h"

#define CHUNK		(64 * 1024)
#define IO_TIMEOUT_MS	15000
#define GRACE_S		60
#define WARMUP		5

static int opt_server, opt_smc = 1, opt_v6, opt_port = 29000, opt_buf;
static int opt_par = 1, opt_secs = 10, opt_size = 1;
static long opt_iters;
static const char *opt_mode = "stream", *opt_extra = "", *opt_host;

static volatile sig_atomic_t stop_flag;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] = "{\"role\":\"client\",\"error\":\"watchdog: "
				  "no result in time, killed\"}\n";
	ssize_t r;

	(void)sig;
	r = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(3);
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const char *fam_name(void)
{
	return opt_smc ? "smc" : "tcp";
}

static int sock_new(void)
{
	int fd = smc_sock_new(opt_smc, opt_v6);

	if (fd < 0)
		return -1;
	if (opt_buf > 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &opt_buf, sizeof(opt_buf));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &opt_buf, sizeof(opt_buf));
	}
	return fd;
}

static void set_nodelay(int fd)
{
	int one = 1;

	/* an error (e.g. not supported) only costs latency, ignore it */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void buf_sizes(int fd, int *snd, int *rcv)
{
	socklen_t l = sizeof(int);

	*snd = *rcv = -1;
	getsockopt(fd, SOL_SOCKET, SO_SNDBUF, snd, &l);
	l = sizeof(int);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcv, &l);
}

/* ---------------------------------------------------------------- server */

enum { HDR, DATA, DONE };

struct conn {
	int fd;
	int state;
	char mode;
	unsigned char hdr[5];
	int hdrlen;
	uint32_t size;		/* rr: message size */
	uint32_t got;		/* rr: bytes of the current request */
	uint64_t count;		/* stream: bytes received */
	uint64_t wpend;		/* bytes still to send */
	unsigned char cnt[8];	/* stream: the count, big endian */
	int cntoff;		/* >= 0 while the count is being sent */
	int out;		/* waiting for EPOLLOUT */
};

static struct {
	uint64_t accepted, bytes, errors, closed;
	int sndbuf, rcvbuf;
} srv;

static unsigned char zeros[CHUNK];

static void conn_close(int ep, struct conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	srv.closed++;
	free(c);
}

static void conn_watch(int ep, struct conn *c, int out)
{
	struct epoll_event ev = { .events = out ? EPOLLOUT : EPOLLIN,
				  .data.ptr = c };

	if (c->out == out)
		return;
	c->out = out;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* send what is pending: 0 all sent, 1 would block, -1 error */
static int conn_flush(struct conn *c)
{
	while (c->cntoff >= 0 && c->cntoff < 8) {
		ssize_t r = send(c->fd, c->cnt + c->cntoff, 8 - c->cntoff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r < 0)
			return errno == EAGAIN ? 1 : -1;
		c->cntoff += r;
	}
	while (c->wpend) {
		size_t n = c->wpend < CHUNK ? c->wpend : CHUNK;
		ssize_t r = send(c->fd, zeros, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r < 0)
			return errno == EAGAIN ? 1 : -1;
		c->wpend -= r;
	}
	return 0;
}

static void conn_consume(struct conn *c, const unsigned char *p, size_t n)
{
	while (n && c->state == HDR) {
		c->hdr[c->hdrlen++] = *p++;
		n--;
		c->mode = c->hdr[0];
		if (c->mode == 'R' && c->hdrlen < 5)
			continue;
		if (c->mode == 'R')
			c->size = (uint32_t)c->hdr[1] << 24 | c->hdr[2] << 16 |
				  c->hdr[3] << 8 | c->hdr[4];
		if (c->mode == 'C')
			c->wpend = 1;
		c->state = DATA;
	}
	if (!n)
		return;
	srv.bytes += n;
	switch (c->mode) {
	case 'S':
		c->count += n;
		break;
	case 'R':
		while (n && c->size) {
			size_t take = c->size - c->got;

			if (take > n)
				take = n;
			c->got += take;
			n -= take;
			if (c->got == c->size) {
				c->got = 0;
				c->wpend += c->size;
			}
		}
		break;
	default:	/* 'C' and 'I' ignore further bytes */
		break;
	}
}

static unsigned char rbuf[256 * 1024];

static void conn_event(int ep, struct conn *c, uint32_t events)
{
	int eof = 0, r;

	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		for (;;) {
			ssize_t n = recv(c->fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);

			if (n > 0) {
				conn_consume(c, rbuf, n);
				if (c->wpend)
					break;	/* answer before reading on */
				continue;
			}
			if (n == 0)
				eof = 1;
			else if (errno == EAGAIN)
				break;
			else if (errno == EINTR)
				continue;
			else
				eof = -1;
			break;
		}
	}
	if (eof < 0) {
		srv.errors++;
		conn_close(ep, c);
		return;
	}
	if (eof && c->mode == 'S' && c->cntoff < 0) {
		uint64_t v = c->count;
		int i;

		for (i = 7; i >= 0; i--, v >>= 8)
			c->cnt[i] = v & 0xff;
		c->cntoff = 0;
		c->state = DONE;
	}
	r = conn_flush(c);
	if (r < 0) {
		srv.errors++;
		conn_close(ep, c);
		return;
	}
	if (r == 1) {
		conn_watch(ep, c, 1);
		return;
	}
	if (eof) {
		if (c->state == DONE)
			shutdown(c->fd, SHUT_WR);
		conn_close(ep, c);
		return;
	}
	conn_watch(ep, c, 0);
}

static int server(void)
{
	struct sockaddr_storage ss;
	struct epoll_event ev, evs[64];
	int lfd, ep, one = 1, len;
	double end = now_s() + opt_secs;

	len = smc_sockaddr_fill(&ss, opt_v6, opt_port, NULL);
	lfd = sock_new();
	if (lfd < 0) {
		printf("{\"role\":\"server\",\"error\":\"socket: %s\"}\n",
		       strerror(errno));
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1024)) {
		printf("{\"role\":\"server\",\"error\":\"bind/listen port %d: %s\"}\n",
		       opt_port, strerror(errno));
		return 1;
	}
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev)) {
		printf("{\"role\":\"server\",\"error\":\"epoll: %s\"}\n",
		       strerror(errno));
		return 1;
	}
	srv.sndbuf = srv.rcvbuf = -1;
	printf("{\"role\":\"server\",\"family\":\"%s\",\"port\":%d,"
	       "\"bufsize\":%d,\"listening\":1}\n", fam_name(), opt_port, opt_buf);
	fflush(stdout);

	while (!stop_flag) {
		double left = end - now_s();
		int n, i;

		if (left <= 0)
			break;
		n = epoll_wait(ep, evs, 64, left > 1 ? 1000 : (int)(left * 1000) + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (c) {
				conn_event(ep, c, evs[i].events);
				continue;
			}
			for (;;) {
				int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);

				if (fd < 0) {
					if (errno != EAGAIN && errno != EINTR)
						srv.errors++;
					break;
				}
				c = calloc(1, sizeof(*c));
				if (!c) {
					close(fd);
					srv.errors++;
					continue;
				}
				c->fd = fd;
				c->cntoff = -1;
				set_nodelay(fd);
				if (srv.sndbuf < 0)
					buf_sizes(fd, &srv.sndbuf, &srv.rcvbuf);
				ev.events = EPOLLIN;
				ev.data.ptr = c;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
					close(fd);
					free(c);
					srv.errors++;
					continue;
				}
				srv.accepted++;
			}
		}
	}
	printf("{\"role\":\"server\",\"family\":\"%s\",\"port\":%d,"
	       "\"accepted\":%llu,\"closed\":%llu,\"bytes\":%llu,\"errors\":%llu,"
	       "\"sndbuf\":%d,\"rcvbuf\":%d}\n", fam_name(), opt_port,
	       (unsigned long long)srv.accepted, (unsigned long long)srv.closed,
	       (unsigned long long)srv.bytes, (unsigned long long)srv.errors,
	       srv.sndbuf, srv.rcvbuf);
	return 0;
}

/* ---------------------------------------------------------------- client */

static struct sockaddr_storage peer;
static int peer_len;
static int cl_sndbuf = -1, cl_rcvbuf = -1;
static atomic_int n_ready, n_failed, n_done, go;
static double t_start, t_deadline;
static char first_err[128];
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_err(const char *what)
{
	int e = errno;

	pthread_mutex_lock(&err_lock);
	if (!first_err[0])
		snprintf(first_err, sizeof(first_err), "%s: %s", what, strerror(e));
	pthread_mutex_unlock(&err_lock);
}

/* a connected socket, or -1 (error noted) */
static int client_connect(void)
{
	int fd = sock_new();

	if (fd < 0) {
		note_err("socket");
		return -1;
	}
	set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&peer, peer_len)) {
		note_err("connect");
		close(fd);
		return -1;
	}
	if (cl_sndbuf < 0)
		buf_sizes(fd, &cl_sndbuf, &cl_rcvbuf);
	return fd;
}

struct lat {
	double *v;
	size_t n, cap;
};

static void lat_add(struct lat *l, double us)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		double *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = us;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of @l's samples (sorts them); 0 without any */
static double lat_p50(struct lat *l)
{
	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(double), cmp_d);
	return l->v[(l->n - 1) / 2];
}

/* add every sample of @src to @dst */
static void lat_merge(struct lat *dst, const struct lat *src)
{
	size_t k;

	for (k = 0; k < src->n; k++)
		lat_add(dst, src->v[k]);
}

/* appends ,"p50_us":..,... for the sorted samples */
static void lat_json(char *out, size_t len, struct lat *l)
{
	double sum = 0, p50;
	size_t i, i99;

	if (!l->n) {
		snprintf(out, len, ",\"count\":0");
		return;
	}
	p50 = lat_p50(l);
	for (i = 0; i < l->n; i++)
		sum += l->v[i];
	i99 = (size_t)(l->n * 0.99 + 0.999999);
	if (i99 < 1)
		i99 = 1;
	snprintf(out, len, ",\"count\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f,"
		 "\"mean_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f",
		 l->n, p50, l->v[i99 - 1], sum / l->n,
		 l->v[0], l->v[l->n - 1]);
}

static void wait_go(void)
{
	while (!atomic_load(&go))
		usleep(1000);
}

struct worker {
	pthread_t th;
	int fd;
	uint64_t sent, rcvd;	/* stream: sent, and counted by the server */
	double t_end;
	int ok, errs;
	struct lat lat;
	/* crr: the parts of a connection's time, each its own sample */
	struct lat lat_conn, lat_xchg, lat_close;
};

static void *stream_worker(void *arg)
{
	struct worker *w = arg;
	static const unsigned char hdr = 'S';
	unsigned char *buf = calloc(1, CHUNK), cnt[8];
	int i;

	w->fd = client_connect();
	if (w->fd < 0 || !buf || smc_write_all(w->fd, &hdr, 1)) {
		if (w->fd >= 0)
			note_err("send header");
		atomic_fetch_add(&n_failed, 1);
		w->errs++;
		goto out;
	}
	atomic_fetch_add(&n_ready, 1);
	wait_go();
	while (now_s() < t_deadline) {
		if (smc_write_all(w->fd, buf, CHUNK)) {
			note_err("send");
			w->errs++;
			goto done;
		}
		w->sent += CHUNK;
	}
	shutdown(w->fd, SHUT_WR);
	if (smc_read_all(w->fd, cnt, 8, IO_TIMEOUT_MS) != 1) {
		note_err("read count");
		w->errs++;
		goto done;
	}
	for (i = 0; i < 8; i++)
		w->rcvd = w->rcvd << 8 | cnt[i];
	w->ok = 1;
done:
	w->t_end = now_s();
	atomic_fetch_add(&n_done, 1);
out:
	if (w->fd >= 0)
		close(w->fd);
	free(buf);
	return NULL;
}

static void *crr_worker(void *arg)
{
	struct worker *w = arg;
	unsigned char b = 'C';

	atomic_fetch_add(&n_ready, 1);
	wait_go();
	while (now_s() < t_deadline) {
		double t0 = now_s(), t1, t2, t3;
		int fd = client_connect();

		t1 = now_s();
		if (fd < 0) {
			w->errs++;
			usleep(10000);
			continue;
		}
		b = 'C';
		if (smc_write_all(fd, &b, 1) ||
		    smc_read_all(fd, &b, 1, IO_TIMEOUT_MS) != 1) {
			note_err("request/response");
			w->errs++;
			close(fd);
			usleep(10000);
			continue;
		}
		t2 = now_s();
		close(fd);
		t3 = now_s();
		w->ok++;
		lat_add(&w->lat, (t3 - t0) * 1e6);
		lat_add(&w->lat_conn, (t1 - t0) * 1e6);
		lat_add(&w->lat_xchg, (t2 - t1) * 1e6);
		lat_add(&w->lat_close, (t3 - t2) * 1e6);
	}
	w->t_end = now_s();
	atomic_fetch_add(&n_done, 1);
	return NULL;
}

static void print_result(const char *fields)
{
	char esc[sizeof(first_err) * 2];
	size_t i, j = 0;

	for (i = 0; first_err[i] && j < sizeof(esc) - 2; i++) {
		if (first_err[i] == '"' || first_err[i] == '\\')
			esc[j++] = '\\';
		esc[j++] = first_err[i];
	}
	esc[j] = 0;
	printf("{%s%s\"role\":\"client\",\"mode\":\"%s\",\"family\":\"%s\","
	       "\"port\":%d,\"bufsize\":%d,\"sndbuf\":%d,\"rcvbuf\":%d%s%s%s%s}\n",
	       opt_extra, *opt_extra ? "," : "", opt_mode, fam_name(), opt_port,
	       opt_buf, cl_sndbuf, cl_rcvbuf, fields,
	       esc[0] ? ",\"first_error\":\"" : "", esc, esc[0] ? "\"" : "");
	fflush(stdout);
}

/* start the workers, wait until they finish (bounded), fill workers */
static int run_workers(struct worker *w, int n, void *(*fn)(void *))
{
	double limit;
	int i, started = 0;

	for (i = 0; i < n; i++) {
		w[i].fd = -1;
		if (pthread_create(&w[i].th, NULL, fn, &w[i])) {
			note_err("pthread_create");
			break;
		}
		pthread_detach(w[i].th);
		started++;
	}
	limit = now_s() + 30 + n;	/* connecting */
	while (atomic_load(&n_ready) + atomic_load(&n_failed) < started &&
	       now_s() < limit)
		usleep(2000);
	t_start = now_s();
	t_deadline = t_start + opt_secs;
	atomic_store(&go, 1);
	limit = t_deadline + GRACE_S;
	while (atomic_load(&n_done) < atomic_load(&n_ready) && now_s() < limit)
		usleep(5000);
	return started;
}

static int client_stream(void)
{
	struct worker *w = calloc(opt_par, sizeof(*w));
	uint64_t sent = 0, rcvd = 0;
	double t_end = 0, secs;
	int i, ok = 0, errs = 0, started;
	char f[512];

	if (!w)
		return 1;
	started = run_workers(w, opt_par, stream_worker);
	for (i = 0; i < started; i++) {
		sent += w[i].sent;
		rcvd += w[i].rcvd;
		ok += w[i].ok;
		errs += w[i].errs;
		if (w[i].t_end > t_end)
			t_end = w[i].t_end;
	}
	errs += opt_par - started;
	secs = t_end > t_start ? t_end - t_start : 0;
	snprintf(f, sizeof(f), ",\"streams\":%d,\"streams_ok\":%d,\"errors\":%d,"
		 "\"stuck\":%d,\"bytes\":%llu,\"sent_bytes\":%llu,"
		 "\"seconds\":%.3f,\"bytes_per_s\":%.0f,\"mbit_per_s\":%.2f",
		 opt_par, ok, errs,
		 atomic_load(&n_ready) - atomic_load(&n_done),
		 (unsigned long long)rcvd, (unsigned long long)sent, secs,
		 secs > 0 ? rcvd / secs : 0, secs > 0 ? rcvd * 8 / secs / 1e6 : 0);
	print_result(f);
	return errs || ok != opt_par;
}

static int client_crr(void)
{
	struct worker *w = calloc(opt_par, sizeof(*w));
	struct lat all = { 0 }, conn = { 0 }, xchg = { 0 }, cls = { 0 };
	double t_end = 0, secs;
	int i, ok = 0, errs = 0, started;
	char f[640], l[256];

	if (!w)
		return 1;
	started = run_workers(w, opt_par, crr_worker);
	for (i = 0; i < started; i++) {
		ok += w[i].ok;
		errs += w[i].errs;
		if (w[i].t_end > t_end)
			t_end = w[i].t_end;
		lat_merge(&all, &w[i].lat);
		lat_merge(&conn, &w[i].lat_conn);
		lat_merge(&xchg, &w[i].lat_xchg);
		lat_merge(&cls, &w[i].lat_close);
	}
	if (t_end < t_start)
		t_end = now_s();
	secs = t_end - t_start;
	lat_json(l, sizeof(l), &all);
	/* where a connection's time goes: connect() (TCP handshake and,
	 * for SMC, the CLC handshake), the 1-byte exchange, close()
	 */
	snprintf(f, sizeof(f), ",\"clients\":%d,\"conns\":%d,\"errors\":%d,"
		 "\"stuck\":%d,\"seconds\":%.3f,\"conns_per_s\":%.2f%s,"
		 "\"connect_p50_us\":%.1f,\"xchg_p50_us\":%.1f,"
		 "\"close_p50_us\":%.1f",
		 opt_par, ok, errs, atomic_load(&n_ready) - atomic_load(&n_done),
		 secs, secs > 0 ? ok / secs : 0, l, lat_p50(&conn),
		 lat_p50(&xchg), lat_p50(&cls));
	print_result(f);
	return errs != 0 || !ok;
}

static int client_rr(void)
{
	unsigned char hdr[5] = { 'R', opt_size >> 24, opt_size >> 16,
				 opt_size >> 8, opt_size };
	struct lat lat = { 0 };
	unsigned char *buf = calloc(1, opt_size);
	double t0, end;
	long i;
	int fd, errs = 0;
	char f[512], l[256];

	fd = client_connect();
	if (fd >= 0)
		set_nodelay(fd);
	if (fd < 0 || !buf || smc_write_all(fd, hdr, 5)) {
		if (fd >= 0)
			note_err("send header");
		print_result(",\"size\":0,\"errors\":1,\"count\":0");
		return 1;
	}
	t0 = now_s();
	end = t0 + opt_secs;
	for (i = 0; opt_iters ? i < opt_iters + WARMUP : 1; i++) {
		double t = now_s();

		if (!opt_iters && t >= end && i >= WARMUP)
			break;
		if (smc_write_all(fd, buf, opt_size)) {
			note_err("send");
			errs++;
			break;
		}
		if (smc_read_all(fd, buf, opt_size, IO_TIMEOUT_MS) != 1) {
			note_err("receive");
			errs++;
			break;
		}
		if (i >= WARMUP)
			lat_add(&lat, (now_s() - t) * 1e6);
	}
	close(fd);
	lat_json(l, sizeof(l), &lat);
	snprintf(f, sizeof(f), ",\"size\":%d,\"errors\":%d,\"seconds\":%.3f%s",
		 opt_size, errs, now_s() - t0, l);
	print_result(f);
	return errs != 0;
}

static int client_idle(void)
{
	int *fds = calloc(opt_par, sizeof(int)), i, ok = 0, errs = 0;
	unsigned char b = 'I';
	double t0 = now_s(), end;
	char f[256];

	if (!fds)
		return 1;
	for (i = 0; i < opt_par; i++) {
		fds[i] = client_connect();
		if (fds[i] >= 0 && smc_write_all(fds[i], &b, 1)) {
			note_err("send");
			close(fds[i]);
			fds[i] = -1;
		}
		if (fds[i] < 0)
			errs++;
		else
			ok++;
	}
	snprintf(f, sizeof(f), ",\"state\":\"open\",\"conns\":%d,\"opened\":%d,"
		 "\"errors\":%d,\"open_seconds\":%.3f", opt_par, ok, errs,
		 now_s() - t0);
	print_result(f);
	end = now_s() + opt_secs;
	while (!stop_flag && now_s() < end)
		usleep(20000);
	for (i = 0; i < opt_par; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	snprintf(f, sizeof(f), ",\"state\":\"closed\",\"conns\":%d", ok);
	print_result(f);
	return errs != 0;
}

static long parse_size(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; break;
	case 'm': case 'M': v <<= 20; break;
	case 'g': case 'G': v <<= 30; break;
	case 0: break;
	default: return -1;
	}
	return v;
}

/* -m pace: the fastest of three runs of a fixed loop of integer steps
 * (xorshift, about 40 ms in a TCG guest), in milliseconds.
 */
static int pace(void)
{
	double best = 0, t;
	/* a seed the compiler cannot know: the loop is not folded away */
	uint64_t x = (uint64_t)(now_s() * 1e9) | 1;
	volatile uint64_t sink;
	long i;
	int r;

	for (r = 0; r < 3; r++) {
		t = now_s();
		for (i = 0; i < 10000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		sink = x;
		t = now_s() - t;
		if (!r || t < best)
			best = t;
	}
	(void)sink;
	printf("{\"pace_ms\":%.1f}\n", best * 1e3);
	return 0;
}

static __attribute__((noreturn)) void usage(void)
{
	fprintf(stderr,
		"usage: smc_bench -s [-f smc|tcp] [-6] [-p PORT] [-b BUF] [-t LIFETIME]\n"
		"       smc_bench [-m stream|rr|crr|idle] [-f smc|tcp] [-6] [-p PORT]\n"
		"                 [-b BUF] [-P N] [-t SECS] [-n ITERS] [-S SIZE]\n"
		"                 [-x JSON-FIELDS] HOST\n"
		"       smc_bench -m pace\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	int c, rc;
	long v;

	while ((c = getopt(argc, argv, "sf:6p:b:P:t:n:S:m:x:h")) != -1) {
		switch (c) {
		case 's': opt_server = 1; break;
		case 'f':
			if (!strcmp(optarg, "smc"))
				opt_smc = 1;
			else if (!strcmp(optarg, "tcp"))
				opt_smc = 0;
			else
				usage();
			break;
		case '6': opt_v6 = 1; break;
		case 'p': opt_port = atoi(optarg); break;
		case 'b':
			v = parse_size(optarg);
			if (v < 0 || v > (1L << 30))
				usage();
			opt_buf = v;
			break;
		case 'P': opt_par = atoi(optarg); break;
		case 't': opt_secs = atoi(optarg); break;
		case 'n': opt_iters = atol(optarg); break;
		case 'S':
			v = parse_size(optarg);
			if (v < 1 || v > (64L << 20))
				usage();
			opt_size = v;
			break;
		case 'm': opt_mode = optarg; break;
		case 'x': opt_extra = optarg; break;
		default: usage();
		}
	}
	if (opt_par < 1 || opt_par > 10000 || opt_secs < 1)
		usage();
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt_server)
		return server();
	if (!strcmp(opt_mode, "pace") && optind == argc)
		return pace();

	if (optind != argc - 1)
		usage();
	opt_host = argv[optind];
	peer_len = smc_sockaddr_fill(&peer, opt_v6, opt_port, opt_host);
	if (peer_len < 0) {
		fprintf(stderr, "smc_bench: bad address %s%s\n", opt_host,
			opt_v6 ? "" : " (IPv6 needs -6)");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	/* rr with -n has no time bound of its own: give it a generous one */
	alarm(opt_secs + 30 + opt_par + 2 * GRACE_S +
	      (opt_iters ? (unsigned int)(opt_iters / 10) : 0));
	if (!strcmp(opt_mode, "stream"))
		rc = client_stream();
	else if (!strcmp(opt_mode, "rr"))
		rc = client_rr();
	else if (!strcmp(opt_mode, "crr"))
		rc = client_crr();
	else if (!strcmp(opt_mode, "idle"))
		rc = client_idle();
	else
		usage();
	/* stuck workers may still hold sockets: do not wait for them */
	fflush(stdout);
	_exit(rc);
}
