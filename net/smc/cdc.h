/* SPDX-License-Identifier: GPL-2.0 */
/* The SMC-R connection state of a socket (buffers, cursors, flags) and CDC
 * messages: sending them with or after data, and receiving them.
 */
#ifndef ASMC_CDC_H
#define ASMC_CDC_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "cdc_wire.h"

/* the send buffer a connection starts with (see asmc_conn.sndbuf) */
#define ASMC_SNDBUF_FIRST	16384u

struct asmc_lgr;
struct asmc_link;
struct asmc_buf;
struct asmc_sock;

/* Positions are kept as 64-bit byte totals since the connection started;
 * a wire cursor is derived from a total (count = total % ring size,
 * wrap = total / ring size, truncated to 16 bits), and a received cursor
 * advances a total by its distance from the previous one.
 *
 * lock (bh) protects every field from tx_seq down; it is taken from the
 * CQ completion handlers (softirq) and from process context.
 */
struct asmc_conn {
	struct asmc_lgr		*lgr;
	struct asmc_link	*link;
	u32			token;		/* ours: the peer addresses us */
	u32			peer_token;

	struct asmc_buf		*rmb;		/* the peer writes into it */
	u32			rmbe_size;
	/* RDMA WRITE source: starts at ASMC_SNDBUF_FIRST and is swapped for
	 * one of sndbuf_want bytes by the first write that needs more room
	 * (asmc_tx_grow); changed under the socket lock, tx_lock and lock,
	 * with no byte of it in flight. sndbuf_want and sndbuf_outgrown
	 * change under the socket lock (poll reads them without it).
	 */
	struct asmc_buf		*sndbuf;
	u32			sndbuf_size;
	u32			sndbuf_want;
	bool			sndbuf_outgrown; /* a write wanted more room */
	u32			peer_rmbe_size;
	/* the peer's RMB on conn->link; changed with it (failover) under
	 * tx_lock and lock
	 */
	u64			peer_rmb_addr;
	u32			peer_rkey;
	int			peer_rtok;	/* in lgr->rtoks, -1: none */

	spinlock_t		tx_lock;	/* claim + post in order */
	struct work_struct	tx_work;	/* push once a send slot frees */
	/* on the link's tx_wait while every send slot is busy */
	struct wait_queue_entry	tx_slot_wait;
	spinlock_t		lock;
	/* sending */
	u16			tx_seq;		/* last CDC sequence number sent */
	u16			tx_seq_done;	/* ... whose send completed */
	u64			sb_filled;	/* bytes the application wrote */
	u64			sb_posted;	/* bytes posted as RDMA WRITEs */
	u64			sb_done;	/* bytes whose CDC completed */
	u64			tx_prod;	/* = sb_posted: peer RMBE total */
	/* the most ever posted (>= tx_prod): after a failover went back to
	 * resend what the old link may have lost, the peer may report
	 * consuming up to here
	 */
	u64			tx_prod_max;
	u64			peer_cons;	/* peer consumed of its RMBE */
	struct asmc_cursor	peer_cons_curs;	/* as last received */
	u64			tx_urg_mark;	/* total at the urgent byte + 1 */
	bool			tx_urg_pending;	/* urgent byte not yet written */
	bool			tx_blocked;	/* we said "write blocked" */
	bool			tx_pending;	/* push again when a slot frees */
	bool			tx_stopped;	/* freeing: post nothing more */
	bool			tx_need_update;	/* consumer update owed */
	int			tx_inflight;	/* CDC sends not completed */
	wait_queue_head_t	tx_drained;	/* tx_inflight dropped to 0 */
	u8			local_conn_flags; /* ASMC_CDC_PEER_* to send */
	u8			sent_conn_flags;  /* ... already sent */

	/* receiving */
	u16			rx_seq;		/* last CDC sequence accepted */
	bool			rx_seq_valid;
	u64			rx_prod;	/* bytes the peer wrote to us */
	struct asmc_cursor	rx_prod_curs;
	u64			rx_cons;	/* bytes the application read */
	u64			rx_cons_sent;	/* rx_cons we last reported */
	u8			peer_prod_flags;
	u8			peer_conn_flags; /* ASMC_CDC_PEER_* received */
	u64			rx_urg_mark;	/* total after the urgent byte */
	u8			rx_urg_byte;
	bool			rx_urg_valid;	/* byte not yet read (OOB) */
	bool			rx_urg_seen;	/* SIOCATMARK position known */
};

/* The close flags that may go out now: "done writing" and "closed" only
 * once every byte written before them is posted (the peer takes them as
 * the end of the data); "abort" at once.
 */
static inline u8 asmc_conn_flags_sendable(const struct asmc_conn *c)
{
	u8 f = c->local_conn_flags;

	if (c->sb_posted != c->sb_filled)
		f &= ASMC_CDC_PEER_CONN_ABORT;
	return f | c->sent_conn_flags;
}

static inline u64 asmc_conn_rx_avail(const struct asmc_conn *c)
{
	return READ_ONCE(c->rx_prod) - READ_ONCE(c->rx_cons);
}

/* Room in the peer's RMBE for our next RDMA WRITE. */
static inline u64 asmc_conn_peer_free(const struct asmc_conn *c)
{
	return c->peer_rmbe_size - (c->tx_prod - c->peer_cons);
}

/* Do we owe the peer a consumer update, given what it last said about
 * itself (asmc_cdc_update_due)?
 */
static inline bool asmc_conn_update_due(struct asmc_conn *c)
{
	lockdep_assert_held(&c->lock);
	return asmc_cdc_update_due(c->rx_prod, c->rx_cons, c->rx_cons_sent,
				   c->rmbe_size, c->peer_prod_flags);
}

static inline struct asmc_cursor asmc_total_to_cursor(u64 total, u32 size)
{
	struct asmc_cursor c = {
		.wrap = (u16)(total / size),
		.count = (u32)(total % size),
	};

	return c;
}

struct asmc_wr_tx;
struct ib_rdma_wr;

void asmc_cdc_rx(struct asmc_link *lnk, const u8 *buf, u32 len);
void asmc_conn_init(struct asmc_conn *conn);
void asmc_cdc_prepare(struct asmc_sock *smc, struct asmc_wr_tx *tx, u8 *buf);
void asmc_cdc_prepare_failover(struct asmc_sock *smc, struct asmc_wr_tx *tx,
			       u8 *buf);
int asmc_cdc_post(struct asmc_sock *smc, struct asmc_wr_tx *tx,
		  struct ib_rdma_wr *writes, int nwrites);

#endif /* ASMC_CDC_H */
