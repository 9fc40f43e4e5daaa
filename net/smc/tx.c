// SPDX-License-Identifier: GPL-2.0
/* SMC-R send path. sendmsg copies into the send buffer ring; a push claims
 * the next range that fits into the peer's RMBE and posts it as up to two
 * RDMA WRITEs (split where either ring wraps) followed by one CDC.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/sched/signal.h>
#include <linux/bvec.h>
#include <linux/uio.h>
#include <net/sock.h>
#include "cdc.h"
#include "lgr.h"
#include "netns.h"
#include "socket.h"
#include "tx.h"
#include "wr.h"

/* Free room in the send buffer. */
u64 asmc_tx_space(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	return READ_ONCE(conn->sndbuf_size) - (READ_ONCE(conn->sb_filled) -
					       READ_ONCE(conn->sb_done));
}

/* Every byte written has gone out and completed: no WRITE reads the send
 * buffer.
 */
bool asmc_tx_idle(struct asmc_conn *conn)
{
	return READ_ONCE(conn->sb_done) == READ_ONCE(conn->sb_filled);
}

/* The connection started with a small send buffer (ASMC_SNDBUF_FIRST) and a
 * write wants more room than it has: swap it for one of the size the
 * socket asked for while no byte of it is in flight. The cursors are byte
 * totals, so they carry over. Without memory the small buffer stays.
 */
static void asmc_tx_grow(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct net *net = sock_net(&smc->sk);
	u32 want = READ_ONCE(conn->sndbuf_want), most = want;
	struct asmc_buf *buf, *old;
	bool reused;

	sock_owned_by_me(&smc->sk);
	/* the default size, while the module's buffers are over budget:
	 * no more than a connection set up now would get
	 */
	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
		asmc_buf_cap(&want);
	buf = asmc_buf_get(conn->lgr, false, want, most, &reused);
	if (buf)
		asmc_stats_rmb(net, true, reused ? ASMC_STAT_RMB_REUSE :
						   ASMC_STAT_RMB_ALLOC);
	if (!buf || buf->size <= conn->sndbuf_size) {
		asmc_stats_rmb(net, true, ASMC_STAT_RMB_DGRADE);
		asmc_buf_put(conn->lgr, buf);
		WRITE_ONCE(conn->sndbuf_want, conn->sndbuf_size);
		WRITE_ONCE(conn->sndbuf_outgrown, false);
		return;
	}
	if (buf->size < conn->sndbuf_want)
		asmc_stats_rmb(net, true, ASMC_STAT_RMB_DGRADE);
	spin_lock_bh(&conn->tx_lock);
	spin_lock_bh(&conn->lock);
	old = conn->sndbuf;
	conn->sndbuf = buf;
	WRITE_ONCE(conn->sndbuf_size, buf->size);
	WRITE_ONCE(conn->sndbuf_want, buf->size);
	WRITE_ONCE(conn->sndbuf_outgrown, false);
	spin_unlock_bh(&conn->lock);
	spin_unlock_bh(&conn->tx_lock);
	asmc_buf_put(conn->lgr, old);
	asmc_stats_rmb_size(net, true, buf->size);
	pr_debug("conn %p: send buffer %zu bytes\n", conn, buf->size);
}

/* The first, small send buffer is too small for this connection: a write
 * found it full or copied only part of itself. Set only while the buffer
 * is below sndbuf_want; asmc_tx_grow() clears it, grown or not.
 */
static bool asmc_tx_outgrown(struct asmc_conn *conn)
{
	return READ_ONCE(conn->sndbuf_outgrown);
}

static void asmc_tx_mark_outgrown(struct asmc_conn *conn)
{
	if (asmc_sndbuf_outgrown(conn->sndbuf_size, conn->sndbuf_want))
		WRITE_ONCE(conn->sndbuf_outgrown, true);
}

/* A write of @left more bytes: time to leave the first, small buffer?
 * (asmc_sndbuf_should_grow, cdc_wire.h)
 */
static bool asmc_tx_should_grow(struct asmc_sock *smc, size_t left)
{
	struct asmc_conn *conn = &smc->conn;

	return asmc_sndbuf_should_grow(conn->sndbuf_size, conn->sndbuf_want,
				       conn->sndbuf_outgrown,
				       asmc_tx_idle(conn), left,
				       asmc_tx_space(smc));
}

/* A writer (or poller) is about to wait for room: ask the completions that
 * free some to wake the socket's wait queue (asmc_sk_write_space), then
 * look at the room again. Needs the struct socket (not orphaned).
 */
void asmc_tx_nospace(struct asmc_sock *smc)
{
	set_bit(SOCK_NOSPACE, &smc->sk.sk_socket->flags);
	/* the flag, then the room: pairs with asmc_sk_write_space() */
	smp_mb__after_atomic();
}

/* Writable for poll() (asmc_sndbuf_writable, cdc_wire.h). */
bool asmc_tx_writable(struct asmc_sock *smc)
{
	return asmc_sndbuf_writable(asmc_tx_outgrown(&smc->conn),
				    asmc_tx_idle(&smc->conn),
				    asmc_tx_space(smc));
}

static bool asmc_tx_has_work(struct asmc_conn *conn)
{
	return (conn->sb_filled > conn->sb_posted &&
		asmc_conn_peer_free(conn)) ||
	       conn->tx_need_update ||
	       asmc_conn_flags_sendable(conn) != conn->sent_conn_flags;
}

/* Local SGEs for @len bytes of the send buffer from byte total @pos, as
 * @lnk's device sees it.
 */
static int asmc_tx_sges(struct asmc_conn *conn, struct asmc_link *lnk,
			struct ib_sge *sge, u64 pos, u32 len, u32 lkey)
{
	u32 off = pos % conn->sndbuf_size;
	u32 first = min_t(u32, len, conn->sndbuf_size - off);
	u64 base = conn->sndbuf->map[lnk->slot].dma_addr;

	sge[0].addr = base + off;
	sge[0].length = first;
	sge[0].lkey = lkey;
	if (first == len)
		return 1;
	sge[1].addr = base;
	sge[1].length = len - first;
	sge[1].lkey = lkey;
	return 2;
}

/* A send slot was freed on the link (wake-up on lnk->tx_wait, any
 * context, under the wait queue's lock): push again from tx_work. The
 * entry is on the queue only while the connection's transmit side lives
 * (asmc_tx_stop() takes it off before the socket can go away).
 */
static int asmc_tx_slot_wake(struct wait_queue_entry *wait, unsigned int mode,
			     int sync, void *key)
{
	struct asmc_conn *conn = container_of(wait, struct asmc_conn,
					      tx_slot_wait);
	struct asmc_sock *smc = container_of(conn, struct asmc_sock, conn);

	list_del_init(&wait->entry);
	asmc_sock_queue(&smc->sk, asmc_wq, &conn->tx_work);
	return 0;
}

void asmc_tx_init(struct asmc_conn *conn)
{
	INIT_WORK(&conn->tx_work, asmc_tx_work);
	init_waitqueue_func_entry(&conn->tx_slot_wait, asmc_tx_slot_wake);
	INIT_LIST_HEAD(&conn->tx_slot_wait.entry);
}

/* Every send slot of @lnk is busy: be woken when one frees. False once
 * the transmit side is stopped (nothing is to go any more).
 */
static bool asmc_tx_want_slot(struct asmc_conn *conn, struct asmc_link *lnk)
{
	unsigned long flags;
	bool ok;

	spin_lock_bh(&conn->lock);
	ok = !conn->tx_stopped;
	if (ok) {
		conn->tx_pending = true;
		spin_lock_irqsave(&lnk->tx_wait.lock, flags);
		if (list_empty(&conn->tx_slot_wait.entry))
			__add_wait_queue_entry_tail(&lnk->tx_wait,
						    &conn->tx_slot_wait);
		spin_unlock_irqrestore(&lnk->tx_wait.lock, flags);
	}
	spin_unlock_bh(&conn->lock);
	return ok;
}

/* Off the link's slot wait queue, if on it. */
static void asmc_tx_unwant_slot(struct asmc_conn *conn, struct asmc_link *lnk)
{
	unsigned long flags;

	spin_lock_irqsave(&lnk->tx_wait.lock, flags);
	list_del_init(&conn->tx_slot_wait.entry);
	spin_unlock_irqrestore(&lnk->tx_wait.lock, flags);
}

/* Whether data waits for the peer's window, noted after every look at
 * it: the next CDC then says "write blocked", and the link's keepalive
 * watches for the peer's silence (tx_blocked_conns). A push that finds
 * no room must note it too: when the last one filled the peer's RMBE
 * with all that waited, the data written since waited unnoticed, and a
 * dead peer went unprobed until the idle keepalive.
 */
static void asmc_tx_note_blocked(struct asmc_sock *smc, struct asmc_link *lnk)
{
	struct asmc_conn *conn = &smc->conn;
	bool blocked = conn->sb_filled > conn->sb_posted &&
		       !asmc_conn_peer_free(conn);

	lockdep_assert_held(&conn->lock);
	if (conn->tx_blocked == blocked)
		return;
	if (blocked)
		asmc_stats_rmb(sock_net(&smc->sk), true,
			       ASMC_STAT_RMB_FULL_PEER);
	/* like TCP's persist timer, the link probes a peer that stays
	 * silent while data waits for its window (one that died would
	 * leave us blocked until the idle keepalive)
	 */
	atomic_add(blocked ? 1 : -1, &lnk->tx_blocked_conns);
	conn->tx_blocked = blocked;
}

/* Post what can go now. With @can_sleep (process context, no spinlock
 * held) a missing send slot is waited for, up to ASMC_TX_SLOT_WAIT;
 * otherwise, or when that wait ends without a slot, the connection waits
 * on the link for a free slot and tx_work pushes then. Nothing is posted
 * once asmc_tx_stop() ran.
 */
void asmc_tx_push(struct asmc_sock *smc, bool can_sleep)
{
	struct asmc_conn *conn = &smc->conn;
	struct ib_rdma_wr wr[ASMC_WR_WRITES_PER_TX];
	struct ib_sge sge[ASMC_WR_WRITES_PER_TX][2];
	struct asmc_link *lnk = READ_ONCE(conn->link);
	u32 lkey, len, part, toff, done;
	bool waiting = false;
	struct asmc_wr_tx *tx;
	int nw, rc;
	u8 *buf;

	/* nothing can go before the handshake told us the peer's RMBE */
	if (!lnk || !READ_ONCE(conn->peer_rmbe_size))
		return;
	lkey = lnk->pd->local_dma_lkey;
	for (;;) {
		spin_lock_bh(&conn->lock);
		if (conn->tx_stopped || !asmc_tx_has_work(conn)) {
			conn->tx_pending = false;
			if (!conn->tx_stopped)
				asmc_tx_note_blocked(smc, lnk);
			spin_unlock_bh(&conn->lock);
			return;
		}
		spin_unlock_bh(&conn->lock);

		rc = asmc_wr_tx_get(lnk, &tx, &buf, can_sleep && !waiting);
		if (rc == -ENOLINK) {
			/* link down: the group moves us to another link (and
			 * pushes there) or aborts us
			 */
			asmc_tx_unwant_slot(conn, lnk);
			return;
		}
		if (rc) {
			/* no slot (or a signal ended the wait for one): try
			 * once more after joining the slot waiters, as a slot
			 * freed in between would not wake us
			 */
			if (waiting)
				return;
			asmc_stats_wire(sock_net(&smc->sk), ASMC_STAT_TX_NOSLOT,
					1);
			if (!asmc_tx_want_slot(conn, lnk))
				return;
			waiting = true;
			continue;
		}

		spin_lock_bh(&conn->tx_lock);
		spin_lock_bh(&conn->lock);
		if (conn->link != lnk) {
			/* moved to another link meanwhile: start over there */
			spin_unlock_bh(&conn->lock);
			spin_unlock_bh(&conn->tx_lock);
			asmc_wr_tx_put(tx);
			asmc_tx_unwant_slot(conn, lnk);
			lnk = READ_ONCE(conn->link);
			if (!lnk)
				return;
			lkey = lnk->pd->local_dma_lkey;
			waiting = false;
			continue;
		}
		if (conn->tx_stopped || !asmc_tx_has_work(conn)) {
			spin_unlock_bh(&conn->lock);
			spin_unlock_bh(&conn->tx_lock);
			asmc_wr_tx_put(tx);
			continue;
		}
		/* the urgent byte must end a write: its CDC marks it */
		len = asmc_tx_claim(conn->sb_filled - conn->sb_posted,
				    asmc_conn_peer_free(conn),
				    conn->tx_urg_mark > conn->sb_posted ?
				    conn->tx_urg_mark - conn->sb_posted : 0,
				    conn->peer_rmbe_size, ASMC_TX_SPLIT);
		nw = 0;
		done = 0;
		while (done < len) {
			/* one WRITE per contiguous range of the peer's RMBE */
			toff = (conn->tx_prod + done) % conn->peer_rmbe_size;
			part = min_t(u32, len - done,
				     conn->peer_rmbe_size - toff);
			memset(&wr[nw], 0, sizeof(wr[nw]));
			wr[nw].wr.sg_list = sge[nw];
			wr[nw].wr.num_sge = asmc_tx_sges(conn, lnk, sge[nw],
							 conn->sb_posted + done,
							 part, lkey);
			wr[nw].remote_addr = conn->peer_rmb_addr + toff;
			wr[nw].rkey = conn->peer_rkey;
			done += part;
			nw++;
		}
		conn->sb_posted += len;
		conn->tx_prod += len;
		if (conn->tx_prod > conn->tx_prod_max)
			conn->tx_prod_max = conn->tx_prod;
		/* more waiting than the peer has room for: ask for an update */
		asmc_tx_note_blocked(smc, lnk);
		asmc_cdc_prepare(smc, tx, buf);
		spin_unlock_bh(&conn->lock);
		rc = asmc_cdc_post(smc, tx, wr, nw);
		spin_unlock_bh(&conn->tx_lock);
		if (rc)
			return;
	}
}

/* Move the connection to @lnk, whose peer RMB is @rkey at @addr, after its
 * link went down (the group's mutex held; no sleep). What the old link
 * may have lost goes again: posting restarts where the peer surely has
 * every byte (a completed CDC, or what it consumed); those bytes land at
 * the same place of its RMBE, unchanged. asmc_tx_failover_resume() sends.
 */
void asmc_tx_switch_link(struct asmc_sock *smc, struct asmc_link *lnk,
			 u32 rkey, u64 addr)
{
	struct asmc_conn *conn = &smc->conn;
	struct asmc_link *old = conn->link;
	u64 from;

	lockdep_assert_held(&conn->lgr->mutex);
	spin_lock_bh(&conn->tx_lock);
	spin_lock_bh(&conn->lock);
	conn->link = lnk;
	conn->peer_rkey = rkey;
	conn->peer_rmb_addr = addr;
	if (conn->tx_blocked) {
		atomic_dec(&old->tx_blocked_conns);
		atomic_inc(&lnk->tx_blocked_conns);
	}
	from = asmc_failover_resend_from(conn->sb_done, conn->peer_cons,
					 conn->sb_posted);
	conn->sb_posted = from;
	conn->tx_prod = from;
	/* the cursors and flags go again, whatever the old link lost */
	conn->tx_need_update = true;
	spin_unlock_bh(&conn->lock);
	spin_unlock_bh(&conn->tx_lock);
	/* a slot freed on the old link no longer helps */
	asmc_tx_unwant_slot(conn, old);
}

/* After asmc_tx_switch_link() (process context): the peer learns our
 * last completed CDC (a failover CDC), then the data follows on the new
 * link.
 */
void asmc_tx_failover_resume(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct asmc_link *lnk = READ_ONCE(conn->link);
	struct asmc_wr_tx *tx;
	u8 *buf;

	if (!lnk || READ_ONCE(conn->tx_stopped) ||
	    !READ_ONCE(conn->peer_rmbe_size))
		return;
	if (!asmc_wr_tx_get(lnk, &tx, &buf, true)) {
		spin_lock_bh(&conn->tx_lock);
		spin_lock_bh(&conn->lock);
		if (conn->link != lnk || conn->tx_stopped) {
			spin_unlock_bh(&conn->lock);
			spin_unlock_bh(&conn->tx_lock);
			asmc_wr_tx_put(tx);
			return;
		}
		asmc_cdc_prepare_failover(smc, tx, buf);
		spin_unlock_bh(&conn->lock);
		asmc_cdc_post(smc, tx, NULL, 0);
		spin_unlock_bh(&conn->tx_lock);
	}
	asmc_tx_push(smc, true);
}

/* Runs only when a send slot freed: it never sleeps, so it cannot hold
 * up the other items of the reclaim-safe smc_wq.
 */
void asmc_tx_work(struct work_struct *work)
{
	struct asmc_conn *conn = container_of(work, struct asmc_conn, tx_work);
	struct asmc_sock *smc = container_of(conn, struct asmc_sock, conn);

	asmc_tx_push(smc, false);
	sock_put(&smc->sk);
}

/* The connection is being freed: nothing is posted for it any more and
 * no push is pending when this returns (process context).
 */
void asmc_tx_stop(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->tx_lock);
	spin_lock_bh(&conn->lock);
	conn->tx_stopped = true;
	/* no longer waits for the peer's window (the link's count) */
	if (conn->tx_blocked && conn->link)
		atomic_dec(&conn->link->tx_blocked_conns);
	conn->tx_blocked = false;
	spin_unlock_bh(&conn->lock);
	spin_unlock_bh(&conn->tx_lock);
	if (conn->link)
		asmc_tx_unwant_slot(conn, conn->link);
	if (cancel_work_sync(&conn->tx_work))
		sock_put(&smc->sk);
}

/* Push now, or leave it to a later push (asmc_tx_policy). A corked small
 * write waits only while a CDC is in flight: tx_pending is set under the
 * lock its completion takes, so that completion cannot slip by unseen.
 */
static bool asmc_tx_should_push(struct asmc_sock *smc, size_t len, int flags)
{
	struct asmc_conn *conn = &smc->conn;
	struct asmc_net *sn = asmc_net(sock_net(&smc->sk));
	bool wait = false;

	switch (asmc_tx_policy(conn->sb_filled - conn->sb_posted, len,
			       asmc_tx_space(smc), conn->sndbuf_size,
			       READ_ONCE(sn->sysctl.autocorking_size),
			       (flags & MSG_MORE) || smc->corked)) {
	case ASMC_TX_GO:
		return true;
	case ASMC_TX_HOLD:
		return false;
	case ASMC_TX_CORK:
		break;
	}
	spin_lock_bh(&conn->lock);
	if (conn->tx_inflight) {
		conn->tx_pending = true;
		wait = true;
	}
	spin_unlock_bh(&conn->lock);
	return !wait;
}

static bool asmc_tx_room(struct asmc_sock *smc, bool idle)
{
	return idle ? asmc_tx_idle(&smc->conn) : asmc_tx_space(smc);
}

/* Sleep until the send buffer has room, or, with @idle (a small first
 * buffer that is to grow), until it is empty.
 */
static int asmc_tx_wait_space(struct asmc_sock *smc, long *timeo, bool idle)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!asmc_tx_room(smc, idle)) {
		if (sk->sk_err || sk->sk_shutdown & SEND_SHUTDOWN ||
		    smc->conn.peer_conn_flags & (ASMC_CDC_PEER_CONN_CLOSED |
						 ASMC_CDC_PEER_CONN_ABORT))
			break;
		/* before a sleep and before EAGAIN: either way the room
		 * that comes next must wake the socket (EPOLLOUT)
		 */
		asmc_tx_nospace(smc);
		if (asmc_tx_room(smc, idle))
			continue;	/* freed while we set the flag */
		rc = asmc_wait_allowed(*timeo);
		if (rc)
			break;
		sk_wait_event(sk, timeo, asmc_tx_room(smc, idle) || sk->sk_err ||
			      sk->sk_shutdown & SEND_SHUTDOWN ||
			      READ_ONCE(smc->conn.peer_conn_flags), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return rc;
}

/* Copy @n bytes from the message into the send buffer ring. */
static int asmc_tx_copy(struct asmc_conn *conn, struct msghdr *msg, u32 n)
{
	u32 off = conn->sb_filled % conn->sndbuf_size;
	u32 first = min_t(u32, n, conn->sndbuf_size - off);
	u8 *base = conn->sndbuf->cpu;

	if (copy_from_iter(base + off, first, &msg->msg_iter) != first)
		return -EFAULT;
	if (first < n &&
	    copy_from_iter(base, n - first, &msg->msg_iter) != n - first)
		return -EFAULT;
	return 0;
}

/* A send after the peer closed: what TCP's RST would do to us. */
static void asmc_tx_broken_pipe(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	spin_lock_bh(&conn->lock);
	conn->local_conn_flags |= ASMC_CDC_PEER_CONN_ABORT;
	spin_unlock_bh(&conn->lock);
	asmc_tx_push(smc, true);
	WRITE_ONCE(sk->sk_err, EPIPE);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	sk->sk_state_change(sk);
}

int asmc_tx_sendmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool full_seen = false;
	size_t copied = 0;
	long timeo;
	int rc = 0;
	u32 n;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	/* buffer events: a write larger than our send buffer or than the
	 * peer's RMB (counted once per call)
	 */
	if (len > conn->sndbuf_want)
		asmc_stats_rmb(sock_net(sk), true, ASMC_STAT_RMB_SIZE_SM);
	if (len > READ_ONCE(conn->peer_rmbe_size))
		asmc_stats_rmb(sock_net(sk), true, ASMC_STAT_RMB_SIZE_SM_PEER);
	while (copied < len) {
		if (sk->sk_err) {
			rc = sock_error(sk);
			break;
		}
		if (sk->sk_shutdown & SEND_SHUTDOWN ||
		    conn->peer_conn_flags & ASMC_CDC_PEER_CONN_ABORT) {
			rc = -EPIPE;
			break;
		}
		if (conn->peer_conn_flags & ASMC_CDC_PEER_CONN_CLOSED) {
			/* the peer closed: as with TCP, this send still
			 * "succeeds" and breaks the connection (TCP's peer
			 * answers with RST); later sends get EPIPE
			 */
			iov_iter_advance(&msg->msg_iter, len - copied);
			copied = len;
			asmc_tx_broken_pipe(smc);
			break;
		}
		if (asmc_tx_should_grow(smc, len - copied))
			asmc_tx_grow(smc);
		if (!asmc_tx_space(smc)) {
			if (!full_seen)
				asmc_stats_rmb(sock_net(sk), true,
					       ASMC_STAT_RMB_FULL);
			full_seen = true;
			asmc_tx_push(smc, true);
			/* a blocking writer waits for an outgrown small
			 * buffer to drain, so that it can grow
			 */
			asmc_tx_mark_outgrown(conn);
			rc = asmc_tx_wait_space(smc, &timeo,
						asmc_tx_outgrown(conn));
			if (rc)
				break;
			continue;
		}
		n = min_t(u64, len - copied, asmc_tx_space(smc));
		if (n < len - copied)
			asmc_tx_mark_outgrown(conn);
		rc = asmc_tx_copy(conn, msg, n);
		if (rc)
			break;
		spin_lock_bh(&conn->lock);
		conn->sb_filled += n;
		if (msg->msg_flags & MSG_OOB && copied + n == len) {
			/* the last byte is urgent (TCP's MSG_OOB semantics) */
			conn->tx_urg_mark = conn->sb_filled;
			conn->tx_urg_pending = true;
		}
		spin_unlock_bh(&conn->lock);
		copied += n;
		if (asmc_tx_should_push(smc, len, msg->msg_flags) ||
		    msg->msg_flags & MSG_OOB)
			asmc_tx_push(smc, true);
	}
	release_sock(sk);
	if (copied) {
		asmc_stats_tx(sock_net(sk), copied);
		return copied;
	}
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}

/* sendfile()/splice() into the socket: the page's bytes through sendmsg. */
ssize_t asmc_tx_sendpage(struct asmc_sock *smc, struct page *page, int offset,
			 size_t size, int flags)
{
	struct bio_vec bvec = {
		.bv_page = page, .bv_offset = offset, .bv_len = size,
	};
	struct msghdr msg = { .msg_flags = flags | MSG_NOSIGNAL };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bvec, 1, size);
	return asmc_tx_sendmsg(smc, &msg, size);
}
