// SPDX-License-Identifier: GPL-2.0
/* Link group core: finding or creating the link group for a connection
 * (per-peer hash buckets, no host-wide lock), its links by slot, alert
 * tokens, RMB and send buffer pools mapped on every link, idle expiry and
 * termination.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/idr.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "cdc.h"
#include "close.h"
#include "debug.h"
#include "lgr.h"
#include "link.h"
#include "llc.h"
#include "netns.h"
#include "socket.h"
#include "stats.h"
#include "wr.h"

#define ASMC_LGR_HASH_BITS	8

/* Connection setup with one peer is serialized by its bucket's mutex; a
 * first contact holds it until the first link is up, so the next
 * connection to that peer finds a usable link group instead of racing to
 * build a second one. Different peers never wait for each other (except
 * for a hash collision).
 *
 * Clients and servers have tables of their own: a client's first contact
 * holds its bucket while it waits for the server, and when both ends are
 * this host (or two hosts connect to each other at once) the server side
 * must never need that same mutex to answer, or both wait until the
 * handshake times out.
 */
struct asmc_lgr_bucket {
	struct mutex		mutex;
	struct hlist_head	head;
};

static struct asmc_lgr_bucket asmc_lgr_hash[2][1 << ASMC_LGR_HASH_BITS];
static LIST_HEAD(asmc_lgr_all);
static DEFINE_SPINLOCK(asmc_lgr_all_lock);
static DEFINE_IDA(asmc_lgr_ids);

static struct asmc_lgr_bucket *asmc_lgr_bucket(const u8 *peer_id, u8 role)
{
	u32 h = jhash(peer_id, 8, 0);

	return &asmc_lgr_hash[role == ASMC_ROLE_SERVER]
			     [hash_32(h, ASMC_LGR_HASH_BITS)];
}

static void asmc_lgr_free_work(struct work_struct *work);
static void asmc_lgr_terminate_work(struct work_struct *work);
static int asmc_lgr_create(struct asmc_sock *smc, u8 role, u8 version,
			   const u8 *peer_id, struct asmc_ibsel *sel,
			   struct asmc_lgr_ref *ref);

/* ---- buffers ---------------------------------------------------------- */

/* 16 KiB << idx, idx 0..5 */
static u32 asmc_buf_idx_size(int idx)
{
	return 16384u << idx;
}

static int asmc_buf_size_idx(u32 size)
{
	int idx = 0;

	while (idx < ASMC_BUF_SIZES - 1 && asmc_buf_idx_size(idx) < size)
		idx++;
	return idx;
}

/* Every RMB and send buffer of the module pins its pages (and maps them
 * for a device) as long as it lives, pooled or not. From the budget on,
 * net.smc.buf_limit bytes in all of them (1/16 of the RAM at load, as
 * with TCP's memory pressure), new connections that did not ask for a
 * size get ASMC_BUF_TIGHT bytes instead of net.smc.rmem/wmem: a host of
 * many connections stays bounded while a few get large buffers. The
 * memory is the host's: the sysctl is init_net's alone.
 */
static atomic_long_t asmc_buf_bytes = ATOMIC_LONG_INIT(0);
static atomic64_t asmc_buf_cuts = ATOMIC64_INIT(0);
unsigned long asmc_buf_limit;

static bool asmc_buf_tight(void)
{
	return (unsigned long)atomic_long_read(&asmc_buf_bytes) >=
	       READ_ONCE(asmc_buf_limit);
}

/* The budget rule for a buffer whose size the application did not set:
 * while over budget, @want is cut to ASMC_BUF_TIGHT. Returns whether it
 * was; each cut counts in debugfs smc/bufs.
 */
bool asmc_buf_cap(u32 *want)
{
	if (*want <= ASMC_BUF_TIGHT || !asmc_buf_tight())
		return false;
	*want = ASMC_BUF_TIGHT;
	atomic64_inc(&asmc_buf_cuts);
	return true;
}

void asmc_buf_show(struct seq_file *m)
{
	seq_printf(m, "bytes %ld limit %lu tight %s cut %lld\n",
		   atomic_long_read(&asmc_buf_bytes), READ_ONCE(asmc_buf_limit),
		   asmc_buf_tight() ? "yes" : "no",
		   atomic64_read(&asmc_buf_cuts));
}

/* The size of the buffer asmc_buf_get() looks for first, given @want. */
u32 asmc_buf_round(u32 want)
{
	return asmc_buf_idx_size(asmc_buf_size_idx(want));
}

/* Give back what @buf holds on one device: its MR, its DMA mapping.
 * lgr->mutex held.
 */
static void asmc_buf_unmap_slot(struct asmc_buf *buf, int slot)
{
	struct asmc_buf_map *m = &buf->map[slot];

	if (m->mr)
		ib_dereg_mr(m->mr);
	if (m->ibdev)
		ib_dma_unmap_sg(m->ibdev, &m->sg, 1,
				buf->is_rmb ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	memset(m, 0, sizeof(*m));
}

/* Map @buf for @lnk's device and, for an RMB, prepare its MR there (the
 * registration comes with asmc_buf_register()). lgr->mutex held.
 */
int asmc_buf_map_link(struct asmc_buf *buf, struct asmc_link *lnk)
{
	struct ib_device *ibdev = lnk->sel.dev->ibdev;
	struct asmc_buf_map *m = &buf->map[lnk->slot];
	struct ib_mr *mr;

	lockdep_assert_held(&lnk->lgr->mutex);
	if (m->ibdev)
		return 0;
	sg_init_one(&m->sg, buf->cpu, buf->size);
	if (asmc_fault(ASMC_FAULT_BUF) ||
	    ib_dma_map_sg(ibdev, &m->sg, 1, buf->is_rmb ? DMA_FROM_DEVICE :
						       DMA_TO_DEVICE) != 1)
		return -ENOMEM;
	m->ibdev = ibdev;
	m->dma_addr = sg_dma_address(&m->sg);
	if (!buf->is_rmb)
		return 0;
	mr = ASMC_FAULTY(ASMC_FAULT_BUF, ERR_PTR(-ENOMEM),
			 ib_alloc_mr(lnk->pd, IB_MR_TYPE_MEM_REG,
				     buf->size >> PAGE_SHIFT));
	if (IS_ERR(mr))
		goto err;
	m->mr = mr;
	if (ib_map_mr_sg(mr, &m->sg, 1, NULL, PAGE_SIZE) != 1)
		goto err;
	return 0;
err:
	asmc_buf_unmap_slot(buf, lnk->slot);
	return -ENOMEM;
}

static void asmc_buf_free(struct asmc_lgr *lgr, struct asmc_buf *buf)
{
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++)
		asmc_buf_unmap_slot(buf, i);
	list_del(&buf->lgr_node);
	if (buf->cpu) {
		free_pages((unsigned long)buf->cpu, get_order(buf->size));
		atomic_long_sub(buf->size, &asmc_buf_bytes);
	}
	asmc_obj_destroyed(ASMC_OBJ_BUF, buf);
	kfree(buf);
}

/* Allocate a buffer of size class @idx and map it for every link of the
 * group (an RMB gets an MR on each). Registration for remote access
 * happens in asmc_buf_register().
 */
static struct asmc_buf *asmc_buf_alloc(struct asmc_lgr *lgr, bool rmb,
				       int idx)
{
	struct asmc_buf *buf;
	int i;

	lockdep_assert_held(&lgr->mutex);
	buf = ASMC_FAULTY(ASMC_FAULT_BUF, NULL,
			  kzalloc(sizeof(*buf), GFP_KERNEL));
	if (!buf)
		return NULL;
	asmc_obj_created(ASMC_OBJ_BUF, buf);
	INIT_LIST_HEAD(&buf->node);
	list_add(&buf->lgr_node, &lgr->bufs);
	buf->size = asmc_buf_idx_size(idx);
	buf->size_idx = idx;
	buf->is_rmb = rmb;
	buf->cpu = ASMC_FAULTY(ASMC_FAULT_BUF, NULL,
			       (void *)__get_free_pages(GFP_KERNEL |
					__GFP_ZERO | __GFP_NOWARN |
					__GFP_NORETRY, get_order(buf->size)));
	if (!buf->cpu)
		goto err;
	atomic_long_add(buf->size, &asmc_buf_bytes);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		if (asmc_lgr_link_live(lgr->links[i]) &&
		    asmc_buf_map_link(buf, lgr->links[i]))
			goto err;
	}
	return buf;
err:
	asmc_buf_free(lgr, buf);
	return NULL;
}

/* Any link left to map a new buffer on? lgr->mutex held. */
static bool asmc_lgr_has_link(struct asmc_lgr *lgr)
{
	int i;

	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (asmc_lgr_link_live(lgr->links[i]))
			return true;
	return false;
}

/* a free buffer of size index @idx out of @pool, or NULL */
static struct asmc_buf *asmc_buf_pooled(struct list_head *pool, int idx)
{
	struct asmc_buf *buf;

	buf = list_first_entry_or_null(&pool[idx], struct asmc_buf, node);
	if (buf)
		list_del_init(&buf->node);
	return buf;
}

/* A buffer of at least @want bytes (at most 512 KiB), reused from the
 * group's pool when one is free; smaller sizes when memory is short. Up to
 * @most bytes when the pool has one free (a size asmc_buf_cap() cut: the
 * memory of a pooled buffer is spent already, a new one adds to it).
 */
struct asmc_buf *asmc_buf_get(struct asmc_lgr *lgr, bool rmb, u32 want,
			      u32 most, bool *reused)
{
	struct list_head *pool = rmb ? lgr->free_rmbs : lgr->free_sndbufs;
	int idx, low = asmc_buf_size_idx(want);
	struct asmc_buf *buf = NULL;

	*reused = true;
	mutex_lock(&lgr->mutex);
	for (idx = asmc_buf_size_idx(most); idx > low && !buf; idx--)
		buf = asmc_buf_pooled(pool, idx);
	for (idx = low; idx >= 0 && !buf; idx--) {
		buf = asmc_buf_pooled(pool, idx);
		if (buf || !asmc_lgr_has_link(lgr) || lgr->terminating)
			break;
		buf = asmc_buf_alloc(lgr, rmb, idx);
		if (buf)
			*reused = false;
	}
	mutex_unlock(&lgr->mutex);
	return buf;
}

/* Buffers given back to a terminating group wait in unused_bufs while a
 * device may still read them: until no link is published (live or not),
 * being released or dying. lgr->mutex held.
 */
static void asmc_lgr_free_unused(struct asmc_lgr *lgr)
{
	struct asmc_buf *buf, *tmp;
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (lgr->links[i])
			return;
	if (lgr->hw_releasing || lgr->slots_dying)
		return;
	list_for_each_entry_safe(buf, tmp, &lgr->unused_bufs, node) {
		list_del_init(&buf->node);
		asmc_buf_free(lgr, buf);
	}
}

void asmc_buf_put(struct asmc_lgr *lgr, struct asmc_buf *buf)
{
	struct list_head *pool;

	if (!buf)
		return;
	mutex_lock(&lgr->mutex);
	if (lgr->terminating) {
		/* the device may read a send buffer until the link's QP is
		 * destroyed: until then the buffer waits in unused_bufs
		 */
		list_add(&buf->node, &lgr->unused_bufs);
		asmc_lgr_free_unused(lgr);
		mutex_unlock(&lgr->mutex);
		return;
	}
	pool = buf->is_rmb ? lgr->free_rmbs : lgr->free_sndbufs;
	list_add(&buf->node, &pool[buf->size_idx]);
	mutex_unlock(&lgr->mutex);
}


/* @buf, an RMB whose rkey the peer learned for a connection we dropped
 * while it may already use it (the handshake failed after our Accept):
 * the peer may still write into it, so no other connection gets it. It
 * stays on lgr->bufs until the group ends; too many, and the group ends
 * now. Process context.
 */
void asmc_buf_quarantine(struct asmc_lgr *lgr, struct asmc_buf *buf)
{
	bool full;

	if (!buf)
		return;
	mutex_lock(&lgr->mutex);
	if (lgr->terminating) {
		mutex_unlock(&lgr->mutex);
		asmc_buf_put(lgr, buf);		/* its QP goes first */
		return;
	}
	lgr->quarantined++;
	full = lgr->quarantined >= ASMC_QUARANTINE_MAX;
	mutex_unlock(&lgr->mutex);
	pr_debug("lgr %p: buf %p quarantined (%s)\n", lgr, buf,
		 full ? "too many: group ends" : "until the group ends");
	asmc_stats_wire(lgr->net, ASMC_STAT_RMB_QUARANTINE, 1);
	if (full)
		asmc_lgr_terminate_sched(lgr);
}

/* Register an RMB for remote write on @lnk, once. Its mapping there was
 * made with the buffer or when the link was added.
 */
int asmc_buf_register(struct asmc_buf *buf, struct asmc_link *lnk)
{
	struct asmc_buf_map *m = &buf->map[lnk->slot];
	int rc;

	if (m->regd)
		return 0;
	if (!m->mr)
		return -ENOLINK;
	rc = asmc_wr_reg_mr(lnk, m->mr);
	if (!rc)
		m->regd = true;
	return rc;
}

/* Register @buf on every link of its group that is up or coming up. */
int asmc_buf_register_all(struct asmc_lgr *lgr, struct asmc_buf *buf)
{
	struct asmc_link *lnk;
	int i, rc = 0;

	for (i = 0; i < ASMC_LINKS_MAX && !rc; i++) {
		mutex_lock(&lgr->mutex);
		lnk = lgr->links[i];
		if (!asmc_lgr_link_live(lnk) || lnk->state == ASMC_LNK_UNUSED)
			lnk = NULL;
		mutex_unlock(&lgr->mutex);
		/* a link is unpublished only by a flow that first waits for
		 * rkey_rwsem, which the caller holds for reading
		 */
		if (lnk)
			rc = asmc_buf_register(buf, lnk);
	}
	return rc;
}

static void __asmc_buf_rkey_mark(struct asmc_lgr *lgr, struct asmc_buf *rmb)
{
	lockdep_assert_held(&lgr->mutex);
	if (!rmb->rkey_known) {
		rmb->rkey_known = true;
		lgr->rkeys_known++;
	}
}

/* The peer is about to learn @rmb's rkey (owned by the caller, not in the
 * pool). A peer keeps ASMC_PEER_RKEYS_MAX of them per group, and we keep
 * no more than the group's connection limit: past that, an idle RMB of
 * the pool leaves it and is returned for the caller to send its
 * DELETE_RKEY before the new rkey goes out, then to put it back. With at
 * most that many connections, one of the known RMBs is always idle.
 */
struct asmc_buf *asmc_buf_rkey_known(struct asmc_lgr *lgr,
				     struct asmc_buf *rmb)
{
	struct asmc_buf *idle = NULL, *b;
	int i, most;

	mutex_lock(&lgr->mutex);
	most = min(lgr->max_conns, ASMC_PEER_RKEYS_MAX);
	__asmc_buf_rkey_mark(lgr, rmb);
	for (i = 0; i < ASMC_BUF_SIZES && !idle && lgr->rkeys_known > most;
	     i++) {
		list_for_each_entry(b, &lgr->free_rmbs[i], node) {
			if (b->rkey_known) {
				list_del_init(&b->node);
				b->rkey_known = false;
				lgr->rkeys_known--;
				idle = b;
				break;
			}
		}
	}
	mutex_unlock(&lgr->mutex);
	return idle;
}

/* A new group's first RMB: its rkey went out in the CLC handshake. */
void asmc_buf_rkey_first(struct asmc_lgr *lgr, struct asmc_buf *rmb)
{
	mutex_lock(&lgr->mutex);
	__asmc_buf_rkey_mark(lgr, rmb);
	mutex_unlock(&lgr->mutex);
}

/* The peer may not know @rmb's rkey after all (its CONFIRM_RKEY failed). */
void asmc_buf_rkey_forget(struct asmc_lgr *lgr, struct asmc_buf *rmb)
{
	mutex_lock(&lgr->mutex);
	if (rmb->rkey_known) {
		rmb->rkey_known = false;
		lgr->rkeys_known--;
	}
	mutex_unlock(&lgr->mutex);
}

/* ---- link groups ------------------------------------------------------ */

static struct asmc_lgr *asmc_lgr_new(struct net *net, u8 role, u8 version,
				     const u8 *peer_id)
{
	struct asmc_lgr *lgr;
	int i, id;

	lgr = ASMC_FAULTY(ASMC_FAULT_LGR, NULL,
			  kzalloc(sizeof(*lgr), GFP_KERNEL));
	if (!lgr)
		return NULL;
	lgr->links[0] = ASMC_FAULTY(ASMC_FAULT_LGR, NULL,
				    kzalloc(sizeof(*lgr->links[0]),
					    GFP_KERNEL));
	lgr->rtoks = kcalloc(ASMC_PEER_RKEYS_MAX, sizeof(*lgr->rtoks),
			     GFP_KERNEL);
	id = ida_alloc_min(&asmc_lgr_ids, 1, GFP_KERNEL);
	if (!lgr->links[0] || !lgr->rtoks || id < 0) {
		if (id >= 0)
			ida_free(&asmc_lgr_ids, id);
		kfree(lgr->rtoks);
		kfree(lgr->links[0]);
		kfree(lgr);
		return NULL;
	}
	lgr->id = id;
	lgr->links[0]->lgr = lgr;
	lgr->links[0]->slot = 0;
	INIT_LIST_HEAD(&lgr->retired);
	init_rwsem(&lgr->rkey_rwsem);
	spin_lock_init(&lgr->rtok_lock);
	INIT_DELAYED_WORK(&lgr->add_link_work, asmc_link_add_work);
	INIT_WORK(&lgr->failover_work, asmc_lgr_failover_work);
	kref_init(&lgr->ref);
	lgr->net = get_net(net);
	lgr->role = role;
	/* the server decides when a new group is due, the client follows */
	lgr->max_conns = role == ASMC_ROLE_SERVER ?
		READ_ONCE(asmc_net(net)->sysctl.smcr_max_conns_per_lgr) :
		ASMC_CONNS_PER_LGR;
	lgr->max_links = ASMC_LINKS_USED;
	lgr->smc_version = version;
	memcpy(lgr->peer_id, peer_id, 8);
	mutex_init(&lgr->mutex);
	INIT_LIST_HEAD(&lgr->bufs);
	INIT_LIST_HEAD(&lgr->unused_bufs);
	xa_init_flags(&lgr->conns, XA_FLAGS_ALLOC1);
	for (i = 0; i < ASMC_BUF_SIZES; i++) {
		INIT_LIST_HEAD(&lgr->free_rmbs[i]);
		INIT_LIST_HEAD(&lgr->free_sndbufs[i]);
	}
	INIT_DELAYED_WORK(&lgr->free_work, asmc_lgr_free_work);
	INIT_WORK(&lgr->terminate_work, asmc_lgr_terminate_work);
	spin_lock_bh(&asmc_lgr_all_lock);
	list_add_tail(&lgr->all_node, &asmc_lgr_all);
	spin_unlock_bh(&asmc_lgr_all_lock);
	asmc_obj_created(ASMC_OBJ_LGR, lgr);
	return lgr;
}

/* Take a link out of the group: readers of lgr->links[] that hold only
 * asmc_lgr_all_lock (debugfs, netlink dumps, device removal) never see it
 * again once this returns. lgr->mutex held.
 */
void asmc_lgr_unpublish_link(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	lockdep_assert_held(&lgr->mutex);
	spin_lock_bh(&asmc_lgr_all_lock);
	lgr->links[lnk->slot] = NULL;
	spin_unlock_bh(&asmc_lgr_all_lock);
}

void asmc_lgr_publish_link(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	lockdep_assert_held(&lgr->mutex);
	spin_lock_bh(&asmc_lgr_all_lock);
	lgr->links[lnk->slot] = lnk;
	spin_unlock_bh(&asmc_lgr_all_lock);
}

/* @lnk (down or going) leaves the group: unpublished, its RMBs lose their
 * MRs and mappings on its slot at once (after ib_dereg_mr no write of the
 * peer lands there). The send buffers keep theirs until the QP is
 * destroyed (asmc_lgr_slot_release()): posted RDMA writes may still read
 * them, and an unmapped address must not reach the device.
 */
void asmc_lgr_link_leave(struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	struct asmc_buf *buf;

	lockdep_assert_held(&lgr->mutex);
	if (lgr->links[lnk->slot] != lnk)
		return;		/* left already, or never joined */
	list_for_each_entry(buf, &lgr->bufs, lgr_node)
		if (buf->is_rmb)
			asmc_buf_unmap_slot(buf, lnk->slot);
	asmc_lgr_unpublish_link(lgr, lnk);
	lnk->slot_held = true;
	lgr->slots_dying |= BIT(lnk->slot);
	asmc_obj_created(ASMC_OBJ_SLOT, lnk);
}

/* @lnk's QP and CQs are destroyed (before its device reference goes):
 * the rest of its slot's mappings go, the slot is free again.
 */
void asmc_lgr_slot_release(struct asmc_link *lnk)
{
	struct asmc_lgr *lgr = lnk->lgr;
	struct asmc_buf *buf;

	if (!lnk->slot_held)
		return;
	mutex_lock(&lgr->mutex);
	list_for_each_entry(buf, &lgr->bufs, lgr_node)
		asmc_buf_unmap_slot(buf, lnk->slot);
	lgr->slots_dying &= ~BIT(lnk->slot);
	lnk->slot_held = false;
	asmc_obj_destroyed(ASMC_OBJ_SLOT, lnk);
	if (lgr->terminating)
		asmc_lgr_free_unused(lgr);
	mutex_unlock(&lgr->mutex);
}

/* Free what the group holds on the RDMA devices: MRs, DMA mappings, the
 * links' QPs and CQs, and with them the device references. Memory still
 * in use by connections stays until they let go.
 *
 * The links are destroyed outside lgr->mutex: a device may take long to
 * let go of a QP (rxe waits up to 50 s for packets it still has in
 * flight), and connections that leave meanwhile take the mutex to give
 * their buffers back. Once unpublished, nobody else reaches a link
 * through the group, and no buffer gets mapped on it any more. With
 * @may_defer (the caller holds a group reference), a link whose port is
 * down goes later, from asmc_link_reap(), instead of blocking here.
 */
static void asmc_lgr_release_hw(struct asmc_lgr *lgr, bool may_defer)
{
	struct asmc_link *gone[ASMC_LINKS_MAX] = {};
	int i, n = 0;

	/* after any flow that adds or moves links: they hold buffers and
	 * links without lgr->mutex (their waits end once links are down)
	 */
	down_write(&lgr->rkey_rwsem);
	mutex_lock(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		if (!lgr->links[i])
			continue;
		gone[n++] = lgr->links[i];
		asmc_lgr_link_leave(lgr, gone[n - 1]);
		list_add(&gone[n - 1]->retired_node, &lgr->retired);
	}
	if (n)
		lgr->hw_releasing = true;
	mutex_unlock(&lgr->mutex);
	up_write(&lgr->rkey_rwsem);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (may_defer && asmc_link_reap_wanted(gone[i]))
			asmc_link_reap(gone[i]);
		else
			asmc_link_destroy(gone[i]);
	}
	mutex_lock(&lgr->mutex);
	lgr->hw_releasing = false;
	asmc_lgr_free_unused(lgr);
	mutex_unlock(&lgr->mutex);
}

static void asmc_lgr_release(struct kref *ref)
{
	struct asmc_lgr *lgr = container_of(ref, struct asmc_lgr, ref);
	struct asmc_link *lnk, *ltmp;
	struct asmc_buf *buf, *tmp;

	WARN_ON_ONCE(lgr->conns_num);
	asmc_lgr_release_hw(lgr, false);
	list_for_each_entry_safe(lnk, ltmp, &lgr->retired, retired_node)
		kfree(lnk);
	mutex_lock(&lgr->mutex);
	list_for_each_entry_safe(buf, tmp, &lgr->bufs, lgr_node)
		asmc_buf_free(lgr, buf);
	mutex_unlock(&lgr->mutex);
	spin_lock_bh(&asmc_lgr_all_lock);
	list_del(&lgr->all_node);
	spin_unlock_bh(&asmc_lgr_all_lock);
	xa_destroy(&lgr->conns);
	ida_free(&asmc_lgr_ids, lgr->id);
	put_net(lgr->net);
	kfree(lgr->rtoks);
	asmc_obj_destroyed(ASMC_OBJ_LGR, lgr);
	kfree(lgr);
}

/* Must not be called from atomic context: the last put frees QP and MRs. */
void asmc_lgr_put(struct asmc_lgr *lgr)
{
	might_sleep();
	kref_put(&lgr->ref, asmc_lgr_release);
}

static void asmc_lgr_unhash(struct asmc_lgr *lgr)
{
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(lgr->peer_id, lgr->role);

	lockdep_assert_held(&b->mutex);
	if (!lgr->hashed)
		return;
	hlist_del(&lgr->hnode);
	lgr->hashed = false;
	asmc_lgr_put(lgr);	/* the hash table's reference */
}

/* The active link with the fewest connections (lgr->mutex held). */
struct asmc_link *asmc_lgr_pick_link(struct asmc_lgr *lgr)
{
	struct asmc_link *lnk, *best = NULL;
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		lnk = lgr->links[i];
		if (lnk && READ_ONCE(lnk->state) == ASMC_LNK_ACTIVE &&
		    (!best || lnk->conns < best->conns))
			best = lnk;
	}
	return best;
}

/* Move the connection's count from one link to another. */
static void asmc_lgr_conn_link(struct asmc_conn *conn, struct asmc_link *lnk)
{
	lockdep_assert_held(&conn->lgr->mutex);
	if (conn->link)
		conn->link->conns--;
	conn->link = lnk;
	if (lnk)
		lnk->conns++;
}

/* Register @smc in @lgr with a new alert token, on @lnk; lgr->mutex held. */
static int asmc_lgr_add_conn(struct asmc_lgr *lgr, struct asmc_sock *smc,
			     struct asmc_link *lnk)
{
	u32 token;
	int rc;

	lockdep_assert_held(&lgr->mutex);
	if (lgr->terminating)
		return -ENOLINK;
	if (lgr->conns_num + lgr->quarantined >= lgr->max_conns)
		return -EBUSY;
	rc = xa_alloc_cyclic(&lgr->conns, &token, smc, xa_limit_32b,
			     &lgr->next_token, GFP_KERNEL);
	if (rc < 0)
		return rc;
	smc->conn.token = token;
	smc->conn.lgr = lgr;
	smc->conn.link = NULL;
	smc->conn.peer_rtok = -1;
	asmc_lgr_conn_link(&smc->conn, lnk);
	lgr->conns_num++;
	kref_get(&lgr->ref);
	if (cancel_delayed_work(&lgr->free_work))
		kref_put(&lgr->ref, asmc_lgr_release);	/* not the last */
	return 0;
}

/* The connection leaves its link group; the group expires when idle. */
void asmc_lgr_del_conn(struct asmc_sock *smc)
{
	struct asmc_lgr *lgr = smc->conn.lgr;
	bool idle;

	if (!lgr)
		return;
	mutex_lock(&lgr->mutex);
	xa_erase(&lgr->conns, smc->conn.token);
	asmc_lgr_conn_link(&smc->conn, NULL);
	lgr->conns_num--;
	idle = !lgr->conns_num && !lgr->terminating;
	if (idle) {
		/* the queued expiry holds a reference of its own */
		kref_get(&lgr->ref);
		if (!queue_delayed_work(asmc_wq, &lgr->free_work,
					lgr->role == ASMC_ROLE_SERVER ?
					ASMC_LGR_IDLE_SERVER :
					ASMC_LGR_IDLE_CLIENT))
			kref_put(&lgr->ref, asmc_lgr_release);
	}
	mutex_unlock(&lgr->mutex);
	smc->conn.lgr = NULL;
	smc->conn.link = NULL;
	asmc_lgr_put(lgr);
}

/* The connection is done with its group: buffers back to the pool, then
 * out of the group.
 */
void asmc_lgr_leave(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	if (!conn->lgr)
		return;
	asmc_buf_put(conn->lgr, conn->rmb);
	asmc_buf_put(conn->lgr, conn->sndbuf);
	conn->rmb = NULL;
	conn->sndbuf = NULL;
	asmc_lgr_del_conn(smc);
}

/* Look up the connection for a received CDC's token, with a reference
 * (the socket is freed after an RCU grace period: SOCK_RCU_FREE).
 */
struct asmc_sock *asmc_lgr_find_conn(struct asmc_lgr *lgr, u32 token)
{
	struct asmc_sock *smc;

	rcu_read_lock();
	smc = xa_load(&lgr->conns, token);
	if (smc && !refcount_inc_not_zero(&smc->sk.sk_refcnt))
		smc = NULL;
	rcu_read_unlock();
	return smc;
}

static bool asmc_lgr_usable(struct asmc_lgr *lgr)
{
	return !lgr->terminating && asmc_lgr_pick_link(lgr) &&
	       lgr->conns_num + lgr->quarantined < lgr->max_conns;
}

/* Does @lnk lead to the peer port @gid (v1: and @mac)? */
static bool asmc_link_to_port(struct asmc_link *lnk, const u8 *gid,
			      const u8 *mac)
{
	return lnk && !memcmp(lnk->peer_gid, gid, 16) &&
	       (lnk->lgr->smc_version >= 2 ||
		ether_addr_equal(lnk->peer_mac, mac));
}

/* Server: does a link of the group join our device @dev with the peer
 * port @gid (v1: and @mac), the one the client proposes? lgr->mutex held.
 */
static bool asmc_lgr_serves(struct asmc_lgr *lgr, const u8 *gid,
			    const u8 *mac, const struct asmc_ibdev *dev)
{
	struct asmc_link *lnk;
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		lnk = lgr->links[i];
		if (asmc_link_to_port(lnk, gid, mac) && lnk->sel.dev == dev &&
		    READ_ONCE(lnk->state) == ASMC_LNK_ACTIVE)
			return true;
	}
	return false;
}

/* Client: the active link whose server QP the Accept names. */
static struct asmc_link *asmc_lgr_link_by_peer(struct asmc_lgr *lgr,
					       u32 peer_qpn, const u8 *gid,
					       const u8 *mac)
{
	struct asmc_link *lnk;
	int i;

	lockdep_assert_held(&lgr->mutex);
	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		lnk = lgr->links[i];
		if (asmc_link_to_port(lnk, gid, mac) &&
		    lnk->peer_qpn == peer_qpn &&
		    READ_ONCE(lnk->state) == ASMC_LNK_ACTIVE)
			return lnk;
	}
	return NULL;
}

/* Server: reuse a group with this client (same peer ID, same peer GID on
 * its link, v1 also MAC, and version), or build a new one (first contact).
 * For a first contact the bucket stays locked until asmc_lgr_setup_done().
 */
int asmc_lgr_server_attach(struct asmc_sock *smc, const u8 *peer_id,
			   const u8 *peer_gid, const u8 *peer_mac, u8 version,
			   struct asmc_ibsel *sel, struct asmc_lgr_ref *ref)
{
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(peer_id,
						    ASMC_ROLE_SERVER);
	struct net *net = sock_net(&smc->sk);
	struct asmc_lgr *lgr;
	int rc;

	memset(ref, 0, sizeof(*ref));
	mutex_lock(&b->mutex);
	hlist_for_each_entry(lgr, &b->head, hnode) {
		if (!net_eq(lgr->net, net) || lgr->role != ASMC_ROLE_SERVER ||
		    lgr->smc_version != version ||
		    memcmp(lgr->peer_id, peer_id, 8))
			continue;
		mutex_lock(&lgr->mutex);
		rc = -EBUSY;
		if (asmc_lgr_serves(lgr, peer_gid, peer_mac, sel->dev) &&
		    asmc_lgr_usable(lgr))
			rc = asmc_lgr_add_conn(lgr, smc,
					       asmc_lgr_pick_link(lgr));
		if (!rc)
			ref->link = smc->conn.link;
		mutex_unlock(&lgr->mutex);
		if (!rc) {
			mutex_unlock(&b->mutex);
			ref->lgr = lgr;
			return 0;
		}
	}
	rc = asmc_lgr_create(smc, ASMC_ROLE_SERVER, version, peer_id, sel,
			     ref);
	if (rc)
		mutex_unlock(&b->mutex);
	return rc;	/* first contact: the bucket stays locked */
}

/* Client: a first contact builds a new group; otherwise the Accept names
 * the server's link (QP number and GID, v1 also MAC) of a group we must
 * already have. -ENOENT then means the peers are out of sync.
 */
int asmc_lgr_client_attach(struct asmc_sock *smc, const u8 *peer_id,
			   const u8 *peer_gid, const u8 *peer_mac,
			   u32 peer_qpn, u8 version,
			   bool first_contact, struct asmc_ibsel *sel,
			   struct asmc_lgr_ref *ref)
{
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(peer_id,
						    ASMC_ROLE_CLIENT);
	struct net *net = sock_net(&smc->sk);
	struct asmc_lgr *lgr;
	int rc = -ENOENT;

	memset(ref, 0, sizeof(*ref));
	mutex_lock(&b->mutex);
	if (first_contact) {
		rc = asmc_lgr_create(smc, ASMC_ROLE_CLIENT, version, peer_id,
				     sel, ref);
		if (rc)
			mutex_unlock(&b->mutex);
		return rc;
	}
	hlist_for_each_entry(lgr, &b->head, hnode) {
		struct asmc_link *lnk;

		if (!net_eq(lgr->net, net) || lgr->role != ASMC_ROLE_CLIENT ||
		    lgr->smc_version != version ||
		    memcmp(lgr->peer_id, peer_id, 8))
			continue;
		mutex_lock(&lgr->mutex);
		lnk = asmc_lgr_link_by_peer(lgr, peer_qpn, peer_gid, peer_mac);
		rc = -ENOENT;
		if (lnk && asmc_lgr_usable(lgr))
			rc = asmc_lgr_add_conn(lgr, smc, lnk);
		mutex_unlock(&lgr->mutex);
		if (!lnk)
			continue;
		if (!rc) {
			ref->lgr = lgr;
			ref->link = lnk;
		}
		break;
	}
	mutex_unlock(&b->mutex);
	return rc;
}

/* New group with its first link (QP in INIT), hashed, @smc registered.
 * Caller holds the bucket mutex.
 */
static int asmc_lgr_create(struct asmc_sock *smc, u8 role, u8 version,
		    const u8 *peer_id, struct asmc_ibsel *sel,
		    struct asmc_lgr_ref *ref)
{
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(peer_id, role);
	struct asmc_lgr *lgr;
	int rc;

	lockdep_assert_held(&b->mutex);
	lgr = asmc_lgr_new(sock_net(&smc->sk), role, version, peer_id);
	if (!lgr)
		return -ENOMEM;
	rc = asmc_link_create(lgr->links[0], sel, version >= 2);
	if (rc) {
		/* the link freed what it had; do not destroy it twice */
		struct asmc_link *lnk = lgr->links[0];

		mutex_lock(&lgr->mutex);
		asmc_lgr_unpublish_link(lgr, lnk);
		mutex_unlock(&lgr->mutex);
		kfree(lnk);
		asmc_lgr_put(lgr);
		return rc;
	}
	lgr->links[0]->link_id = 1;
	get_random_bytes(&lgr->links[0]->link_uid, 4);
	mutex_lock(&lgr->mutex);
	rc = asmc_lgr_add_conn(lgr, smc, lgr->links[0]);
	mutex_unlock(&lgr->mutex);
	if (rc) {
		asmc_lgr_put(lgr);
		return rc;
	}
	hlist_add_head(&lgr->hnode, &b->head);
	lgr->hashed = true;	/* owns the initial reference */
	ref->lgr = lgr;
	ref->link = lgr->links[0];
	ref->first_contact = true;
	return 0;
}

/* The group is terminating: no link is to be added any more. The caller
 * holds a reference of its own.
 */
void asmc_lgr_cancel_add(struct asmc_lgr *lgr)
{
	if (cancel_delayed_work(&lgr->add_link_work))
		kref_put(&lgr->ref, asmc_lgr_release);	/* not the last */
}

/* End of a first contact: unlock the peer's bucket; on failure the new
 * group goes away (the connection was detached by the caller).
 */
void asmc_lgr_setup_done(struct asmc_lgr_ref *ref, bool ok)
{
	struct asmc_lgr *lgr = ref->lgr;
	struct asmc_lgr_bucket *b;
	bool put = false;

	if (!ref->first_contact || !lgr)
		return;
	b = asmc_lgr_bucket(lgr->peer_id, lgr->role);
	lockdep_assert_held(&b->mutex);
	if (!ok) {
		/* nothing will reuse it: free it now, not after the idle
		 * delay its last connection's leaving queued. The reference
		 * taken here becomes the work's if none was queued.
		 */
		kref_get(&lgr->ref);
		mutex_lock(&lgr->mutex);
		lgr->terminating = true;
		mutex_unlock(&lgr->mutex);
		asmc_lgr_cancel_add(lgr);
		asmc_lgr_unhash(lgr);
		put = mod_delayed_work(asmc_wq, &lgr->free_work, 0);
	}
	mutex_unlock(&b->mutex);
	ref->first_contact = false;
	if (put)	/* the queued work had a reference of its own */
		asmc_lgr_put(lgr);
}

/* Abort every connection, take the group out of the hash, free it when
 * the last connection lets go. Process context.
 */
void asmc_lgr_terminate(struct asmc_lgr *lgr, int err)
{
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(lgr->peer_id, lgr->role);
	struct asmc_sock *smc;
	unsigned long token;

	mutex_lock(&b->mutex);
	mutex_lock(&lgr->mutex);
	lgr->terminating = true;
	mutex_unlock(&lgr->mutex);
	asmc_lgr_cancel_add(lgr);
	kref_get(&lgr->ref);
	if (cancel_delayed_work(&lgr->free_work))
		kref_put(&lgr->ref, asmc_lgr_release);	/* not the last */
	asmc_lgr_unhash(lgr);
	mutex_unlock(&b->mutex);

	asmc_lgr_links_down(lgr);
	xa_for_each(&lgr->conns, token, smc) {
		if (!refcount_inc_not_zero(&smc->sk.sk_refcnt))
			continue;
		asmc_conn_abort(smc, err);
		sock_put(&smc->sk);
	}
	/* connections no longer use the link: free the device resources
	 * now, whatever the applications still hold
	 */
	asmc_lgr_release_hw(lgr, true);
	asmc_lgr_put(lgr);
}

static void asmc_lgr_terminate_work(struct work_struct *work)
{
	struct asmc_lgr *lgr = container_of(work, struct asmc_lgr,
					    terminate_work);

	asmc_lgr_terminate(lgr, ECONNRESET);
	asmc_lgr_put(lgr);	/* taken when the work was queued */
}

/* The group ends soon, from a work. Any context. */
void asmc_lgr_terminate_sched(struct asmc_lgr *lgr)
{
	if (!lgr || !kref_get_unless_zero(&lgr->ref))
		return;
	if (!queue_work(asmc_wq, &lgr->terminate_work))
		kref_put(&lgr->ref, asmc_lgr_release);	/* cannot be last */
}

/* Every link of the group goes down (the group ends). */
void asmc_lgr_links_down(struct asmc_lgr *lgr)
{
	struct asmc_link *lnk;
	int i;

	for (i = 0; i < ASMC_LINKS_MAX; i++) {
		mutex_lock(&lgr->mutex);
		lnk = lgr->links[i];
		mutex_unlock(&lgr->mutex);
		/* unpublished links stay allocated with the group */
		if (lnk)
			asmc_link_error(lnk);
	}
}

/* The slot of the group's link @link_id, -ENOENT if none (any context). */
int asmc_lgr_slot_of(struct asmc_lgr *lgr, u8 link_id)
{
	int i, slot = -ENOENT;

	spin_lock_bh(&asmc_lgr_all_lock);
	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (lgr->links[i] && lgr->links[i]->link_id == link_id)
			slot = i;
	spin_unlock_bh(&asmc_lgr_all_lock);
	return slot;
}

/* A link failed (completion error, peer gone, DELETE_LINK): its
 * connections move to another link of the group, or, with none left, the
 * whole group ends (asmc_lgr_failover_work). Any context.
 */
void asmc_lgr_link_down(struct asmc_link *lnk)
{
	struct asmc_lgr *lgr = lnk->lgr;

	if (!kref_get_unless_zero(&lgr->ref))
		return;
	if (!queue_work(asmc_hs_wq, &lgr->failover_work))
		kref_put(&lgr->ref, asmc_lgr_release);	/* cannot be last */
}

/* Idle for the whole delay: say goodbye orderly, then free. */
static void asmc_lgr_free_work(struct work_struct *work)
{
	struct asmc_lgr *lgr = container_of(to_delayed_work(work),
					    struct asmc_lgr, free_work);
	struct asmc_lgr_bucket *b = asmc_lgr_bucket(lgr->peer_id, lgr->role);
	bool idle;

	mutex_lock(&b->mutex);
	mutex_lock(&lgr->mutex);
	idle = !lgr->conns_num && !lgr->terminating;
	if (idle)
		lgr->terminating = true;
	mutex_unlock(&lgr->mutex);
	if (idle) {
		asmc_lgr_cancel_add(lgr);
		asmc_lgr_unhash(lgr);
	}
	mutex_unlock(&b->mutex);
	if (idle) {
		struct asmc_link *lnk;

		pr_debug("lgr %u idle: freed\n", lgr->id);
		mutex_lock(&lgr->mutex);
		lnk = asmc_lgr_pick_link(lgr);
		mutex_unlock(&lgr->mutex);
		/* the group no longer changes links: it is terminating */
		if (lnk)
			asmc_llc_send_delete_all(lnk,
						 ASMC_LLC_DEL_PROG_INIT_TERM);
	}
	asmc_lgr_put(lgr);	/* the queued work's reference */
}

static const char *asmc_link_state_name(const struct asmc_link *lnk)
{
	switch (READ_ONCE(lnk->state)) {
	case ASMC_LNK_ACTIVE:
		return "active";
	case ASMC_LNK_DOWN:
		return "down";
	default:
		return "setup";
	}
}

/* debugfs "lgrs": one line per link group; its first link (the one with
 * the lowest slot) as "link", every link after "links".
 */
void asmc_lgr_show(struct seq_file *m)
{
	const struct asmc_link *lnk, *first;
	struct asmc_lgr *lgr;
	int i, conns;

	spin_lock_bh(&asmc_lgr_all_lock);
	list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
		first = NULL;
		for (i = 0; i < ASMC_LINKS_MAX && !first; i++)
			first = lgr->links[i];
		seq_printf(m, "lgr %u role %s v%u conns %d refs %u%s%s%s link %s wr %u/%u rkeys %d quarantined %d links",
			   lgr->id, lgr->role == ASMC_ROLE_SERVER ? "server" :
			   "client", lgr->smc_version, lgr->conns_num,
			   kref_read(&lgr->ref), lgr->hashed ? " hashed" : "",
			   lgr->terminating ? " terminating" : "",
			   delayed_work_pending(&lgr->free_work) ?
			   " expiring" : "",
			   first ? asmc_link_state_name(first) : "none",
			   first ? first->tx_slots : 0,
			   first ? first->rx_num : 0,
			   /* a glance for tests, lgr->mutex not taken */
			   data_race(lgr->rkeys_known),
			   data_race(lgr->quarantined));
		for (i = 0; i < ASMC_LINKS_MAX; i++) {
			lnk = lgr->links[i];
			if (!lnk)
				continue;
			/* a glance, lgr->mutex not taken */
			conns = data_race(lnk->conns);
			seq_printf(m, " %u:%s:%s:%d", lnk->link_id,
				   lnk->sel.dev ?
				   dev_name(&lnk->sel.dev->ibdev->dev) : "-",
				   asmc_link_state_name(lnk), conns);
		}
		/* a glance, lgr->mutex not taken */
		seq_printf(m, " retired %d\n", data_race(lgr->retired_num));
	}
	spin_unlock_bh(&asmc_lgr_all_lock);
}

/* For dumps: a reference to the @n-th (from 0) link group of @net, or
 * NULL past the last; groups already being freed are not counted.
 * Release it with asmc_lgr_put().
 */
struct asmc_lgr *asmc_lgr_get_nth(struct net *net, unsigned long n)
{
	struct asmc_lgr *lgr, *found = NULL;

	spin_lock_bh(&asmc_lgr_all_lock);
	list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
		if (!net_eq(lgr->net, net) || !kref_read(&lgr->ref) || n--)
			continue;
		if (kref_get_unless_zero(&lgr->ref))
			found = lgr;
		break;
	}
	spin_unlock_bh(&asmc_lgr_all_lock);
	return found;
}

/* Links (of any namespace) on port @port of @dev that are not down. */
u32 asmc_lgr_links_on(const struct asmc_ibdev *dev, u8 port)
{
	struct asmc_link *lnk;
	struct asmc_lgr *lgr;
	u32 n = 0;

	int i;

	spin_lock_bh(&asmc_lgr_all_lock);
	list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
		for (i = 0; i < ASMC_LINKS_MAX; i++) {
			lnk = lgr->links[i];
			if (lnk && asmc_ibsel_on(&lnk->sel, dev, port) &&
			    READ_ONCE(lnk->state) != ASMC_LNK_DOWN)
				n++;
		}
	}
	spin_unlock_bh(&asmc_lgr_all_lock);
	return n;
}

/* Port @port of @dev went down: a link on it whose group has an active
 * link on another port fails now, so that its connections move at once.
 * A group with no link elsewhere waits for its keepalive: the port may
 * come back before the peer gives up, and the connections survive a short
 * flap.
 */
void asmc_lgr_port_down(const struct asmc_ibdev *dev, u8 port)
{
	struct asmc_link *lnk, *other;
	struct asmc_lgr *lgr;
	int i, j;

	spin_lock_bh(&asmc_lgr_all_lock);
	list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
		for (i = 0; i < ASMC_LINKS_MAX; i++) {
			lnk = lgr->links[i];
			if (!lnk || !asmc_ibsel_on(&lnk->sel, dev, port) ||
			    READ_ONCE(lnk->state) != ASMC_LNK_ACTIVE)
				continue;
			for (j = 0; j < ASMC_LINKS_MAX; j++) {
				other = lgr->links[j];
				/* one on another port (an asymmetric group may
				 * have both links on this one)
				 */
				if (other && other != lnk &&
				    !asmc_ibsel_on(&other->sel, dev, port) &&
				    READ_ONCE(other->state) == ASMC_LNK_ACTIVE)
					break;
			}
			if (j < ASMC_LINKS_MAX) {
				pr_debug("lgr %u: port %u of %s down: link %u fails over\n",
					 lgr->id, port,
					 dev_name(&dev->ibdev->dev), lnk->link_id);
				asmc_link_error(lnk);
			}
		}
	}
	spin_unlock_bh(&asmc_lgr_all_lock);
}

/* A port of ours came up or its GIDs changed: every group looks for a
 * second link (server) or asks for one (client) where it would take one.
 * Process context: the lock is let go for each group, which our
 * reference keeps on the list (it leaves it when freed).
 */
void asmc_lgr_ports_up(void)
{
	struct asmc_lgr *lgr, *prev = NULL;

	spin_lock_bh(&asmc_lgr_all_lock);
	list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
		if (!kref_get_unless_zero(&lgr->ref))
			continue;
		spin_unlock_bh(&asmc_lgr_all_lock);
		if (prev)
			asmc_lgr_put(prev);
		asmc_lgr_link_soon(lgr);
		prev = lgr;
		spin_lock_bh(&asmc_lgr_all_lock);
	}
	spin_unlock_bh(&asmc_lgr_all_lock);
	if (prev)
		asmc_lgr_put(prev);
}

/* Free idle groups now (debugfs "flush_idle"), for tests. */
void asmc_lgr_flush_idle(void)
{
	struct asmc_lgr *lgr, *last;

	do {
		last = NULL;
		spin_lock_bh(&asmc_lgr_all_lock);
		list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
			if (!delayed_work_pending(&lgr->free_work) ||
			    !kref_get_unless_zero(&lgr->ref))
				continue;
			/* pending: it has its reference already; ours is the
			 * last one only when the work ran or a termination
			 * cancelled it meanwhile: never free under the lock
			 */
			if (mod_delayed_work(asmc_wq, &lgr->free_work, 0) &&
			    !refcount_dec_not_one(&lgr->ref.refcount)) {
				last = lgr;
				break;
			}
		}
		spin_unlock_bh(&asmc_lgr_all_lock);
		if (last)
			asmc_lgr_put(last);
	} while (last);
	flush_workqueue(asmc_wq);
}

/* A link of @lgr on @dev, not yet taken off it (asmc_lgr_all_lock). */
static bool asmc_lgr_uses_dev(struct asmc_lgr *lgr,
			      const struct asmc_ibdev *dev)
{
	int i;

	for (i = 0; i < ASMC_LINKS_MAX; i++)
		if (lgr->links[i] && lgr->links[i]->sel.dev == dev)
			return true;
	return false;
}

/* The RDMA device goes away: every link on it goes. A group with another
 * link keeps its connections there; the others end. When this returns,
 * no link holds the device any more.
 */
void asmc_lgr_ibdev_gone(struct asmc_ibdev *dev)
{
	struct asmc_lgr *lgr, *victim;

	for (;;) {
		victim = NULL;
		spin_lock_bh(&asmc_lgr_all_lock);
		list_for_each_entry(lgr, &asmc_lgr_all, all_node) {
			if (asmc_lgr_uses_dev(lgr, dev) &&
			    !READ_ONCE(lgr->terminating) &&
			    kref_get_unless_zero(&lgr->ref)) {
				victim = lgr;
				break;
			}
		}
		spin_unlock_bh(&asmc_lgr_all_lock);
		if (!victim)
			break;
		asmc_lgr_drop_dev(victim, dev);
		asmc_lgr_put(victim);
	}
	flush_workqueue(asmc_wq);
}

int asmc_lgr_init(void)
{
	int r, i;

	asmc_buf_limit = (totalram_pages() << PAGE_SHIFT) / 16;

	for (r = 0; r < ARRAY_SIZE(asmc_lgr_hash); r++) {
		for (i = 0; i < ARRAY_SIZE(asmc_lgr_hash[r]); i++) {
			mutex_init(&asmc_lgr_hash[r][i].mutex);
			INIT_HLIST_HEAD(&asmc_lgr_hash[r][i].head);
		}
	}
	return 0;
}

/* Module exit: every socket is gone, so only idle groups remain. */
void asmc_lgr_exit(void)
{
	asmc_lgr_flush_idle();
}
