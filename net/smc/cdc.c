// SPDX-License-Identifier: GPL-2.0
/* CDC messages: every send carries our producer and consumer cursors and
 * flags; every receive is checked (sequence, cursor range, no overrun)
 * before it moves the connection's byte totals and wakes the socket.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <net/sock.h>
#include "cdc.h"
#include "close.h"
#include "lgr.h"
#include "netns.h"
#include "socket.h"
#include "tx.h"
#include "wr.h"

void asmc_conn_init(struct asmc_conn *conn)
{
	spin_lock_init(&conn->lock);
	spin_lock_init(&conn->tx_lock);
	asmc_tx_init(conn);
	init_waitqueue_head(&conn->tx_drained);
}

/* A completed CDC proves its data (and what was posted before it) landed
 * in the peer's RMBE. A failover may have gone back to resend from an
 * older point: what landed meanwhile need not go again.
 * conn->lock held.
 */
static void asmc_cdc_landed(struct asmc_conn *conn, u64 total)
{
	lockdep_assert_held(&conn->lock);
	if (total > conn->sb_done)
		conn->sb_done = total;
	if (total > conn->sb_posted) {
		conn->sb_posted = total;
		conn->tx_prod = total;
	}
}

/* A failed send (any link: the connection may have moved on since) does
 * not end the connection here: its link went down, and the group either
 * moves the connection to another link or aborts it (asmc_lgr_link_down).
 */
static void asmc_cdc_tx_done(struct asmc_wr_tx *tx, int status)
{
	struct asmc_sock *smc = tx->ctx;
	struct asmc_conn *conn = &smc->conn;
	bool push;

	spin_lock_bh(&conn->lock);
	if (!status) {
		asmc_cdc_landed(conn, tx->data);
		if (asmc_seq_before(conn->tx_seq_done, tx->seq))
			conn->tx_seq_done = tx->seq;
	}
	conn->tx_inflight--;
	push = conn->tx_pending;
	if (!conn->tx_inflight)
		wake_up(&conn->tx_drained);
	spin_unlock_bh(&conn->lock);
	if (!status && push)
		asmc_tx_push(smc, false);
	smc->sk.sk_write_space(&smc->sk);
	sock_put(&smc->sk);	/* held while the CDC was in flight */
}

/* Fill @buf with the CDC that goes next and account for it in flight.
 * Caller holds conn->lock; asmc_cdc_post() sends it after unlocking.
 */
void asmc_cdc_prepare(struct asmc_sock *smc, struct asmc_wr_tx *tx, u8 *buf)
{
	struct asmc_conn *conn = &smc->conn;
	struct asmc_cdc_msg m = {};

	lockdep_assert_held(&conn->lock);
	m.seqno = ++conn->tx_seq;
	m.token = conn->peer_token;
	m.prod = asmc_total_to_cursor(conn->tx_prod, conn->peer_rmbe_size);
	m.cons = asmc_total_to_cursor(conn->rx_cons, conn->rmbe_size);
	if (conn->tx_blocked)
		m.prod_flags |= ASMC_CDC_WRITE_BLOCKED;
	if (conn->tx_urg_pending)
		m.prod_flags |= ASMC_CDC_URG_PENDING;
	if (conn->tx_urg_mark && conn->tx_urg_mark == conn->tx_prod) {
		m.prod_flags |= ASMC_CDC_URG_PRESENT;
		m.prod_flags &= ~ASMC_CDC_URG_PENDING;
		conn->tx_urg_mark = 0;
		conn->tx_urg_pending = false;
	}
	m.conn_flags = asmc_conn_flags_sendable(conn);
	conn->sent_conn_flags = m.conn_flags;
	conn->rx_cons_sent = conn->rx_cons;
	conn->tx_need_update = false;
	conn->tx_inflight++;
	tx->data = conn->sb_posted;
	tx->seq = m.seqno;
	tx->ctx = smc;
	tx->done = asmc_cdc_tx_done;
	asmc_cdc_build(buf, ASMC_WR_MSG_LEN, &m);
}

/* After a failover: the CDC that tells the peer which of ours it must
 * have had (the last one whose send completed), on the new link. It moves
 * nothing; the data CDCs after it carry new sequence numbers.
 * conn->lock held.
 */
void asmc_cdc_prepare_failover(struct asmc_sock *smc, struct asmc_wr_tx *tx,
			       u8 *buf)
{
	struct asmc_conn *conn = &smc->conn;
	struct asmc_cdc_msg m = {};

	lockdep_assert_held(&conn->lock);
	m.seqno = conn->tx_seq_done;
	m.token = conn->peer_token;
	m.prod = asmc_total_to_cursor(conn->tx_prod, conn->peer_rmbe_size);
	m.cons = asmc_total_to_cursor(conn->rx_cons_sent, conn->rmbe_size);
	m.prod_flags = ASMC_CDC_FAILOVER;
	m.conn_flags = conn->sent_conn_flags;
	conn->tx_inflight++;
	tx->data = 0;
	tx->seq = conn->tx_seq_done;
	tx->ctx = smc;
	tx->done = asmc_cdc_tx_done;
	asmc_cdc_build(buf, ASMC_WR_MSG_LEN, &m);
}

/* Post a prepared CDC after @nwrites RDMA WRITEs (its data). */
int asmc_cdc_post(struct asmc_sock *smc, struct asmc_wr_tx *tx,
		  struct ib_rdma_wr *writes, int nwrites)
{
	struct asmc_conn *conn = &smc->conn;
	int rc;

	sock_hold(&smc->sk);
	tx->await = nwrites > 0;	/* data: the peer's cursors will move */
	rc = asmc_wr_tx_send_after(tx, ASMC_CDC_LEN, writes, nwrites);
	if (!rc) {
		asmc_stats_wire(sock_net(&smc->sk), nwrites ?
				ASMC_STAT_CDC_TX_DATA : ASMC_STAT_CDC_TX_CTRL, 1);
		asmc_stats_wire(sock_net(&smc->sk), ASMC_STAT_RDMA_WRITE,
				nwrites);
	} else {
		/* the slot came back without a completion */
		spin_lock_bh(&conn->lock);
		if (!--conn->tx_inflight)
			wake_up(&conn->tx_drained);
		spin_unlock_bh(&conn->lock);
		sock_put(&smc->sk);
	}
	return rc;
}

/* Move a byte total by the distance a received cursor advanced; refuse
 * what would exceed @limit bytes beyond @floor (an overrun).
 */
static int asmc_cdc_advance(u64 *total, struct asmc_cursor *last,
			    struct asmc_cursor next, u32 size, u64 floor,
			    u64 limit)
{
	u32 delta;

	if (!asmc_cursor_valid(next, size))
		return -EPROTO;
	if (!asmc_cursor_newer(*last, next))
		return 0;	/* old or equal: ignored, as the protocol says */
	delta = asmc_cursor_dist(*last, next, size);
	if (delta > size || *total + delta - floor > limit)
		return -EPROTO;
	*total += delta;
	*last = next;
	return 0;
}

/* Apply a received CDC to its connection (softirq). */
static void asmc_cdc_recv(struct asmc_sock *smc, struct asmc_cdc_msg *m)
{
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool data, space, shut, push, urg = false;
	u64 old_prod, old_cons;
	int rc;

	/* the peer moved the connection to another link: its CDCs are
	 * cumulative, so one lost with the old link costs nothing; the
	 * message itself moves no cursor
	 */
	if (m->prod_flags & ASMC_CDC_FAILOVER) {
		pr_debug("sock %p: peer failed over, its last completed CDC %u, ours seen %u\n",
			 smc, m->seqno, conn->rx_seq);
		return;
	}
	spin_lock_bh(&conn->lock);
	if (conn->rx_seq_valid && asmc_seq_before(m->seqno, conn->rx_seq)) {
		spin_unlock_bh(&conn->lock);
		return;		/* older than one already applied */
	}
	conn->rx_seq = m->seqno;
	conn->rx_seq_valid = true;
	old_prod = conn->rx_prod;
	old_cons = conn->peer_cons;
	/* the peer may fill our RMBE, never more */
	rc = asmc_cdc_advance(&conn->rx_prod, &conn->rx_prod_curs, m->prod,
			      conn->rmbe_size, conn->rx_cons,
			      conn->rmbe_size);
	/* and may consume only what we wrote. Its first CDC can overtake
	 * its CLC Confirm, before we know its RMBE: nothing to consume yet.
	 */
	if (!rc && !conn->peer_rmbe_size) {
		if (m->cons.wrap || m->cons.count)
			rc = -EPROTO;
	} else if (!rc) {
		rc = asmc_cdc_advance(&conn->peer_cons, &conn->peer_cons_curs,
				      m->cons, conn->peer_rmbe_size,
				      conn->peer_cons,
				      conn->tx_prod_max - conn->peer_cons);
		/* consumed is landed, even past a failover's resend point */
		if (!rc)
			asmc_cdc_landed(conn, conn->peer_cons);
	}
	if (rc) {
		pr_debug("sock %p: CDC seq %u prod %u:%u cons %u:%u, had prod %u:%u (%llu/%llu of %u) cons %u:%u (%llu/%llu of %u): abort\n",
			 smc, m->seqno, m->prod.wrap, m->prod.count, m->cons.wrap,
			 m->cons.count, conn->rx_prod_curs.wrap,
			 conn->rx_prod_curs.count, conn->rx_prod, conn->rx_cons,
			 conn->rmbe_size, conn->peer_cons_curs.wrap,
			 conn->peer_cons_curs.count, conn->peer_cons, conn->tx_prod,
			 conn->peer_rmbe_size);
		spin_unlock_bh(&conn->lock);
		asmc_stats_wire(sock_net(sk), ASMC_STAT_CDC_RX_BAD, 1);
		asmc_conn_abort(smc, EPROTO);
		return;
	}
	conn->peer_prod_flags = m->prod_flags;
	/* answered when asked; when blocked, only with room we have not
	 * reported yet (else our next read reports it): echoing every
	 * blocked data CDC, as Linux's smc sets the flag on most, cost a
	 * CDC per CDC
	 */
	if (m->prod_flags & ASMC_CDC_CONS_UPD_REQ ||
	    asmc_conn_update_due(conn))
		conn->tx_need_update = true;
	if (m->prod_flags & ASMC_CDC_URG_PRESENT && conn->rx_prod > old_prod) {
		const u8 *rmb = conn->rmb->cpu;

		conn->rx_urg_mark = conn->rx_prod;
		conn->rx_urg_byte = rmb[(conn->rx_prod - 1) % conn->rmbe_size];
		conn->rx_urg_valid = true;
		conn->rx_urg_seen = true;
		urg = true;
	}
	conn->peer_conn_flags |= m->conn_flags;
	data = conn->rx_prod != old_prod;
	space = conn->peer_cons != old_cons;
	shut = m->conn_flags != 0;
	push = (space && conn->sb_filled > conn->sb_posted) ||
	       conn->tx_need_update;
	spin_unlock_bh(&conn->lock);

	if (urg)
		sk_send_sigurg(sk);
	if (shut)
		asmc_close_peer_flags(smc, m->conn_flags);
	if (push)
		asmc_tx_push(smc, false);
	if (data || shut)
		sk->sk_data_ready(sk);
	if (space)
		sk->sk_write_space(sk);
}

/* Completion handler: a CDC arrived on @lnk. */
void asmc_cdc_rx(struct asmc_link *lnk, const u8 *buf, u32 len)
{
	struct asmc_cdc_msg m;
	struct asmc_sock *smc;

	if (asmc_cdc_parse(buf, len, &m)) {
		pr_debug("link %p: CDC unparsable (length %u)\n", lnk, buf[1]);
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_CDC_RX_DROP, 1);
		return;
	}
	smc = asmc_lgr_find_conn(lnk->lgr, m.token);
	if (!smc) {
		/* closed meanwhile, or not ours */
		pr_debug("link %p: CDC seq %u for unknown token %#x, flags %#x\n",
			 lnk, m.seqno, m.token, m.conn_flags);
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_CDC_RX_DROP, 1);
		return;
	}
	asmc_stats_wire(sock_net(&smc->sk), ASMC_STAT_CDC_RX, 1);
	/* any link of the group: the peer may have moved the connection */
	asmc_cdc_recv(smc, &m);
	sock_put(&smc->sk);
}
