// SPDX-License-Identifier: GPL-2.0
/* AF_SMC socket life cycle and the proto_ops table: creation, release,
 * option mirroring to the internal TCP socket, and dispatch of each call.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/smc.h>
#include <linux/sockios.h>
#include <linux/splice.h>
#include <linux/termios.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include <smc/sockopt.h>
#include "cdc.h"
#include "clc_wire.h"
#include "close.h"
#include "connect.h"
#include "debug.h"
#include "diag_export.h"
#include "fallback.h"
#include "lgr.h"
#include "listen.h"
#include "netns.h"
#include "rx.h"
#include "socket.h"
#include "tx.h"
#include "trace.h"

#define SMCPROTO_SMC	0	/* IPv4 over SMC */
#define SMCPROTO_SMC6	1	/* IPv6 over SMC */

struct workqueue_struct *asmc_wq;
struct workqueue_struct *asmc_llc_wq;
struct workqueue_struct *asmc_hs_wq;

/* Every asmc_sock of every namespace, for debugfs and smc_diag. */
LIST_HEAD(asmc_all_socks);
DEFINE_SPINLOCK(asmc_all_lock);
static int asmc_all_count;

static const struct proto_ops asmc_ops;

struct proto asmc_proto = {
	.name		= "SMC",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct asmc_sock),
};

int asmc_socks_count(void)
{
	return READ_ONCE(asmc_all_count);
}

static const char *asmc_state_name(int state)
{
	switch (state) {
	case ASMC_ACTIVE:	return "ACTIVE";
	case ASMC_INIT:		return "INIT";
	case ASMC_CLOSED:	return "CLOSED";
	case ASMC_LISTEN:	return "LISTEN";
	}
	return "CLOSING";
}

void asmc_socks_show(struct seq_file *m, struct net *net)
{
	struct asmc_sock *smc;

	spin_lock_bh(&asmc_all_lock);
	list_for_each_entry(smc, &asmc_all_socks, all_node) {
		if (!net_eq(sock_net(&smc->sk), net))
			continue;
		seq_printf(m, "%px state %s role %s mode %s fallback_rsn 0x%08x peer_diag 0x%08x sndbuf %u rmb %u\n",
			   smc, asmc_state_name(smc->sk.sk_state),
			   smc->role == ASMC_ROLE_SERVER ? "server" : "client",
			   smc->smc_mode ? "SMCR" :
			   smc->use_fallback ? "TCP" : "-",
			   smc->fallback_rsn, smc->peer_diag,
			   (u32)READ_ONCE(smc->conn.sndbuf_size),
			   (u32)READ_ONCE(smc->conn.rmbe_size));
	}
	spin_unlock_bh(&asmc_all_lock);
}

void asmc_sock_set_state(struct asmc_sock *smc, int state)
{
	sock_owned_by_me(&smc->sk);
	pr_debug("sock %p state %d -> %d\n", smc, smc->sk.sk_state, state);
	WRITE_ONCE(smc->sk.sk_state, state);
}

static void asmc_sk_destruct(struct sock *sk)
{
	struct asmc_sock *smc = asmc_sk(sk);

	WARN_ON_ONCE(smc->clcsock);
	WARN_ON_ONCE(!list_empty(&smc->accept_q));
	spin_lock_bh(&asmc_all_lock);
	list_del(&smc->all_node);
	asmc_all_count--;
	spin_unlock_bh(&asmc_all_lock);
	asmc_obj_destroyed(ASMC_OBJ_SOCK, smc);
}

static int asmc_clcsock_create(struct net *net, int protocol,
			       struct socket **res)
{
	int family = protocol == SMCPROTO_SMC6 ? AF_INET6 : AF_INET;
	int rc;

	/* A user-level (kern=0) socket: it holds a reference on the
	 * namespace like the application's own TCP socket would, so a TCP
	 * connection that outlives us in FIN_WAIT cannot outlive its netns.
	 */
	rc = __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP, res, 0);
	if (rc)
		return rc;
	asmc_obj_created(ASMC_OBJ_CLCSOCK, *res);
	return 0;
}

/* We learn about TCP events on the internal socket the way poll() does:
 * a wait-queue entry on clcsock's wait queue, whose wake function runs
 * in the waker's context (often softirq) and only queues work. TCP's own
 * callbacks stay untouched, so TCP children cloned from a listening
 * clcsock inherit nothing of ours.
 */
void asmc_clc_watch(struct asmc_sock *smc, wait_queue_func_t func)
{
	struct socket *clcsock = smc->clcsock;

	WARN_ON_ONCE(smc->clc_wait_head);
	init_waitqueue_func_entry(&smc->clc_wait, func);
	smc->clc_wait_head = &clcsock->wq.wait;
	add_wait_queue(smc->clc_wait_head, &smc->clc_wait);
}

void asmc_clc_unwatch(struct asmc_sock *smc)
{
	if (!smc->clc_wait_head)
		return;
	remove_wait_queue(smc->clc_wait_head, &smc->clc_wait);
	smc->clc_wait_head = NULL;
}

/* Release the internal TCP socket; the caller detached our callbacks. */
void asmc_clcsock_release(struct asmc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	if (!clcsock)
		return;
	asmc_clc_unwatch(smc);
	/* and with the watch a pending check of the peer's TCP end: left
	 * queued, it would keep the socket its grace time (5 s) longer
	 */
	if (cancel_delayed_work(&smc->tcp_gone_work))
		sock_put(&smc->sk);
	smc->clcsock = NULL;
	/* clcsock->file is borrowed from our socket (fallback): drop it so
	 * sock_release() frees the inode as it does for a file-less socket.
	 */
	clcsock->file = NULL;
	asmc_obj_destroyed(ASMC_OBJ_CLCSOCK, clcsock);
	sock_release(clcsock);
}

/* Room in the send buffer (SMC-R mode): wake writers and pollers, but, as
 * TCP, only once one of them found none (SOCK_NOSPACE: set by poll, by a
 * sendmsg about to sleep and by a lingering close). Called on every CDC
 * completion; a reader blocked in recvmsg sleeps on the same wait queue
 * and would otherwise wake for nothing once per message sent.
 */
static void asmc_sk_write_space(struct sock *sk)
{
	struct asmc_sock *smc = asmc_sk(sk);
	struct socket_wq *wq;
	struct socket *sock;

	if (!smc->smc_mode || !asmc_tx_writable(smc))
		return;
	rcu_read_lock();	/* release() may orphan us: sockets are RCU-freed */
	sock = READ_ONCE(sk->sk_socket);
	/* the room we saw, then the flag; a waiter sets the flag, then looks
	 * at the room (asmc_tx_nospace())
	 */
	smp_mb();
	if (!sock || !test_bit(SOCK_NOSPACE, &sock->flags)) {
		rcu_read_unlock();
		return;
	}
	clear_bit(SOCK_NOSPACE, &sock->flags);
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM |
					   EPOLLWRBAND);
	if (wq && wq->fasync_list && !(sk->sk_shutdown & SEND_SHUTDOWN))
		sock_wake_async(wq, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

/* Allocate an asmc_sock (or an ERR_PTR). @sock is NULL for a child of a
 * listener (grafted in accept()); @clcsock is NULL to create a new
 * internal TCP socket.
 */
struct asmc_sock *asmc_sock_alloc(struct net *net, struct socket *sock,
				  int protocol, struct socket *clcsock)
{
	struct asmc_sock *smc;
	struct sock *sk;
	int rc;

	sk = ASMC_FAULTY(ASMC_FAULT_SOCK, NULL,
			 sk_alloc(net, PF_SMC, GFP_KERNEL, &asmc_proto, 0));
	if (!sk)
		return ERR_PTR(-ENOBUFS);
	sock_init_data(sock, sk);
	sk->sk_type = SOCK_STREAM;
	sk->sk_protocol = protocol;
	sk->sk_state = ASMC_INIT;
	sk->sk_destruct = asmc_sk_destruct;
	sk->sk_write_space = asmc_sk_write_space;
	/* CDC receive looks sockets up without a lock: free after RCU */
	sock_set_flag(sk, SOCK_RCU_FREE);
	smc = asmc_sk(sk);
	asmc_conn_init(&smc->conn);
	INIT_DELAYED_WORK(&smc->close_work, asmc_close_work);
	INIT_DELAYED_WORK(&smc->tcp_gone_work, asmc_close_tcp_gone_work);
	INIT_LIST_HEAD(&smc->accept_q);
	INIT_LIST_HEAD(&smc->accept_node);
	spin_lock_init(&smc->accept_lock);
	INIT_WORK(&smc->accept_work, asmc_accept_work);
	INIT_WORK(&smc->hs_work, asmc_connect_work);
	smc->fallback_rsn = 0;
	smc->limit_hs = READ_ONCE(asmc_net(net)->limit_hs);

	spin_lock_bh(&asmc_all_lock);
	list_add_tail(&smc->all_node, &asmc_all_socks);
	asmc_all_count++;
	spin_unlock_bh(&asmc_all_lock);
	asmc_obj_created(ASMC_OBJ_SOCK, smc);

	if (clcsock) {
		/* a listener's child: asmc_sock_inherit() sets the options */
		smc->clcsock = clcsock;
		return smc;
	}
	rc = asmc_clcsock_create(net, protocol, &clcsock);
	if (rc) {
		if (sock)
			sock->sk = NULL;
		sk_free(sk);
		return ERR_PTR(rc);
	}
	smc->clcsock = clcsock;
	/* getsockopt(SO_RCVBUF/SO_SNDBUF) reads our sock: start from TCP's */
	sk->sk_rcvbuf = READ_ONCE(clcsock->sk->sk_rcvbuf);
	sk->sk_sndbuf = READ_ONCE(clcsock->sk->sk_sndbuf);
	asmc_sock_opts_sync(smc);
	return smc;
}

/* Socket-level options live on our sock (SOL_SOCKET never reaches our
 * setsockopt in 6.1); copy the ones TCP acts on to the internal socket.
 */
#define ASMC_SYNC_FLAGS	(BIT(SOCK_KEEPOPEN) | BIT(SOCK_LINGER) | \
			 BIT(SOCK_URGINLINE))
#define ASMC_SYNC_LOCKS	(SOCK_RCVBUF_LOCK | SOCK_SNDBUF_LOCK)

/* SO_REUSEPORT as set at SOL_SMC (ASMC_SO_REUSEPORT) or, on kernels
 * before the inet-only rule, at SOL_SOCKET
 */
static bool asmc_reuseport(const struct sock *sk)
{
	return sk->sk_reuseport || READ_ONCE(asmc_sk(sk)->reuseport);
}

static void asmc_opts_read(const struct sock *sk, struct asmc_optshadow *o)
{
	o->flags = READ_ONCE(sk->sk_flags) & ASMC_SYNC_FLAGS;
	o->rcvtimeo = READ_ONCE(sk->sk_rcvtimeo);
	o->sndtimeo = READ_ONCE(sk->sk_sndtimeo);
	o->rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	o->sndbuf = READ_ONCE(sk->sk_sndbuf);
	o->lingertime = READ_ONCE(sk->sk_lingertime);
	o->priority = READ_ONCE(sk->sk_priority);
	o->mark = READ_ONCE(sk->sk_mark);
	o->bound_dev_if = READ_ONCE(sk->sk_bound_dev_if);
	o->userlocks = sk->sk_userlocks & ASMC_SYNC_LOCKS;
	o->reuse = sk->sk_reuse;
	o->reuseport = asmc_reuseport(sk);
}

static void asmc_opts_apply(struct sock *clcsk, const struct asmc_optshadow *o,
			    const struct asmc_optshadow *old)
{
	unsigned long changed = o->flags ^ old->flags;

	lock_sock(clcsk);
	/* TCP's keepalive hook (tcp_set_keepalive() is not exported on all
	 * kernels; the socket core calls the same through sk_prot)
	 */
	if ((changed & BIT(SOCK_KEEPOPEN)) && clcsk->sk_prot->keepalive)
		clcsk->sk_prot->keepalive(clcsk,
					  !!(o->flags & BIT(SOCK_KEEPOPEN)));
	if (changed) {
		sock_valbool_flag(clcsk, SOCK_KEEPOPEN,
				  o->flags & BIT(SOCK_KEEPOPEN));
		sock_valbool_flag(clcsk, SOCK_LINGER,
				  o->flags & BIT(SOCK_LINGER));
		sock_valbool_flag(clcsk, SOCK_URGINLINE,
				  o->flags & BIT(SOCK_URGINLINE));
	}
	WRITE_ONCE(clcsk->sk_rcvtimeo, o->rcvtimeo);
	WRITE_ONCE(clcsk->sk_sndtimeo, o->sndtimeo);
	WRITE_ONCE(clcsk->sk_lingertime, o->lingertime);
	if (o->userlocks & SOCK_RCVBUF_LOCK && o->rcvbuf != old->rcvbuf)
		WRITE_ONCE(clcsk->sk_rcvbuf, o->rcvbuf);
	if (o->userlocks & SOCK_SNDBUF_LOCK && o->sndbuf != old->sndbuf) {
		WRITE_ONCE(clcsk->sk_sndbuf, o->sndbuf);
		clcsk->sk_write_space(clcsk);
	}
	clcsk->sk_userlocks |= o->userlocks;
	WRITE_ONCE(clcsk->sk_priority, o->priority);
	if (o->mark != old->mark) {
		WRITE_ONCE(clcsk->sk_mark, o->mark);
		sk_dst_reset(clcsk);
	}
	if (o->bound_dev_if != old->bound_dev_if)
		sock_bindtoindex(clcsk, o->bound_dev_if, false);
	clcsk->sk_reuse = o->reuse;
	clcsk->sk_reuseport = o->reuseport;
	release_sock(clcsk);
}

/* Copy every mirrored option, whatever changed (caller owns our sock). */
void asmc_sock_opts_sync(struct asmc_sock *smc)
{
	struct asmc_optshadow now, none;

	asmc_opts_read(&smc->sk, &now);
	/* an impossible "previous" value forces each conditional copy */
	memset(&none, 0xff, sizeof(none));
	none.flags = ~now.flags & ASMC_SYNC_FLAGS;
	asmc_opts_apply(smc->clcsock->sk, &now, &none);
	smc->opts = now;
}

/* Lockless check on the fast path; copies only when the user changed a
 * socket option since the last copy.
 */
void asmc_sock_opts_sync_if_changed(struct asmc_sock *smc)
{
	struct asmc_optshadow now;

	asmc_opts_read(&smc->sk, &now);
	if (likely(!memcmp(&now, &smc->opts, sizeof(now))))
		return;
	lock_sock(&smc->sk);
	asmc_opts_read(&smc->sk, &now);
	if (smc->clcsock)
		asmc_opts_apply(smc->clcsock->sk, &now, &smc->opts);
	smc->opts = now;
	release_sock(&smc->sk);
}

/* A child inherits the listener's socket options, as TCP children do; its
 * clcsock inherited the same values from the listening clcsock.
 */
void asmc_sock_inherit(struct asmc_sock *child, const struct asmc_sock *parent)
{
	struct sock *nsk = &child->sk;
	const struct sock *osk = &parent->sk;

	nsk->sk_flags = (nsk->sk_flags & ~ASMC_SYNC_FLAGS) |
			(osk->sk_flags & ASMC_SYNC_FLAGS);
	nsk->sk_rcvtimeo = osk->sk_rcvtimeo;
	nsk->sk_sndtimeo = osk->sk_sndtimeo;
	nsk->sk_rcvbuf = osk->sk_rcvbuf;
	nsk->sk_sndbuf = osk->sk_sndbuf;
	nsk->sk_userlocks = osk->sk_userlocks;
	nsk->sk_lingertime = osk->sk_lingertime;
	nsk->sk_priority = osk->sk_priority;
	nsk->sk_mark = osk->sk_mark;
	nsk->sk_bound_dev_if = osk->sk_bound_dev_if;
	nsk->sk_reuse = osk->sk_reuse;
	nsk->sk_reuseport = osk->sk_reuseport;
	child->reuseport = parent->reuseport;
	child->limit_hs = parent->limit_hs;
	nsk->sk_rcvlowat = osk->sk_rcvlowat;
	asmc_opts_read(nsk, &child->opts);
}

/* Tear down a sock that has no user socket any more: stop whatever runs
 * on it, release the internal socket and drop the caller's reference.
 */
void asmc_sock_kill(struct asmc_sock *smc, bool abort)
{
	struct sock *sk = &smc->sk;
	bool was_listening = false;

	if (smc->smc_mode) {
		/* the close protocol frees it: the reference goes along */
		sock_set_flag(sk, SOCK_DEAD);
		asmc_close_release(smc, abort);
		return;
	}
	lock_sock(sk);
	if (sk->sk_state == ASMC_LISTEN) {
		asmc_listen_stop(smc);
		was_listening = true;
	}
	asmc_fallback_detach(smc);
	asmc_connect_abort(smc);
	asmc_sock_set_state(smc, ASMC_CLOSED);
	sock_set_flag(sk, SOCK_DEAD);
	release_sock(sk);

	if (was_listening)
		asmc_listen_flush(smc);
	/* a connect handshake may sleep in CLC I/O: the shutdown above woke
	 * it; a server child's handshake work may be the one killing it
	 */
	if (current_work() != &smc->hs_work && cancel_work_sync(&smc->hs_work))
		sock_put(sk);	/* the reference the queued work held */
	if (smc->smc_mode) {
		/* the handshake finished just before we stopped it: nobody
		 * will use the connection, abort it properly
		 */
		asmc_close_release(smc, true);
		return;
	}

	lock_sock(sk);
	asmc_clcsock_release(smc);
	release_sock(sk);
	sock_put(sk);
}

static int asmc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct asmc_sock *smc;

	if (!sk)
		return 0;
	smc = asmc_sk(sk);
	if (smc->smc_mode)
		asmc_close_linger(smc);	/* still has its wait queue */
	/* SO_LINGER and friends must hold for TCP's close */
	lock_sock(sk);
	if (smc->clcsock)
		asmc_sock_opts_sync(smc);
	sock_orphan(sk);
	sock->sk = NULL;
	release_sock(sk);
	asmc_sock_kill(smc, false);
	return 0;
}

static int asmc_create(struct net *net, struct socket *sock, int protocol,
		       int kern)
{
	struct asmc_sock *smc;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != SMCPROTO_SMC && protocol != SMCPROTO_SMC6)
		return -EPROTONOSUPPORT;

	sock->state = SS_UNCONNECTED;
	sock->ops = &asmc_ops;
	smc = asmc_sock_alloc(net, sock, protocol, NULL);
	if (IS_ERR(smc))
		return PTR_ERR(smc);
	smc->role = ASMC_ROLE_CLIENT;
	return 0;
}

const struct net_proto_family asmc_family_ops = {
	.family	= PF_SMC,
	.owner	= THIS_MODULE,
	.create	= asmc_create,
};

/* Most calls are TCP's own until SMC-R carries the connection; while a
 * connect runs (TCP connect plus CLC handshake) data calls must wait.
 */
static int asmc_wait_ready(struct asmc_sock *smc, bool nonblock)
{
	struct sock *sk = &smc->sk;
	long timeo;
	int rc;

	if (likely(!READ_ONCE(smc->connect_pending)))
		return 0;
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, nonblock);
	rc = asmc_connect_wait(smc, &timeo);
	release_sock(sk);
	return rc;
}

static int asmc_bind(struct socket *sock, struct sockaddr *addr, int len)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	lock_sock(&smc->sk);
	asmc_sock_opts_sync(smc);
	release_sock(&smc->sk);
	return kernel_bind(smc->clcsock, addr, len);
}

static int asmc_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	return smc->clcsock->ops->getname(smc->clcsock, addr, peer);
}

static __poll_t asmc_smc_poll(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	u8 shutdown = READ_ONCE(sk->sk_shutdown);
	__poll_t mask = 0;

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK || sk->sk_state == ASMC_CLOSED)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (asmc_rx_inq(smc))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(conn->rx_urg_valid))
		mask |= EPOLLPRI;
	if (shutdown & SEND_SHUTDOWN ||
	    READ_ONCE(conn->peer_conn_flags) & (ASMC_CDC_PEER_CONN_CLOSED |
						ASMC_CDC_PEER_CONN_ABORT)) {
		mask |= EPOLLOUT | EPOLLWRNORM;
	} else if (asmc_tx_writable(smc)) {
		mask |= EPOLLOUT | EPOLLWRNORM;
	} else {
		asmc_tx_nospace(smc);
		if (asmc_tx_writable(smc))
			mask |= EPOLLOUT | EPOLLWRNORM;
	}
	return mask;
}

static __poll_t asmc_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	struct sock *sk = sock->sk;

	sock_poll_wait(file, sock, wait);
	if (asmc_is_fallback(smc))
		return asmc_fb_poll(smc, file);
	/* before smc_mode: the handshake sets that before the connect has
	 * settled, and a connect() then would still answer EALREADY. A
	 * failed connect sets sk_err just before it settles: nothing until
	 * then, so that a poll in between does not see EPOLLERR alone (the
	 * settling wakes pollers, which then get TCP's whole answer).
	 */
	if (READ_ONCE(smc->connect_pending))
		return 0;
	if (READ_ONCE(smc->smc_mode))
		return asmc_smc_poll(smc);
	if (READ_ONCE(sk->sk_state) == ASMC_LISTEN)
		return asmc_listen_poll(smc);
	/* unconnected, or a connect that failed: TCP's answer */
	return asmc_fb_poll(smc, file);
}

static int asmc_ioctl(struct socket *sock, unsigned int cmd,
		      unsigned long arg)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	struct asmc_conn *conn = &smc->conn;

	if (READ_ONCE(smc->smc_mode)) {
		switch (cmd) {
		case SIOCINQ:
			return put_user((int)min_t(u64, asmc_rx_inq(smc),
						   INT_MAX), (int __user *)arg);
		case SIOCOUTQ:	/* not yet in the peer's memory */
			return put_user((int)(READ_ONCE(conn->sb_filled) -
					      READ_ONCE(conn->sb_done)),
					(int __user *)arg);
		case SIOCOUTQNSD: /* not yet handed to the RDMA device */
			return put_user((int)(READ_ONCE(conn->sb_filled) -
					      READ_ONCE(conn->sb_posted)),
					(int __user *)arg);
		case SIOCATMARK:
			return put_user(asmc_rx_atmark(smc),
					(int __user *)arg);
		}
	}
	if (READ_ONCE(smc->connect_pending)) {
		switch (cmd) {
		case SIOCINQ:
		case SIOCOUTQ:
		case SIOCOUTQNSD:
			return put_user(0, (int __user *)arg);
		}
	}
	return asmc_fb_ioctl(smc, cmd, arg);
}

static int asmc_gettstamp(struct socket *sock, void __user *ts, bool timeval,
			  bool time32)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	return smc->clcsock->ops->gettstamp(smc->clcsock, ts, timeval, time32);
}

static int asmc_shutdown(struct socket *sock, int how)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	struct sock *sk = sock->sk;
	int rc;

	/* same range check and mapping as TCP: 0..2 -> RCV, SEND, both */
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	if (READ_ONCE(smc->smc_mode))
		return asmc_close_shutdown(smc, how);

	lock_sock(sk);
	if (sk->sk_state == ASMC_LISTEN && (how + 1) & RCV_SHUTDOWN) {
		/* TCP stops listening too; accept() now fails with EINVAL */
		asmc_listen_stop(smc);
		asmc_sock_set_state(smc, ASMC_INIT);
		release_sock(sk);
		asmc_listen_flush(smc);
	} else {
		release_sock(sk);
	}
	/* a running connect is aborted by TCP's shutdown of clcsock */
	rc = asmc_fb_shutdown(smc, how);
	sk->sk_state_change(sk);
	return rc;
}

/* Level SOL_SMC: SMC_LIMIT_HS (takes effect at the next listen()) and
 * ASMC_SO_REUSEPORT (copied to the internal socket before its next bind,
 * listen or connect, as the SOL_SOCKET options are), both int 0 or 1.
 */
static int asmc_setsockopt_smc(struct asmc_sock *smc, int optname,
			       sockptr_t optval, unsigned int optlen)
{
	int val;

	if (optname != SMC_LIMIT_HS && optname != ASMC_SO_REUSEPORT)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(int)))
		return -EFAULT;
	lock_sock(&smc->sk);
	if (optname == SMC_LIMIT_HS)
		WRITE_ONCE(smc->limit_hs, !!val);
	else
		WRITE_ONCE(smc->reuseport, !!val);
	release_sock(&smc->sk);
	if (optname == ASMC_SO_REUSEPORT)
		asmc_sock_opts_sync_if_changed(smc);
	return 0;
}

static int asmc_getsockopt_smc(struct asmc_sock *smc, int optname,
			       char __user *optval, int __user *optlen)
{
	int val, len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (optname == SMC_LIMIT_HS)
		val = READ_ONCE(smc->limit_hs);
	else if (optname == ASMC_SO_REUSEPORT)
		val = asmc_reuseport(&smc->sk);
	else
		return -ENOPROTOOPT;
	if (len < 0)
		return -EINVAL;
	len = min_t(int, len, sizeof(int));
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

static int asmc_setsockopt(struct socket *sock, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	int rc, val;

	if (level == SOL_SMC)
		return asmc_setsockopt_smc(smc, optname, optval, optlen);
	rc = smc->clcsock->ops->setsockopt(smc->clcsock, level, optname,
					   optval, optlen);
	if (rc || level != SOL_TCP || !READ_ONCE(smc->smc_mode) ||
	    optlen < sizeof(int) || copy_from_sockptr(&val, optval, sizeof(int)))
		return rc;
	/* the same meaning for the SMC-R send path */
	switch (optname) {
	case TCP_CORK:
		smc->corked = val;
		if (!val)
			asmc_tx_push(smc, true);
		break;
	case TCP_NODELAY:
		if (val)
			asmc_tx_push(smc, true);
		break;
	}
	return 0;
}

static int asmc_getsockopt(struct socket *sock, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	if (level == SOL_SMC)
		return asmc_getsockopt_smc(smc, optname, optval, optlen);
	return smc->clcsock->ops->getsockopt(smc->clcsock, level, optname,
					     optval, optlen);
}

static int asmc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	int rc;

	rc = asmc_wait_ready(smc, msg->msg_flags & MSG_DONTWAIT);
	if (rc)
		return rc;
	if (READ_ONCE(smc->smc_mode)) {
		rc = asmc_tx_sendmsg(smc, msg, len);
		trace_smc_tx_sendmsg(smc, len, rc);
		return rc;
	}
	return asmc_fb_sendmsg(smc, msg, len);
}

static int asmc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			int flags)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	int rc;

	rc = asmc_wait_ready(smc, flags & MSG_DONTWAIT);
	if (rc)
		return rc;
	if (READ_ONCE(smc->smc_mode)) {
		rc = asmc_rx_recvmsg(smc, msg, len, flags);
		trace_smc_rx_recvmsg(smc, len, rc);
		return rc;
	}
	return asmc_fb_recvmsg(smc, msg, len, flags);
}

static ssize_t __maybe_unused asmc_sendpage(struct socket *sock, struct page *page,
			     int offset, size_t size, int flags)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	int rc;

	rc = asmc_wait_ready(smc, flags & MSG_DONTWAIT);
	if (rc)
		return rc;
	if (READ_ONCE(smc->smc_mode))
		return asmc_tx_sendpage(smc, page, offset, size, flags);
	return asmc_fb_sendpage(smc, page, offset, size, flags);
}

static ssize_t asmc_splice_read(struct socket *sock, loff_t *ppos,
				struct pipe_inode_info *pipe, size_t len,
				unsigned int flags)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	int rc;

	rc = asmc_wait_ready(smc, (flags & SPLICE_F_NONBLOCK) ||
				  (sock->file->f_flags & O_NONBLOCK));
	if (rc)
		return rc;
	if (READ_ONCE(smc->smc_mode))
		return asmc_rx_splice_read(smc, sock->file, pipe, len, flags);
	return asmc_fb_splice_read(smc, sock->file, ppos, pipe, len, flags);
}

static void asmc_splice_eof(struct socket *sock)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	if (asmc_is_fallback(smc))
		asmc_fb_splice_eof(smc);
}

static int asmc_peek_len(struct socket *sock)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);

	if (READ_ONCE(smc->connect_pending))
		return 0;
	return smc->clcsock->ops->peek_len(smc->clcsock);
}

/* Called by sock_setsockopt(SO_RCVLOWAT) with our sock locked. */
static int asmc_set_rcvlowat(struct sock *sk, int val)
{
	struct asmc_sock *smc = asmc_sk(sk);
	struct sock *clcsk = smc->clcsock->sk;
	int rc;

	WRITE_ONCE(sk->sk_rcvlowat, val ? : 1);
	lock_sock(clcsk);
	rc = smc->clcsock->ops->set_rcvlowat(clcsk, val);
	release_sock(clcsk);
	return rc;
}

ASMC_ACCEPT_SHIM(asmc_accept)

static const struct proto_ops asmc_ops = {
	.family		= PF_SMC,
	.owner		= THIS_MODULE,
	.release	= asmc_release,
	.bind		= asmc_bind,
	.connect	= asmc_connect,
	.socketpair	= sock_no_socketpair,
	ASMC_ACCEPT_OP(asmc_accept)
	.getname	= asmc_getname,
	.poll		= asmc_poll,
	.ioctl		= asmc_ioctl,
	.gettstamp	= asmc_gettstamp,
	.listen		= asmc_listen,
	.shutdown	= asmc_shutdown,
	.setsockopt	= asmc_setsockopt,
	.getsockopt	= asmc_getsockopt,
	.sendmsg	= asmc_sendmsg,
	.recvmsg	= asmc_recvmsg,
	.mmap		= sock_no_mmap,
	ASMC_SENDPAGE_OP(asmc_sendpage)
	.splice_read	= asmc_splice_read,
	.splice_eof	= asmc_splice_eof,
	.peek_len	= asmc_peek_len,
	.set_rcvlowat	= asmc_set_rcvlowat,
};

int asmc_socket_init(void)
{
	asmc_wq = alloc_workqueue("smc_wq", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!asmc_wq)
		return -ENOMEM;
	/* answers to the peer's LLC requests never wait behind handshakes
	 * and closes: those may themselves wait for the peer's answers
	 */
	asmc_llc_wq = alloc_workqueue("smc_llc_wq", WQ_UNBOUND | WQ_HIGHPRI |
				      WQ_MEM_RECLAIM, 0);
	if (!asmc_llc_wq)
		goto err_llc;
	/* Connection setup: accepts and handshakes, which sleep for seconds
	 * (CLC and LLC answers, each with its timeout). Not on a reclaim
	 * workqueue: when new workers come slowly, its rescuer runs the
	 * pending items one after the other, and an accept would wait behind
	 * a sleeping item (seen as the second of two first connections of a
	 * fresh guest not accepted until its client gave up). Without a
	 * rescuer each item waits for a worker of its own.
	 */
	asmc_hs_wq = alloc_workqueue("smc_hs_wq", WQ_UNBOUND, 0);
	if (!asmc_hs_wq)
		goto err_hs;
	return 0;

err_hs:
	destroy_workqueue(asmc_llc_wq);
err_llc:
	destroy_workqueue(asmc_wq);
	return -ENOMEM;
}

void asmc_socket_exit(void)
{
	destroy_workqueue(asmc_hs_wq);
	destroy_workqueue(asmc_llc_wq);
	destroy_workqueue(asmc_wq);
}
