/* SPDX-License-Identifier: GPL-2.0 */
/* Socket helpers shared by smc_xfer and tools/testing/bench/smc_bench:
 * AF_SMC or TCP socket creation, full writes and reads, address filling.
 */
#ifndef SMC_SOCKUTIL_H
#define SMC_SOCKUTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef SMCPROTO_SMC
#define SMCPROTO_SMC	0
#endif
#ifndef SMCPROTO_SMC6
#define SMCPROTO_SMC6	1
#endif

/* a stream socket: AF_SMC (v6: SMCPROTO_SMC6) or TCP over IPv4/IPv6 */
static inline int smc_sock_new(bool smc, bool v6)
{
	if (smc)
		return socket(AF_SMC, SOCK_STREAM, v6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	return socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
}

/* 0: all n bytes sent, -1: error (errno set); no SIGPIPE */
static inline int smc_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= r;
	}
	return 0;
}

/* 1: got n bytes, 0: EOF first, -1: error, or (timeout_ms >= 0) no data
 * within timeout_ms (errno ETIMEDOUT). timeout_ms < 0 blocks in recv().
 */
static inline int smc_read_all(int fd, void *buf, size_t n, int timeout_ms)
{
	char *p = buf;

	while (n) {
		ssize_t r;

		if (timeout_ms >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int pr = poll(&pfd, 1, timeout_ms);

			if (pr < 0 && errno == EINTR)
				continue;
			if (pr <= 0) {
				if (!pr)
					errno = ETIMEDOUT;
				return -1;
			}
			r = recv(fd, p, n, MSG_DONTWAIT);
		} else {
			r = recv(fd, p, n, 0);
		}
		if (r < 0) {
			if (errno == EINTR ||
			    (timeout_ms >= 0 && errno == EAGAIN))
				continue;
			return -1;
		}
		if (r == 0)
			return 0;
		p += r;
		n -= r;
	}
	return 1;
}

/* ss = host (numeric; NULL: the wildcard address) and port; returns the
 * address length, or -1 when host is not a numeric address of the family
 */
static inline int smc_sockaddr_fill(struct sockaddr_storage *ss, bool v6,
				    int port, const char *host)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		if (host && inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -1;
		if (!host)
			a->sin6_addr = in6addr_any;
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		if (host && inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		if (!host)
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		return sizeof(*a);
	}
}

#endif /* SMC_SOCKUTIL_H */
