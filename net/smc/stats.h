/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace counters: fallbacks by reason and role, handshake errors,
 * SMC-R connections and data path; read by debugfs and SMC_GEN_NETLINK.
 */
#ifndef ASMC_STATS_H
#define ASMC_STATS_H

#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct seq_file;

#define ASMC_FBACK_RSN_MAX	30	/* distinct reason codes kept */

enum {
	ASMC_STAT_SERVER,
	ASMC_STAT_CLIENT,
	ASMC_STAT_ROLES
};

enum {
	ASMC_STAT_V1,
	ASMC_STAT_V2,
	ASMC_STAT_VERSIONS
};

enum {
	ASMC_STAT_TX,
	ASMC_STAT_RX,
	ASMC_STAT_DIRS
};

/* Size buckets of the histograms: a size goes to the first bucket it does
 * not exceed (8K: 0..8192 bytes, 16K: 8193..16384, ...), > 1024K to G_1024K;
 * SMC_NLA_STATS_PLOAD_<bucket> = bucket + 1.
 */
enum {
	ASMC_STAT_BUF_8K,
	ASMC_STAT_BUF_16K,
	ASMC_STAT_BUF_32K,
	ASMC_STAT_BUF_64K,
	ASMC_STAT_BUF_128K,
	ASMC_STAT_BUF_256K,
	ASMC_STAT_BUF_512K,
	ASMC_STAT_BUF_1024K,
	ASMC_STAT_BUF_G_1024K,
	ASMC_STAT_BUF_MAX
};

/* Socket calls counted apart (SMC_NLA_STATS_T_*_CNT). */
enum asmc_stat_special {
	ASMC_STAT_SENDPAGE,
	ASMC_STAT_SPLICE,
	ASMC_STAT_CORK,
	ASMC_STAT_NODELAY,
	ASMC_STAT_URG,
	ASMC_STAT_SPECIAL_MAX
};

/* Send/receive buffer (RMB) events per direction (SMC_NLA_STATS_RMB_*):
 * the buffer was too small for a send (own / the peer's), was full (own /
 * the peer's), was reused from a link group's pool, newly allocated, or
 * allocated smaller than wanted.
 */
enum asmc_stat_rmb {
	ASMC_STAT_RMB_SIZE_SM_PEER,
	ASMC_STAT_RMB_SIZE_SM,
	ASMC_STAT_RMB_FULL_PEER,
	ASMC_STAT_RMB_FULL,
	ASMC_STAT_RMB_REUSE,
	ASMC_STAT_RMB_ALLOC,
	ASMC_STAT_RMB_DGRADE,
	ASMC_STAT_RMB_MAX
};

/* Messages of the SMC-R data path (debugfs only, no netlink attribute):
 * CDCs sent after RDMA WRITEs of data, CDCs without data (cursor updates,
 * connection flags), the RDMA WRITEs, CDCs received, and pushes that found
 * every send slot of the link busy. What a byte costs on the wire. Then
 * what a connection costs: the LLC CONFIRM_RKEY and DELETE_RKEY requests
 * we sent. The keepalive: TEST_LINKs sent, those of them sent early
 * because a send went unanswered, and links failed for want of an answer.
 * The second-link offers: ADD_LINKs a server of ours sent offering none
 * (asmc_llc_offer_no_link()), and the peer's ADD_LINKs we rejected.
 * And how closes ended the internal TCP connection: closes after the
 * peer's that waited for its TCP FIN, and those that gave up waiting;
 * connections reset because the peer ended TCP without closing over SMC.
 * Last, RMBs kept from reuse because the peer may still write into them
 * (asmc_buf_quarantine()).
 */
enum asmc_stat_wire {
	ASMC_STAT_CDC_TX_DATA,
	ASMC_STAT_CDC_TX_CTRL,
	ASMC_STAT_RDMA_WRITE,
	ASMC_STAT_CDC_RX,
	ASMC_STAT_CDC_RX_BAD,		/* cursors out of range: conn aborted */
	ASMC_STAT_CDC_RX_DROP,		/* unparsable, or for no connection */
	ASMC_STAT_TX_NOSLOT,
	ASMC_STAT_LLC_CONFIRM_RKEY,
	ASMC_STAT_LLC_DELETE_RKEY,
	ASMC_STAT_LLC_TEST_LINK,
	ASMC_STAT_LLC_TEST_LINK_EARLY,
	ASMC_STAT_LLC_TEST_LINK_LOST,
	ASMC_STAT_LLC_ADD_LINK_NONE,
	ASMC_STAT_LLC_ADD_LINK_REJ,
	ASMC_STAT_LLC_RX_BAD,		/* malformed LLC request: dropped */
	ASMC_STAT_LLC_CONFIRM_AGAIN,	/* first CONFIRM_LINK sent again */
	ASMC_STAT_CLOSE_FIN_WAIT,
	ASMC_STAT_CLOSE_FIN_LATE,
	ASMC_STAT_CLOSE_TCP_GONE,
	ASMC_STAT_RMB_QUARANTINE,
	ASMC_STAT_LINK_ADDED,		/* a second link came up */
	ASMC_STAT_LINK_LOST,		/* a link of a group with another */
	ASMC_STAT_LINK_FAILOVER,	/* connections moved to another link */
	ASMC_STAT_LINK_FAILOVER_LOST,	/* ... that could not move */
	ASMC_STAT_LINK_ASKED,		/* client: asked the server for one */
	ASMC_STAT_LINK_PEER_ASKED,	/* server: the client asked */
	ASMC_STAT_LINK_ASYM,		/* added, sharing a port with another */
	ASMC_STAT_LINK_REFUSED,		/* server: the client rejected an offer */
	ASMC_STAT_LINK_RKEY_UNKNOWN,	/* a new link's rkey entry naming none */
	ASMC_STAT_LINK_WC_ERROR,	/* a failed completion broke a link */
	ASMC_STAT_WIRE_MAX
};

struct asmc_fback_rsn {
	u32 code;
	u64 count[ASMC_STAT_ROLES];
};

/* Counters of one technology (SMC-R here; SMC-D is always zero). Only u64
 * members: a snapshot adds the per-CPU copies up as an array of u64.
 */
struct asmc_stats_tech {
	u64 conn_ok[ASMC_STAT_ROLES][ASMC_STAT_VERSIONS];
	u64 special[ASMC_STAT_SPECIAL_MAX];
	u64 bytes[ASMC_STAT_DIRS];
	u64 calls[ASMC_STAT_DIRS];
	u64 pload[ASMC_STAT_DIRS][ASMC_STAT_BUF_MAX];	/* per send/recv call */
	u64 rmb_size[ASMC_STAT_DIRS][ASMC_STAT_BUF_MAX];	/* per buffer */
	u64 rmb[ASMC_STAT_DIRS][ASMC_STAT_RMB_MAX];
	u64 wire[ASMC_STAT_WIRE_MAX];
};

/* lock protects fback, fback_*, hs_err: they change once per connection.
 * smcr is per CPU, bumped without a lock by the data path (this_cpu ops);
 * readers add up all CPUs, so a sum may miss increments in flight.
 */
struct asmc_stats {
	spinlock_t lock;
	struct asmc_fback_rsn fback[ASMC_FBACK_RSN_MAX];
	u64 fback_total[ASMC_STAT_ROLES];
	u64 fback_unrecorded[ASMC_STAT_ROLES];	/* table was full */
	u64 hs_err[ASMC_STAT_ROLES];
	struct asmc_stats_tech __percpu *smcr;	/* asmc_stats_alloc() */
};

/* A consistent-enough copy for readers (netlink, debugfs). */
struct asmc_stats_snap {
	struct asmc_stats_tech smcr;
	struct asmc_fback_rsn fback[ASMC_FBACK_RSN_MAX];
	u64 fback_total[ASMC_STAT_ROLES];
	u64 fback_unrecorded[ASMC_STAT_ROLES];
	u64 hs_err[ASMC_STAT_ROLES];
};

void asmc_stats_init(struct asmc_stats *st);
int asmc_stats_alloc(struct asmc_stats *st);	/* after asmc_stats_init */
void asmc_stats_free(struct asmc_stats *st);
void asmc_stats_fallback(struct asmc_stats *st, bool server, u32 reason);
void asmc_stats_hs_err(struct asmc_stats *st, bool server);
void asmc_stats_show(struct seq_file *m, struct asmc_stats *st);
void asmc_stats_snapshot(struct asmc_stats *st, struct asmc_stats_snap *snap);

static inline int asmc_stats_bucket(u64 size)
{
	int b;

	if (size <= SZ_8K)
		return ASMC_STAT_BUF_8K;
	b = fls64(size - 1) - 13;	/* 8193..16384 -> 1 */
	return b < ASMC_STAT_BUF_G_1024K ? b : ASMC_STAT_BUF_G_1024K;
}

/* The data path's increments, on a struct asmc_stats. */
static inline void __asmc_stats_xfer(struct asmc_stats *st, int dir,
				     size_t bytes)
{
	this_cpu_add(st->smcr->bytes[dir], bytes);
	this_cpu_inc(st->smcr->calls[dir]);
	this_cpu_inc(st->smcr->pload[dir][asmc_stats_bucket(bytes)]);
}

static inline void __asmc_stats_conn_ok(struct asmc_stats *st, bool server,
					bool v2)
{
	this_cpu_inc(st->smcr->conn_ok[server ? ASMC_STAT_SERVER :
					ASMC_STAT_CLIENT]
				      [v2 ? ASMC_STAT_V2 : ASMC_STAT_V1]);
}

static inline void __asmc_stats_special(struct asmc_stats *st,
					enum asmc_stat_special which)
{
	this_cpu_inc(st->smcr->special[which]);
}

static inline void __asmc_stats_rmb(struct asmc_stats *st, bool tx,
				    enum asmc_stat_rmb event)
{
	this_cpu_inc(st->smcr->rmb[tx ? ASMC_STAT_TX : ASMC_STAT_RX][event]);
}

static inline void __asmc_stats_rmb_size(struct asmc_stats *st, bool tx,
					 size_t size)
{
	this_cpu_inc(st->smcr->rmb_size[tx ? ASMC_STAT_TX : ASMC_STAT_RX]
				       [asmc_stats_bucket(size)]);
}

static inline void __asmc_stats_wire(struct asmc_stats *st,
				     enum asmc_stat_wire which, u64 n)
{
	this_cpu_add(st->smcr->wire[which], n);
}

/* The same by namespace, for the socket and data path code:
 *   asmc_stats_tx(net, bytes)          one send call of bytes (SMC-R)
 *   asmc_stats_rx(net, bytes)          one receive call of bytes
 *   asmc_stats_conn_ok(net, server, v2) an SMC-R connection was set up
 *   asmc_stats_special(net, ASMC_STAT_SENDPAGE|SPLICE|CORK|NODELAY|URG)
 *   asmc_stats_rmb(net, tx, ASMC_STAT_RMB_...)   a buffer event
 *   asmc_stats_rmb_size(net, tx, bytes) a send (tx) / receive buffer of
 *                                      that size was set up
 *   asmc_stats_wire(net, ASMC_STAT_CDC_..., n)  n data path messages
 * (Macros, so that this header and netns.h can include each other.)
 */
#define asmc_stats_tx(net, bytes) \
	__asmc_stats_xfer(asmc_net_stats(net), ASMC_STAT_TX, (bytes))
#define asmc_stats_rx(net, bytes) \
	__asmc_stats_xfer(asmc_net_stats(net), ASMC_STAT_RX, (bytes))
#define asmc_stats_conn_ok(net, server, v2) \
	__asmc_stats_conn_ok(asmc_net_stats(net), (server), (v2))
#define asmc_stats_special(net, which) \
	__asmc_stats_special(asmc_net_stats(net), (which))
#define asmc_stats_rmb(net, tx, event) \
	__asmc_stats_rmb(asmc_net_stats(net), (tx), (event))
#define asmc_stats_rmb_size(net, tx, size) \
	__asmc_stats_rmb_size(asmc_net_stats(net), (tx), (size))
#define asmc_stats_wire(net, which, n) \
	__asmc_stats_wire(asmc_net_stats(net), (which), (n))

#include "netns.h"	/* asmc_net_stats() for the macros above */

#endif /* ASMC_STATS_H */
