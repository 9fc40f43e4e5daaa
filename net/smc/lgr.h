/* SPDX-License-Identifier: GPL-2.0 */
/* Link groups and links: the RDMA connections to one peer that SMC-R
 * connections share, their buffers (RMBs, send buffers) and life cycle.
 */
#ifndef ASMC_LGR_H
#define ASMC_LGR_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include "ib.h"
#include "wr.h"

/* link slots of a group (lgr->links[]); we build at most
 * ASMC_LINKS_USED links, one per local RoCE port that reaches the peer
 */
#define ASMC_LINKS_MAX		3
#define ASMC_LINKS_USED		2
/* links a group may have lost and replaced before it stops adding any:
 * their structs stay until the group goes (connections may still point
 * at them while they are being moved)
 */
#define ASMC_LINKS_RETIRED_MAX	8
/* server: after a link was lost, look for another one this much later,
 * and again after ASMC_LINK_RETRY_DELAY while none is found
 */
#define ASMC_LINK_READD_DELAY	(10 * HZ)
/* A failed-over link's QP waits this long at most for its port to come
 * back before it is destroyed anyway, looking every ASMC_LINK_REAP_POLL
 */
#define ASMC_LINK_REAP_WAIT	(60 * HZ)
#define ASMC_LINK_REAP_POLL	(HZ / 5)
#define ASMC_LINK_RETRY_DELAY	(30 * HZ)
/* a port of ours came up: look (server) or ask (client) this much later,
 * once its GIDs have settled
 */
#define ASMC_LINK_PORTUP_DELAY	(HZ)
/* server: our ADD_LINK (or, with none to offer, the echo of the client's
 * REQUEST_ADD_LINK) waits this long after that request. Linux's 6.1
 * client marks its flow as waiting for the answer only after its request
 * went out: an ADD_LINK it handles in between ends that flow while its
 * handler still runs (the request is lost, or, seen once on PREEMPT_RT,
 * the handler runs without a message and oopses); an echo in between is
 * dropped and the flow waits on until an ADD_LINK comes.
 */
#define ASMC_LINK_ASKED_DELAY	(HZ / 5)
/* server: our first ADD_LINK (or offer of none) waits this long when the
 * first CONFIRM_LINK was answered only after we had sent it again. A
 * Linux 6.1 client that took both requests drops the second inside its
 * 2 s wait for our ADD_LINK, which ends that wait; it then waits 1 s for
 * a CLC Decline before its flow ends, and an ADD_LINK arriving meanwhile
 * is lost. One that had dropped the first still waits its 2 s: 1.5 s
 * falls after the one and within the other.
 */
#define ASMC_LINK_REPEAT_DELAY	(HZ * 3 / 2)
#define ASMC_CONNS_PER_LGR	255	/* most; net.smc.smcr_max_conns_per_lgr */
/* rkeys of our RMBs a peer keeps per link group (one per connection) */
#define ASMC_PEER_RKEYS_MAX	ASMC_CONNS_PER_LGR
#define ASMC_BUF_SIZES		6	/* 16 KiB .. 512 KiB */
/* what a connection without SO_RCVBUF/SO_SNDBUF gets instead of
 * net.smc.rmem/wmem while the module's buffers are over their budget
 * (asmc_buf_cap())
 */
#define ASMC_BUF_TIGHT		(64 * 1024)
/* this many RMBs quarantined in a group: it ends, which frees them */
#define ASMC_QUARANTINE_MAX	16
#define ASMC_LGR_IDLE_SERVER	(600 * HZ)
#define ASMC_LGR_IDLE_CLIENT	(610 * HZ)
#define ASMC_LLC_WAIT		(2 * HZ)	/* response to an LLC request */
/* CONFIRM_RKEY of a new connection: its answer queues behind the RDMA
 * writes already on the link's send queue (seconds on a loaded Soft-RoCE);
 * still inside the 6 s the peer gives the CLC message that follows
 */
#define ASMC_LLC_RKEY_WAIT	(5 * HZ)
#define ASMC_LLC_WAIT_FIRST	(4 * HZ)	/* client: first CONFIRM_LINK */
/* server: the answer to it, which the client sends after moving its QP to
 * RTS and registering its RMB (a registration it gives 5 s); Linux's 2 s
 * of other LLC answers were too short for its client on PREEMPT_RT
 */
#define ASMC_LLC_WAIT_FIRST_ANSWER	(5 * HZ)
/* ... and sends that request again when no answer came by then: Linux's
 * 6.1 client drops a CONFIRM_LINK request its LLC layer handles before
 * the client waits for it (seen on PREEMPT_RT: the request was delivered,
 * the client timed out and fell back). The repeat comes inside the 4 s
 * the client waits. A client that took the first drops the repeat (Linux's,
 * if it waits for our ADD_LINK by then, ends that wait early).
 */
#define ASMC_LLC_WAIT_FIRST_AGAIN	(5 * HZ / 2)
/* ADD_LINK: the client sets up a QP and maps every RMB before it answers */
#define ASMC_LLC_WAIT_ADD	(5 * HZ)
#define ASMC_REG_MR_WAIT	(5 * HZ)
#define ASMC_TX_SLOT_WAIT	(10 * HZ)
#define ASMC_DRAIN_WAIT		(5 * HZ)	/* flushed WRs after QP error */
#define ASMC_TESTLINK_TIME	(30 * HZ)	/* default: idle link TEST_LINK */
/* A send that wants an answer (data, an LLC request) and got nothing back
 * for this long, or sends in flight that saw no completion for this long,
 * send a TEST_LINK early: rxe retries a send to a dead peer forever, where
 * a hardware QP gives up after its retries (about 1 s).
 */
#define ASMC_LINK_PROBE		(5 * HZ)
/* A TEST_LINK fails the link when neither a message nor a send completion
 * came for this long after it (completions prove the peer acks our sends:
 * the answer may queue behind them on a slow link)
 */
#define ASMC_TESTLINK_WAIT	(4 * HZ)

struct asmc_lgr;
struct asmc_link;

enum asmc_link_state {
	ASMC_LNK_UNUSED,	/* being set up: QP brought up, CONFIRM_LINK
				 * running (reported as "activating")
				 */
	ASMC_LNK_ACTIVE,
	ASMC_LNK_DOWN,		/* QP in ERROR, being torn down */
};

/* An LLC message received while a local flow waits for it. */
struct asmc_llc_wait {
	u8			type;		/* message type expected */
	bool			resp;		/* a response, or a request */
	bool			done;
	u8			msg[ASMC_WR_MSG_LEN];
	struct list_head	node;		/* lnk->rkey_waiters */
	u32			rkey;		/* CONFIRM_RKEY: the one asked */
	/* a v2 ADD_LINK answer is wanted whole: copied to big (kmalloc'd,
	 * the waiter frees it)
	 */
	bool			want_big;
	u8			*big;
	u32			big_len;
};

/* A link: one RC QP between a local and a peer RoCE port.
 * state changes under lgr->mutex; tx slot bitmap is atomic; LLC waiters
 * under llc_lock (taken from softirq).
 */
struct asmc_link {
	struct asmc_lgr		*lgr;
	u8			slot;		/* in lgr->links[] */
	int			conns;		/* connections on it, under
						 * lgr->mutex
						 */
	struct list_head	retired_node;	/* lgr->retired, once down */
	bool			peer_deleted;	/* the peer's DELETE_LINK took
						 * it down: no need to tell it
						 */
	bool			activated;	/* was active: connections
						 * may point at it
						 */
	bool			slot_held;	/* left the group, its slot
						 * kept until the QP is gone
						 */
	/* asmc_link_quiesce() ran (once, by whoever takes the link down):
	 * keep_bufs: a sender still held a slot, the buffers stay
	 */
	bool			quiesced;
	bool			keep_bufs;
	/* taken down while its port was down: the QP and the rest go later,
	 * from a work that waits (not blocking a worker) while the port is
	 * down, at most until reap_by (asmc_link_reap_work())
	 */
	struct delayed_work	reap_work;
	unsigned long		reap_by;	/* jiffies */
	struct asmc_ibsel	sel;		/* device (ref), port, GID, MAC */
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_qp		*qp;
	u32			max_inline;
	enum asmc_link_state	state;
	u8			link_id;
	u32			link_uid;
	u32			psn;		/* our initial send PSN */
	u8			peer_gid[16];
	u8			peer_mac[ETH_ALEN];
	u32			peer_qpn;
	u32			peer_psn;
	u32			peer_link_uid;
	enum ib_mtu		path_mtu;
	bool			v2_direct;	/* no gateway: hop limit 1 */

	/* control traffic */
	u16			tx_slots;	/* net.smc.smcr_max_send_wr */
	u16			rx_num;		/* net.smc.smcr_max_recv_wr */
	u8			*tx_bufs;	/* tx_slots * slot size */
	u64			tx_dma;
	struct asmc_wr_tx	*tx;		/* tx_slots */
	unsigned long		*tx_busy;	/* bitmap of slots in use */
	wait_queue_head_t	tx_wait;	/* a slot became free */
	atomic_t		tx_inflight;	/* posted, not completed */
	/* connections whose data waits for the peer's window (their
	 * asmc_conn.tx_blocked, counted under each one's lock)
	 */
	atomic_t		tx_blocked_conns;
	atomic_t		tx_preparing;	/* slots taken, not yet posted */
	wait_queue_head_t	drained;	/* tx_inflight reached 0 */
	u8			*rx_bufs;	/* rx_num * slot size */
	u64			rx_dma;
	u8			*rx_spill;	/* v2: bytes 44.. of large msgs */
	u64			rx_spill_dma;
	struct asmc_wr_rx	*rx;		/* rx_num */
	atomic_t		rx_posted;

	/* memory registration (one at a time), on reg_qp if it exists */
	struct ib_qp		*reg_qp;
	struct ib_cq		*reg_cq;
	struct mutex		reg_mutex;
	struct ib_cqe		reg_cqe;
	struct completion	reg_done;
	int			reg_status;

	/* LLC */
	spinlock_t		llc_lock;
	struct asmc_llc_wait	*llc_waiter;	/* one local flow at a time */
	/* CONFIRM_RKEY flows run side by side, answers matched by rkey: a
	 * burst of new connections must not queue one round trip each
	 */
	struct list_head	rkey_waiters;	/* under llc_lock */
	wait_queue_head_t	llc_wq;
	struct mutex		llc_flow;	/* serializes local LLC flows */
	unsigned long		last_rx;	/* jiffies of last receive */
	unsigned long		last_ack;	/* jiffies of last good send
						 * completion
						 */
	unsigned long		tx_start;	/* jiffies: tx_inflight left 0 */
	/* jiffies (| 1) of the first send since the last receive that wants
	 * an answer; 0: none. Set by senders, cleared by receives; a race of
	 * the two costs at most one TEST_LINK or leaves one wait unwatched.
	 * (Data waiting for the peer's window counts as awaited from the
	 * last receive: tx_blocked_conns.)
	 */
	unsigned long		await_since;
	struct delayed_work	testlink_work;
	unsigned long		testlink_time;	/* jiffies, 0: none */
	struct work_struct	llc_rx_work;	/* requests from the peer */
	struct list_head	llc_rx_q;	/* under llc_lock */
	int			llc_rx_qlen;
	bool			llc_rx_busy;	/* the work answers one */
	/* a CONFIRM_LINK that came before the client waited for it; both
	 * under llc_lock
	 */
	bool			early_confirm;
	u8			early_msg[ASMC_WR_MSG_LEN];
	/* the keepalive work's own state (llc_keepalive.h): the answer
	 * to a TEST_LINK is any receive after test_sent (last_rx)
	 */
	bool			test_pending;
	bool			test_posted;	/* or wait for a free slot */
	unsigned long		test_sent;	/* jiffies, when pending */
};

/* A buffer as one link's device sees it. */
struct asmc_buf_map {
	struct ib_device	*ibdev;		/* mapped on it; NULL: not */
	struct scatterlist	sg;
	u64			dma_addr;
	struct ib_mr		*mr;		/* RMB only */
	bool			regd;		/* mr registered */
};

/* A registered buffer: RMB (peer writes into it) or send buffer. Mapped
 * on the device of every link of the group (map[] by link slot), changed
 * under lgr->mutex.
 */
struct asmc_buf {
	struct list_head	node;		/* lgr free list, when free */
	struct list_head	lgr_node;	/* lgr->bufs, always */
	void			*cpu;
	size_t			size;
	int			size_idx;	/* 0: 16 KiB .. 5: 512 KiB */
	bool			is_rmb;
	struct asmc_buf_map	map[ASMC_LINKS_MAX];
	/* RMB: the peer holds our rkey (announced by a CLC message or by
	 * CONFIRM_RKEY, no DELETE_RKEY since); kept while the buffer rests
	 * in the pool, so that reusing it costs no LLC round trip. Changed
	 * by the connection that owns the buffer, or under lgr->mutex while
	 * it is in the pool.
	 */
	bool			rkey_known;
};

/* One RMB of the peer: its rkey and address on each link (slot), as the
 * peer announced them (CLC messages, CONFIRM_RKEY, ADD_LINK). A
 * connection on another link after a failover finds its peer RMB here.
 */
struct asmc_rtoken {
	bool			used;
	u8			slots;		/* bit per link slot known */
	u32			rkey[ASMC_LINKS_MAX];
	u64			addr[ASMC_LINKS_MAX];
};

/* What a group's active links share; the numbers are those the netlink
 * dumps give user space as the group's type.
 */
enum asmc_lgr_type {
	ASMC_LGR_NONE,		/* no active link */
	ASMC_LGR_SINGLE,
	ASMC_LGR_SYM,		/* two links, on other ports at both ends */
	ASMC_LGR_ASYM_PEER,	/* two links to one port of the peer's */
	ASMC_LGR_ASYM_LOCAL,	/* two links on one port of ours */
};

/* A link group. Found through a hash bucket (per peer) whose mutex
 * serializes creation and reuse decisions for that peer only. The group
 * holds a reference for each connection and one while it is hashed.
 * mutex protects links, conns membership and the buffer lists.
 */
struct asmc_lgr {
	struct hlist_node	hnode;		/* bucket, under bucket mutex */
	struct list_head	all_node;	/* asmc_lgr_all, asmc_lgr_all_lock */
	struct kref		ref;
	struct net		*net;
	u32			id;
	u8			role;		/* ASMC_ROLE_* of the local side */
	u8			smc_version;	/* 1 or 2 */
	u8			peer_id[8];
	u8			peer_gid[16];	/* of the first link */
	u8			eid[32];	/* negotiated EID (v2) */
	u8			peer_os;
	u8			peer_release;	/* agreed v2 release */
	u8			max_links;	/* v2.1: agreed, else ours */
	char			peer_hostname[33];
	u16			vlan;
	bool			hashed;
	bool			terminating;
	bool			no_link_offered; /* or the peer refused one */
	/* client: bit 0 set when we refused an offer because its link was
	 * not active yet; whoever clears it asks for a link
	 */
	unsigned long		ask_when_active;
	/* a client asked for a link to this GID of its (REQUEST_ADD_LINK,
	 * v1 invite): our next offer prefers a port reaching it; ask_answer:
	 * a REQUEST_ADD_LINK waits for the offer or our echo. mutex.
	 */
	bool			ask_gid_set;
	bool			ask_answer;
	u8			ask_gid[16];
	int			down_err;	/* errno if links ending ends it */

	struct mutex		mutex;
	/* by slot; published and unpublished under lgr->mutex and
	 * asmc_lgr_all_lock (dump readers hold only the latter)
	 */
	struct asmc_link	*links[ASMC_LINKS_MAX];
	/* slots of links that left (asmc_lgr_link_leave) but whose QP is
	 * not destroyed yet: the send buffers stay mapped there, as the
	 * device may still read them for work already posted, and no new
	 * link takes the slot. Under mutex.
	 */
	u8			slots_dying;
	/* links taken down while connections may still point at them
	 * (conn->link): hardware gone, structs freed with the group, which
	 * every connection holds a reference on
	 */
	struct list_head	retired;
	int			retired_num;
	/* adding a link (write) against new RMBs whose rkeys the peer learns
	 * (read): every RMB the peer knows gets its rkey on the new link
	 */
	struct rw_semaphore	rkey_rwsem;
	/* server: look for a link; client: ask the server for one */
	struct delayed_work	add_link_work;
	struct work_struct	failover_work;	/* links went down */
	/* the peer's RMBs (ASMC_PEER_RKEYS_MAX), under rtok_lock (bh) */
	spinlock_t		rtok_lock;
	struct asmc_rtoken	*rtoks;
	/* retired is being destroyed (without lgr->mutex held). Buffers
	 * given back by connections of a terminating group before its QP is
	 * gone wait in unused_bufs (by their node): the device may still
	 * read them. Freed once the link is destroyed.
	 */
	bool			hw_releasing;
	struct list_head	unused_bufs;
	struct xarray		conns;		/* token -> struct asmc_sock */
	u32			next_token;
	int			conns_num;
	int			max_conns;	/* agreed (v2.1), else the
						 * server's sysctl at creation;
						 * set before the group is
						 * usable
						 */
	struct list_head	bufs;		/* every buffer of the group */
	int			rkeys_known;	/* RMBs with rkey_known */
	/* RMBs the peer may write into for a connection we dropped
	 * (asmc_buf_quarantine): on bufs only, freed with the group. Each
	 * takes a connection's place, so that the rkeys the peer holds
	 * stay within max_conns.
	 */
	int			quarantined;
	struct list_head	free_rmbs[ASMC_BUF_SIZES];
	struct list_head	free_sndbufs[ASMC_BUF_SIZES];
	struct delayed_work	free_work;	/* idle link group */
	struct work_struct	terminate_work;
};

/* Shared by the handshake code: what a connection got from its group. */
struct asmc_lgr_ref {
	struct asmc_lgr		*lgr;
	struct asmc_link	*link;
	bool			first_contact;
};

struct asmc_sock;
struct seq_file;

/* The links a buffer is mapped for: every link of the group that is not
 * down.
 */
static inline bool asmc_lgr_link_live(struct asmc_link *lnk)
{
	return lnk && READ_ONCE(lnk->state) != ASMC_LNK_DOWN;
}

/* The link waits for the peer from now on (unless it already did): with
 * nothing received for ASMC_LINK_PROBE, the keepalive asks by TEST_LINK.
 */
static inline void asmc_link_await(struct asmc_link *lnk)
{
	if (!READ_ONCE(lnk->await_since))
		WRITE_ONCE(lnk->await_since, jiffies | 1);
}

/* Ratelimited kernel log lines about one link, named the same way
 * everywhere (the selftests match the "link L of group G on DEV/PORT: "
 * prefix); @prfn is a pr_*_ratelimited.
 */
#define asmc_link_pr(prfn, lnk, fmt, ...)				\
	prfn("link %u of group %u on %s/%u: " fmt,			\
	     (lnk)->link_id, (lnk)->lgr->id,				\
	     dev_name(&(lnk)->sel.dev->ibdev->dev),			\
	     (lnk)->sel.port, ##__VA_ARGS__)
#define asmc_link_warn(lnk, fmt, ...)					\
	asmc_link_pr(pr_warn_ratelimited, lnk, fmt, ##__VA_ARGS__)
#define asmc_link_info(lnk, fmt, ...)					\
	asmc_link_pr(pr_info_ratelimited, lnk, fmt, ##__VA_ARGS__)

/* lgr.c */
int asmc_lgr_init(void);
void asmc_lgr_exit(void);
void asmc_lgr_put(struct asmc_lgr *lgr);
void asmc_lgr_ibdev_gone(struct asmc_ibdev *dev);
void asmc_lgr_flush_idle(void);
void asmc_lgr_show(struct seq_file *m);
struct asmc_lgr *asmc_lgr_get_nth(struct net *net, unsigned long n);
u32 asmc_lgr_links_on(const struct asmc_ibdev *dev, u8 port);
void asmc_lgr_port_down(const struct asmc_ibdev *dev, u8 port);
void asmc_lgr_ports_up(void);
void asmc_lgr_cancel_add(struct asmc_lgr *lgr);
void asmc_lgr_link_soon(struct asmc_lgr *lgr);
void asmc_lgr_link_asked(struct asmc_lgr *lgr, const u8 *gid, bool answer);
void asmc_lgr_link_down(struct asmc_link *lnk);
/* group internals for link.c (redundancy, failover) */
void asmc_lgr_terminate(struct asmc_lgr *lgr, int err);
void asmc_lgr_terminate_sched(struct asmc_lgr *lgr);
void asmc_lgr_publish_link(struct asmc_lgr *lgr, struct asmc_link *lnk);
void asmc_lgr_unpublish_link(struct asmc_lgr *lgr, struct asmc_link *lnk);
void asmc_lgr_link_leave(struct asmc_lgr *lgr, struct asmc_link *lnk);
void asmc_lgr_slot_release(struct asmc_link *lnk);
int asmc_buf_map_link(struct asmc_buf *buf, struct asmc_link *lnk);
struct asmc_link *asmc_lgr_pick_link(struct asmc_lgr *lgr);
void asmc_lgr_want_link(struct asmc_lgr *lgr, unsigned long delay);
bool asmc_lgr_link_wanted(struct asmc_lgr *lgr);
enum asmc_lgr_type asmc_lgr_type(struct asmc_lgr *lgr);
int asmc_lgr_link_sels(struct asmc_lgr *lgr, const struct asmc_ibsel **sel);
struct asmc_link *asmc_lgr_link_alloc(struct asmc_lgr *lgr, u8 link_id);
int asmc_lgr_link_attach(struct asmc_lgr *lgr, struct asmc_link *lnk);
void asmc_lgr_link_retire(struct asmc_lgr *lgr, struct asmc_link *lnk);
bool asmc_link_reap_wanted(struct asmc_link *lnk);
void asmc_link_reap(struct asmc_link *lnk);
struct asmc_link *asmc_lgr_link_by_id(struct asmc_lgr *lgr, u8 link_id);
int asmc_lgr_slot_of(struct asmc_lgr *lgr, u8 link_id);
void asmc_lgr_links_down(struct asmc_lgr *lgr);
int asmc_rtok_add(struct asmc_lgr *lgr, int slot, u32 rkey, u64 addr);
void asmc_rtok_set(struct asmc_lgr *lgr, int idx, int slot, u32 rkey,
		   u64 addr);
bool asmc_rtok_extend(struct asmc_lgr *lgr, int from_slot, u32 rkey,
		      int slot, u32 new_rkey, u64 new_addr);
bool asmc_rtok_del(struct asmc_lgr *lgr, int slot, u32 rkey);
bool asmc_rtok_get(struct asmc_lgr *lgr, int idx, int slot, u32 *rkey,
		   u64 *addr);
int asmc_lgr_server_attach(struct asmc_sock *smc, const u8 *peer_id,
			   const u8 *peer_gid, const u8 *peer_mac, u8 version,
			   struct asmc_ibsel *sel, struct asmc_lgr_ref *ref);
int asmc_lgr_client_attach(struct asmc_sock *smc, const u8 *peer_id,
			   const u8 *peer_gid, const u8 *peer_mac,
			   u32 peer_qpn, u8 version,
			   bool first_contact, struct asmc_ibsel *sel,
			   struct asmc_lgr_ref *ref);
void asmc_lgr_setup_done(struct asmc_lgr_ref *ref, bool ok);
void asmc_lgr_del_conn(struct asmc_sock *smc);
void asmc_lgr_leave(struct asmc_sock *smc);
struct asmc_sock *asmc_lgr_find_conn(struct asmc_lgr *lgr, u32 token);
u32 asmc_buf_round(u32 want);
extern unsigned long asmc_buf_limit;
bool asmc_buf_cap(u32 *want);
void asmc_buf_show(struct seq_file *m);
struct asmc_buf *asmc_buf_get(struct asmc_lgr *lgr, bool rmb, u32 want,
			      u32 most, bool *reused);
void asmc_buf_put(struct asmc_lgr *lgr, struct asmc_buf *buf);
void asmc_buf_quarantine(struct asmc_lgr *lgr, struct asmc_buf *buf);
int asmc_buf_register(struct asmc_buf *buf, struct asmc_link *lnk);
int asmc_buf_register_all(struct asmc_lgr *lgr, struct asmc_buf *buf);
struct asmc_buf *asmc_buf_rkey_known(struct asmc_lgr *lgr,
				     struct asmc_buf *rmb);
void asmc_buf_rkey_forget(struct asmc_lgr *lgr, struct asmc_buf *rmb);
void asmc_buf_rkey_first(struct asmc_lgr *lgr, struct asmc_buf *rmb);

#endif /* ASMC_LGR_H */
