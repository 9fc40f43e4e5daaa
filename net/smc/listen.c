// SPDX-License-Identifier: GPL-2.0
/* Passive open. The listening clcsock marks its SYN-ACKs with the SMC option;
 * accept_work takes each TCP child, wraps it in a child asmc_sock and runs
 * its server handshake in hs_work; settled children wait in accept_q.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "clc.h"
#include "clc_wire.h"
#include "close.h"
#include "debug.h"
#include "fallback.h"
#include "listen.h"
#include "netns.h"

static void asmc_listen_hs_work(struct work_struct *work);

/* Handshake limitation (SMC_LIMIT_HS of the listener, which starts from
 * net.smc.limit_smc_hs or its netlink commands at socket creation; read at
 * listen() time): TCP asks us before each SYN-ACK whether to offer SMC.
 * While the handshakes of this listener in progress reach its backlog, or
 * handshake work waits for a worker, the new connection gets plain TCP.
 */
static bool asmc_listen_hs_congested(const struct sock *clcsk)
{
	struct asmc_sock *lsmc;
	bool congested = false;

	rcu_read_lock();
	lsmc = __rcu_dereference_sk_user_data_with_flags(clcsk,
							 SK_USER_DATA_NOCOPY);
	if (lsmc)
		congested = workqueue_congested(WORK_CPU_UNBOUND, asmc_hs_wq) ||
			    data_race(lsmc->hs_pending) >=
			    READ_ONCE(lsmc->sk.sk_max_ack_backlog);
	rcu_read_unlock();
	return congested;
}

/* Point the listening clcsock at us (NULL: no more), for the check above;
 * TCP children do not inherit the pointer (NOCOPY).
 */
static void asmc_listen_hs_user(struct asmc_sock *lsmc, bool on)
{
	struct sock *clcsk = lsmc->clcsock->sk;
	bool was;

	write_lock_bh(&clcsk->sk_callback_lock);
	was = READ_ONCE(clcsk->sk_user_data);
	if (on)
		__rcu_assign_sk_user_data_with_flags(clcsk, lsmc,
						     SK_USER_DATA_NOCOPY);
	else
		rcu_assign_sk_user_data(clcsk, NULL);
	write_unlock_bh(&clcsk->sk_callback_lock);
	/* a SYN being handled may still look at us: not freed before it is
	 * done (our sock is not RCU-freed)
	 */
	if (!on && was)
		synchronize_rcu();
}

static int asmc_listen_wake(struct wait_queue_entry *wait, unsigned int mode,
			    int sync, void *key)
{
	struct asmc_sock *lsmc = container_of(wait, struct asmc_sock,
					      clc_wait);

	asmc_sock_queue(&lsmc->sk, asmc_hs_wq, &lsmc->accept_work);
	return 0;
}

int asmc_listen(struct socket *sock, int backlog)
{
	struct asmc_sock *smc = asmc_sk(sock->sk);
	struct sock *sk = sock->sk;
	int rc;

	lock_sock(sk);
	if (sk->sk_state == ASMC_LISTEN) {
		/* only the backlog changes, as for TCP */
		rc = kernel_listen(smc->clcsock, backlog);
		if (!rc)
			WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		goto out;
	}
	rc = -EINVAL;
	if (sk->sk_state != ASMC_INIT || smc->connect_pending ||
	    asmc_is_fallback(smc) || sock->state != SS_UNCONNECTED)
		goto out;

	asmc_sock_opts_sync(smc);
	tcp_sk(smc->clcsock->sk)->syn_smc = 1;
	if (smc->limit_hs) {
		asmc_listen_hs_user(smc, true);
		tcp_sk(smc->clcsock->sk)->smc_hs_congested =
			asmc_listen_hs_congested;
	}
	smc->role = ASMC_ROLE_SERVER;
	asmc_clc_watch(smc, asmc_listen_wake);
	rc = kernel_listen(smc->clcsock, backlog);
	if (rc) {
		asmc_clc_unwatch(smc);
		asmc_listen_hs_user(smc, false);
		tcp_sk(smc->clcsock->sk)->syn_smc = 0;
		goto out;
	}
	/* children inherit interactive (pingpong) mode: TCP holds the ACK
	 * of the Proposal back and the Accept carries it, one packet less.
	 * After listen, which clears the listener's ACK state.
	 */
	tcp_sock_set_quickack(smc->clcsock->sk, 0);
	spin_lock_bh(&smc->accept_lock);
	smc->accepting = true;
	/* never 0: a child's slot_gen of 0 means "holds no slot" */
	smc->listen_gen = smc->listen_gen + 1 ? : 1;
	spin_unlock_bh(&smc->accept_lock);
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	sk->sk_ack_backlog = 0;
	asmc_sock_set_state(smc, ASMC_LISTEN);
out:
	release_sock(sk);
	return rc;
}

/* Backlog. TCP refuses new connections once its accept queue holds more
 * than the backlog. A child we took from that queue (in handshake, or
 * waiting for accept()) keeps its slot: we count it back into the
 * listening clcsock's sk_ack_backlog until the application accepts it.
 * So an SMC listener admits exactly as many connections as a TCP one,
 * while TCP's SYN-queue (and SYN cookie) thresholds stay untouched. The
 * slot is counted before TCP lets the child go (the other order would let
 * a moment's dip admit more than the backlog); for that moment the child
 * counts twice, so TCP's limit is one higher just as long, and a final
 * ACK TCP gets right then is not dropped as on a full queue.
 */
static void __asmc_slots_adjust(struct asmc_sock *lsmc, int n)
{
	struct sock *clcsk = lsmc->clcsock->sk;
	struct request_sock_queue *q = &inet_csk(clcsk)->icsk_accept_queue;

	lockdep_assert_held(&lsmc->accept_lock);
	spin_lock(&q->rskq_lock);
	WRITE_ONCE(clcsk->sk_ack_backlog, clcsk->sk_ack_backlog + n);
	spin_unlock(&q->rskq_lock);
	lsmc->slots_held += n;
}

/* Before taking a child from TCP's queue: keep its slot counted, so the
 * count never dips while the child moves to us, and raise TCP's limit by
 * one until asmc_slot_moved(). The caller holds the listener's lock,
 * which keeps listen() off the clcsock's limit. Returns the generation
 * the slot belongs to (0: not listening, no slot).
 */
static u32 asmc_slot_reserve(struct asmc_sock *lsmc)
{
	struct sock *clcsk = lsmc->clcsock->sk;
	u32 gen = 0;

	sock_owned_by_me(&lsmc->sk);
	spin_lock_bh(&lsmc->accept_lock);
	if (lsmc->accepting) {
		WRITE_ONCE(clcsk->sk_max_ack_backlog,
			   clcsk->sk_max_ack_backlog + 1);
		smp_wmb();	/* a reader sees the limit before the count */
		__asmc_slots_adjust(lsmc, 1);
		gen = lsmc->listen_gen;
	}
	spin_unlock_bh(&lsmc->accept_lock);
	return gen;
}

/* kernel_accept() is done: TCP's queue no longer counts the child (or had
 * none to give), so TCP's limit is the backlog again.
 */
static void asmc_slot_moved(struct asmc_sock *lsmc, u32 gen)
{
	struct sock *clcsk = lsmc->clcsock->sk;

	sock_owned_by_me(&lsmc->sk);
	if (gen)
		WRITE_ONCE(clcsk->sk_max_ack_backlog,
			   clcsk->sk_max_ack_backlog - 1);
}

/* Free a slot of generation @gen (if it still counts); true if freed. */
static bool asmc_slot_release(struct asmc_sock *lsmc, u32 gen)
{
	bool freed = false;

	spin_lock_bh(&lsmc->accept_lock);
	if (gen && gen == lsmc->listen_gen && lsmc->accepting) {
		__asmc_slots_adjust(lsmc, -1);
		freed = true;
	}
	spin_unlock_bh(&lsmc->accept_lock);
	return freed;
}

/* The child leaves the listener (accepted or dropped): free its slot if it
 * still holds one of the current listen().
 */
static void asmc_slot_give(struct asmc_sock *lsmc, struct asmc_sock *child)
{
	u32 gen = child->slot_gen;

	child->slot_gen = 0;
	/* TCP's queue may hold children that arrived while we were full */
	if (asmc_slot_release(lsmc, gen))
		asmc_sock_queue(&lsmc->sk, asmc_hs_wq, &lsmc->accept_work);
}

/* Reset the TCP connection and free a child nobody will accept. */
static void asmc_child_drop(struct asmc_sock *child, int err)
{
	/* an SMC-R child is aborted with a CDC, a TCP one by RST */
	if (child->clcsock && !child->smc_mode)
		tcp_abort(child->clcsock->sk, err);
	asmc_sock_kill(child, true);
}

/* A settled child: into the accept queue, or dropped when the listener
 * stopped meanwhile.
 */
static void asmc_child_ready(struct asmc_sock *lsmc, struct asmc_sock *child,
			     bool was_pending)
{
	struct sock *lsk = &lsmc->sk;
	bool queued = false;

	spin_lock_bh(&lsmc->accept_lock);
	if (was_pending)
		lsmc->hs_pending--;
	if (lsmc->accepting) {
		list_add_tail(&child->accept_node, &lsmc->accept_q);
		sk_acceptq_added(lsk);
		queued = true;
	}
	spin_unlock_bh(&lsmc->accept_lock);
	if (queued) {
		lsk->sk_data_ready(lsk);
	} else {
		asmc_slot_give(lsmc, child);
		asmc_child_drop(child, ECONNRESET);
	}
}

static void asmc_listen_hs_work(struct work_struct *work)
{
	struct asmc_sock *child = container_of(work, struct asmc_sock,
					       hs_work);
	struct asmc_sock *lsmc = child->listener;
	struct asmc_hs_result res = {};
	struct sock *sk = &child->sk;
	int rc;

	/* nobody else knows the child yet: CLC I/O without its lock */
	pr_debug("sock %p: server handshake\n", child);
	rc = asmc_clc_server_handshake(child, &res);
	child->listener = NULL;
	asmc_obj_destroyed(ASMC_OBJ_WORK, work);
	/* from here on the child may be accepted and freed: hands off */
	if (rc < 0) {
		asmc_stats_hs_err(&asmc_net(sock_net(sk))->stats, true);
		pr_debug("sock %p server handshake failed: %d\n", child, rc);
		spin_lock_bh(&lsmc->accept_lock);
		lsmc->hs_pending--;
		spin_unlock_bh(&lsmc->accept_lock);
		asmc_slot_give(lsmc, child);
		asmc_child_drop(child, -rc);
	} else {
		lock_sock(sk);
		if (!rc)
			asmc_fallback_switch(child, res.reason, res.peer_diag);
		else
			asmc_close_watch_tcp(child);
		asmc_sock_set_state(child, ASMC_ACTIVE);
		release_sock(sk);
		asmc_child_ready(lsmc, child, true);
	}
	sock_put(&lsmc->sk);
}

/* Wrap one TCP child and settle it, at once or after its handshake. */
static void asmc_listen_new_child(struct asmc_sock *lsmc,
				  struct socket *newclc, u32 slot_gen)
{
	struct sock *lsk = &lsmc->sk;
	struct asmc_sock *child;

	child = asmc_sock_alloc(sock_net(lsk), NULL, lsk->sk_protocol, newclc);
	if (IS_ERR(child)) {
		asmc_slot_release(lsmc, slot_gen);
		tcp_abort(newclc->sk, ENOMEM);
		asmc_obj_destroyed(ASMC_OBJ_CLCSOCK, newclc);
		sock_release(newclc);
		return;
	}
	child->role = ASMC_ROLE_SERVER;
	asmc_sock_inherit(child, lsmc);
	child->slot_gen = slot_gen;

	if (!tcp_sk(newclc->sk)->syn_smc) {
		/* the SYN had no SMC option: a plain TCP client */
		lock_sock(&child->sk);
		asmc_fallback_switch(child, ASMC_DECL_PEERNOSMC, 0);
		asmc_sock_set_state(child, ASMC_ACTIVE);
		release_sock(&child->sk);
		asmc_child_ready(lsmc, child, false);
		return;
	}
	spin_lock_bh(&lsmc->accept_lock);
	lsmc->hs_pending++;
	spin_unlock_bh(&lsmc->accept_lock);
	sock_hold(lsk);
	child->listener = lsmc;
	INIT_WORK(&child->hs_work, asmc_listen_hs_work);
	asmc_obj_created(ASMC_OBJ_WORK, &child->hs_work);
	queue_work(asmc_hs_wq, &child->hs_work);
}

void asmc_accept_work(struct work_struct *work)
{
	struct asmc_sock *lsmc = container_of(work, struct asmc_sock,
					      accept_work);
	struct sock *lsk = &lsmc->sk;
	struct socket *newclc;
	u32 gen;
	int rc;

	for (;;) {
		lock_sock(lsk);
		if (lsk->sk_state != ASMC_LISTEN) {
			release_sock(lsk);
			break;
		}
		gen = asmc_slot_reserve(lsmc);
		rc = kernel_accept(lsmc->clcsock, &newclc, O_NONBLOCK);
		asmc_slot_moved(lsmc, gen);
		release_sock(lsk);
		if (rc) {
			asmc_slot_release(lsmc, gen);
			break;
		}
		asmc_obj_created(ASMC_OBJ_CLCSOCK, newclc);
		asmc_listen_new_child(lsmc, newclc, gen);
	}
	sock_put(lsk);
}

__poll_t asmc_listen_poll(struct asmc_sock *lsmc)
{
	return list_empty_careful(&lsmc->accept_q) ? 0 :
						     EPOLLIN | EPOLLRDNORM;
}

static struct asmc_sock *asmc_accept_dequeue(struct asmc_sock *lsmc)
{
	struct asmc_sock *child = NULL;

	spin_lock_bh(&lsmc->accept_lock);
	if (!list_empty(&lsmc->accept_q)) {
		child = list_first_entry(&lsmc->accept_q, struct asmc_sock,
					 accept_node);
		list_del_init(&child->accept_node);
		sk_acceptq_removed(&lsmc->sk);
	}
	spin_unlock_bh(&lsmc->accept_lock);
	return child;
}

int asmc_accept(struct socket *sock, struct socket *newsock, int flags,
		bool kern)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct asmc_sock *lsmc = asmc_sk(sock->sk);
	struct sock *lsk = sock->sk;
	struct asmc_sock *child = NULL;
	long timeo;
	int rc = 0;

	lock_sock(lsk);
	if (lsk->sk_state != ASMC_LISTEN) {
		rc = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(lsk, flags & O_NONBLOCK);
	add_wait_queue_exclusive(sk_sleep(lsk), &wait);
	while (!(child = asmc_accept_dequeue(lsmc))) {
		rc = asmc_wait_allowed(timeo);
		if (rc)
			break;
		sk_wait_event(lsk, &timeo, !list_empty(&lsmc->accept_q) ||
			      lsk->sk_state != ASMC_LISTEN, &wait);
		if (lsk->sk_state != ASMC_LISTEN) {
			rc = -EINVAL;
			break;
		}
	}
	remove_wait_queue(sk_sleep(lsk), &wait);
out:
	release_sock(lsk);
	if (!child)
		return rc;
	asmc_slot_give(lsmc, child);

	sock_graft(&child->sk, newsock);
	newsock->state = SS_CONNECTED;
	lock_sock(&child->sk);
	if (asmc_is_fallback(child))
		asmc_fallback_attach(child);
	release_sock(&child->sk);
	return 0;
}

/* Stop taking connections (caller holds the listener's lock); children
 * are dropped by asmc_listen_flush() once the lock is released.
 */
void asmc_listen_stop(struct asmc_sock *lsmc)
{
	sock_owned_by_me(&lsmc->sk);
	asmc_clc_unwatch(lsmc);
	asmc_listen_hs_user(lsmc, false);
	spin_lock_bh(&lsmc->accept_lock);
	lsmc->accepting = false;
	/* TCP's listen stop expects its accept-queue count back at zero */
	__asmc_slots_adjust(lsmc, -(int)lsmc->slots_held);
	spin_unlock_bh(&lsmc->accept_lock);
	lsmc->sk.sk_state_change(&lsmc->sk);	/* wake accept() */
}

/* Reset and free every child that was never accepted. */
void asmc_listen_flush(struct asmc_sock *lsmc)
{
	struct asmc_sock *child;

	if (cancel_work_sync(&lsmc->accept_work))
		sock_put(&lsmc->sk);
	while ((child = asmc_accept_dequeue(lsmc)))
		asmc_child_drop(child, ECONNRESET);
}
