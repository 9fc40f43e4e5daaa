// SPDX-License-Identifier: GPL-2.0
/* Closing an SMC-R connection. Each side sends its close state in CDC
 * flags (done writing, closed, aborted); the connection's buffers and its
 * place in the link group are released once both sides closed, or when
 * the peer stays silent past ASMC_CLOSE_WAIT. Every wait is bounded.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/module.h>
#include <linux/sched/signal.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "cdc.h"
#include "close.h"
#include "debug.h"
#include "lgr.h"
#include "llc.h"
#include "netns.h"
#include "socket.h"
#include "tx.h"
#include "wr.h"

/* The internal TCP connection got the peer's FIN, or is no longer open. */
static bool asmc_close_tcp_done(const struct sock *tsk)
{
	return READ_ONCE(tsk->sk_shutdown) & RCV_SHUTDOWN ||
	       READ_ONCE(tsk->sk_state) != TCP_ESTABLISHED;
}

/* As in TCP, the side that closed first keeps the port in TIME_WAIT: it
 * ends the internal TCP connection as soon as both sides closed. The
 * passive side lets that FIN arrive (bounded by ASMC_CLOSE_TCP_FIN)
 * before its own release sends one, else the FINs cross and TIME_WAIT
 * ends up on either side or both.
 */
static void asmc_close_await_tcp_fin(struct asmc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;
	struct net *net = sock_net(&smc->sk);

	if (!clcsock || !test_bit(ASMC_SOCK_PASSIVE_CLOSE, &smc->flags) ||
	    READ_ONCE(smc->conn.peer_conn_flags) & ASMC_CDC_PEER_CONN_ABORT)
		return;
	asmc_stats_wire(net, ASMC_STAT_CLOSE_FIN_WAIT, 1);
	/* TCP wakes its wait queue with wake_up_interruptible(); a worker
	 * gets no signals, so this sleep ends by FIN or time only
	 */
	if (!wait_event_interruptible_timeout(*sk_sleep(clcsock->sk),
					      asmc_close_tcp_done(clcsock->sk),
					      ASMC_CLOSE_TCP_FIN)) {
		pr_debug("sock %p: no TCP FIN from the peer\n", smc);
		asmc_stats_wire(net, ASMC_STAT_CLOSE_FIN_LATE, 1);
	}
}

/* The peer's side of the internal TCP connection is gone, by FIN or by
 * reset, while it never said over SMC that it is closing: it dropped the
 * connection (as a server does with a Confirm it rejects, after our side
 * went to SMC-R) and nothing else would ever tell us. Softirq or process
 * context: only queues the check.
 */
static int asmc_close_tcp_wake(struct wait_queue_entry *wait,
			       unsigned int mode, int sync, void *key)
{
	struct asmc_sock *smc = container_of(wait, struct asmc_sock,
					     clc_wait);
	struct sock *tsk = smc->clcsock->sk;

	if (!(READ_ONCE(tsk->sk_shutdown) & RCV_SHUTDOWN) &&
	    !READ_ONCE(tsk->sk_err))
		return 0;
	if (READ_ONCE(smc->conn.peer_conn_flags) ||
	    test_bit(ASMC_SOCK_RELEASED, &smc->flags) ||
	    test_and_set_bit(ASMC_SOCK_TCP_GONE, &smc->flags))
		return 0;
	sock_hold(&smc->sk);
	if (!queue_delayed_work(asmc_wq, &smc->tcp_gone_work,
				ASMC_CLOSE_TCP_GONE))
		sock_put(&smc->sk);
	return 0;
}

/* A connection that went to SMC-R mode watches its internal TCP
 * connection until release (asmc_clcsock_release ends the watch).
 */
void asmc_close_watch_tcp(struct asmc_sock *smc)
{
	asmc_clc_watch(smc, asmc_close_tcp_wake);
	/* the FIN may have come before the watch */
	asmc_close_tcp_wake(&smc->clc_wait, 0, 0, NULL);
}

/* The peer's close flags had the grace time to follow its TCP FIN. */
void asmc_close_tcp_gone_work(struct work_struct *work)
{
	struct asmc_sock *smc = container_of(to_delayed_work(work),
					     struct asmc_sock, tcp_gone_work);
	struct sock *sk = &smc->sk;

	lock_sock(sk);
	if (smc->smc_mode && !READ_ONCE(smc->conn.peer_conn_flags) &&
	    !test_bit(ASMC_SOCK_RELEASED, &smc->flags)) {
		pr_debug("sock %p: peer ended TCP, said nothing over SMC: reset\n",
			 smc);
		asmc_stats_wire(sock_net(sk), ASMC_STAT_CLOSE_TCP_GONE, 1);
		asmc_conn_abort(smc, ECONNRESET);
	}
	release_sock(sk);
	sock_put(sk);
}

/* Free the connection's share of the link group and drop the socket's
 * last reference (process context, from close_work).
 */
static void asmc_close_free(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	struct asmc_lgr *lgr = conn->lgr;
	long left = 1;

	/* our last CDCs (and the WRITEs before them) must be done with the
	 * send buffer before another connection may reuse it. A link that
	 * goes down meanwhile flushes them (and the group moves us to another
	 * link, or ends)
	 */
	if (lgr)
		left = wait_event_timeout(conn->tx_drained,
					  !READ_ONCE(conn->tx_inflight) ||
					  READ_ONCE(lgr->terminating),
					  ASMC_CLOSE_DRAIN);
	asmc_tx_stop(smc);
	/* the RMB goes back to the pool with its rkey still known to the
	 * peer (no DELETE_RKEY): the next connection reuses it for free
	 */
	if (lgr) {
		if (!left || READ_ONCE(conn->tx_inflight)) {
			/* could not confirm the buffer is idle: never reuse */
			asmc_link_error(READ_ONCE(conn->link));
		}
		asmc_lgr_leave(smc);
		asmc_obj_destroyed(ASMC_OBJ_CONN, conn);
	}
	asmc_close_await_tcp_fin(smc);
	lock_sock(sk);
	asmc_sock_set_state(smc, ASMC_CLOSED);
	asmc_clcsock_release(smc);
	release_sock(sk);
}

/* Runs once to free the connection; every queueing holds a reference. */
void asmc_close_work(struct work_struct *work)
{
	struct asmc_sock *smc = container_of(to_delayed_work(work),
					     struct asmc_sock, close_work);

	if (!test_and_set_bit(ASMC_SOCK_CLOSE_DONE, &smc->flags)) {
		asmc_close_free(smc);
		sock_put(&smc->sk);	/* the socket's own, kept by release */
		module_put(THIS_MODULE);	/* taken in close_release */
	}
	sock_put(&smc->sk);		/* the queueing's */
}

/* Free the connection after @delay, or now if already scheduled later. */
static void asmc_close_finish(struct asmc_sock *smc, unsigned long delay)
{
	if (test_bit(ASMC_SOCK_CLOSE_DONE, &smc->flags))
		return;
	sock_hold(&smc->sk);
	if (mod_delayed_work(asmc_wq, &smc->close_work, delay))
		sock_put(&smc->sk);	/* it was pending: one reference */
}

/* The connection is unusable (link lost, protocol error): the application
 * sees the error; an orphaned socket is freed right away.
 */
void asmc_conn_abort(struct asmc_sock *smc, int err)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool orphan;

	spin_lock_bh(&conn->lock);
	conn->peer_conn_flags |= ASMC_CDC_PEER_CONN_ABORT;
	/* tell the peer, if the link still carries anything */
	conn->local_conn_flags |= ASMC_CDC_PEER_CONN_ABORT;
	spin_unlock_bh(&conn->lock);
	if (err != ECONNRESET && err != ENETDOWN)
		asmc_tx_push(smc, false);
	if (!READ_ONCE(sk->sk_err) && !sock_flag(sk, SOCK_DEAD))
		WRITE_ONCE(sk->sk_err, err);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	WRITE_ONCE(sk->sk_state, ASMC_PROCESSABORT);
	smp_mb();	/* the abort flag before the test: see close_release */
	orphan = test_bit(ASMC_SOCK_RELEASED, &smc->flags);
	sk->sk_error_report(sk);
	sk->sk_state_change(sk);
	if (orphan)
		asmc_close_finish(smc, 0);
}

/* Close flags arrived from the peer (softirq). */
void asmc_close_peer_flags(struct asmc_sock *smc, u8 flags)
{
	struct sock *sk = &smc->sk;

	pr_debug("sock %p: peer close flags %#x in state %d\n", smc, flags,
		 sk->sk_state);
	if (flags & ASMC_CDC_PEER_CONN_ABORT) {
		asmc_conn_abort(smc, ECONNRESET);
		return;
	}
	if (flags & (ASMC_CDC_PEER_DONE_WRITING | ASMC_CDC_PEER_CONN_CLOSED))
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	if (!(flags & ASMC_CDC_PEER_CONN_CLOSED))
		return;
	smp_mb();	/* the peer's flag before the test: see close_release */
	if (test_bit(ASMC_SOCK_RELEASED, &smc->flags)) {
		asmc_close_finish(smc, 0);	/* we had closed first */
		return;
	}
	if (sk->sk_state == ASMC_ACTIVE)
		WRITE_ONCE(sk->sk_state, ASMC_APPCLOSEWAIT1);
	sk->sk_state_change(sk);
}

/* Set a close flag and send it after whatever data is still queued. */
static void asmc_close_send_flag(struct asmc_sock *smc, u8 flag)
{
	struct asmc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->lock);
	conn->local_conn_flags |= flag;
	spin_unlock_bh(&conn->lock);
	asmc_tx_push(smc, true);
}

int asmc_close_shutdown(struct asmc_sock *smc, int how)
{
	struct sock *sk = &smc->sk;
	int mask = how + 1;	/* SHUT_RD..SHUT_RDWR -> RCV/SEND bits */

	lock_sock(sk);
	if (mask & SEND_SHUTDOWN && !(sk->sk_shutdown & SEND_SHUTDOWN)) {
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | SEND_SHUTDOWN);
		if (!(smc->conn.peer_conn_flags & ASMC_CDC_PEER_CONN_ABORT))
			asmc_close_send_flag(smc, ASMC_CDC_PEER_DONE_WRITING);
	}
	if (mask & RCV_SHUTDOWN)
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	release_sock(sk);
	sk->sk_state_change(sk);
	return 0;
}

/* Has the peer all our data (or aborted)? If not, ask for the wake-up of
 * the next completion, as a writer waiting for room does.
 */
static bool asmc_close_lingered(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	if (asmc_tx_idle(conn) ||
	    READ_ONCE(conn->peer_conn_flags) & ASMC_CDC_PEER_CONN_ABORT)
		return true;
	asmc_tx_nospace(smc);
	return asmc_tx_idle(conn);
}

/* close() with SO_LINGER and a timeout: wait (the socket still has its
 * wait queue) until the peer has all our data, or the time is up.
 */
void asmc_close_linger(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	long timeo = sk->sk_lingertime;

	if (!sock_flag(sk, SOCK_LINGER) || !timeo ||
	    asmc_conn_rx_avail(conn))
		return;
	asmc_tx_push(smc, true);
	wait_event_interruptible_timeout(*sk_sleep(sk),
					 asmc_close_lingered(smc), timeo);
}

/* close() of an SMC-R socket, which release() has orphaned; its own
 * reference now belongs to close_work, which frees the connection.
 */
void asmc_close_release(struct asmc_sock *smc, bool force_abort)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool abort, peer_gone;

	lock_sock(sk);
	peer_gone = conn->peer_conn_flags & (ASMC_CDC_PEER_CONN_CLOSED |
					     ASMC_CDC_PEER_CONN_ABORT);
	/* as TCP: unread data, or SO_LINGER 0, resets the connection */
	abort = force_abort || asmc_conn_rx_avail(conn) ||
		(sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime);
	if (conn->peer_conn_flags & ASMC_CDC_PEER_CONN_ABORT)
		;	/* nothing to tell */
	else if (abort)
		asmc_close_send_flag(smc, ASMC_CDC_PEER_CONN_ABORT);
	else
		asmc_close_send_flag(smc, ASMC_CDC_PEER_CONN_CLOSED);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	/* the module stays until the connection is freed */
	__module_get(THIS_MODULE);
	if (abort || peer_gone) {
		if (!abort && !(conn->peer_conn_flags &
				ASMC_CDC_PEER_CONN_ABORT))
			set_bit(ASMC_SOCK_PASSIVE_CLOSE, &smc->flags);
		asmc_sock_set_state(smc, ASMC_CLOSED);
		asmc_close_finish(smc, 0);
	} else {
		/* the peer's closing CDC finishes it earlier */
		asmc_sock_set_state(smc, ASMC_PEERCLOSEWAIT1);
		asmc_close_finish(smc, ASMC_CLOSE_WAIT);
	}
	/* only now may the receive path finish the connection: between
	 * release()'s sock_orphan() and here, close_work freeing the socket
	 * would pull it from under us. A peer close or abort that came in
	 * meanwhile saw the bit clear: finish for it.
	 */
	set_bit(ASMC_SOCK_RELEASED, &smc->flags);
	smp_mb__after_atomic();
	if (!abort && !peer_gone &&
	    READ_ONCE(conn->peer_conn_flags) & (ASMC_CDC_PEER_CONN_CLOSED |
						ASMC_CDC_PEER_CONN_ABORT))
		asmc_close_finish(smc, 0);
	release_sock(sk);
}
