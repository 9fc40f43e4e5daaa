// SPDX-License-Identifier: GPL-2.0
/* Active open. connect() starts a non-blocking TCP connect of clcsock with
 * the SMC option on its SYN; when TCP is done, hs_work runs the client CLC
 * handshake and settles the socket (SMC-R, TCP fallback, or an error).
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "clc.h"
#include "clc_wire.h"
#include "close.h"
#include "connect.h"
#include "fallback.h"
#include "netns.h"

/* clcsock's wait queue woke: once TCP left SYN_SENT, settle in process
 * context. Runs in the waker's context, possibly softirq.
 */
static int asmc_connect_wake(struct wait_queue_entry *wait, unsigned int mode,
			     int sync, void *key)
{
	struct asmc_sock *smc = container_of(wait, struct asmc_sock, clc_wait);

	if (READ_ONCE(smc->clcsock->sk->sk_state) == TCP_SYN_SENT)
		return 0;
	asmc_sock_queue(&smc->sk, asmc_hs_wq, &smc->hs_work);
	return 0;
}

/* Wait until the running connect settled; 0 when it did, -EAGAIN when
 * @timeo ran out, or the signal errno. Called with our sock locked.
 */
int asmc_connect_wait(struct asmc_sock *smc, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	sock_owned_by_me(sk);
	add_wait_queue(sk_sleep(sk), &wait);
	while (smc->connect_pending) {
		rc = asmc_wait_allowed(*timeo);
		if (rc)
			break;
		sk_wait_event(sk, timeo, !smc->connect_pending, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return rc;
}

static void asmc_connect_settled(struct asmc_sock *smc)
{
	WRITE_ONCE(smc->connect_pending, false);
	smc->sk.sk_state_change(&smc->sk);
}

/* TCP did not connect (refused, unreachable, timed out, aborted): the
 * socket stays unconnected and reports TCP's error.
 */
static void asmc_connect_failed(struct asmc_sock *smc)
{
	asmc_fb_mirror_err(smc);
	asmc_connect_settled(smc);
	smc->sk.sk_error_report(&smc->sk);
}

/* The CLC handshake broke (timeout, malformed message, TCP error): reset
 * the TCP connection and fail as a refused TCP connect would.
 */
static void asmc_connect_abort_tcp(struct asmc_sock *smc, int err)
{
	struct sock *clcsk = smc->clcsock->sk;

	asmc_stats_hs_err(&asmc_net(sock_net(&smc->sk))->stats, false);
	if (!READ_ONCE(clcsk->sk_err))
		tcp_abort(clcsk, err);
	asmc_connect_failed(smc);
}

static void asmc_connect_established(struct asmc_sock *smc)
{
	asmc_sock_set_state(smc, ASMC_ACTIVE);
	asmc_connect_settled(smc);
}

void asmc_connect_work(struct work_struct *work)
{
	struct asmc_sock *smc = container_of(work, struct asmc_sock, hs_work);
	struct asmc_hs_result res = {};
	struct sock *sk = &smc->sk;
	struct sock *clcsk;
	int rc;

	lock_sock(sk);
	if (!smc->connect_pending || sock_flag(sk, SOCK_DEAD))
		goto out;
	clcsk = smc->clcsock->sk;
	if (READ_ONCE(clcsk->sk_state) == TCP_SYN_SENT)
		goto out;	/* woken early; the watch stays */
	asmc_clc_unwatch(smc);

	if (!((1 << clcsk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT))) {
		asmc_connect_failed(smc);
		goto out;
	}
	if (!tcp_sk(clcsk)->syn_smc) {
		/* the server's SYN-ACK had no SMC option: plain TCP peer */
		asmc_fallback_switch(smc, ASMC_DECL_PEERNOSMC, 0);
		asmc_connect_established(smc);
		goto out;
	}

	/* CLC I/O sleeps; connect_pending keeps other calls out meanwhile
	 * and release() wakes us by shutting clcsock down.
	 */
	release_sock(sk);
	pr_debug("sock %p: TCP connected, CLC handshake\n", smc);
	rc = asmc_clc_client_handshake(smc, &res);
	lock_sock(sk);
	if (sock_flag(sk, SOCK_DEAD))
		goto out;
	if (rc < 0) {
		asmc_connect_abort_tcp(smc, -rc);
		goto out;
	}
	if (!rc)	/* declined by one side: TCP it is */
		asmc_fallback_switch(smc, res.reason, res.peer_diag);
	else
		asmc_close_watch_tcp(smc);
	asmc_connect_established(smc);
out:
	release_sock(sk);
	sock_put(sk);
}

/* release() while a connect runs: wake the handshake's CLC I/O. */
void asmc_connect_abort(struct asmc_sock *smc)
{
	sock_owned_by_me(&smc->sk);
	asmc_clc_unwatch(smc);
	if (smc->connect_pending && smc->clcsock)
		kernel_sock_shutdown(smc->clcsock, SHUT_RDWR);
	WRITE_ONCE(smc->connect_pending, false);
}

/* A blocking connect that failed leaves the socket as TCP does: ready for
 * another connect(), returning the error once.
 */
static int asmc_connect_result(struct asmc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	if (smc->sk.sk_state == ASMC_ACTIVE) {
		clcsock->state = SS_CONNECTED;
		smc->sk.sk_socket->state = SS_CONNECTED;
		return 0;
	}
	rc = sock_error(&smc->sk);
	WRITE_ONCE(smc->mirrored_err, 0);
	lock_sock(clcsock->sk);
	WRITE_ONCE(clcsock->sk->sk_err, 0);
	clcsock->state = SS_UNCONNECTED;
	tcp_disconnect(clcsock->sk, 0);
	release_sock(clcsock->sk);
	return rc ? : -ECONNABORTED;
}

int asmc_connect(struct socket *sock, struct sockaddr *addr, int alen,
		 int flags)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	struct sock *sk = sock->sk;
	struct socket *clcsock;
	bool started = false;
	long timeo;
	int rc;

	lock_sock(sk);
	clcsock = smc->clcsock;
	/* connected, listening, or a disconnect request: TCP's answer */
	if (asmc_is_fallback(smc) || sk->sk_state == ASMC_LISTEN ||
	    (alen >= (int)sizeof(addr->sa_family) &&
	     addr->sa_family == AF_UNSPEC)) {
		release_sock(sk);
		return asmc_fb_connect(smc, addr, alen, flags);
	}
	if (sk->sk_state == ASMC_ACTIVE) {
		/* as TCP: the first call after a non-blocking connect
		 * completed reports success, later ones EISCONN
		 */
		if (sock->state == SS_CONNECTING) {
			sock->state = SS_CONNECTED;
			rc = 0;
		} else {
			rc = -EISCONN;
		}
		goto out;
	}
	if (!smc->connect_pending) {
		asmc_sock_opts_sync(smc);
		tcp_sk(clcsock->sk)->syn_smc = 1;
		/* interactive (pingpong) mode: TCP holds the ACK of the
		 * SYN-ACK back and the Proposal carries it, one packet less
		 */
		tcp_sock_set_quickack(clcsock->sk, 0);
		smc->role = ASMC_ROLE_CLIENT;
		WRITE_ONCE(smc->connect_pending, true);
		asmc_clc_watch(smc, asmc_connect_wake);
		rc = asmc_fb_connect(smc, addr, alen, O_NONBLOCK);
		if (rc && rc != -EINPROGRESS) {
			/* refused at once (bad address, no route, ...) */
			asmc_clc_unwatch(smc);
			WRITE_ONCE(smc->connect_pending, false);
			goto out;
		}
		sock->state = SS_CONNECTING;
		started = true;
		/* TCP may have finished before the watch could fire */
		if (READ_ONCE(clcsock->sk->sk_state) != TCP_SYN_SENT)
			asmc_sock_queue(sk, asmc_hs_wq, &smc->hs_work);
		if (flags & O_NONBLOCK) {
			rc = -EINPROGRESS;
			goto out;
		}
	} else if (flags & O_NONBLOCK) {
		rc = -EALREADY;
		goto out;
	}

	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	rc = asmc_connect_wait(smc, &timeo);
	if (rc == -EAGAIN)	/* SO_SNDTIMEO ran out: TCP's answers */
		rc = started ? -EINPROGRESS : -EALREADY;
	else if (!rc)
		rc = asmc_connect_result(smc);
out:
	release_sock(sk);
	return rc;
}
