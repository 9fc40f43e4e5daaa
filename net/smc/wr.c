// SPDX-License-Identifier: GPL-2.0
/* Work requests of a link: the RC QP with its CQs, the slots for LLC/CDC
 * sends, the posted receives, memory registration, and a teardown that
 * never waits for flushed completions without a deadline.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "cdc.h"
#include "debug.h"
#include "lgr.h"
#include "llc.h"
#include "netns.h"
#include "trace.h"
#include "wr.h"

static void asmc_wr_rx_done(struct ib_cq *cq, struct ib_wc *wc);
static void asmc_wr_tx_done(struct ib_cq *cq, struct ib_wc *wc);
static void asmc_wr_write_done(struct ib_cq *cq, struct ib_wc *wc);
static void asmc_wr_reg_done(struct ib_cq *cq, struct ib_wc *wc);

static struct ib_device *lnk_ibdev(struct asmc_link *lnk)
{
	return lnk->sel.dev->ibdev;
}

static int asmc_wr_rx_post(struct asmc_link *lnk, u16 idx)
{
	struct ib_sge sge[2];
	struct ib_recv_wr wr = {};
	int rc;

	sge[0].addr = lnk->rx_dma + (u64)idx * ASMC_WR_SLOT_SIZE;
	sge[0].length = ASMC_WR_MSG_LEN;
	sge[0].lkey = lnk->pd->local_dma_lkey;
	wr.num_sge = 1;
	if (lnk->rx_spill) {
		/* v2 groups: a large LLC message spills past byte 44 */
		sge[1].addr = lnk->rx_spill_dma;
		sge[1].length = ASMC_WR_SPILL_LEN;
		sge[1].lkey = lnk->pd->local_dma_lkey;
		wr.num_sge = 2;
	}
	wr.sg_list = sge;
	wr.wr_cqe = &lnk->rx[idx].cqe;
	atomic_inc(&lnk->rx_posted);
	rc = ib_post_recv(lnk->qp, &wr, NULL);
	if (rc)
		atomic_dec(&lnk->rx_posted);
	return rc;
}

static void asmc_wr_check_drained(struct asmc_link *lnk)
{
	if (!atomic_read(&lnk->tx_inflight) && !atomic_read(&lnk->rx_posted))
		wake_up_all(&lnk->drained);
}

/* A failed completion means the link is broken, unless it is the flush
 * of what was posted when we moved the QP to ERROR ourselves (only
 * asmc_link_destroy() does, with the link DOWN before). A flush on a link
 * still up means the device put the QP in ERROR on its own: as responder
 * (no completion of its own) when the peer's RDMA WRITE named an rkey or
 * a range we never gave it, say; the receives flushed then are all we
 * learn of it.
 */
static void asmc_wr_wc_error(struct asmc_link *lnk, struct ib_wc *wc,
			     const char *what)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR &&
	    READ_ONCE(lnk->state) == ASMC_LNK_DOWN)
		return;
	asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LINK_WC_ERROR, 1);
	asmc_link_warn(lnk, "%s failed: %s\n", what,
		       ib_wc_status_msg(wc->status));
	asmc_link_error(lnk);
}

static void asmc_wr_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct asmc_wr_rx *rx = container_of(wc->wr_cqe, struct asmc_wr_rx,
					     cqe);
	struct asmc_link *lnk = rx->link;
	struct ib_device *ibdev = lnk_ibdev(lnk);
	u8 *buf = lnk->rx_bufs + (size_t)rx->idx * ASMC_WR_SLOT_SIZE;
	u64 dma = lnk->rx_dma + (u64)rx->idx * ASMC_WR_SLOT_SIZE;

	atomic_dec(&lnk->rx_posted);
	if (wc->status != IB_WC_SUCCESS) {
		asmc_wr_wc_error(lnk, wc, "receive");
		asmc_wr_check_drained(lnk);
		return;
	}
	ib_dma_sync_single_for_cpu(ibdev, dma, ASMC_WR_MSG_LEN,
				   DMA_FROM_DEVICE);
	if (wc->byte_len > ASMC_WR_MSG_LEN && lnk->rx_spill)
		ib_dma_sync_single_for_cpu(ibdev, lnk->rx_spill_dma,
					   ASMC_WR_SPILL_LEN, DMA_FROM_DEVICE);
	WRITE_ONCE(lnk->last_rx, jiffies);
	if (READ_ONCE(lnk->await_since))
		WRITE_ONCE(lnk->await_since, 0);

	if (wc->byte_len >= ASMC_WR_MSG_LEN) {
		if (buf[0] == ASMC_CDC_TYPE)
			asmc_cdc_rx(lnk, buf, wc->byte_len);
		else
			asmc_llc_rx(lnk, buf, wc->byte_len);
	}
	/* shorter messages are dropped, as the protocol requires */

	ib_dma_sync_single_for_device(ibdev, dma, ASMC_WR_MSG_LEN,
				      DMA_FROM_DEVICE);
	if (READ_ONCE(lnk->state) == ASMC_LNK_DOWN ||
	    asmc_wr_rx_post(lnk, rx->idx))
		asmc_wr_check_drained(lnk);
}

static void asmc_wr_tx_release(struct asmc_wr_tx *tx)
{
	struct asmc_link *lnk = tx->link;

	tx->done = NULL;
	tx->ctx = NULL;
	tx->await = false;
	clear_bit_unlock(tx->idx, lnk->tx_busy);
	wake_up(&lnk->tx_wait);
}

static void asmc_wr_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct asmc_wr_tx *tx = container_of(wc->wr_cqe, struct asmc_wr_tx,
					     cqe);
	struct asmc_link *lnk = tx->link;
	int status = wc->status == IB_WC_SUCCESS ? 0 : -ECONNRESET;

	/* as rxe may never flush a send: here on a working link too (the
	 * connection may then fail, what it holds must still be let go)
	 */
	if (asmc_fault(ASMC_FAULT_LOSTCQE))
		return;		/* the slot stays busy until the link goes */
	if (status)
		asmc_wr_wc_error(lnk, wc, "send");
	else
		WRITE_ONCE(lnk->last_ack, jiffies);
	if (tx->done)
		tx->done(tx, status);
	asmc_wr_tx_release(tx);
	if (atomic_dec_and_test(&lnk->tx_inflight))
		asmc_wr_check_drained(lnk);
}

/* RDMA WRITEs are unsignaled; only a failed one completes here. */
static struct ib_cqe asmc_wr_write_cqe = { .done = asmc_wr_write_done };

static void asmc_wr_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct asmc_link *lnk = cq->cq_context;

	asmc_wr_wc_error(lnk, wc, "rdma write");
}

/* The message buffer of send slot @idx. */
static u8 *asmc_wr_tx_buf(struct asmc_link *lnk, u32 idx)
{
	return lnk->tx_bufs + (size_t)idx * ASMC_WR_SLOT_SIZE;
}

/* Take a free control-send slot. With @wait, sleep up to
 * ASMC_TX_SLOT_WAIT; -ENOLINK once the link is down. The slot's buffer
 * (ASMC_WR_MSG_LEN bytes, zeroed) is returned in @buf.
 */
int asmc_wr_tx_get(struct asmc_link *lnk, struct asmc_wr_tx **txp, u8 **buf,
		   bool wait)
{
	long left = ASMC_TX_SLOT_WAIT;
	int idx;

	for (;;) {
		if (READ_ONCE(lnk->state) == ASMC_LNK_DOWN)
			return -ENOLINK;
		idx = find_first_zero_bit(lnk->tx_busy, lnk->tx_slots);
		if (idx < lnk->tx_slots) {
			if (!test_and_set_bit_lock(idx, lnk->tx_busy))
				break;
			continue;
		}
		if (!wait)
			return -EBUSY;
		if (left == ASMC_TX_SLOT_WAIT)
			pr_debug("link %p: all %u send slots busy, waiting\n",
				 lnk, lnk->tx_slots);
		left = wait_event_interruptible_timeout(lnk->tx_wait,
			find_first_zero_bit(lnk->tx_busy, lnk->tx_slots) <
				lnk->tx_slots ||
			READ_ONCE(lnk->state) == ASMC_LNK_DOWN, left);
		if (left < 0)
			return left;
		if (!left)
			return -ETIMEDOUT;
	}
	atomic_inc(&lnk->tx_preparing);
	*txp = &lnk->tx[idx];
	*buf = asmc_wr_tx_buf(lnk, idx);
	memset(*buf, 0, ASMC_WR_SLOT_SIZE);
	return 0;
}

/* The taker of a slot is done with it (posted or given back): link
 * teardown waits for that before it frees the slots' buffers.
 */
static void asmc_wr_tx_prepared(struct asmc_link *lnk)
{
	if (atomic_dec_and_test(&lnk->tx_preparing))
		wake_up_all(&lnk->tx_wait);
}

/* Give back a slot that was not sent. */
void asmc_wr_tx_put(struct asmc_wr_tx *tx)
{
	struct asmc_link *lnk = tx->link;

	asmc_wr_tx_release(tx);
	asmc_wr_tx_prepared(lnk);
}

/* Post the chain @first (ending in @tx's send) while the link is up. On
 * failure the slot is given back (and the link fails on a post error).
 */
static int asmc_wr_post(struct asmc_wr_tx *tx, struct ib_send_wr *first)
{
	struct asmc_link *lnk = tx->link;
	int rc;

	/* posts happen inside RCU while the link is up; teardown marks it
	 * down and waits a grace period before the QP goes away
	 */
	rcu_read_lock();
	if (READ_ONCE(lnk->state) == ASMC_LNK_DOWN) {
		rcu_read_unlock();
		asmc_wr_tx_release(tx);
		asmc_wr_tx_prepared(lnk);
		return -ENOLINK;
	}
	if (atomic_inc_return(&lnk->tx_inflight) == 1)
		WRITE_ONCE(lnk->tx_start, jiffies);
	/* stamped before the post: the answer cannot come before it */
	if (tx->await)
		asmc_link_await(lnk);
	rc = ASMC_FAULTY(ASMC_FAULT_POST, -ENOMEM,
			 ib_post_send(lnk->qp, first, NULL));
	rcu_read_unlock();
	if (rc) {
		pr_debug("link %p post send failed: %d\n", lnk, rc);
		asmc_wr_tx_release(tx);
		if (atomic_dec_and_test(&lnk->tx_inflight))
			asmc_wr_check_drained(lnk);
		asmc_link_error(lnk);
	}
	asmc_wr_tx_prepared(lnk);
	return rc;
}

/* A test's altered message (debugfs smc/wr_inject): @len bytes at @buf,
 * changed in place; returns the length to send.
 */
static size_t asmc_wr_inject(u8 *buf, size_t len, int nwrites)
{
	u8 kind;

	if (asmc_cdc_is_cdc(buf, len))
		kind = nwrites ? ASMC_INJ_DATA : ASMC_INJ_CTRL;
	else
		kind = buf[3] & ASMC_LLC_FLAG_RESP ? ASMC_INJ_RESP :
						     ASMC_INJ_REQ;
	return asmc_inject(&asmc_wr_inj, buf[0], kind, buf, len);
}

/* Post the slot's message, after @nwrites RDMA WRITEs that must reach the
 * peer first (RC order). Every send is signaled and solicited: a Linux
 * peer may arm its receive CQ for solicited events only. A slot marked
 * tx->await starts the link's wait for an answer (see ASMC_LINK_PROBE).
 */
int asmc_wr_tx_send_after(struct asmc_wr_tx *tx, size_t len,
			  struct ib_rdma_wr *writes, int nwrites)
{
	struct asmc_link *lnk = tx->link;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	int i;

	if (asmc_inject_armed(&asmc_wr_inj))
		len = asmc_wr_inject(asmc_wr_tx_buf(lnk, tx->idx), len,
				     nwrites);
	sge.addr = lnk->tx_dma + (u64)tx->idx * ASMC_WR_SLOT_SIZE;
	sge.length = len;
	sge.lkey = lnk->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(lnk_ibdev(lnk), sge.addr, len,
				      DMA_TO_DEVICE);
	wr.wr_cqe = &tx->cqe;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	if (len <= lnk->max_inline)
		wr.send_flags |= IB_SEND_INLINE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < nwrites; i++) {
		writes[i].wr.wr_cqe = &asmc_wr_write_cqe;
		writes[i].wr.opcode = IB_WR_RDMA_WRITE;
		writes[i].wr.send_flags = 0;
		writes[i].wr.next = i + 1 < nwrites ? &writes[i + 1].wr : &wr;
	}
	return asmc_wr_post(tx, nwrites ? &writes[0].wr : &wr);
}

int asmc_wr_tx_send(struct asmc_wr_tx *tx, size_t len)
{
	return asmc_wr_tx_send_after(tx, len, NULL, 0);
}

/* A v2 large LLC message in flight: bytes 44.. in a buffer of their own. */
struct asmc_wr_big {
	struct ib_device	*ibdev;
	u64			dma;
	u32			len;
	u8			data[];
};

static void asmc_wr_big_free(struct asmc_wr_big *big)
{
	ib_dma_unmap_single(big->ibdev, big->dma, big->len, DMA_TO_DEVICE);
	kfree(big);
}

static void asmc_wr_big_done(struct asmc_wr_tx *tx, int status)
{
	asmc_wr_big_free(tx->ctx);
}

/* Send @len (> ASMC_WR_MSG_LEN) bytes of @msg as one SEND: the first
 * ASMC_WR_MSG_LEN from the slot @tx (whose buffer the caller got), the
 * rest from a buffer freed when the send completes. Only for v2 groups,
 * whose receives take up to ASMC_LLC_MAX_LEN bytes. A test may alter
 * @msg (wr_inject); cut to a slot's size, it goes as a plain send.
 */
int asmc_wr_tx_send_big(struct asmc_wr_tx *tx, u8 *slot, u8 *msg, size_t len)
{
	struct asmc_link *lnk = tx->link;
	struct ib_device *ibdev = lnk_ibdev(lnk);
	struct ib_send_wr wr = {};
	struct asmc_wr_big *big;
	struct ib_sge sge[2];
	int rc;

	if (asmc_inject_armed(&asmc_wr_inj)) {
		len = asmc_wr_inject(msg, len, 0);
		if (len <= ASMC_WR_MSG_LEN) {
			memcpy(slot, msg, len);
			return asmc_wr_tx_send(tx, len);
		}
	}
	if (len <= ASMC_WR_MSG_LEN || len > ASMC_WR_MSG_LEN + ASMC_WR_SPILL_LEN) {
		asmc_wr_tx_put(tx);
		return -EINVAL;
	}
	big = kmalloc(struct_size(big, data, len - ASMC_WR_MSG_LEN),
		      GFP_KERNEL);
	if (!big) {
		asmc_wr_tx_put(tx);
		return -ENOMEM;
	}
	big->ibdev = ibdev;
	big->len = len - ASMC_WR_MSG_LEN;
	memcpy(big->data, msg + ASMC_WR_MSG_LEN, big->len);
	big->dma = ib_dma_map_single(ibdev, big->data, big->len,
				     DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, big->dma)) {
		kfree(big);
		asmc_wr_tx_put(tx);
		return -EIO;
	}
	memcpy(slot, msg, ASMC_WR_MSG_LEN);
	sge[0].addr = lnk->tx_dma + (u64)tx->idx * ASMC_WR_SLOT_SIZE;
	sge[0].length = ASMC_WR_MSG_LEN;
	sge[0].lkey = lnk->pd->local_dma_lkey;
	sge[1].addr = big->dma;
	sge[1].length = big->len;
	sge[1].lkey = lnk->pd->local_dma_lkey;
	ib_dma_sync_single_for_device(ibdev, sge[0].addr, ASMC_WR_MSG_LEN,
				      DMA_TO_DEVICE);
	wr.wr_cqe = &tx->cqe;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	wr.sg_list = sge;
	wr.num_sge = 2;
	tx->done = asmc_wr_big_done;	/* frees it after the send */
	tx->ctx = big;
	rc = asmc_wr_post(tx, &wr);
	if (rc)		/* the slot came back without a completion */
		asmc_wr_big_free(big);
	return rc;
}

static void asmc_wr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct asmc_link *lnk = container_of(wc->wr_cqe, struct asmc_link,
					     reg_cqe);

	lnk->reg_status = wc->status == IB_WC_SUCCESS ? 0 : -EIO;
	if (lnk->reg_status)
		asmc_wr_wc_error(lnk, wc, "memory registration");
	complete(&lnk->reg_done);
	if (atomic_dec_and_test(&lnk->tx_inflight))
		asmc_wr_check_drained(lnk);
}

/* Register @mr (mapped with ib_map_mr_sg) for remote write; waits up to
 * ASMC_REG_MR_WAIT. Without the registration QP the link's QP must be in
 * RTS.
 */
int asmc_wr_reg_mr(struct asmc_link *lnk, struct ib_mr *mr)
{
	struct ib_reg_wr wr = {};
	long left;
	int rc;

	mutex_lock(&lnk->reg_mutex);
	if (READ_ONCE(lnk->state) == ASMC_LNK_DOWN) {
		rc = -ENOLINK;
		goto out;
	}
	reinit_completion(&lnk->reg_done);
	wr.wr.wr_cqe = &lnk->reg_cqe;
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	atomic_inc(&lnk->tx_inflight);
	/* the link's own QP queues the registration behind every RDMA WRITE
	 * already posted; the private loopback QP does not
	 */
	rc = ASMC_FAULTY(ASMC_FAULT_POST, -ENOMEM,
			 ib_post_send(lnk->reg_qp ? : lnk->qp, &wr.wr, NULL));
	if (rc) {
		if (atomic_dec_and_test(&lnk->tx_inflight))
			asmc_wr_check_drained(lnk);
		goto out;
	}
	left = wait_for_completion_timeout(&lnk->reg_done, ASMC_REG_MR_WAIT);
	if (!left) {
		/* the completion (or its flush) still comes: reg_cqe and
		 * reg_done live as long as the link does
		 */
		asmc_link_error(lnk);
		rc = -ETIMEDOUT;
		goto out;
	}
	rc = lnk->reg_status;
out:
	mutex_unlock(&lnk->reg_mutex);
	return rc;
}

static int asmc_link_alloc_bufs(struct asmc_link *lnk, bool v2)
{
	struct ib_device *ibdev = lnk_ibdev(lnk);
	size_t txsz = lnk->tx_slots * ASMC_WR_SLOT_SIZE;
	size_t rxsz = lnk->rx_num * ASMC_WR_SLOT_SIZE;

	lnk->tx_bufs = ASMC_FAULTY(ASMC_FAULT_VERBS, NULL,
				   kzalloc(txsz, GFP_KERNEL));
	lnk->rx_bufs = kzalloc(rxsz, GFP_KERNEL);
	if (!lnk->tx_bufs || !lnk->rx_bufs)
		return -ENOMEM;
	lnk->tx_dma = ib_dma_map_single(ibdev, lnk->tx_bufs, txsz,
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, lnk->tx_dma)) {
		lnk->tx_dma = 0;
		return -EIO;
	}
	lnk->rx_dma = ib_dma_map_single(ibdev, lnk->rx_bufs, rxsz,
					DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, lnk->rx_dma)) {
		lnk->rx_dma = 0;
		return -EIO;
	}
	if (!v2)
		return 0;
	lnk->rx_spill = kzalloc(ASMC_WR_SPILL_LEN, GFP_KERNEL);
	if (!lnk->rx_spill)
		return -ENOMEM;
	lnk->rx_spill_dma = ib_dma_map_single(ibdev, lnk->rx_spill,
					      ASMC_WR_SPILL_LEN,
					      DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, lnk->rx_spill_dma)) {
		lnk->rx_spill_dma = 0;
		return -EIO;
	}
	return 0;
}

static void asmc_link_free_bufs(struct asmc_link *lnk)
{
	struct ib_device *ibdev = lnk_ibdev(lnk);

	if (lnk->tx_dma)
		ib_dma_unmap_single(ibdev, lnk->tx_dma,
				    lnk->tx_slots * ASMC_WR_SLOT_SIZE,
				    DMA_TO_DEVICE);
	if (lnk->rx_dma)
		ib_dma_unmap_single(ibdev, lnk->rx_dma,
				    lnk->rx_num * ASMC_WR_SLOT_SIZE,
				    DMA_FROM_DEVICE);
	if (lnk->rx_spill_dma)
		ib_dma_unmap_single(ibdev, lnk->rx_spill_dma,
				    ASMC_WR_SPILL_LEN, DMA_FROM_DEVICE);
	kfree(lnk->tx_bufs);
	kfree(lnk->rx_bufs);
	kfree(lnk->rx_spill);
	kfree(lnk->tx);
	kfree(lnk->rx);
	bitmap_free(lnk->tx_busy);
	lnk->tx = NULL;
	lnk->rx = NULL;
	lnk->tx_busy = NULL;
	lnk->tx_bufs = NULL;
	lnk->rx_bufs = NULL;
	lnk->rx_spill = NULL;
	lnk->tx_dma = 0;
	lnk->rx_dma = 0;
	lnk->rx_spill_dma = 0;
}

/* Memory registrations go through a small RC QP of the link's PD that is
 * connected to itself: an MR registered there is valid on every QP of the
 * PD, and the registration never waits behind the link's data traffic.
 * Optional: without it, registrations use the link's QP.
 */
static void asmc_link_reg_qp_create(struct asmc_link *lnk)
{
	struct ib_device *ibdev = lnk_ibdev(lnk);
	struct ib_qp_init_attr qp_attr = {};
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	u32 psn = get_random_u32() & 0xffffff;
	int rc;

	lnk->reg_cq = ASMC_FAULTY(ASMC_FAULT_VERBS, ERR_PTR(-ENOMEM),
				  ib_alloc_cq(ibdev, lnk, 4, 0,
					      IB_POLL_SOFTIRQ));
	if (IS_ERR(lnk->reg_cq)) {
		lnk->reg_cq = NULL;
		return;
	}
	qp_attr.qp_context = lnk;
	qp_attr.send_cq = lnk->reg_cq;
	qp_attr.recv_cq = lnk->reg_cq;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.cap.max_send_wr = 2;
	qp_attr.cap.max_recv_wr = 1;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	lnk->reg_qp = ib_create_qp(lnk->pd, &qp_attr);
	if (IS_ERR(lnk->reg_qp)) {
		lnk->reg_qp = NULL;
		goto err;
	}
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = lnk->sel.port;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
	rc = ib_modify_qp(lnk->reg_qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	memset(&attr, 0, sizeof(attr));
	memcpy(gid.raw, lnk->sel.gid, 16);
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = lnk->sel.mtu;
	attr.dest_qp_num = lnk->reg_qp->qp_num;
	attr.rq_psn = psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 5;
	attr.ah_attr.type = rdma_ah_find_type(ibdev, lnk->sel.port);
	rdma_ah_set_port_num(&attr.ah_attr, lnk->sel.port);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, lnk->sel.gid_index, 1, 0);
	memcpy(attr.ah_attr.roce.dmac, lnk->sel.mac, ETH_ALEN);
	if (!rc)
		rc = ib_modify_qp(lnk->reg_qp, &attr, IB_QP_STATE | IB_QP_AV |
				  IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				  IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				  IB_QP_MIN_RNR_TIMER);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = ASMC_QP_TIMEOUT;
	attr.retry_cnt = ASMC_QP_RETRY_CNT;
	attr.rnr_retry = ASMC_QP_RNR_RETRY;
	attr.sq_psn = psn;
	attr.max_rd_atomic = 1;
	if (!rc)
		rc = ib_modify_qp(lnk->reg_qp, &attr, IB_QP_STATE |
				  IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				  IB_QP_SQ_PSN | IB_QP_RNR_RETRY |
				  IB_QP_MAX_QP_RD_ATOMIC);
	if (!rc)
		return;
	ib_destroy_qp(lnk->reg_qp);
	lnk->reg_qp = NULL;
err:
	ib_free_cq(lnk->reg_cq);
	lnk->reg_cq = NULL;
}

/* Control sends in flight and receives posted: net.smc.smcr_max_send_wr
 * and smcr_max_recv_wr of the group's namespace, within what the device
 * can queue (a send slot may carry RDMA WRITEs ahead of its message).
 */
static void asmc_link_wr_counts(struct asmc_link *lnk)
{
	const struct ib_device_attr *a = &lnk_ibdev(lnk)->attrs;
	struct asmc_net *sn = asmc_net(lnk->lgr->net);
	int lim = min(a->max_qp_wr, a->max_cqe);
	int tx = READ_ONCE(sn->sysctl.smcr_max_send_wr);
	int rx = READ_ONCE(sn->sysctl.smcr_max_recv_wr);

	tx = min(tx, (lim - 8) / (1 + ASMC_WR_WRITES_PER_TX));
	rx = min(rx, lim);
	lnk->tx_slots = max(tx, 2);
	lnk->rx_num = max(rx, 2);
}

/* Create the QP (moved to INIT), its CQs and control buffers, and post the
 * receives. @sel's device reference is taken over by the link.
 */
int asmc_link_create(struct asmc_link *lnk, struct asmc_ibsel *sel, bool v2)
{
	struct ib_qp_init_attr qp_attr = {};
	struct ib_qp_attr attr = {};
	struct ib_device *ibdev;
	int rc, i;

	lnk->sel = *sel;
	sel->dev = NULL;
	ibdev = lnk_ibdev(lnk);
	lnk->pd = lnk->sel.dev->pd;
	lnk->state = ASMC_LNK_UNUSED;
	lnk->psn = get_random_u32() & 0xffffff;
	lnk->path_mtu = lnk->sel.mtu;
	init_waitqueue_head(&lnk->tx_wait);
	init_waitqueue_head(&lnk->drained);
	init_waitqueue_head(&lnk->llc_wq);
	INIT_LIST_HEAD(&lnk->rkey_waiters);
	spin_lock_init(&lnk->llc_lock);
	mutex_init(&lnk->llc_flow);
	mutex_init(&lnk->reg_mutex);
	init_completion(&lnk->reg_done);
	lnk->reg_cqe.done = asmc_wr_reg_done;
	INIT_LIST_HEAD(&lnk->llc_rx_q);
	asmc_llc_link_init(lnk);
	asmc_link_wr_counts(lnk);
	lnk->tx = ASMC_FAULTY(ASMC_FAULT_VERBS, NULL,
			      kcalloc(lnk->tx_slots, sizeof(*lnk->tx),
				      GFP_KERNEL));
	lnk->rx = kcalloc(lnk->rx_num, sizeof(*lnk->rx), GFP_KERNEL);
	lnk->tx_busy = bitmap_zalloc(lnk->tx_slots, GFP_KERNEL);
	if (!lnk->tx || !lnk->rx || !lnk->tx_busy) {
		rc = -ENOMEM;
		goto err;
	}
	for (i = 0; i < lnk->tx_slots; i++) {
		lnk->tx[i].cqe.done = asmc_wr_tx_done;
		lnk->tx[i].link = lnk;
		lnk->tx[i].idx = i;
	}
	for (i = 0; i < lnk->rx_num; i++) {
		lnk->rx[i].cqe.done = asmc_wr_rx_done;
		lnk->rx[i].link = lnk;
		lnk->rx[i].idx = i;
	}

	lnk->send_cq = ASMC_FAULTY(ASMC_FAULT_VERBS, ERR_PTR(-ENOMEM),
				   ib_alloc_cq(ibdev, lnk,
					ASMC_WR_SEND_DEPTH(lnk->tx_slots), 0,
					IB_POLL_SOFTIRQ));
	if (IS_ERR(lnk->send_cq)) {
		rc = PTR_ERR(lnk->send_cq);
		lnk->send_cq = NULL;
		goto err;
	}
	lnk->recv_cq = ib_alloc_cq(ibdev, lnk, lnk->rx_num, 0,
				   IB_POLL_SOFTIRQ);
	if (IS_ERR(lnk->recv_cq)) {
		rc = PTR_ERR(lnk->recv_cq);
		lnk->recv_cq = NULL;
		goto err;
	}
	qp_attr.qp_context = lnk;
	qp_attr.send_cq = lnk->send_cq;
	qp_attr.recv_cq = lnk->recv_cq;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.cap.max_send_wr = ASMC_WR_SEND_DEPTH(lnk->tx_slots);
	qp_attr.cap.max_recv_wr = lnk->rx_num;
	qp_attr.cap.max_send_sge = 2;
	qp_attr.cap.max_recv_sge = 2;
	qp_attr.cap.max_inline_data = ASMC_WR_MSG_LEN;
	lnk->qp = ASMC_FAULTY(ASMC_FAULT_VERBS, ERR_PTR(-ENOMEM),
			      ib_create_qp(lnk->pd, &qp_attr));
	if (IS_ERR(lnk->qp)) {
		/* some devices have no inline data: go without */
		qp_attr.cap.max_inline_data = 0;
		lnk->qp = ib_create_qp(lnk->pd, &qp_attr);
	}
	if (IS_ERR(lnk->qp)) {
		rc = PTR_ERR(lnk->qp);
		lnk->qp = NULL;
		goto err;
	}
	lnk->max_inline = qp_attr.cap.max_inline_data;
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = lnk->sel.port;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	rc = ib_modify_qp(lnk->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (rc)
		goto err;
	rc = asmc_link_alloc_bufs(lnk, v2);
	if (rc)
		goto err;
	for (i = 0; i < lnk->rx_num; i++) {
		rc = asmc_wr_rx_post(lnk, i);
		if (rc)
			goto err;
	}
	asmc_link_reg_qp_create(lnk);
	asmc_obj_created(ASMC_OBJ_LINK, lnk);
	pr_debug("link %p: QP %u on %s port %u\n", lnk, lnk->qp->qp_num,
		 dev_name(&ibdev->dev), lnk->sel.port);
	return 0;
err:
	asmc_obj_created(ASMC_OBJ_LINK, lnk);
	asmc_link_destroy(lnk);
	return rc;
}

/* QP to RTR: needs the peer's QPN, PSN, GID and MAC. Posted receives stay. */
int asmc_link_rtr(struct asmc_link *lnk)
{
	struct ib_qp_attr attr = {};
	union ib_gid dgid;

	memcpy(dgid.raw, lnk->peer_gid, 16);
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = lnk->path_mtu;
	attr.dest_qp_num = lnk->peer_qpn;
	attr.rq_psn = lnk->peer_psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 5;
	attr.ah_attr.type = rdma_ah_find_type(lnk_ibdev(lnk), lnk->sel.port);
	rdma_ah_set_port_num(&attr.ah_attr, lnk->sel.port);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, lnk->sel.gid_index,
			lnk->v2_direct ? 1 : 64, 0);
	memcpy(attr.ah_attr.roce.dmac, lnk->peer_mac, ETH_ALEN);
	return ib_modify_qp(lnk->qp, &attr, IB_QP_STATE | IB_QP_AV |
			    IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			    IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
}

int asmc_link_rts(struct asmc_link *lnk)
{
	struct ib_qp_attr attr = {};

	attr.qp_state = IB_QPS_RTS;
	attr.timeout = ASMC_QP_TIMEOUT;
	attr.retry_cnt = ASMC_QP_RETRY_CNT;
	attr.rnr_retry = ASMC_QP_RNR_RETRY;
	attr.sq_psn = lnk->psn;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(lnk->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_SQ_PSN | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* Mark the link down and hand it to the link group (any context). */
void asmc_link_error(struct asmc_link *lnk)
{
	if (xchg(&lnk->state, ASMC_LNK_DOWN) == ASMC_LNK_DOWN)
		return;
	trace_smcr_link_down(lnk);
	wake_up_all(&lnk->tx_wait);
	wake_up_all(&lnk->llc_wq);
	asmc_lgr_link_down(lnk);
}

/* Sends the device never completed, not even as flushed (rxe may not):
 * complete them now, failed, so that what they hold (a socket reference,
 * a large message's buffer) is let go. Only once the QP and CQs are gone
 * (no completion handler runs) and no sender holds a slot it has not
 * posted (every busy slot is then in flight).
 */
static void asmc_wr_tx_unflushed(struct asmc_link *lnk)
{
	struct asmc_wr_tx *tx;
	u32 i, n = 0;

	if (!lnk->tx || !lnk->tx_busy)
		return;
	for (i = 0; i < lnk->tx_slots; i++) {
		if (!test_bit(i, lnk->tx_busy))
			continue;
		tx = &lnk->tx[i];
		if (tx->done)
			tx->done(tx, -ECONNRESET);
		asmc_wr_tx_release(tx);
		n++;
	}
	if (n)
		pr_debug("link %p: %u sends never completed, failed now\n",
			 lnk, n);
	atomic_set(&lnk->tx_inflight, 0);
}

/* Stop the link's traffic: no post or memory registration is under way
 * any more, the QPs are in ERROR and posted work flushed, waited for with
 * a deadline, never forever (rxe may not flush). Returns true when every
 * send completed and no sender holds a slot: no completion handler will
 * touch a connection for the link any more, so they may go on elsewhere
 * before the QP is destroyed. Process context; once per link.
 */
bool asmc_link_quiesce(struct asmc_link *lnk)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	long left;

	if (lnk->quiesced)
		goto out;
	lnk->quiesced = true;
	WRITE_ONCE(lnk->state, ASMC_LNK_DOWN);
	wake_up_all(&lnk->tx_wait);
	wake_up_all(&lnk->llc_wq);
	synchronize_rcu();	/* no post is under way any more */
	mutex_lock(&lnk->reg_mutex);	/* nor a memory registration */
	mutex_unlock(&lnk->reg_mutex);
	/* a sender that took a slot before the link went down still writes
	 * into its buffer: the buffers stay until it is done (it will not
	 * post any more)
	 */
	lnk->keep_bufs = !wait_event_timeout(lnk->tx_wait,
					     !atomic_read(&lnk->tx_preparing),
					     ASMC_DRAIN_WAIT);
	if (lnk->keep_bufs)
		pr_warn("link %p: %d control sends still being prepared, buffers not freed\n",
			lnk, atomic_read(&lnk->tx_preparing));
	if (lnk->reg_qp)
		ib_modify_qp(lnk->reg_qp, &attr, IB_QP_STATE);
	if (lnk->qp) {
		ib_modify_qp(lnk->qp, &attr, IB_QP_STATE);
		left = wait_event_timeout(lnk->drained,
					  !atomic_read(&lnk->tx_inflight) &&
					  !atomic_read(&lnk->rx_posted),
					  ASMC_DRAIN_WAIT);
		if (!left)
			pr_debug("link %p: %d sends, %d receives not flushed\n",
				 lnk, atomic_read(&lnk->tx_inflight),
				 atomic_read(&lnk->rx_posted));
	}
out:
	return !lnk->keep_bufs && !atomic_read(&lnk->tx_inflight);
}

/* Free everything of the link (quiesced first, if it was not): the QP
 * and CQs go, after which no completion handler can run, then what sends
 * never completed held, the buffers and the device reference.
 */
void asmc_link_destroy(struct asmc_link *lnk)
{
	bool keep_bufs;

	asmc_link_quiesce(lnk);
	keep_bufs = lnk->keep_bufs;
	if (lnk->qp) {
		if (asmc_fault(ASMC_FAULT_SLOWQP))
			msleep(asmc_fault_slow_ms());
		ib_destroy_qp(lnk->qp);
		lnk->qp = NULL;
	}
	if (lnk->reg_qp)
		ib_destroy_qp(lnk->reg_qp);
	lnk->reg_qp = NULL;
	if (lnk->reg_cq)
		ib_free_cq(lnk->reg_cq);
	lnk->reg_cq = NULL;
	if (lnk->send_cq)
		ib_free_cq(lnk->send_cq);
	if (lnk->recv_cq)
		ib_free_cq(lnk->recv_cq);
	lnk->send_cq = NULL;
	lnk->recv_cq = NULL;
	/* nothing reads the send buffers for it any more */
	asmc_lgr_slot_release(lnk);
	/* handlers are gone; work they queued must not run any more */
	asmc_llc_link_stop(lnk);
	if (!keep_bufs) {
		asmc_wr_tx_unflushed(lnk);
		asmc_link_free_bufs(lnk);
		asmc_ibsel_put(&lnk->sel);
	}
	asmc_obj_destroyed(ASMC_OBJ_LINK, lnk);
}
