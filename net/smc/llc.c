// SPDX-License-Identifier: GPL-2.0
/* LLC flows of a link. Received messages are parsed in the completion
 * handler: responses wake the one local flow waiting for them, requests
 * are answered from a work item; every wait for the peer has a deadline.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include "clc_wire.h"
#include "debug.h"
#include "lgr.h"
#include "llc.h"
#include "llc_keepalive.h"
#include "netns.h"
#include "socket.h"
#include "trace.h"
#include "wr.h"

struct asmc_llc_rxq {
	struct list_head	node;
	unsigned long		queued;		/* jiffies */
	u8			msg[ASMC_WR_MSG_LEN];
	u8			*big;		/* a whole v2 ADD_LINK */
	u32			big_len;
};

#define ASMC_LLC_RXQ_MAX	512	/* requests queued per link: a burst of
					 * connections brings one per RMB
					 */

/* Whether the peer owes an answer to the LLC message in @buf: requests
 * do, but for DELETE_LINK, after which the link goes away.
 */
static bool asmc_llc_awaits(const u8 *buf)
{
	return !(buf[3] & ASMC_LLC_FLAG_RESP) &&
	       (buf[0] & 0x0f) != ASMC_LLC_DELETE_LINK;
}

/* Send one LLC message (not waiting for an answer). */
static int asmc_llc_send(struct asmc_link *lnk, struct asmc_llc_msg *msg,
			 bool wait)
{
	struct asmc_wr_tx *tx;
	u8 *buf;
	int rc, len;

	msg->version = asmc_llc_version(lnk->lgr);
	rc = asmc_wr_tx_get(lnk, &tx, &buf, wait);
	if (rc)
		return rc;
	len = asmc_llc_build(buf, ASMC_WR_MSG_LEN, msg);
	if (len < 0) {
		asmc_wr_tx_put(tx);
		return len;
	}
	tx->await = asmc_llc_awaits(buf);
	return asmc_wr_tx_send(tx, len);
}

/* Send a message longer than a slot (a v2 ADD_LINK with its rkeys). */
int asmc_llc_send_big(struct asmc_link *lnk, struct asmc_llc_msg *msg)
{
	struct asmc_wr_tx *tx;
	u8 *buf, *slot;
	int rc, len;

	msg->version = asmc_llc_version(lnk->lgr);
	len = asmc_llc_len(msg);
	if (len < 0)
		return len;
	if (len <= ASMC_WR_MSG_LEN)
		return asmc_llc_send(lnk, msg, true);
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rc = asmc_llc_build(buf, len, msg);
	if (rc >= 0)
		rc = asmc_wr_tx_get(lnk, &tx, &slot, true);
	if (!rc) {
		tx->await = asmc_llc_awaits(buf);
		rc = asmc_wr_tx_send_big(tx, slot, buf, len);
	}
	kfree(buf);
	return rc < 0 ? rc : 0;
}

/* Send raw bytes (an echo of a received request, already adjusted). */
static int asmc_llc_send_raw(struct asmc_link *lnk, const u8 *msg, bool wait)
{
	struct asmc_wr_tx *tx;
	u8 *buf;
	int rc;

	rc = asmc_wr_tx_get(lnk, &tx, &buf, wait);
	if (rc)
		return rc;
	memcpy(buf, msg, ASMC_WR_MSG_LEN);
	tx->await = asmc_llc_awaits(buf);
	return asmc_wr_tx_send(tx, ASMC_WR_MSG_LEN);
}

/* Wait for an LLC message of @type (a response if @resp), up to @timeo.
 * The caller holds lnk->llc_flow and armed @w before provoking it.
 */
static int asmc_llc_wait(struct asmc_link *lnk, struct asmc_llc_wait *w,
			 unsigned long timeo, struct asmc_llc_msg *out)
{
	long left;
	int rc;

	left = wait_event_timeout(lnk->llc_wq, READ_ONCE(w->done) ||
				  READ_ONCE(lnk->state) == ASMC_LNK_DOWN,
				  timeo);
	spin_lock_bh(&lnk->llc_lock);
	lnk->llc_waiter = NULL;
	spin_unlock_bh(&lnk->llc_lock);
	if (!w->done)
		return left ? -ENOLINK : -ETIMEDOUT;
	if (w->big)	/* the caller parses the whole message */
		return asmc_llc_parse(w->big, w->big_len, out);
	rc = asmc_llc_parse(w->msg, ASMC_WR_MSG_LEN, out);
	return rc;
}

static void asmc_llc_arm(struct asmc_link *lnk, struct asmc_llc_wait *w,
			 u8 type, bool resp)
{
	memset(w, 0, sizeof(*w));
	w->type = type;
	w->resp = resp;
	spin_lock_bh(&lnk->llc_lock);
	lnk->llc_waiter = w;
	spin_unlock_bh(&lnk->llc_lock);
}

/* Send @req and wait up to @timeo for the message the peer sends next: of
 * @type, a response or (@resp false) a request. One local flow at a time
 * per link. With @big, the whole answer is kept there (a v2 ADD_LINK with
 * rkeys @ans points into, for the caller to kfree). With @again (less
 * than @timeo), @req is sent once more if nothing came by then, and
 * *@resent (if given) tells whether it was.
 */
static int asmc_llc_send_wait(struct asmc_link *lnk, struct asmc_llc_msg *req,
			      u8 type, bool resp, struct asmc_llc_msg *ans,
			      unsigned long timeo, unsigned long again,
			      bool *resent, u8 **big)
{
	unsigned long start = jiffies;
	struct asmc_llc_wait w;
	int rc;

	if (resent)
		*resent = false;
	mutex_lock(&lnk->llc_flow);
	asmc_llc_arm(lnk, &w, type, resp);
	w.want_big = big;	/* read under llc_lock once a message came */
	rc = asmc_llc_send_big(lnk, req);
	if (!rc && again &&
	    (asmc_fault(ASMC_FAULT_DUPCL) ||
	     !wait_event_timeout(lnk->llc_wq, READ_ONCE(w.done) ||
				 READ_ONCE(lnk->state) == ASMC_LNK_DOWN,
				 again))) {
		/* a failed repeat leaves the first request to be answered */
		int again_rc = asmc_llc_send_big(lnk, req);

		pr_debug("link %p: LLC %#x unanswered after %u ms, sent again: %d\n",
			 lnk, req->type, jiffies_to_msecs(jiffies - start),
			 again_rc);
		timeo -= min(jiffies - start, timeo - 1);
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LLC_CONFIRM_AGAIN, 1);
		if (resent)
			*resent = true;
	}
	if (rc) {
		spin_lock_bh(&lnk->llc_lock);
		lnk->llc_waiter = NULL;
		spin_unlock_bh(&lnk->llc_lock);
	} else {
		rc = asmc_llc_wait(lnk, &w, timeo, ans);
	}
	mutex_unlock(&lnk->llc_flow);
	if (big)
		*big = w.big;
	/* whether the peer's device took the request (a send completed
	 * since) tells a lost request from a peer that did not answer
	 */
	pr_debug("link %p: LLC %#x exchange: %d after %u ms, sends %s since\n",
		 lnk, req->type, rc, jiffies_to_msecs(jiffies - start),
		 time_after_eq(READ_ONCE(lnk->last_ack), start) ?
		 "completed" : "not completed");
	return rc;
}

/* Request/response exchange, waiting up to @timeo. */
static int __asmc_llc_exchange(struct asmc_link *lnk, struct asmc_llc_msg *req,
			       struct asmc_llc_msg *resp, unsigned long timeo,
			       u8 **big)
{
	return asmc_llc_send_wait(lnk, req, req->type, true, resp, timeo, 0,
				  NULL, big);
}

static int asmc_llc_exchange(struct asmc_link *lnk, struct asmc_llc_msg *req,
			     struct asmc_llc_msg *resp)
{
	return __asmc_llc_exchange(lnk, req, resp, ASMC_LLC_WAIT, NULL);
}

static void asmc_llc_fill_confirm(struct asmc_link *lnk,
				  struct asmc_llc_msg *m, bool resp)
{
	struct asmc_llc_confirm_link *cl = &m->confirm_link;

	memset(m, 0, sizeof(*m));
	m->type = ASMC_LLC_CONFIRM_LINK;
	m->flags = ASMC_LLC_FLAG_NO_RMBE_EYEC | (resp ? ASMC_LLC_FLAG_RESP : 0);
	memcpy(cl->mac, lnk->sel.mac, ETH_ALEN);
	memcpy(cl->gid, lnk->sel.gid, 16);
	cl->qpn = lnk->qp->qp_num;
	cl->link_id = lnk->link_id;
	cl->link_uid = lnk->link_uid;
	cl->max_links = ASMC_LLC_MAX_LINKS;
}

/* Server, first link just confirmed, and no other RoCE port to offer a
 * second link on. A Linux 6.1 client waits 2 s for the server's ADD_LINK,
 * then 1 s for a CLC Decline, before it goes on with one link: 3 s added
 * to its first connection to us. An ADD_LINK without a QP MTU is one it
 * (and ours) rejects at once. Its answer is not awaited: a response
 * nobody waits for is dropped.
 */
void asmc_llc_offer_no_link(struct asmc_link *lnk)
{
	struct asmc_llc_msg m = {};

	m.type = ASMC_LLC_ADD_LINK;
	memcpy(m.add_link.mac, lnk->sel.mac, ETH_ALEN);
	memcpy(m.add_link.gid, lnk->sel.gid, 16);
	if (!asmc_llc_send(lnk, &m, true))
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LLC_ADD_LINK_NONE, 1);
}

/* Server: the answer to a client's REQUEST_ADD_LINK when no ADD_LINK
 * offer follows (its first 44 bytes, data zero): a Linux client keeps its
 * LLC flow open until the one or the other comes.
 */
void asmc_llc_req_add_link_none(struct asmc_link *lnk)
{
	struct asmc_llc_msg m = {};

	m.type = ASMC_LLC_REQ_ADD_LINK;
	m.flags = ASMC_LLC_FLAG_RESP;
	asmc_llc_send(lnk, &m, true);
}

/* Server, first link of a new group: QP is in RTS. Returns 0 with the
 * link active, a positive CLC decline code, or a negative error.
 */
int asmc_llc_server_confirm_link(struct asmc_link *lnk)
{
	struct asmc_llc_msg req, resp;
	bool resent;
	int rc;

	asmc_llc_fill_confirm(lnk, &req, false);
	rc = asmc_llc_send_wait(lnk, &req, req.type, true, &resp,
				ASMC_LLC_WAIT_FIRST_ANSWER,
				ASMC_LLC_WAIT_FIRST_AGAIN, &resent, NULL);
	if (rc == -ETIMEDOUT)
		return ASMC_DECL_TIMEOUT_CL;
	if (rc)
		return rc;
	if (!(resp.flags & ASMC_LLC_FLAG_NO_RMBE_EYEC))
		return ASMC_DECL_RMBE_EC;
	lnk->peer_link_uid = resp.confirm_link.link_uid;
	asmc_llc_link_active(lnk);
	/* a second link, or the offer of none (after a repeat later) */
	asmc_lgr_want_link(lnk->lgr, resent ? ASMC_LINK_REPEAT_DELAY : 0);
	return 0;
}

/* Server, a link added to a group: CONFIRM_LINK on the new link, whose
 * QP is in RTS and every RMB registered. 0 with the link active.
 */
int asmc_llc_server_confirm_new(struct asmc_link *lnk)
{
	struct asmc_llc_msg req, resp;
	int rc;

	asmc_llc_fill_confirm(lnk, &req, false);
	rc = asmc_llc_exchange(lnk, &req, &resp);
	if (rc)
		return rc;
	if (!(resp.flags & ASMC_LLC_FLAG_NO_RMBE_EYEC) ||
	    resp.confirm_link.link_id != lnk->link_id)
		return -EPROTO;
	lnk->peer_link_uid = resp.confirm_link.link_uid;
	asmc_llc_link_active(lnk);
	return 0;
}

/* Server: the ADD_LINK request @req on @via and the client's answer, in
 * @resp; its bytes (with the rkeys @resp points into) in *@big, for the
 * caller to kfree.
 */
int asmc_llc_add_link_exchange(struct asmc_link *via, struct asmc_llc_msg *req,
			       struct asmc_llc_msg *resp, u8 **big)
{
	return __asmc_llc_exchange(via, req, resp, ASMC_LLC_WAIT_ADD, big);
}

/* An ADD_LINK_CONT @in received for the new link @link_id: its entries
 * to @learn, in *@todo how many the peer still has to send. After the
 * @first, a peer's count may not grow: the exchange ends.
 */
static int asmc_llc_cont_take(const struct asmc_llc_msg *in, u8 link_id,
			      void (*learn)(void *ctx,
					    const struct asmc_llc_rkey *e),
			      void *ctx, u8 *todo, bool first)
{
	const struct asmc_llc_add_link_cont *c = &in->add_link_cont;
	u8 i, got = min_t(u8, c->n_rkeys, ARRAY_SIZE(c->rkeys));

	if (c->link_id != link_id || (!first && c->n_rkeys > *todo))
		return -EPROTO;
	for (i = 0; i < got; i++)
		learn(ctx, &c->rkeys[i]);
	*todo = c->n_rkeys - got;
	return 0;
}

/* v1, a new link @link_id: the rkeys of both sides' RMBs on it, in
 * ADD_LINK_CONT messages on @via (two entries each, and the count still
 * to send counting these) that alternate, the server's first, until
 * neither side has more. The client's ADD_LINK answer @first goes out
 * once the wait for the server's first one is armed. @learn takes each
 * entry received (its rkey on @via, its rkey and address on the new
 * link). Each message is waited for 2 s; as the peer's count only falls,
 * at most 129 rounds.
 */
int asmc_llc_add_link_cont(struct asmc_link *via, u8 link_id,
			   struct asmc_llc_msg *first,
			   const struct asmc_llc_rkey *rk, u16 n,
			   void (*learn)(void *ctx, const struct asmc_llc_rkey *e),
			   void *ctx)
{
	bool server = via->lgr->role == ASMC_ROLE_SERVER;
	u8 left = min_t(u16, n, U8_MAX), todo = 0, i;
	struct asmc_llc_add_link_cont *c;
	struct asmc_llc_msg m, in;
	bool initial;
	int rc;

	if (!server) {
		rc = asmc_llc_send_wait(via, first, ASMC_LLC_ADD_LINK_CONT,
					false, &in, ASMC_LLC_WAIT, 0, NULL, NULL);
		if (!rc)
			rc = asmc_llc_cont_take(&in, link_id, learn, ctx, &todo,
						true);
		if (rc)
			return rc;
	}
	for (initial = server;; initial = false) {
		memset(&m, 0, sizeof(m));
		m.type = ASMC_LLC_ADD_LINK_CONT;
		m.flags = server ? 0 : ASMC_LLC_FLAG_RESP;
		c = &m.add_link_cont;
		c->link_id = link_id;
		c->n_rkeys = left;
		for (i = 0; i < ARRAY_SIZE(c->rkeys) && left; i++, left--)
			c->rkeys[i] = *rk++;
		if (!server && !left && !todo)
			return asmc_llc_send_big(via, &m);	/* the last */
		rc = asmc_llc_send_wait(via, &m, ASMC_LLC_ADD_LINK_CONT,
					server, &in, ASMC_LLC_WAIT, 0, NULL, NULL);
		if (!rc)
			rc = asmc_llc_cont_take(&in, link_id, learn, ctx, &todo,
						initial);
		if (rc)
			return rc;
		if (server && !left && !todo)
			return 0;
	}
}

/* Client, first link: wait for the server's CONFIRM_LINK, move the QP to
 * RTS, register our RMB (the server may write right after our answer)
 * and answer. Also for an added link (@rmb NULL: the group's RMBs are
 * registered on it already). Returns 0, a positive CLC decline code, or
 * -errno.
 */
int asmc_llc_client_confirm_link(struct asmc_link *lnk, struct asmc_buf *rmb)
{
	unsigned long start = jiffies;
	struct asmc_llc_msg req, resp;
	struct asmc_llc_wait w;
	int rc;

	mutex_lock(&lnk->llc_flow);
	if (asmc_fault(ASMC_FAULT_LATECL))
		msleep(ASMC_FAULT_LATECL_MS);
	/* armed first, then the early one looked for, both under llc_lock:
	 * checked before arming, a CONFIRM_LINK arriving in between was
	 * kept as early and never seen (both sides then timed out)
	 */
	asmc_llc_arm(lnk, &w, ASMC_LLC_CONFIRM_LINK, false);
	spin_lock_bh(&lnk->llc_lock);
	if (lnk->early_confirm) {
		memcpy(w.msg, lnk->early_msg, ASMC_WR_MSG_LEN);
		w.done = true;
		lnk->early_confirm = false;
	}
	spin_unlock_bh(&lnk->llc_lock);
	rc = asmc_llc_wait(lnk, &w, rmb ? ASMC_LLC_WAIT_FIRST : ASMC_LLC_WAIT_ADD,
			   &req);
	mutex_unlock(&lnk->llc_flow);
	pr_debug("link %p: CONFIRM_LINK request awaited: %d after %u ms\n",
		 lnk, rc, jiffies_to_msecs(jiffies - start));
	if (rc == -ETIMEDOUT)
		return ASMC_DECL_TIMEOUT_CL;
	if (rc)
		return rc;
	if (!(req.flags & ASMC_LLC_FLAG_NO_RMBE_EYEC))
		return ASMC_DECL_RMBE_EC;
	if (!rmb && req.confirm_link.link_id != lnk->link_id)
		return -EPROTO;		/* an added link has its ID already */
	lnk->link_id = req.confirm_link.link_id;
	lnk->peer_link_uid = req.confirm_link.link_uid;
	rc = asmc_link_rts(lnk);
	if (rc)
		return ASMC_DECL_ERR_RDYLNK;
	/* an added link: every RMB of the group was registered already */
	rc = rmb ? asmc_buf_register(rmb, lnk) : 0;
	if (rc)
		return ASMC_DECL_ERR_REGBUF;
	asmc_llc_fill_confirm(lnk, &resp, true);
	rc = asmc_llc_send(lnk, &resp, true);
	if (rc)
		return rc;
	if (rmb && asmc_fault(ASMC_FAULT_LATEACT))
		msleep(asmc_fault_lateact_ms());
	asmc_llc_link_active(lnk);
	return 0;
}

/* The peer may forget an idle RMB's rkey (to make room for a new one).
 * The answer is not awaited: the peer handles requests in order, so a
 * later CONFIRM_RKEY of the same RMB comes after.
 */
static void asmc_llc_delete_rkey(struct asmc_link *lnk, struct asmc_buf *rmb)
{
	struct asmc_llc_msg req = {};

	struct ib_mr *mr = rmb->map[lnk->slot].mr;

	if (READ_ONCE(lnk->state) != ASMC_LNK_ACTIVE || !mr)
		return;
	req.type = ASMC_LLC_DELETE_RKEY;
	req.delete_rkey.n_rkeys = 1;
	req.delete_rkey.rkeys[0] = mr->rkey;
	if (!asmc_llc_send(lnk, &req, true))
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LLC_DELETE_RKEY, 1);
}

/* One CONFIRM_RKEY round trip for @rmb. */
static int asmc_llc_confirm_rkey_req(struct asmc_link *lnk,
				     struct asmc_buf *rmb)
{
	struct asmc_llc_msg req = {}, resp;
	struct asmc_lgr *lgr = lnk->lgr;
	struct asmc_llc_wait w = {};
	struct asmc_llc_rkey_ref *e;
	struct asmc_link *o;
	struct ib_mr *mr;
	long left;
	int rc, i;

	mr = rmb->map[lnk->slot].mr;
	if (!mr)
		return -ENOLINK;
	req.type = ASMC_LLC_CONFIRM_RKEY;
	req.confirm_rkey.rkey = mr->rkey;
	req.confirm_rkey.addr = mr->iova;
	/* and the RMB on the group's other links (rkey_rwsem held: the
	 * links stay)
	 */
	mutex_lock(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		o = lgr->links[i];
		if (!o || o == lnk || READ_ONCE(o->state) != ASMC_LNK_ACTIVE ||
		    !rmb->map[i].regd ||
		    req.confirm_rkey.n_other >= ASMC_LLC_CONF_RKEY_MAX_OTHER)
			continue;
		e = &req.confirm_rkey.other[req.confirm_rkey.n_other++];
		e->link_id = o->link_id;
		e->rkey = rmb->map[i].mr->rkey;
		e->addr = rmb->map[i].mr->iova;
	}
	mutex_unlock(&lgr->mutex);
	/* no llc_flow: other connections' CONFIRM_RKEYs may be under way */
	w.type = ASMC_LLC_CONFIRM_RKEY;
	w.resp = true;
	w.rkey = req.confirm_rkey.rkey;
	spin_lock_bh(&lnk->llc_lock);
	list_add_tail(&w.node, &lnk->rkey_waiters);
	spin_unlock_bh(&lnk->llc_lock);
	rc = asmc_llc_send(lnk, &req, true);
	if (!rc) {
		left = wait_event_timeout(lnk->llc_wq, READ_ONCE(w.done) ||
					  READ_ONCE(lnk->state) ==
					  ASMC_LNK_DOWN, ASMC_LLC_RKEY_WAIT);
		rc = w.done ? 0 : left ? -ENOLINK : -ETIMEDOUT;
		pr_debug("link %p: CONFIRM_RKEY %#x: %d after %u ms\n", lnk,
			 w.rkey, rc,
			 jiffies_to_msecs(ASMC_LLC_RKEY_WAIT - left));
	}
	spin_lock_bh(&lnk->llc_lock);
	list_del(&w.node);
	spin_unlock_bh(&lnk->llc_lock);
	if (!rc)
		rc = asmc_llc_parse(w.msg, ASMC_WR_MSG_LEN, &resp);
	if (rc)
		return rc;
	return resp.flags & ASMC_LLC_FLAG_RKEY_NEG ? -EIO : 0;
}

/* The peer must know @rmb's rkey (on a group that is already up) before a
 * CLC message names it. An RMB reused from the pool is still known to it:
 * nothing to send. A new one gets its CONFIRM_RKEY, preceded by the
 * DELETE_RKEY of an idle one when the peer's table would overflow.
 */
int asmc_llc_confirm_rkey(struct asmc_link *lnk, struct asmc_buf *rmb)
{
	struct asmc_lgr *lgr = lnk->lgr;
	struct asmc_buf *idle;
	int rc;

	/* no link comes or goes meanwhile: the RMB is registered on each,
	 * and the peer learns its rkey on each (or gets them with the
	 * ADD_LINK that follows)
	 */
	down_read(&lgr->rkey_rwsem);
	rc = asmc_buf_register_all(lgr, rmb);
	if (rc || rmb->rkey_known)
		goto out;
	idle = asmc_buf_rkey_known(lgr, rmb);
	if (idle) {
		asmc_llc_delete_rkey(lnk, idle);
		asmc_buf_put(lgr, idle);
	}
	asmc_stats_wire(lgr->net, ASMC_STAT_LLC_CONFIRM_RKEY, 1);
	rc = asmc_llc_confirm_rkey_req(lnk, rmb);
	if (rc)
		asmc_buf_rkey_forget(lgr, rmb);
out:
	up_read(&lgr->rkey_rwsem);
	return rc;
}

/* The link @link_id is gone (it went down on our side): the peer takes
 * it down too. Sent on a link that works; no answer is awaited.
 */
void asmc_llc_send_delete_link(struct asmc_link *lnk, u8 link_id, u32 reason)
{
	struct asmc_llc_msg m = {};

	if (READ_ONCE(lnk->state) != ASMC_LNK_ACTIVE)
		return;
	m.type = ASMC_LLC_DELETE_LINK;
	m.flags = ASMC_LLC_FLAG_DEL_LINK_ORDERLY;
	m.delete_link.link_id = link_id;
	m.delete_link.reason = reason;
	asmc_llc_send(lnk, &m, true);
}

/* Orderly end of the whole group (idle expiry). No answer is awaited. */
void asmc_llc_send_delete_all(struct asmc_link *lnk, u32 reason)
{
	struct asmc_llc_msg m = {};

	if (READ_ONCE(lnk->state) != ASMC_LNK_ACTIVE)
		return;
	m.type = ASMC_LLC_DELETE_LINK;
	m.flags = ASMC_LLC_FLAG_DEL_LINK_ALL | ASMC_LLC_FLAG_DEL_LINK_ORDERLY;
	m.delete_link.reason = reason;
	asmc_llc_send(lnk, &m, true);
}

/* ---- requests from the peer (process context) ------------------------- */

/* The first 44 bytes of @msg echoed back as a response; in v2 groups the
 * 16-bit length stays as received (44).
 */
static void asmc_llc_echo(struct asmc_link *lnk, u8 *msg, u8 add_flags)
{
	msg[3] |= ASMC_LLC_FLAG_RESP | add_flags;
	asmc_llc_send_raw(lnk, msg, true);
}

/* The peer's new RMB: its rkey on @lnk and on the other links it names
 * go into the group's table (for a connection that moves to another
 * link). False when the table is full.
 */
static bool asmc_llc_rkey_learn(struct asmc_link *lnk,
				const struct asmc_llc_confirm_rkey *c)
{
	struct asmc_lgr *lgr = lnk->lgr;
	int idx, i, slot;

	idx = asmc_rtok_add(lgr, lnk->slot, c->rkey, c->addr);
	if (idx < 0)
		return false;
	for (i = 0; i < c->n_other; i++) {
		slot = asmc_lgr_slot_of(lgr, c->other[i].link_id);
		if (slot >= 0)
			asmc_rtok_set(lgr, idx, slot, c->other[i].rkey,
				      c->other[i].addr);
	}
	return true;
}

/* The answer to a CONFIRM_RKEY or DELETE_RKEY request @req on @lnk, into
 * @out; the group's table of the peer's RMBs follows the request.
 */
static int asmc_llc_rkey_reply(struct asmc_link *lnk, const u8 *req, u8 *out)
{
	struct asmc_llc_msg m;
	u8 unknown = 0;
	int i;

	if (asmc_llc_parse(req, ASMC_WR_MSG_LEN, &m))
		return -EPROTO;
	memcpy(out, req, ASMC_WR_MSG_LEN);
	switch (m.type) {
	case ASMC_LLC_CONFIRM_RKEY:
		if (m.confirm_rkey.n_other > ASMC_LLC_CONF_RKEY_MAX_OTHER ||
		    !asmc_llc_rkey_learn(lnk, &m.confirm_rkey))
			out[3] |= ASMC_LLC_FLAG_RKEY_NEG |
				  ASMC_LLC_FLAG_RKEY_RETRY;
		break;
	case ASMC_LLC_DELETE_RKEY:
		for (i = 0; i < m.delete_rkey.n_rkeys; i++) {
			if (asmc_rtok_del(lnk->lgr, lnk->slot,
					  m.delete_rkey.rkeys[i]))
				continue;
			/* v1: mask of the unknown ones; v2: their number */
			unknown |= 0x80 >> i;
		}
		if (m.version == ASMC_LLC_V2) {
			memset(out + 4, 0, ASMC_WR_MSG_LEN - 4);
			out[4] = m.delete_rkey.n_rkeys;
			out[5] = hweight8(unknown);
		} else {
			out[5] = unknown;
		}
		if (unknown)
			out[3] |= ASMC_LLC_FLAG_RKEY_NEG;
		break;
	default:
		return -EINVAL;
	}
	out[3] |= ASMC_LLC_FLAG_RESP;
	return 0;
}

/* The rkey requests need no state and no sleep: answer them right in the
 * completion handler when a send slot is free (a burst of new connections
 * then waits for no worker). False: queue them as any other request.
 */
static bool asmc_llc_rkey_answer_now(struct asmc_link *lnk, const u8 *buf)
{
	u8 type = buf[0] & 0x0f;
	struct asmc_wr_tx *tx;
	u8 *out;

	if (type != ASMC_LLC_CONFIRM_RKEY && type != ASMC_LLC_DELETE_RKEY)
		return false;
	if (asmc_wr_tx_get(lnk, &tx, &out, false))
		return false;
	if (asmc_llc_rkey_reply(lnk, buf, out)) {
		asmc_wr_tx_put(tx);
		return false;
	}
	asmc_wr_tx_send(tx, ASMC_WR_MSG_LEN);
	return true;
}

/* The peer takes a link down (or all of them: the group ends). */
static void asmc_llc_delete_link_rx(struct asmc_link *lnk,
				    struct asmc_llc_msg *m, u8 *raw)
{
	struct asmc_lgr *lgr = lnk->lgr;
	struct asmc_link *gone;

	pr_debug("link %p: peer deletes link %u%s, reason 0x%08x\n", lnk,
		 m->delete_link.link_id,
		 m->flags & ASMC_LLC_FLAG_DEL_LINK_ALL ? " (all)" : "",
		 m->delete_link.reason);
	if (m->flags & ASMC_LLC_FLAG_DEL_LINK_ALL) {
		asmc_lgr_links_down(lgr);
		return;
	}
	gone = asmc_lgr_link_by_id(lgr, m->delete_link.link_id);
	if (!gone)
		put_unaligned_be32(ASMC_LLC_DEL_NOLNK, raw + 5);
	asmc_llc_echo(lnk, raw, 0);
	if (gone) {
		gone->peer_deleted = true;
		asmc_link_error(gone);
	}
}

/* The client asks for a link to its port of @gid (NULL: none named);
 * @answer: it waits for our offer or our REQUEST_ADD_LINK echo.
 */
static void asmc_llc_link_asked(struct asmc_link *lnk, const u8 *gid,
				bool answer)
{
	asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LINK_PEER_ASKED, 1);
	asmc_lgr_link_asked(lnk->lgr, gid, answer);
}

/* The peer's ADD_LINK request (whole, @big when it came with rkeys): a
 * client takes the link when it has a port that reaches the offered one,
 * else it rejects, no alternate path. A server takes a v1 client's
 * invite as the client's wish for a link (the offer, if any, is its
 * answer) and rejects anything else.
 */
static void asmc_llc_add_link_rx(struct asmc_link *lnk, u8 *raw,
				 const u8 *big, u32 big_len)
{
	bool client = lnk->lgr->role == ASMC_ROLE_CLIENT;
	struct asmc_llc_msg m;
	int rc;

	rc = asmc_llc_parse(big ? : raw, big ? big_len : ASMC_WR_MSG_LEN, &m);
	if (!rc && !client && asmc_llc_is_invite(&m)) {
		asmc_llc_link_asked(lnk, m.add_link.gid, false);
		return;
	}
	if (!rc && client) {
		rc = asmc_link_client_add(lnk, &m);
		if (!rc)
			return;
	}
	if (client)
		pr_debug("lgr %u: ADD_LINK of the peer rejected: %d\n",
			 lnk->lgr->id, rc);
	else
		pr_debug("lgr %u: ADD_LINK of the peer rejected: %s\n",
			 lnk->lgr->id, rc ? "malformed" : "no invite");
	if ((raw[0] >> 4) == ASMC_LLC_V1)
		raw[2] = (raw[2] & 0xf0) | ASMC_LLC_REJ_NO_ALT_PATH;
	asmc_llc_echo(lnk, raw, ASMC_LLC_FLAG_ADD_LNK_REJ);
	asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LLC_ADD_LINK_REJ, 1);
}

static void asmc_llc_handle(struct asmc_link *lnk, struct asmc_llc_rxq *q)
{
	u8 reply[ASMC_WR_MSG_LEN], *raw = q->msg;
	struct asmc_llc_msg m, ral;

	if (asmc_llc_parse(raw, ASMC_WR_MSG_LEN, &m) &&
	    (!q->big || asmc_llc_parse(q->big, q->big_len, &m))) {
		pr_debug("link %p: malformed LLC 0x%02x dropped\n", lnk, raw[0]);
		asmc_stats_wire(lnk->lgr->net, ASMC_STAT_LLC_RX_BAD, 1);
		return;
	}
	switch (m.type) {
	case ASMC_LLC_CONFIRM_RKEY:
	case ASMC_LLC_DELETE_RKEY:
		if (!asmc_llc_rkey_reply(lnk, raw, reply))
			asmc_llc_send_raw(lnk, reply, true);
		break;
	case ASMC_LLC_ADD_LINK:
		asmc_llc_add_link_rx(lnk, raw, q->big, q->big_len);
		break;
	case ASMC_LLC_REQ_ADD_LINK:
		if (lnk->lgr->role != ASMC_ROLE_SERVER) {
			pr_debug("link %p: a server asked us for a link\n", lnk);
			asmc_llc_req_add_link_none(lnk);
			break;
		}
		/* a client with another port asks: the link work offers a
		 * link if the group takes one, on a port that reaches its
		 * second GID if we have one, else it echoes the request
		 */
		if (q->big && !asmc_llc_parse(q->big, q->big_len, &ral) &&
		    ral.req_add_link.n_gids >= 2)
			asmc_llc_link_asked(lnk, ral.req_add_link.gids + 16,
					    true);
		else
			asmc_llc_link_asked(lnk, NULL, true);
		break;
	case ASMC_LLC_DELETE_LINK:
		asmc_llc_delete_link_rx(lnk, &m, raw);
		break;
	default:
		/* CONFIRM_LINK outside setup, ADD_LINK_CONT, ...: ignored */
		break;
	}
}

static void asmc_llc_rx_work(struct work_struct *work)
{
	struct asmc_link *lnk = container_of(work, struct asmc_link,
					     llc_rx_work);
	struct asmc_llc_rxq *q;

	for (;;) {
		spin_lock_bh(&lnk->llc_lock);
		q = list_first_entry_or_null(&lnk->llc_rx_q,
					     struct asmc_llc_rxq, node);
		if (q) {
			list_del(&q->node);
			lnk->llc_rx_qlen--;
		}
		lnk->llc_rx_busy = !!q;
		spin_unlock_bh(&lnk->llc_lock);
		if (!q)
			break;
		if (READ_ONCE(lnk->state) != ASMC_LNK_DOWN)
			asmc_llc_handle(lnk, q);
		pr_debug("link %p: LLC request %#x answered after %u ms\n", lnk,
			 q->msg[0], jiffies_to_msecs(jiffies - q->queued));
		kfree(q->big);
		kfree(q);
	}
}

/* TEST_LINK requests are answered here, in the completion handler. */
static void asmc_llc_test_link_rx(struct asmc_link *lnk, const u8 *buf,
				  bool resp)
{
	u8 echo[ASMC_WR_MSG_LEN];

	if (resp)
		return;		/* its arrival (last_rx) is the answer */
	memcpy(echo, buf, ASMC_WR_MSG_LEN);
	echo[3] |= ASMC_LLC_FLAG_RESP;
	asmc_llc_send_raw(lnk, echo, false);
}

/* A CONFIRM_RKEY answer: hand it to the flow that asked for its rkey.
 * lnk->llc_lock held.
 */
static bool asmc_llc_rkey_answer(struct asmc_link *lnk, const u8 *buf)
{
	struct asmc_llc_wait *w;
	struct asmc_llc_msg m;

	if (asmc_llc_parse(buf, ASMC_WR_MSG_LEN, &m))
		return false;
	list_for_each_entry(w, &lnk->rkey_waiters, node) {
		if (w->done || w->rkey != m.confirm_rkey.rkey)
			continue;
		memcpy(w->msg, buf, ASMC_WR_MSG_LEN);
		WRITE_ONCE(w->done, true);
		return true;
	}
	return false;
}

/* A v2 ADD_LINK of @len bytes, whole: its first 44 bytes from the
 * receive slot @first, the rest from the link's spill buffer (softirq).
 * NULL for any other message, or without memory.
 */
static u8 *asmc_llc_whole(struct asmc_link *lnk, const u8 *first, u32 len)
{
	u8 *big;

	if (((first[0] & 0x0f) != ASMC_LLC_ADD_LINK &&
	     (first[0] & 0x0f) != ASMC_LLC_REQ_ADD_LINK) ||
	    (first[0] >> 4) != ASMC_LLC_V2 || len <= ASMC_WR_MSG_LEN ||
	    len > ASMC_LLC_MAX_LEN || !lnk->rx_spill)
		return NULL;
	big = kmalloc(len, GFP_ATOMIC);
	if (!big)
		return NULL;
	memcpy(big, first, ASMC_WR_MSG_LEN);
	memcpy(big + ASMC_WR_MSG_LEN, lnk->rx_spill, len - ASMC_WR_MSG_LEN);
	return big;
}

/* Completion handler (softirq): the first 44 bytes of an LLC message. */
void asmc_llc_rx(struct asmc_link *lnk, const u8 *buf, u32 len)
{
	const u8 *first = buf;
	u8 msg[ASMC_WR_MSG_LEN];
	struct asmc_llc_wait *w;
	struct asmc_llc_rxq *q;
	bool resp;

	/* large v2 messages (ADD_LINK, REQUEST_ADD_LINK) are handled by their
	 * first 44 bytes only: from here on they claim to be 44 bytes long
	 */
	memcpy(msg, buf, ASMC_WR_MSG_LEN);
	if ((msg[0] >> 4) == ASMC_LLC_V2 && len > ASMC_WR_MSG_LEN) {
		msg[1] = ASMC_WR_MSG_LEN;
		msg[2] = 0;
	}
	buf = msg;
	resp = buf[3] & ASMC_LLC_FLAG_RESP;
	if ((buf[0] & 0x0f) == ASMC_LLC_TEST_LINK) {
		asmc_llc_test_link_rx(lnk, buf, resp);
		return;
	}

	if (!resp && (buf[0] & 0x0f) == ASMC_LLC_CONFIRM_LINK &&
	    READ_ONCE(lnk->state) == ASMC_LNK_UNUSED &&
	    asmc_fault(ASMC_FAULT_LOSTCL))
		return;

	spin_lock(&lnk->llc_lock);
	w = lnk->llc_waiter;
	if (w && !w->done && w->type == (buf[0] & 0x0f) && w->resp == resp) {
		memcpy(w->msg, buf, ASMC_WR_MSG_LEN);
		if (w->want_big) {
			w->big = asmc_llc_whole(lnk, first, len);
			w->big_len = len;
		}
		WRITE_ONCE(w->done, true);
		spin_unlock(&lnk->llc_lock);
		wake_up(&lnk->llc_wq);
		return;
	}
	if (resp && (buf[0] & 0x0f) == ASMC_LLC_CONFIRM_RKEY &&
	    asmc_llc_rkey_answer(lnk, buf)) {
		spin_unlock(&lnk->llc_lock);
		wake_up_all(&lnk->llc_wq);
		return;
	}
	if (!resp && (buf[0] & 0x0f) == ASMC_LLC_CONFIRM_LINK &&
	    lnk->state == ASMC_LNK_UNUSED) {
		/* the client was not waiting yet: keep it for the flow */
		memcpy(lnk->early_msg, buf, ASMC_WR_MSG_LEN);
		lnk->early_confirm = true;
		spin_unlock(&lnk->llc_lock);
		return;
	}
	if (resp || lnk->llc_rx_qlen >= ASMC_LLC_RXQ_MAX ||
	    asmc_fault(ASMC_FAULT_LLC)) {
		/* responses nobody waits for are dropped (and, injected, a
		 * request as if it had been lost)
		 */
		spin_unlock(&lnk->llc_lock);
		return;
	}
	/* in order: only when no earlier request waits in the queue */
	if (!lnk->llc_rx_qlen && !lnk->llc_rx_busy &&
	    asmc_llc_rkey_answer_now(lnk, buf)) {
		spin_unlock(&lnk->llc_lock);
		return;
	}
	q = kmalloc(sizeof(*q), GFP_ATOMIC);
	if (q) {
		memcpy(q->msg, buf, ASMC_WR_MSG_LEN);
		q->big = asmc_llc_whole(lnk, first, len);
		q->big_len = len;
		q->queued = jiffies;
		list_add_tail(&q->node, &lnk->llc_rx_q);
		lnk->llc_rx_qlen++;
		queue_work(asmc_llc_wq, &lnk->llc_rx_work);
	}
	spin_unlock(&lnk->llc_lock);
}

/* ---- keepalive --------------------------------------------------------- */

/* Post the pending TEST_LINK; false while every send slot is in flight
 * (those sends' completions then tell whether the peer is alive).
 */
static bool asmc_llc_testlink_post(struct asmc_link *lnk)
{
	struct asmc_llc_msg m = { .type = ASMC_LLC_TEST_LINK };
	unsigned long now = jiffies;

	if (asmc_llc_send(lnk, &m, false))
		return false;
	lnk->test_sent = now;	/* an answer comes after this */
	lnk->test_posted = true;
	return true;
}

/* Keepalive: a TEST_LINK after testlink_time without a receive, or after
 * ASMC_LINK_PROBE when a send that wants an answer got none or sends in
 * flight saw no completion (on rxe, the only way to notice a dead peer
 * while data is outstanding); the link goes down when neither a message
 * nor a completion follows it (asmc_ka_decide()). Runs at least every
 * ASMC_LINK_PROBE while the link is active.
 */
static void asmc_llc_testlink_work(struct work_struct *work)
{
	struct asmc_link *lnk = container_of(to_delayed_work(work),
					     struct asmc_link, testlink_work);
	const struct asmc_ka_times t = {
		.period = lnk->testlink_time,
		.probe = min_t(unsigned long, lnk->testlink_time,
			       ASMC_LINK_PROBE),
		.wait = ASMC_TESTLINK_WAIT,
		.retry = HZ / 4,
	};
	struct net *net = lnk->lgr->net;
	unsigned long now = jiffies, delay;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	if (READ_ONCE(lnk->state) != ASMC_LNK_ACTIVE)
		return;
	k.last_rx = READ_ONCE(lnk->last_rx);
	k.await_since = READ_ONCE(lnk->await_since);
	k.tx_start = READ_ONCE(lnk->tx_start);
	k.last_ack = READ_ONCE(lnk->last_ack);
	/* a post racing with this read may look stalled: one TEST_LINK
	 * too many at most
	 */
	k.inflight = atomic_read(&lnk->tx_inflight) > 0;
	k.blocked = atomic_read(&lnk->tx_blocked_conns) > 0;
	k.test_sent = lnk->test_sent;
	k.test_pending = lnk->test_pending;
	k.test_posted = lnk->test_posted;

	v = asmc_ka_decide(&k, &t, now, &delay);
	switch (v) {
	case ASMC_KA_DOWN:
		asmc_link_warn(lnk, "no answer to TEST_LINK within %u ms, link down\n",
			       jiffies_to_msecs(ASMC_TESTLINK_WAIT));
		asmc_stats_wire(net, ASMC_STAT_LLC_TEST_LINK_LOST, 1);
		asmc_link_error(lnk);
		return;
	case ASMC_KA_WAIT:
		break;
	case ASMC_KA_REPOST:
		if (!asmc_llc_testlink_post(lnk))
			delay = asmc_ka_busy_delay(&t, delay);
		break;
	case ASMC_KA_QUIET:
		lnk->test_pending = false;
		break;
	case ASMC_KA_TEST_AWAIT:
	case ASMC_KA_TEST_STALL:
	case ASMC_KA_TEST_IDLE:
		if (v == ASMC_KA_TEST_AWAIT)
			pr_debug("link %p: nothing back %u ms after a send, TEST_LINK\n",
				 lnk, jiffies_to_msecs(now - k.await_since));
		else if (v == ASMC_KA_TEST_STALL)
			pr_debug("link %p: sends in flight, no completion, TEST_LINK\n",
				 lnk);
		if (v != ASMC_KA_TEST_IDLE)
			asmc_stats_wire(net, ASMC_STAT_LLC_TEST_LINK_EARLY, 1);
		asmc_stats_wire(net, ASMC_STAT_LLC_TEST_LINK, 1);
		lnk->test_sent = now;
		lnk->test_posted = false;
		lnk->test_pending = true;
		if (!asmc_llc_testlink_post(lnk))
			delay = asmc_ka_busy_delay(&t, delay);
		break;
	}
	queue_delayed_work(asmc_wq, &lnk->testlink_work, delay);
}

void asmc_llc_link_init(struct asmc_link *lnk)
{
	INIT_WORK(&lnk->llc_rx_work, asmc_llc_rx_work);
	INIT_DELAYED_WORK(&lnk->testlink_work, asmc_llc_testlink_work);
	lnk->last_rx = jiffies;
	lnk->last_ack = jiffies;
	lnk->tx_start = jiffies;
}

void asmc_llc_link_active(struct asmc_link *lnk)
{
	struct asmc_net *sn = asmc_net(lnk->lgr->net);

	/* net.smc.smcr_testlink_time (seconds), as the link comes up */
	lnk->testlink_time = READ_ONCE(sn->sysctl.smcr_testlink_time) * HZ;
	WRITE_ONCE(lnk->last_rx, jiffies);
	WRITE_ONCE(lnk->await_since, 0);
	lnk->activated = true;
	WRITE_ONCE(lnk->state, ASMC_LNK_ACTIVE);
	/* an offer refused meanwhile (asmc_link_client_add): ask for it */
	smp_mb();	/* the state, then the bit */
	if (test_and_clear_bit(0, &lnk->lgr->ask_when_active))
		asmc_lgr_link_soon(lnk->lgr);
	if (lnk->testlink_time)
		queue_delayed_work(asmc_wq, &lnk->testlink_work,
				   min_t(unsigned long, lnk->testlink_time,
					 ASMC_LINK_PROBE));
	pr_debug("link %p active: QP %u <-> %u\n", lnk, lnk->qp->qp_num,
		 lnk->peer_qpn);
	trace_smcr_link_up(lnk);
}

/* No completion handler runs any more: stop the work and drop requests. */
void asmc_llc_link_stop(struct asmc_link *lnk)
{
	struct asmc_llc_rxq *q, *tmp;

	if (!lnk->llc_rx_work.func)
		return;		/* never initialised */
	cancel_delayed_work_sync(&lnk->testlink_work);
	/* Only the completion handler queues the request work: idle now, it
	 * stays idle, and is not waited for. A client's failed ADD_LINK
	 * drops its new link from another link's request work, which
	 * lockdep (one class for every link's work) takes for a work
	 * waiting for itself.
	 */
	if (work_busy(&lnk->llc_rx_work))
		cancel_work_sync(&lnk->llc_rx_work);
	list_for_each_entry_safe(q, tmp, &lnk->llc_rx_q, node) {
		list_del(&q->node);
		kfree(q->big);
		kfree(q);
	}
	lnk->llc_rx_qlen = 0;
}
