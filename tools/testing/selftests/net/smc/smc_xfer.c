// SPDX-License-Identifier: GPL-2.0
/* smc_xfer: checksummed full-duplex transfer between a client and a server
 * over AF_SMC or TCP, used by the two-host tests and the demo.
 *
 * Server: smc_xfer -s [-f smc|tcp] [-6] [-p PORT] [-c CONNS]
 * Client: smc_xfer [-f smc|tcp] [-6] [-p PORT] [-n BYTES] [-c CONNS] [-C] HOST
 *
 * Per connection the client sends an 16-byte header (length, seed) and then
 * `length` pseudo-random bytes from `seed`, while the server sends the same
 * length from seed + 1; each side verifies every byte it receives. After
 * the client half-closes, the server sends one status byte ('K' = all
 * bytes verified) and closes. Exit status 0 when every connection passed.
 * -H SECS keeps each connection open that long before closing it, so a
 * test can look at the live sockets. Server -P serves connections in
 * parallel (a thread each; client -P runs its connections in parallel);
 * server -S SECS sleeps before reading (a slow reader). Client -w BYTES
 * writes its stream in writes of that size (at most 64 KiB; default 64 KiB),
 * e.g. many small writes for the autocorking tests. Client -C prints, even
 * with -q, how long each connection's successful connect() took
 * ("smc_xfer: connect: S s"), e.g. a first contact's handshake.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "smc_sockutil.h"

#define CHUNK		(64 * 1024)

static int opt_smc = 1, opt_v6, opt_port = 12345, opt_conns = 1;
static int opt_timeout = 60, opt_quiet, opt_hold, opt_parallel, opt_slow;
static int opt_conntime;
static size_t opt_wsize = CHUNK;
static uint64_t opt_bytes = 1 << 20;

struct stream {
	uint64_t state;
};

static void stream_init(struct stream *s, uint64_t seed)
{
	s->state = seed * 0x9E3779B97F4A7C15ull + 1;
}

static void stream_fill(struct stream *s, unsigned char *buf, size_t n)
{
	size_t i;

	/* xorshift64*, one output byte per step: cheap and position-exact */
	for (i = 0; i < n; i++) {
		s->state ^= s->state >> 12;
		s->state ^= s->state << 25;
		s->state ^= s->state >> 27;
		buf[i] = (unsigned char)((s->state * 0x2545F4914F6CDD1Dull) >> 56);
	}
}

struct sender {
	int fd;
	uint64_t len;
	uint64_t seed;
	size_t wsize;	/* bytes per write */
	int rc;
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	unsigned char *buf = malloc(CHUNK);
	struct stream st;
	uint64_t left = s->len;

	s->rc = -1;
	if (!buf)
		return NULL;
	stream_init(&st, s->seed);
	while (left) {
		size_t n = left < s->wsize ? left : s->wsize;

		stream_fill(&st, buf, n);
		if (smc_write_all(s->fd, buf, n))
			goto out;
		left -= n;
	}
	s->rc = 0;
out:
	free(buf);
	return NULL;
}

/* Receive and verify len bytes of the stream from seed. */
static int verify_recv(int fd, uint64_t len, uint64_t seed, uint64_t *got)
{
	unsigned char *buf = malloc(CHUNK), *want = malloc(CHUNK);
	struct stream st;
	int rc = -1;

	*got = 0;
	if (!buf || !want)
		goto out;
	stream_init(&st, seed);
	while (*got < len) {
		size_t n = len - *got < CHUNK ? len - *got : CHUNK;
		ssize_t r = recv(fd, buf, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "smc_xfer: recv after %llu of %llu bytes: %s\n",
				(unsigned long long)*got, (unsigned long long)len,
				r ? strerror(errno) : "EOF");
			goto out;
		}
		stream_fill(&st, want, r);
		if (memcmp(buf, want, r)) {
			fprintf(stderr, "smc_xfer: data mismatch near byte %llu\n",
				(unsigned long long)*got);
			goto out;
		}
		*got += r;
	}
	rc = 0;
out:
	free(buf);
	free(want);
	return rc;
}

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = v & 0xff;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static int serve_one(int fd)
{
	unsigned char hdr[16], status = 'K', extra;
	struct sender snd = { .fd = fd, .wsize = CHUNK };
	pthread_t th;
	uint64_t got;
	int ok;

	if (smc_read_all(fd, hdr, sizeof(hdr), -1) != 1) {
		fprintf(stderr, "smc_xfer: server: no header\n");
		return -1;
	}
	if (opt_slow)
		sleep(opt_slow);	/* the client's data piles up meanwhile */
	snd.len = get64(hdr);
	snd.seed = get64(hdr + 8) + 1;
	if (pthread_create(&th, NULL, sender_main, &snd))
		return -1;
	ok = !verify_recv(fd, snd.len, snd.seed - 1, &got);
	/* the client half-closes after its data: expect EOF now */
	if (ok && smc_read_all(fd, &extra, 1, -1) != 0) {
		fprintf(stderr, "smc_xfer: server: no EOF after data\n");
		ok = 0;
	}
	pthread_join(th, NULL);
	if (snd.rc)
		ok = 0;
	if (!ok)
		status = 'F';
	smc_write_all(fd, &status, 1);
	if (!opt_quiet)
		printf("smc_xfer: server: conn %s: received %llu bytes, sent %llu\n",
		       ok ? "ok" : "FAILED", (unsigned long long)got,
		       (unsigned long long)snd.len);
	return ok ? 0 : -1;
}

struct conn_job {
	pthread_t th;
	int fd;
	int rc;
	const char *host;
	uint64_t seed;
};

static void *serve_thread(void *arg)
{
	struct conn_job *j = arg;

	j->rc = serve_one(j->fd);
	sleep(opt_hold);
	close(j->fd);
	return NULL;
}

/* Accept every connection at once and serve each in its own thread. */
static int serve_parallel(int lfd)
{
	struct conn_job *jobs = calloc(opt_conns, sizeof(*jobs));
	int i, failed = 0;

	if (!jobs)
		return 2;
	for (i = 0; i < opt_conns; i++) {
		jobs[i].fd = accept(lfd, NULL, NULL);
		if (jobs[i].fd < 0 ||
		    pthread_create(&jobs[i].th, NULL, serve_thread, &jobs[i])) {
			perror("smc_xfer: accept");
			return 2;
		}
	}
	for (i = 0; i < opt_conns; i++) {
		pthread_join(jobs[i].th, NULL);
		if (jobs[i].rc)
			failed++;
	}
	close(lfd);
	free(jobs);
	return failed ? 1 : 0;
}

static int run_server(void)
{
	struct sockaddr_storage ss;
	socklen_t alen;
	int one = 1, lfd, i, failed = 0;

	lfd = smc_sock_new(opt_smc, opt_v6);
	if (lfd < 0) {
		perror("smc_xfer: socket");
		return 2;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	alen = smc_sockaddr_fill(&ss, opt_v6, opt_port, NULL);
	if (bind(lfd, (void *)&ss, alen) || listen(lfd, 128)) {
		perror("smc_xfer: bind/listen");
		return 2;
	}
	if (!opt_quiet) {
		printf("smc_xfer: server: listening on port %d (%s)\n", opt_port,
		       opt_smc ? "AF_SMC" : "TCP");
		fflush(stdout);
	}
	if (opt_parallel)
		return serve_parallel(lfd);
	for (i = 0; i < opt_conns; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			perror("smc_xfer: accept");
			return 2;
		}
		if (serve_one(fd))
			failed++;
		sleep(opt_hold);
		close(fd);
	}
	close(lfd);
	return failed ? 1 : 0;
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static int connect_to(const char *host)
{
	struct addrinfo hints = {}, *res;
	struct timespec t0;
	char port[16];
	int fd, rc, tries;

	hints.ai_family = opt_v6 ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", opt_port);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		fprintf(stderr, "smc_xfer: %s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	/* the server may still be starting: retry refused connects */
	for (tries = 0; tries < opt_timeout * 10; tries++) {
		fd = smc_sock_new(opt_smc, opt_v6);
		if (fd < 0) {
			perror("smc_xfer: socket");
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!connect(fd, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			if (opt_conntime) {
				printf("smc_xfer: connect: %.3f s\n",
				       secs_since(&t0));
				fflush(stdout);
			}
			return fd;
		}
		rc = errno;
		close(fd);
		if (rc != ECONNREFUSED) {
			fprintf(stderr, "smc_xfer: connect: %s\n", strerror(rc));
			break;
		}
		usleep(100000);
	}
	freeaddrinfo(res);
	return -1;
}

static int client_one(const char *host, uint64_t seed)
{
	struct sender snd = { .len = opt_bytes, .seed = seed,
			      .wsize = opt_wsize };
	unsigned char hdr[16], status = 0;
	struct timespec t0;
	uint64_t got;
	pthread_t th;
	double secs;
	int fd, ok;

	fd = connect_to(host);
	if (fd < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	put64(hdr, opt_bytes);
	put64(hdr + 8, seed);
	if (smc_write_all(fd, hdr, sizeof(hdr))) {
		perror("smc_xfer: send header");
		close(fd);
		return -1;
	}
	snd.fd = fd;
	if (pthread_create(&th, NULL, sender_main, &snd)) {
		close(fd);
		return -1;
	}
	ok = !verify_recv(fd, opt_bytes, seed + 1, &got);
	pthread_join(th, NULL);
	if (snd.rc)
		ok = 0;
	shutdown(fd, SHUT_WR);
	if (smc_read_all(fd, &status, 1, -1) != 1 || status != 'K') {
		fprintf(stderr, "smc_xfer: client: server status '%c'\n",
			status ? status : '?');
		ok = 0;
	}
	secs = secs_since(&t0);
	sleep(opt_hold);
	close(fd);
	if (!opt_quiet)
		printf("smc_xfer: client: conn %s: sent %llu received %llu bytes in %.3f s (%.1f Mbit/s each way)\n",
		       ok ? "ok" : "FAILED", (unsigned long long)opt_bytes,
		       (unsigned long long)got, secs,
		       secs > 0 ? opt_bytes * 8 / secs / 1e6 : 0.0);
	return ok ? 0 : -1;
}

static void *client_thread(void *arg)
{
	struct conn_job *j = arg;

	j->rc = client_one(j->host, j->seed);
	return NULL;
}

/* All connections at the same time, a thread each. */
static int client_parallel(const char *host)
{
	struct conn_job *jobs = calloc(opt_conns, sizeof(*jobs));
	int i, failed = 0;

	if (!jobs)
		return 2;
	for (i = 0; i < opt_conns; i++) {
		jobs[i].host = host;
		jobs[i].seed = (uint64_t)time(NULL) * 1000 + i;
		if (pthread_create(&jobs[i].th, NULL, client_thread, &jobs[i]))
			return 2;
	}
	for (i = 0; i < opt_conns; i++) {
		pthread_join(jobs[i].th, NULL);
		if (jobs[i].rc)
			failed++;
	}
	free(jobs);
	return failed ? 1 : 0;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'm': case 'M': return v << 20;
	case 'g': case 'G': return v << 30;
	}
	return v;
}

int main(int argc, char **argv)
{
	int c, server = 0, i, failed = 0;

	while ((c = getopt(argc, argv, "sf:6p:n:c:t:qH:PS:w:C")) != -1) {
		switch (c) {
		case 's': server = 1; break;
		case 'f': opt_smc = strcmp(optarg, "tcp") != 0; break;
		case '6': opt_v6 = 1; break;
		case 'p': opt_port = atoi(optarg); break;
		case 'n': opt_bytes = parse_size(optarg); break;
		case 'c': opt_conns = atoi(optarg); break;
		case 't': opt_timeout = atoi(optarg); break;
		case 'q': opt_quiet = 1; break;
		case 'H': opt_hold = atoi(optarg); break;
		case 'P': opt_parallel = 1; break;
		case 'S': opt_slow = atoi(optarg); break;
		case 'w': opt_wsize = parse_size(optarg); break;
		case 'C': opt_conntime = 1; break;
		default:
			fprintf(stderr, "usage: %s -s [-f smc|tcp] [-6] [-p PORT] [-c N]\n"
				"       %s [-f smc|tcp] [-6] [-p PORT] [-n BYTES] [-w BYTES] [-c N] [-C] HOST\n",
				argv[0], argv[0]);
			return 2;
		}
	}
	if (!opt_wsize || opt_wsize > CHUNK) {
		fprintf(stderr, "smc_xfer: -w takes 1 to %d bytes\n", CHUNK);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* -t bounds the whole run (and each connect's retries) */
	alarm(opt_timeout + opt_hold + opt_slow);
	if (server)
		return run_server();
	if (optind >= argc) {
		fprintf(stderr, "smc_xfer: HOST missing\n");
		return 2;
	}
	if (opt_parallel)
		return client_parallel(argv[optind]);
	for (i = 0; i < opt_conns; i++)
		if (client_one(argv[optind], (uint64_t)time(NULL) + i))
			failed++;
	return failed ? 1 : 0;
}
