/* SPDX-License-Identifier: GPL-2.0 */
/* Work requests of a link: the RC QP and its CQs, the slots of LLC and CDC
 * sends, the posted receives and memory registration.
 */
#ifndef ASMC_WR_H
#define ASMC_WR_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#define ASMC_WR_TX_SLOTS	16	/* default control sends in flight */
#define ASMC_WR_RX_BUFS		48	/* default receives posted per link */
#define ASMC_WR_MSG_LEN		44	/* LLC/CDC message */
#define ASMC_WR_SLOT_SIZE	48
#define ASMC_WR_SPILL_LEN	(8192 - ASMC_WR_MSG_LEN) /* v2 large LLC */
#define ASMC_WR_WRITES_PER_TX	2	/* RDMA WRITEs before one CDC */
#define ASMC_WR_SEND_DEPTH(slots) ((slots) * (1 + ASMC_WR_WRITES_PER_TX) + 8)

/* RC transport: a send unacknowledged for 4.096 us << ASMC_QP_TIMEOUT
 * (about 134 ms) is retried ASMC_QP_RETRY_CNT times, then the link fails.
 * rxe takes a retry count of 7 for "retry forever": a dead peer is then
 * noticed by TEST_LINK only. Kept so on purpose: between TCG guests rxe
 * loses packets in bursts, and a count of 6 (with 268 ms) failed a link
 * to a live net/smc peer in CI (retry_exceeded_err 1, 22 retries in the
 * run). Receiver not ready (RNR) is retried forever (7, by definition).
 */
#define ASMC_QP_TIMEOUT		15
#define ASMC_QP_RETRY_CNT	7
#define ASMC_QP_RNR_RETRY	7

struct asmc_ibsel;
struct asmc_link;

/* One posted control send (LLC or CDC); its buffer is slot i of tx_bufs. */
struct asmc_wr_tx {
	struct ib_cqe		cqe;
	struct asmc_link	*link;
	u16			idx;
	/* called from the completion (softirq) with the WC status */
	void			(*done)(struct asmc_wr_tx *tx, int status);
	void			*ctx;
	u64			data;		/* for the done handler */
	u16			seq;		/* for the done handler */
	bool			await;		/* the peer owes an answer */
};

struct asmc_wr_rx {
	struct ib_cqe		cqe;
	struct asmc_link	*link;
	u16			idx;
};

int asmc_link_create(struct asmc_link *lnk, struct asmc_ibsel *sel,
		     bool v2);
bool asmc_link_quiesce(struct asmc_link *lnk);
void asmc_link_destroy(struct asmc_link *lnk);
int asmc_link_rtr(struct asmc_link *lnk);
int asmc_link_rts(struct asmc_link *lnk);
void asmc_link_error(struct asmc_link *lnk);
int asmc_wr_tx_get(struct asmc_link *lnk, struct asmc_wr_tx **tx, u8 **buf,
		   bool wait);
void asmc_wr_tx_put(struct asmc_wr_tx *tx);
int asmc_wr_tx_send(struct asmc_wr_tx *tx, size_t len);
int asmc_wr_tx_send_big(struct asmc_wr_tx *tx, u8 *slot, u8 *msg,
			size_t len);
int asmc_wr_tx_send_after(struct asmc_wr_tx *tx, size_t len,
			  struct ib_rdma_wr *writes, int nwrites);
int asmc_wr_reg_mr(struct asmc_link *lnk, struct ib_mr *mr);

#endif /* ASMC_WR_H */
