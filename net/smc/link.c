// SPDX-License-Identifier: GPL-2.0
/* Link redundancy: a link group gets a second link on another RoCE port.
 * The server offers it (ADD_LINK with the rkeys of its RMBs on the new
 * link, SMC-R v2), the client takes it when one of its ports reaches the
 * offered one, and the server confirms it on the new link. When a link
 * goes down, its connections move to the other one (failover), with the
 * peer's RMBs found in the group's table of rkeys.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include "close.h"
#include "lgr.h"
#include "link.h"
#include "llc.h"
#include "socket.h"
#include "stats.h"
#include "tx.h"
#include "wr.h"

/* ---- the peer's RMBs ---------------------------------------------------- */

static int asmc_rtok_find_locked(struct asmc_lgr *lgr, int slot, u32 rkey)
{
	int i;

	lockdep_assert_held(&lgr->rtok_lock);
	for (i = 0; i < ASMC_PEER_RKEYS_MAX; i++)
		if (lgr->rtoks[i].used && lgr->rtoks[i].slots & BIT(slot) &&
		    lgr->rtoks[i].rkey[slot] == rkey)
			return i;
	return -ENOENT;
}

/* The peer's RMB with @rkey at @addr on link @slot: its entry (made if
 * new), -ENOSPC when the table is full. Any context.
 */
int asmc_rtok_add(struct asmc_lgr *lgr, int slot, u32 rkey, u64 addr)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = asmc_rtok_find_locked(lgr, slot, rkey);
	if (i < 0) {
		for (i = 0; i < ASMC_PEER_RKEYS_MAX; i++)
			if (!lgr->rtoks[i].used)
				break;
		if (i < ASMC_PEER_RKEYS_MAX) {
			memset(&lgr->rtoks[i], 0, sizeof(lgr->rtoks[i]));
			lgr->rtoks[i].used = true;
			lgr->rtoks[i].rkey[slot] = rkey;
		} else {
			i = -ENOSPC;
		}
	}
	if (i >= 0) {
		lgr->rtoks[i].addr[slot] = addr;
		lgr->rtoks[i].slots |= BIT(slot);
	}
	spin_unlock_bh(&lgr->rtok_lock);
	return i;
}

/* Entry @idx gets its rkey and address on link @slot. */
void asmc_rtok_set(struct asmc_lgr *lgr, int idx, int slot, u32 rkey,
		   u64 addr)
{
	spin_lock_bh(&lgr->rtok_lock);
	if (idx >= 0 && idx < ASMC_PEER_RKEYS_MAX && lgr->rtoks[idx].used) {
		lgr->rtoks[idx].rkey[slot] = rkey;
		lgr->rtoks[idx].addr[slot] = addr;
		lgr->rtoks[idx].slots |= BIT(slot);
	}
	spin_unlock_bh(&lgr->rtok_lock);
}

/* The entry whose rkey on link @from_slot is @rkey learns its rkey and
 * address on link @slot (ADD_LINK); false if there is none.
 */
bool asmc_rtok_extend(struct asmc_lgr *lgr, int from_slot, u32 rkey,
		      int slot, u32 new_rkey, u64 new_addr)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = asmc_rtok_find_locked(lgr, from_slot, rkey);
	if (i >= 0) {
		lgr->rtoks[i].rkey[slot] = new_rkey;
		lgr->rtoks[i].addr[slot] = new_addr;
		lgr->rtoks[i].slots |= BIT(slot);
	}
	spin_unlock_bh(&lgr->rtok_lock);
	return i >= 0;
}

/* The peer deleted its RMB with @rkey on link @slot: false if unknown. */
bool asmc_rtok_del(struct asmc_lgr *lgr, int slot, u32 rkey)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = asmc_rtok_find_locked(lgr, slot, rkey);
	if (i >= 0)
		lgr->rtoks[i].used = false;
	spin_unlock_bh(&lgr->rtok_lock);
	return i >= 0;
}

/* Entry @idx on link @slot; false when it has no rkey there. */
bool asmc_rtok_get(struct asmc_lgr *lgr, int idx, int slot, u32 *rkey,
		   u64 *addr)
{
	bool ok = false;

	spin_lock_bh(&lgr->rtok_lock);
	if (idx >= 0 && idx < ASMC_PEER_RKEYS_MAX && lgr->rtoks[idx].used &&
	    lgr->rtoks[idx].slots & BIT(slot)) {
		*rkey = lgr->rtoks[idx].rkey[slot];
		*addr = lgr->rtoks[idx].addr[slot];
		ok = true;
	}
	spin_unlock_bh(&lgr->rtok_lock);
	return ok;
}

/* A link is gone: no entry keeps an rkey on it. */
static void asmc_rtok_clear_slot(struct asmc_lgr *lgr, int slot)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	for (i = 0; i < ASMC_PEER_RKEYS_MAX; i++)
		lgr->rtoks[i].slots &= ~BIT(slot);
	spin_unlock_bh(&lgr->rtok_lock);
}

/* ---- the group's links ------------------------------------------------- */

/* Live links of the group, and whether one more may be added: at most
 * ASMC_LINKS_USED, and not after the group lost too many. lgr->mutex held.
 */
bool asmc_lgr_link_wanted(struct asmc_lgr *lgr)
{
	int i, n = 0;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (asmc_lgr_link_live(lgr->links[i]))
			n++;
	return !lgr->terminating && n && n < ASMC_LINKS_USED &&
	       n < lgr->max_links && lgr->retired_num < ASMC_LINKS_RETIRED_MAX;
}

/* The selections (device, port) of the live links, for choosing another
 * port: @sel gets up to ASMC_LINKS_MAX pointers, valid while the caller
 * holds rkey_rwsem for writing (no link goes meanwhile).
 */
int asmc_lgr_link_sels(struct asmc_lgr *lgr, const struct asmc_ibsel **sel)
{
	int i, n = 0;

	mutex_lock(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (asmc_lgr_link_live(lgr->links[i]))
			sel[n++] = &lgr->links[i]->sel;
	mutex_unlock(&lgr->mutex);
	return n;
}

/* Whether a live link of the group other than @except joins the peer's
 * @peer_gid to our port @sel (NULL: to any of ours): a link that would add
 * no path. lgr->mutex held.
 */
static bool asmc_lgr_has_path(struct asmc_lgr *lgr,
			      const struct asmc_ibsel *sel, const u8 *peer_gid,
			      const struct asmc_link *except)
{
	struct asmc_link *l;
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		l = lgr->links[i];
		if (l == except || !asmc_lgr_link_live(l) ||
		    memcmp(l->peer_gid, peer_gid, 16))
			continue;
		if (!sel || asmc_ibsel_on(&l->sel, sel->dev, sel->port))
			return true;
	}
	return false;
}

/* What the group's active links share, as the netlink dumps give it: two
 * on one port of ours are "asymmetric local", two to one port of the
 * peer's "asymmetric peer". lgr->mutex held.
 */
enum asmc_lgr_type asmc_lgr_type(struct asmc_lgr *lgr)
{
	struct asmc_link *a = NULL, *l;
	int i, n = 0;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		l = lgr->links[i];
		if (!l || READ_ONCE(l->state) != ASMC_LNK_ACTIVE)
			continue;
		if (n++ == 0) {
			a = l;
			continue;
		}
		if (asmc_ibsel_on(&l->sel, a->sel.dev, a->sel.port))
			return ASMC_LGR_ASYM_LOCAL;
		if (!memcmp(l->peer_gid, a->peer_gid, 16))
			return ASMC_LGR_ASYM_PEER;
	}
	return n > 1 ? ASMC_LGR_SYM : n ? ASMC_LGR_SINGLE : ASMC_LGR_NONE;
}

/* A link just added: counted, and as asymmetric where it shares a port. */
static void asmc_link_added(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	enum asmc_lgr_type type;

	mutex_lock(&lgr->mutex);
	type = asmc_lgr_type(lgr);
	mutex_unlock(&lgr->mutex);
	asmc_stats_wire(lgr->net, ASMC_STAT_LINK_ADDED, 1);
	if (type == ASMC_LGR_ASYM_LOCAL || type == ASMC_LGR_ASYM_PEER)
		asmc_stats_wire(lgr->net, ASMC_STAT_LINK_ASYM, 1);
	pr_debug("lgr %u: link %u added on %s (type %d)\n", lgr->id,
		 lnk->link_id, dev_name(&lnk->sel.dev->ibdev->dev), type);
}

/* A new link for the group (not yet created on a device, not published):
 * @link_id from the server's ADD_LINK, or 0 to pick one (server). NULL
 * when no slot or ID is free or no more links are wanted. Caller holds
 * rkey_rwsem for writing.
 */
struct asmc_link *asmc_lgr_link_alloc(struct asmc_lgr *lgr, u8 link_id)
{
	struct asmc_link *lnk = NULL;
	int i, slot = -1;
	u8 id;

	mutex_lock(&lgr->mutex);
	if (!asmc_lgr_link_wanted(lgr))
		goto out;
	for (i = 0; i < ASMC_LINKS_MAX && slot < 0; i++)
		if (!lgr->links[i] && !(lgr->slots_dying & BIT(i)))
			slot = i;
	for (id = link_id ? : 1; slot >= 0 && id; id = link_id ? 0 : id + 1) {
		for (i = 0; i < ASMC_LINKS_MAX; i++)
			if (lgr->links[i] && lgr->links[i]->link_id == id)
				break;
		if (i == ASMC_LINKS_MAX)
			break;		/* unused */
	}
	if (slot < 0 || !id)
		goto out;
	lnk = kzalloc(sizeof(*lnk), GFP_KERNEL);
	if (!lnk)
		goto out;
	lnk->lgr = lgr;
	lnk->slot = slot;
	lnk->link_id = id;
	get_random_bytes(&lnk->link_uid, 4);
out:
	mutex_unlock(&lgr->mutex);
	return lnk;
}

/* The new link (QP created) joins the group: every buffer gets mapped on
 * its device, RMBs get an MR there. Caller holds rkey_rwsem for writing.
 */
int asmc_lgr_link_attach(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	struct asmc_buf *buf;
	int rc = 0;

	mutex_lock(&lgr->mutex);
	if (lgr->terminating || lgr->links[lnk->slot] ||
	    lgr->slots_dying & BIT(lnk->slot)) {
		rc = -ENOLINK;
		goto out;
	}
	asmc_lgr_publish_link(lgr, lnk);
	list_for_each_entry(buf, &lgr->bufs, lgr_node) {
		rc = asmc_buf_map_link(buf, lnk);
		if (rc)
			break;
	}
out:
	mutex_unlock(&lgr->mutex);
	return rc;
}

/* Take a link out of the group and free its hardware. Its struct stays
 * with the group (connections may still point at it). Caller holds
 * rkey_rwsem for writing; the link was created (asmc_link_create).
 */
void asmc_lgr_link_retire(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	bool later, keep = lnk->activated;

	asmc_link_error(lnk);
	mutex_lock(&lgr->mutex);
	asmc_lgr_link_leave(lgr, lnk);
	mutex_unlock(&lgr->mutex);
	asmc_rtok_clear_slot(lgr, lnk->slot);
	/* the struct stays with the group when connections may point at it
	 * or its QP goes later; never active and destroyed now, it goes
	 */
	later = asmc_link_reap_wanted(lnk);
	if (keep || later) {
		mutex_lock(&lgr->mutex);
		list_add(&lnk->retired_node, &lgr->retired);
		lgr->retired_num++;
		mutex_unlock(&lgr->mutex);
	}
	if (later) {
		asmc_link_reap(lnk);
		return;
	}
	asmc_link_destroy(lnk);
	if (!keep)
		kfree(lnk);
}

/* Group links by ID: the published link with @link_id, or NULL. */
struct asmc_link *asmc_lgr_link_by_id(struct asmc_lgr *lgr, u8 link_id)
{
	struct asmc_link *lnk = NULL;
	int i;

	mutex_lock(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX && !lnk; i++)
		if (lgr->links[i] && lgr->links[i]->link_id == link_id)
			lnk = lgr->links[i];
	mutex_unlock(&lgr->mutex);
	return lnk;
}

/* A link taken down goes in the background: a device may hold its
 * QP long (rxe keeps a reference for each of its packets still queued on
 * a net_device that went down, and destroying the QP then waits up to
 * 50 s, uninterruptibly). While the port is down, up to reap_by, we look
 * again later instead of blocking a worker; the group's reference keeps
 * group and link. A removed device or an ended wait destroys it at once.
 */
static void asmc_link_reap_work(struct work_struct *work)
{
	struct asmc_link *lnk = container_of(to_delayed_work(work),
					     struct asmc_link, reap_work);
	struct asmc_lgr *lgr = lnk->lgr;

	if (!asmc_ibsel_port_active(&lnk->sel) &&
	    !READ_ONCE(lnk->sel.dev->removing) &&
	    time_before(jiffies, lnk->reap_by)) {
		queue_delayed_work(asmc_hs_wq, &lnk->reap_work,
				   ASMC_LINK_REAP_POLL);
		return;
	}
	asmc_link_destroy(lnk);
	asmc_lgr_put(lgr);	/* the link's struct goes with the group */
}

/* Quiesce @lnk, which left its group: true when its QP had better go
 * later, from asmc_link_reap(): nothing of it can complete any more, but
 * its port is down, where the device may hold the QP long.
 */
bool asmc_link_reap_wanted(struct asmc_link *lnk)
{
	return asmc_link_quiesce(lnk) && !READ_ONCE(lnk->sel.dev->removing) &&
	       !asmc_ibsel_port_active(&lnk->sel);
}

/* @lnk (quiesced, out of the group, on lgr->retired) is destroyed later;
 * the caller holds a group reference (the work takes its own)
 */
void asmc_link_reap(struct asmc_link *lnk)
{
	kref_get(&lnk->lgr->ref);
	lnk->reap_by = jiffies + ASMC_LINK_REAP_WAIT;
	INIT_DELAYED_WORK(&lnk->reap_work, asmc_link_reap_work);
	queue_delayed_work(asmc_hs_wq, &lnk->reap_work, 0);
}

/* Links that went down leave the group; their connections move to an
 * active link when the peer told us their RMB's rkey there (else they
 * end), or, with no active link left, the group ends with @err.
 */
static void asmc_lgr_failover(struct asmc_lgr *lgr, int err)
{
	struct asmc_link *dead[ASMC_LINKS_MAX], *alt, *lnk;
	struct asmc_sock **moved = NULL, **lost = NULL, *smc;
	int i, n = 0, nm = 0, nl = 0, cap;
	bool drained = true;
	unsigned long token;
	u64 addr;
	u32 rkey;

	down_write(&lgr->rkey_rwsem);
	mutex_lock(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		lnk = lgr->links[i];
		if (lnk && READ_ONCE(lnk->state) == ASMC_LNK_DOWN)
			dead[n++] = lnk;
	}
	alt = asmc_lgr_pick_link(lgr);
	if (!n || lgr->terminating || !alt) {
		for (i = 0; !lgr->terminating && !alt && i < n; i++)
			asmc_link_info(dead[i], "down, no link left: the group ends\n");
		mutex_unlock(&lgr->mutex);
		up_write(&lgr->rkey_rwsem);
		if (n && !alt)
			asmc_lgr_terminate(lgr, err);
		return;
	}
	cap = lgr->conns_num;
	moved = kcalloc(cap, sizeof(*moved), GFP_KERNEL);
	lost = kcalloc(cap, sizeof(*lost), GFP_KERNEL);
	xa_for_each(&lgr->conns, token, smc) {
		if (READ_ONCE(smc->conn.link->state) != ASMC_LNK_DOWN ||
		    nm + nl >= cap || !refcount_inc_not_zero(&smc->sk.sk_refcnt))
			continue;
		if (moved && lost &&
		    asmc_rtok_get(lgr, smc->conn.peer_rtok, alt->slot, &rkey,
				  &addr)) {
			smc->conn.link->conns--;
			alt->conns++;
			asmc_tx_switch_link(smc, alt, rkey, addr);
			moved[nm++] = smc;
		} else if (lost) {
			lost[nl++] = smc;
		} else {
			sock_put(&smc->sk);	/* no memory: its abort comes
						 * with the group's end
						 */
		}
	}
	for (i = 0; i < n; i++) {
		asmc_lgr_link_leave(lgr, dead[i]);
		list_add(&dead[i]->retired_node, &lgr->retired);
		lgr->retired_num++;
	}
	mutex_unlock(&lgr->mutex);
	for (i = 0; i < n; i++)
		asmc_rtok_clear_slot(lgr, dead[i]->slot);
	up_write(&lgr->rkey_rwsem);
	asmc_stats_wire(lgr->net, ASMC_STAT_LINK_LOST, n);
	asmc_stats_wire(lgr->net, ASMC_STAT_LINK_FAILOVER, nm);
	asmc_stats_wire(lgr->net, ASMC_STAT_LINK_FAILOVER_LOST, nl);
	for (i = 0; i < n; i++) {
		asmc_link_info(dead[i], "down, %d connections moved to link %u, %d lost\n",
			       nm, alt->link_id, nl);
		if (!dead[i]->peer_deleted)
			asmc_llc_send_delete_link(alt, dead[i]->link_id,
						  ASMC_LLC_DEL_LOST_PATH);
	}
	/* once nothing of the dead links can complete any more, the moved
	 * connections go on at once and the QPs go later; sends that never
	 * completed are failed by the destroy, before anything resumes
	 */
	for (i = 0; i < n; i++)
		if (!asmc_link_quiesce(dead[i]))
			drained = false;
	if (!drained)
		for (i = 0; i < n; i++)
			asmc_link_destroy(dead[i]);
	for (i = 0; i < nm; i++) {
		asmc_tx_failover_resume(moved[i]);
		sock_put(&moved[i]->sk);
	}
	if (drained)
		for (i = 0; i < n; i++)
			asmc_link_reap(dead[i]);
	for (i = 0; i < nl; i++) {
		asmc_conn_abort(lost[i], ECONNRESET);
		sock_put(&lost[i]->sk);
	}
	kfree(moved);
	kfree(lost);
	if (lgr->role == ASMC_ROLE_SERVER)
		asmc_lgr_want_link(lgr, ASMC_LINK_READD_DELAY);
	if (!moved || !lost)
		asmc_lgr_terminate_sched(lgr);
}

void asmc_lgr_failover_work(struct work_struct *work)
{
	struct asmc_lgr *lgr = container_of(work, struct asmc_lgr,
					    failover_work);

	asmc_lgr_failover(lgr, READ_ONCE(lgr->down_err) ? : ECONNRESET);
	asmc_lgr_put(lgr);	/* taken when the work was queued */
}

/* Queue the group's link work after @delay (@sooner: or move it there
 * if it was pending), never for a terminating group: a termination sets
 * lgr->terminating, then cancels the work; we queue, then look at the
 * flag, so the one or the other sees it. Process context, no lgr lock.
 */
static void asmc_lgr_queue_link_work(struct asmc_lgr *lgr,
				     unsigned long delay, bool sooner)
{
	bool pending;

	if (READ_ONCE(lgr->terminating) || !kref_get_unless_zero(&lgr->ref))
		return;
	kref_get(&lgr->ref);	/* the work's, ours is kept until the end */
	if (sooner)
		pending = mod_delayed_work(asmc_hs_wq, &lgr->add_link_work,
					   delay);
	else
		pending = !queue_delayed_work(asmc_hs_wq, &lgr->add_link_work,
					      delay);
	if (pending)
		asmc_lgr_put(lgr);	/* it had one of its own */
	smp_mb();	/* queued before the flag is read */
	if (READ_ONCE(lgr->terminating))
		asmc_lgr_cancel_add(lgr);
	asmc_lgr_put(lgr);
}

/* Server: look for another link for the group after @delay. */
void asmc_lgr_want_link(struct asmc_lgr *lgr, unsigned long delay)
{
	if (lgr->role == ASMC_ROLE_SERVER)
		asmc_lgr_queue_link_work(lgr, delay, false);
}

/* A port of ours came up: a server looks for another link for the group,
 * a client asks its server for one (the link work checks whether the
 * group would take one).
 */
void asmc_lgr_link_soon(struct asmc_lgr *lgr)
{
	asmc_lgr_queue_link_work(lgr, ASMC_LINK_PORTUP_DELAY, true);
}

/* Server: the client asked for a link to its port of @gid (NULL: none
 * named), now rather than at the next retry; with @answer it waits for
 * the offer or, if none comes, our REQUEST_ADD_LINK echo.
 */
void asmc_lgr_link_asked(struct asmc_lgr *lgr, const u8 *gid, bool answer)
{
	if (lgr->role != ASMC_ROLE_SERVER)
		return;
	mutex_lock(&lgr->mutex);
	lgr->ask_answer |= answer;
	lgr->ask_gid_set = gid &&
			   ipv6_addr_v4mapped((const struct in6_addr *)gid);
	if (lgr->ask_gid_set)
		memcpy(lgr->ask_gid, gid, 16);
	mutex_unlock(&lgr->mutex);
	asmc_lgr_queue_link_work(lgr, ASMC_LINK_ASKED_DELAY, true);
}

/* The device @dev goes away: its links go down now, their connections
 * move or end (process context; the caller holds a group reference).
 */
void asmc_lgr_drop_dev(struct asmc_lgr *lgr, struct asmc_ibdev *dev)
{
	struct asmc_link *lnk;
	int i;

	/* should the group end, it ends with this error */
	WRITE_ONCE(lgr->down_err, ENETDOWN);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		mutex_lock(&lgr->mutex);
		lnk = lgr->links[i];
		if (lnk && lnk->sel.dev != dev)
			lnk = NULL;
		mutex_unlock(&lgr->mutex);
		if (lnk)
			asmc_link_error(lnk);
	}
	asmc_lgr_failover(lgr, ENETDOWN);
	/* a failover still running elsewhere lets go of the device too */
	flush_work(&lgr->failover_work);
}

/* ---- adding a link (ADD_LINK) ------------------------------------------ */

/* Entries for an ADD_LINK: each RMB whose rkey the peer knows, its rkey
 * on @via and on @lnk. Those are at most ASMC_PEER_RKEYS_MAX (the v1
 * ADD_LINK_CONT count is a u8); the others, idle in the pool, get their
 * rkeys on every link when reused. Caller holds rkey_rwsem for writing
 * (no CONFIRM_RKEY or DELETE_RKEY meanwhile); kfree() the result.
 */
static struct asmc_llc_rkey *asmc_link_rkeys(struct asmc_lgr *lgr,
					     struct asmc_link *via,
					     struct asmc_link *lnk, u16 *n)
{
	struct asmc_llc_rkey *rk;
	struct asmc_buf *buf;
	int cnt = 0, max = 0;

	mutex_lock(&lgr->mutex);
	list_for_each_entry(buf, &lgr->bufs, lgr_node)
		max += buf->is_rmb && buf->rkey_known;
	WARN_ON_ONCE(max > ASMC_PEER_RKEYS_MAX);
	rk = kcalloc(max ? : 1, sizeof(*rk), GFP_KERNEL);
	if (rk) {
		list_for_each_entry(buf, &lgr->bufs, lgr_node) {
			if (!buf->is_rmb || !buf->rkey_known ||
			    !buf->map[via->slot].mr ||
			    !buf->map[lnk->slot].mr || cnt >= max)
				continue;
			rk[cnt].rkey = buf->map[via->slot].mr->rkey;
			rk[cnt].rkey_new = buf->map[lnk->slot].mr->rkey;
			rk[cnt].addr_new = buf->map[lnk->slot].mr->iova;
			cnt++;
		}
	}
	mutex_unlock(&lgr->mutex);
	*n = cnt;
	return rk;
}

struct asmc_link_learn {
	struct asmc_link	*via, *lnk;
	int			known, sent;
};

/* One of the peer's RMBs on the new link: its rkey on @via names it. */
static void asmc_link_learn_one(void *ctx, const struct asmc_llc_rkey *e)
{
	struct asmc_link_learn *l = ctx;

	l->sent++;
	if (asmc_rtok_extend(l->via->lgr, l->via->slot, e->rkey, l->lnk->slot,
			     e->rkey_new, e->addr_new))
		l->known++;
}

/* The peer lists only the RMBs whose rkeys we hold: others are counted
 * (stats smcr_links rkeys_unknown) and ignored.
 */
static void asmc_link_learned(const struct asmc_link_learn *l, int rc)
{
	pr_debug("link %p: %d: %d of the peer's %d rkeys known on link %u\n",
		 l->lnk, rc, l->known, l->sent, l->lnk->link_id);
	if (l->sent > l->known)
		asmc_stats_wire(l->lnk->lgr->net, ASMC_STAT_LINK_RKEY_UNKNOWN,
				l->sent - l->known);
}

/* v2: the peer's RMBs on the new link @lnk, from its ADD_LINK. */
static void asmc_link_learn_rkeys(struct asmc_link *via, struct asmc_link *lnk,
				  const struct asmc_llc_add_link *a)
{
	struct asmc_link_learn l = { .via = via, .lnk = lnk };
	struct asmc_llc_rkey e;
	int i;

	for (i = 0; i < a->n_rkeys; i++) {
		asmc_llc_rkey_get(a->rkeys_wire, i, &e);
		asmc_link_learn_one(&l, &e);
	}
	asmc_link_learned(&l, 0);
}

/* v1: both sides' rkeys on the new link @lnk in ADD_LINK_CONT messages
 * (the client's ADD_LINK answer @first goes out at the start).
 */
static int asmc_link_cont(struct asmc_link *via, struct asmc_link *lnk,
			  struct asmc_llc_msg *first,
			  const struct asmc_llc_rkey *rk, u16 n)
{
	struct asmc_link_learn l = { .via = via, .lnk = lnk };
	int rc;

	rc = asmc_llc_add_link_cont(via, lnk->link_id, first, rk, n,
				    asmc_link_learn_one, &l);
	asmc_link_learned(&l, rc);
	return rc;
}

/* Register every RMB of the group on @lnk (rkey_rwsem held for writing:
 * no buffer is freed meanwhile).
 */
static int asmc_link_register_rmbs(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	struct asmc_buf *buf, *next;
	int rc;

	for (;;) {
		next = NULL;
		mutex_lock(&lgr->mutex);
		list_for_each_entry(buf, &lgr->bufs, lgr_node) {
			if (buf->is_rmb && buf->map[lnk->slot].mr &&
			    !buf->map[lnk->slot].regd) {
				next = buf;
				break;
			}
		}
		mutex_unlock(&lgr->mutex);
		if (!next)
			return 0;
		rc = asmc_buf_register(next, lnk);
		if (rc)
			return rc;
	}
}

/* The ADD_LINK of our side of @lnk (request or response). */
static void asmc_link_fill_add(struct asmc_link *lnk, struct asmc_link *via,
			       struct asmc_llc_msg *m, bool resp,
			       struct asmc_llc_rkey *rk, u16 n)
{
	struct asmc_llc_add_link *a = &m->add_link;

	memset(m, 0, sizeof(*m));
	m->type = ASMC_LLC_ADD_LINK;
	m->flags = resp ? ASMC_LLC_FLAG_RESP : 0;
	memcpy(a->mac, lnk->sel.mac, ETH_ALEN);
	memcpy(a->gid, lnk->sel.gid, 16);
	a->qpn = lnk->qp->qp_num;
	a->link_id = lnk->link_id;
	a->mtu = lnk->path_mtu;
	a->psn = lnk->psn;
	if (lnk->lgr->smc_version < 2)
		return;		/* v1: the rkeys follow in ADD_LINK_CONT */
	a->has_ext = true;
	a->v2_direct = lnk->v2_direct;
	memcpy(a->target_gid, lnk->sel.gid, 16);
	a->n_rkeys = n;
	a->rkeys = rk;
}

/* What the peer's ADD_LINK says of its side of @lnk. */
static int asmc_link_take_peer(struct asmc_link *lnk,
			       const struct asmc_llc_add_link *a)
{
	if ((lnk->lgr->smc_version >= 2 && !a->has_ext) || !a->mtu || !a->qpn)
		return -EPROTO;
	memcpy(lnk->peer_gid, a->gid, 16);
	memcpy(lnk->peer_mac, a->mac, ETH_ALEN);
	lnk->peer_qpn = a->qpn;
	lnk->peer_psn = a->psn;
	lnk->path_mtu = min_t(u8, lnk->sel.mtu, a->mtu);
	lnk->v2_direct = a->v2_direct;
	return 0;
}

/* A new link on @sel for the group, created and mapped: NULL on failure
 * (the selection's device reference is gone either way).
 */
static struct asmc_link *asmc_link_new(struct asmc_lgr *lgr, u8 link_id,
				       struct asmc_ibsel *sel)
{
	struct asmc_link *lnk;

	lnk = asmc_lgr_link_alloc(lgr, link_id);
	if (!lnk) {
		asmc_ibsel_put(sel);
		return NULL;
	}
	if (asmc_link_create(lnk, sel, true)) {
		kfree(lnk);	/* the link freed what it had */
		return NULL;
	}
	if (asmc_lgr_link_attach(lgr, lnk)) {
		asmc_lgr_link_retire(lgr, lnk);
		return NULL;
	}
	return lnk;
}

/* Server: offer the group a link on another of our ports (the client
 * answers with its side and its rkeys), then confirm it on the new link.
 * With no other port, a first link's client is told there is none.
 */
static void asmc_link_server_add(struct asmc_lgr *lgr)
{
	const struct asmc_ibsel *used[ASMC_LINKS_MAX];
	struct asmc_llc_rkey *rk = NULL;
	struct asmc_llc_msg req, resp;
	struct asmc_link *via, *lnk;
	struct asmc_ibsel sel;
	bool wanted, answered = false, answer, offered = false;
	u8 *big = NULL, target[16];
	int rc, n;
	u16 nrk;

	down_write(&lgr->rkey_rwsem);
	mutex_lock(&lgr->mutex);
	via = asmc_lgr_pick_link(lgr);
	wanted = via && asmc_lgr_link_wanted(lgr);
	/* a port reaching the one the client asked for, else its first */
	if (via)
		memcpy(target, lgr->ask_gid_set ? lgr->ask_gid : via->peer_gid,
		       16);
	answer = lgr->ask_answer;
	lgr->ask_gid_set = false;
	lgr->ask_answer = false;
	mutex_unlock(&lgr->mutex);
	if (!wanted)
		goto out;
	n = asmc_lgr_link_sels(lgr, used);
	rc = asmc_ib_select_alt(lgr->net, used, n, target, false,
				lgr->smc_version, via->sel.roce_v2, &sel);
	/* no other port: a second link on ours, for a client that has two
	 * (it takes the offer on its other port, or rejects it)
	 */
	if (rc && n == 1)
		rc = asmc_ib_select_same(lgr->net, &via->sel, target, &sel);
	if (rc) {
		pr_debug("lgr %u: no port of ours for a link to %pI6c: %d\n",
			 lgr->id, target, rc);
		if (!lgr->no_link_offered) {
			lgr->no_link_offered = true;
			asmc_llc_offer_no_link(via);
			offered = true;
		}
		goto out;
	}
	lnk = asmc_link_new(lgr, 0, &sel);
	if (!lnk)
		goto out;
	lnk->v2_direct = via->v2_direct;
	lnk->path_mtu = lnk->sel.mtu;
	rk = asmc_link_rkeys(lgr, via, lnk, &nrk);
	if (!rk) {
		rc = -ENOMEM;
		goto retire;
	}
	asmc_link_fill_add(lnk, via, &req, false, rk, nrk);
	offered = true;
	rc = asmc_llc_add_link_exchange(via, &req, &resp, &big);
	if (!rc && resp.flags & ASMC_LLC_FLAG_ADD_LNK_REJ) {
		pr_debug("lgr %u: peer rejects link %u\n", lgr->id,
			 lnk->link_id);
		lgr->no_link_offered = true;
		asmc_stats_wire(lgr->net, ASMC_STAT_LINK_REFUSED, 1);
		rc = -ECONNREFUSED;
	}
	if (!rc && resp.add_link.link_id != lnk->link_id)
		rc = -EPROTO;
	if (!rc)
		rc = asmc_link_take_peer(lnk, &resp.add_link);
	if (rc)
		goto retire;
	/* the peer has the link now: a failure from here on tells it */
	answered = true;
	/* a peer without a port of its own to our new one answers with one
	 * it uses already: fine where our new port reaches that one
	 */
	if (!asmc_ib_sel_reaches(lgr->net, &lnk->sel, lnk->peer_gid)) {
		rc = -EHOSTUNREACH;
		goto retire;
	}
	/* nor where it answers on the path a link of the group takes */
	mutex_lock(&lgr->mutex);
	rc = asmc_lgr_has_path(lgr, &lnk->sel, lnk->peer_gid, lnk) ?
	     -EEXIST : 0;
	mutex_unlock(&lgr->mutex);
	if (rc)
		goto retire;
	asmc_link_learn_rkeys(via, lnk, &resp.add_link);
	/* v1: the rkeys now, the client waits 2 s for them (the peer writes
	 * nothing before CONFIRM_LINK, by then every RMB is registered)
	 */
	if (lgr->smc_version < 2)
		rc = asmc_link_cont(via, lnk, NULL, rk, nrk);
	if (!rc)
		rc = asmc_link_rtr(lnk);
	if (!rc)
		rc = asmc_link_rts(lnk);
	if (!rc)
		rc = asmc_link_register_rmbs(lgr, lnk);
	if (!rc)
		rc = asmc_llc_server_confirm_new(lnk);
	if (rc)
		goto retire;
	asmc_link_added(lgr, lnk);
	goto out;
retire:
	pr_debug("lgr %u: adding link %u failed: %d\n", lgr->id, lnk->link_id,
		 rc);
	if (answered)
		asmc_llc_send_delete_link(via, lnk->link_id,
					  ASMC_LLC_DEL_LOST_PATH);
	asmc_lgr_link_retire(lgr, lnk);
out:
	if (answer && !offered && via) {
		pr_debug("lgr %u: asked for a link, none offered (%s)\n",
			 lgr->id, wanted ? "no usable port" : "the group takes no more");
		asmc_llc_req_add_link_none(via);
	}
	/* a group that lost a link looks again later (the peer's port may
	 * come back); one that never had a second waits for a port to come
	 * up or the client to ask
	 */
	mutex_lock(&lgr->mutex);
	wanted = lgr->retired_num && asmc_lgr_link_wanted(lgr);
	mutex_unlock(&lgr->mutex);
	up_write(&lgr->rkey_rwsem);
	if (wanted)
		asmc_lgr_want_link(lgr, ASMC_LINK_RETRY_DELAY);
	kfree(big);
	kfree(rk);
}

/* Client: ask the server for a link on another port of ours (one that
 * came up): v2 REQUEST_ADD_LINK with our GIDs, the one in use first; v1
 * an ADD_LINK "invite" naming the port. The server answers with an
 * ADD_LINK offer of its own, or not at all (its echo is dropped).
 */
static void asmc_link_client_ask(struct asmc_lgr *lgr)
{
	const struct asmc_ibsel *used[ASMC_LINKS_MAX];
	struct asmc_llc_msg m = {};
	struct asmc_link *via;
	struct asmc_ibsel sel;
	u8 gids[2][16];
	bool wanted;
	int rc, n;

	down_write(&lgr->rkey_rwsem);
	mutex_lock(&lgr->mutex);
	via = asmc_lgr_pick_link(lgr);
	wanted = via && asmc_lgr_link_wanted(lgr);
	mutex_unlock(&lgr->mutex);
	/* a group with ourselves keeps its one link */
	if (!wanted || asmc_ib_peer_local(lgr->net, via->peer_gid))
		goto out;
	n = asmc_lgr_link_sels(lgr, used);
	if (asmc_ib_select_alt(lgr->net, used, n, via->peer_gid, false,
			       lgr->smc_version, via->sel.roce_v2, &sel))
		goto out;
	if (lgr->smc_version >= 2) {
		m.type = ASMC_LLC_REQ_ADD_LINK;
		memcpy(gids[0], via->sel.gid, 16);
		memcpy(gids[1], sel.gid, 16);
		m.req_add_link.n_gids = 2;
		m.req_add_link.gids = gids[0];
	} else {
		m.type = ASMC_LLC_ADD_LINK;
		memcpy(m.add_link.mac, sel.mac, ETH_ALEN);
		memcpy(m.add_link.gid, sel.gid, 16);
	}
	rc = asmc_llc_send_big(via, &m);
	pr_debug("lgr %u: asked for a link on %s: %d\n", lgr->id,
		 dev_name(&sel.dev->ibdev->dev), rc);
	if (!rc)
		asmc_stats_wire(lgr->net, ASMC_STAT_LINK_ASKED, 1);
	asmc_ibsel_put(&sel);
out:
	up_write(&lgr->rkey_rwsem);
}

void asmc_link_add_work(struct work_struct *work)
{
	struct asmc_lgr *lgr = container_of(to_delayed_work(work),
					    struct asmc_lgr, add_link_work);

	if (lgr->role == ASMC_ROLE_SERVER)
		asmc_link_server_add(lgr);
	else
		asmc_link_client_ask(lgr);
	asmc_lgr_put(lgr);	/* taken when the work was queued */
}

/* The client's flow runs in @via's request work, which the group's end
 * cancels while holding rkey_rwsem: never wait for it unbounded there.
 * The server sends its ADD_LINK as soon as our CONFIRM_LINK answer of the
 * first link arrives, which may be before that link turned active here
 * (the handshake marks it right after the send): wait for that too, as
 * for the lock (2 s in all; a link that went down meanwhile refuses).
 */
static bool asmc_link_lock(struct asmc_lgr *lgr, struct asmc_link *via)
{
	enum asmc_link_state state;
	int i;

	for (i = 0; i < 100; i++) {
		state = READ_ONCE(via->state);
		if (state == ASMC_LNK_DOWN)
			return false;
		if (state == ASMC_LNK_ACTIVE &&
		    down_write_trylock(&lgr->rkey_rwsem))
			return true;
		msleep(20);
	}
	return false;
}

/* Client: the server's ADD_LINK @m arrived on @via. Take the link on a
 * port of ours that routes to the offered one: answer with our side and
 * rkeys, wait for its CONFIRM_LINK on the new link. Nonzero: the caller
 * rejects the offer (nothing was answered yet).
 */
int asmc_link_client_add(struct asmc_link *via, const struct asmc_llc_msg *m)
{
	const struct asmc_llc_add_link *a = &m->add_link;
	const struct asmc_ibsel *used[ASMC_LINKS_MAX];
	struct asmc_lgr *lgr = via->lgr;
	struct asmc_llc_rkey *rk = NULL;
	struct asmc_link *lnk;
	struct asmc_llc_msg resp;
	struct asmc_ibsel sel;
	int rc, n;
	u16 nrk;

	if (m->version != asmc_llc_version(lgr) ||
	    asmc_llc_is_resp(m) || !a->mtu || !a->link_id ||
	    (lgr->smc_version >= 2 && !a->has_ext))
		return -EINVAL;
	if (!asmc_link_lock(lgr, via)) {
		/* refused for the moment only, and a server offers once: we
		 * ask for a link ourselves as soon as @via is active (now, or
		 * asmc_llc_link_active() sees the bit)
		 */
		set_bit(0, &lgr->ask_when_active);
		smp_mb__after_atomic();	/* the bit, then the state */
		if (READ_ONCE(via->state) == ASMC_LNK_ACTIVE &&
		    test_and_clear_bit(0, &lgr->ask_when_active))
			asmc_lgr_link_soon(lgr);
		return -EBUSY;
	}
	n = asmc_lgr_link_sels(lgr, used);
	rc = asmc_ib_select_alt(lgr->net, used, n, a->gid, true,
				lgr->smc_version, via->sel.roce_v2, &sel);
	/* no other port of ours: the one in use, if the offer comes from
	 * another port of the server's (a path of its own then)
	 */
	if (rc && n == 1) {
		mutex_lock(&lgr->mutex);
		rc = asmc_lgr_has_path(lgr, NULL, a->gid, NULL) ? -EEXIST : 0;
		mutex_unlock(&lgr->mutex);
		if (!rc)
			rc = asmc_ib_select_same(lgr->net, &via->sel, a->gid,
						 &sel);
	}
	if (rc)
		goto out;
	lnk = asmc_link_new(lgr, a->link_id, &sel);
	if (!lnk) {
		rc = -ENOSPC;
		goto out;
	}
	rc = asmc_link_take_peer(lnk, a);
	if (!rc)
		rc = asmc_link_rtr(lnk);
	/* the server may write right after our CONFIRM_LINK answer */
	if (!rc)
		rc = asmc_link_register_rmbs(lgr, lnk);
	if (!rc) {
		rk = asmc_link_rkeys(lgr, via, lnk, &nrk);
		if (!rk)
			rc = -ENOMEM;
	}
	if (rc) {
		asmc_lgr_link_retire(lgr, lnk);
		goto out;
	}
	asmc_link_learn_rkeys(via, lnk, a);
	asmc_link_fill_add(lnk, via, &resp, true, rk, nrk);
	/* answered: from here on a failure only takes the new link away */
	if (lgr->smc_version < 2)
		rc = asmc_link_cont(via, lnk, &resp, rk, nrk);
	else
		rc = asmc_llc_send_big(via, &resp);
	if (rc || asmc_llc_client_confirm_link(lnk, NULL)) {
		pr_debug("lgr %u: link %u not confirmed\n", lgr->id,
			 lnk->link_id);
		asmc_lgr_link_retire(lgr, lnk);
	} else {
		asmc_link_added(lgr, lnk);
	}
	rc = 0;
out:
	up_write(&lgr->rkey_rwsem);
	kfree(rk);
	return rc;
}
