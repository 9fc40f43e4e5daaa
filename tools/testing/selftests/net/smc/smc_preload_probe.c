// SPDX-License-Identifier: GPL-2.0
/* Test helper of smc_preload.sh: creates sockets the way applications do and
 * prints what they really are (family, protocol, flags, buffer sizes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

static const struct kind {
	const char *name;
	int domain, type, protocol;
} kinds[] = {
	{ "tcp4",	AF_INET,  SOCK_STREAM, 0 },
	{ "tcp4p",	AF_INET,  SOCK_STREAM, IPPROTO_TCP },
	{ "tcp6",	AF_INET6, SOCK_STREAM, 0 },
	{ "tcp6p",	AF_INET6, SOCK_STREAM, IPPROTO_TCP },
	{ "tcp4nb",	AF_INET,  SOCK_STREAM | SOCK_NONBLOCK, 0 },
	{ "tcp4ce",	AF_INET,  SOCK_STREAM | SOCK_CLOEXEC, 0 },
	{ "tcp6nbce",	AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_TCP },
	{ "udp4",	AF_INET,  SOCK_DGRAM, 0 },
	{ "udp6",	AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
	{ "unix",	AF_UNIX,  SOCK_STREAM, 0 },
	{ "unixdg",	AF_UNIX,  SOCK_DGRAM, 0 },
	{ "raw4",	AF_INET,  SOCK_RAW, IPPROTO_ICMP },
	{ "seqp4",	AF_INET,  SOCK_SEQPACKET, 0 },
	{ "mptcp4",	AF_INET,  SOCK_STREAM, IPPROTO_MPTCP },
	{ "smc",	AF_SMC,   SOCK_STREAM, 0 },
};

static int getint(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int v;

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) < 0)
		return -errno;
	return v;
}

/* one line: NAME domain=D type=T protocol=P nonblock=0|1 cloexec=0|1
 * sndbuf=B rcvbuf=B, or NAME error=ERRNO
 */
static void describe(const char *name, int fd)
{
	printf("%s domain=%d type=%d protocol=%d nonblock=%d cloexec=%d sndbuf=%d rcvbuf=%d\n",
	       name, getint(fd, SO_DOMAIN), getint(fd, SO_TYPE),
	       getint(fd, SO_PROTOCOL),
	       !!(fcntl(fd, F_GETFL) & O_NONBLOCK),
	       !!(fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       getint(fd, SO_SNDBUF), getint(fd, SO_RCVBUF));
}

static const struct kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

static int probe(const char *name)
{
	const struct kind *k = find_kind(name);
	int fd;

	if (!k) {
		fprintf(stderr, "unknown socket kind %s\n", name);
		return 2;
	}
	fd = socket(k->domain, k->type, k->protocol);
	if (fd < 0) {
		printf("%s error=%d\n", name, errno);
		return 0;
	}
	describe(name, fd);
	close(fd);
	return 0;
}

#define THREAD_SOCKS 50

static pthread_barrier_t start;

/* each thread creates THREAD_SOCKS IPv4/IPv6 TCP sockets at once with the
 * others and counts how many came back as AF_SMC
 */
static void *thread_fn(void *arg)
{
	long smc = 0, i;
	int fds[THREAD_SOCKS];

	pthread_barrier_wait(&start);
	for (i = 0; i < THREAD_SOCKS; i++) {
		fds[i] = socket(i & 1 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
		if (fds[i] >= 0 && getint(fds[i], SO_DOMAIN) == AF_SMC &&
		    getint(fds[i], SO_PROTOCOL) == (i & 1))
			smc++;
	}
	for (i = 0; i < THREAD_SOCKS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	(void)arg;
	return (void *)smc;
}

static int threads(int n)
{
	pthread_t *t = calloc(n, sizeof(*t));
	long total = 0;
	void *ret;
	int i;

	if (!t)
		return 1;
	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_fn, NULL))
			return 1;
	for (i = 0; i < n; i++) {
		pthread_join(t[i], &ret);
		total += (long)ret;
	}
	printf("threads=%d sockets=%d smc=%ld\n", n, n * THREAD_SOCKS, total);
	free(t);
	return 0;
}

/* fork; the child execs this program again to probe KIND */
static int fork_exec(const char *self, const char *kind)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execl(self, self, kind, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static int xfer_check(int a, int b, size_t len)
{
	char *out = malloc(len), *in = malloc(len);
	size_t i, got = 0;
	ssize_t n;
	int ok = 0;

	if (!out || !in)
		goto done;
	for (i = 0; i < len; i++)
		out[i] = (char)(i * 7 + 3);
	/* len fits the socket buffers: write all, then read */
	for (i = 0; i < len; i += n) {
		n = send(a, out + i, len - i, 0);
		if (n <= 0)
			goto done;
	}
	while (got < len) {
		n = recv(b, in + got, len - got, 0);
		if (n <= 0)
			goto done;
		got += n;
	}
	ok = !memcmp(in, out, len);
done:
	free(out);
	free(in);
	return ok;
}

/* A TCP connection over 127.0.0.1 between sockets made by socket():
 * prints the families of listener, client and accepted socket and whether
 * 64 KiB went through both ways intact.
 */
static int loopback(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int l, c, a, ok;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (void *)&sa, sizeof(sa)) ||
	    listen(l, 1) || getsockname(l, (void *)&sa, &len) ||
	    connect(c, (void *)&sa, sizeof(sa))) {
		perror("loopback setup");
		return 1;
	}
	a = accept(l, NULL, NULL);
	if (a < 0) {
		perror("accept");
		return 1;
	}
	ok = xfer_check(c, a, 65536) && xfer_check(a, c, 65536);
	printf("loop listen=%d client=%d accepted=%d data=%s\n",
	       getint(l, SO_DOMAIN), getint(c, SO_DOMAIN), getint(a, SO_DOMAIN),
	       ok ? "ok" : "bad");
	close(a);
	close(c);
	close(l);
	return !ok;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: smc_preload_probe KIND...   (prints one line per socket)\n"
		"       smc_preload_probe -T NTHREADS | -x KIND | -l\n"
		"  -T  threads creating TCP sockets concurrently\n"
		"  -x  fork, the child execs the probe for KIND\n"
		"  -l  connection over 127.0.0.1 with data both ways\n"
		"KIND:");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(stderr, " %s", kinds[i].name);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage();
		return 2;
	}
	if (!strcmp(argv[1], "-T") && argc == 3)
		return threads(atoi(argv[2]));
	if (!strcmp(argv[1], "-x") && argc == 3)
		return fork_exec("/proc/self/exe", argv[2]);
	if (!strcmp(argv[1], "-l") && argc == 2)
		return loopback();
	if (argv[1][0] == '-') {
		usage();
		return 2;
	}
	for (i = 1; i < argc; i++)
		rc |= probe(argv[i]);
	return rc;
}
