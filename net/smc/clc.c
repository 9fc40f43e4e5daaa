// SPDX-License-Identifier: GPL-2.0
/* CLC handshake I/O on the internal TCP socket. Every read has a deadline,
 * every message is validated by clc_wire before use, and only complete
 * messages are consumed from the TCP stream.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/etherdevice.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/utsname.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/route.h>
#include <net/sock.h>
#include "clc.h"
#include "clc_wire.h"
#include "debug.h"
#include "eid.h"
#include "ib.h"
#include "lgr.h"
#include "llc.h"
#include "netns.h"
#include "tx.h"
#include "wr.h"

static int __asmc_clc_send(struct asmc_sock *smc, const void *buf, size_t len);

/* System identity in CLC: 2-byte instance number chosen at load, then the
 * MAC of the first RoCE port a handshake used (none yet: zero). Peers find
 * our link groups by it, so once set it never changes.
 */
static u8 asmc_system_peer_id[8];
static DEFINE_SPINLOCK(asmc_peer_id_lock);
static bool asmc_peer_id_fixed;

/* Our peer ID into @out, its MAC part fixed by @mac on first use. */
static void asmc_clc_peer_id(u8 *out, const u8 *mac)
{
	spin_lock(&asmc_peer_id_lock);
	if (!asmc_peer_id_fixed && mac && !is_zero_ether_addr(mac)) {
		memcpy(asmc_system_peer_id + 2, mac, ETH_ALEN);
		asmc_peer_id_fixed = true;
	}
	memcpy(out, asmc_system_peer_id, 8);
	spin_unlock(&asmc_peer_id_lock);
}

void asmc_clc_init(void)
{
	get_random_bytes(asmc_system_peer_id, 2);
}

static int asmc_clc_send(struct asmc_sock *smc, const void *msg, size_t len)
{
	u8 buf[ASMC_CLC_MAX_LEN];

	/* a test's altered message (debugfs smc/clc_inject) */
	if (asmc_inject_armed(&asmc_clc_inj) && len <= sizeof(buf)) {
		memcpy(buf, msg, len);
		len = asmc_inject(&asmc_clc_inj, buf[4], 0, buf, len);
		msg = buf;
	}
	return __asmc_clc_send(smc, msg, len);
}

static int __asmc_clc_send(struct asmc_sock *smc, const void *buf, size_t len)
{
	/* a fresh connection has room for a CLC message: never sleep */
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	int rc;

	pr_debug("sock %p: CLC type %u sent (%zu bytes)\n", smc,
		 ((const u8 *)buf)[4], len);

	rc = kernel_sendmsg(smc->clcsock, &msg, &vec, 1, len);
	if (rc < 0)
		return rc;
	return rc == len ? 0 : -EPIPE;
}

static int __asmc_clc_send_decline(struct asmc_sock *smc, u32 reason,
				   u8 version, bool out_of_sync)
{
	u8 buf[ASMC_CLC_DECL_LEN_V2], id[8];
	size_t len;

	asmc_clc_peer_id(id, NULL);
	len = asmc_clc_decline_build(buf, sizeof(buf), id,
				     reason, version, out_of_sync);
	pr_debug("sock %p sends CLC decline 0x%08x v%u\n", smc, reason,
		 version);
	return asmc_clc_send(smc, buf, len);
}

static int asmc_clc_send_decline(struct asmc_sock *smc, u32 reason,
				 u8 version)
{
	return __asmc_clc_send_decline(smc, reason, version, false);
}

/* The peers disagree about a link group: the receiver of this Decline
 * ends the group it offered.
 */
static int asmc_clc_send_decline_sync(struct asmc_sock *smc, u8 version)
{
	return __asmc_clc_send_decline(smc, ASMC_DECL_SYNCERR, version, true);
}

/* Read exactly @len bytes before @deadline (jiffies). */
static int asmc_clc_read(struct asmc_sock *smc, u8 *buf, size_t len,
			 unsigned long deadline)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	long left = (long)(deadline - jiffies);
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	WRITE_ONCE(clcsk->sk_rcvtimeo, left);
	rc = kernel_recvmsg(smc->clcsock, &msg, &vec, 1, len, MSG_WAITALL);
	WRITE_ONCE(clcsk->sk_rcvtimeo, smc->opts.rcvtimeo);
	if (rc == len)
		return 0;
	if (rc < 0 && rc != -EAGAIN)
		return rc;
	if (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN)
		return -ECONNRESET;	/* the peer closed mid-handshake */
	return -ETIMEDOUT;
}

/* Receive one CLC message of type @expect (or a Decline, allowed at any
 * step) into @buf of ASMC_CLC_MAX_LEN bytes. Returns the message type or
 * a negative error; -EPROTO for anything that is not a valid message.
 */
static int __asmc_clc_recv(struct asmc_sock *smc, u8 *buf, u8 expect,
			   struct asmc_clc_hdr *hdr, unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout;
	int rc;

	rc = asmc_clc_read(smc, buf, ASMC_CLC_HDR_LEN, deadline);
	if (rc) {
		pr_debug("sock %p: no CLC message (type %u awaited): %d\n", smc,
			 expect, rc);
		return rc;
	}
	if (asmc_clc_hdr_parse(buf, ASMC_CLC_HDR_LEN, hdr))
		return -EPROTO;
	if (hdr->type != expect && hdr->type != ASMC_CLC_DECLINE)
		return -EPROTO;
	rc = asmc_clc_read(smc, buf + ASMC_CLC_HDR_LEN,
			   hdr->length - ASMC_CLC_HDR_LEN, deadline);
	if (rc)
		return rc;
	if (hdr->type != ASMC_CLC_DECLINE &&
	    !asmc_clc_trailer_ok(buf, hdr->length))
		return -EPROTO;
	pr_debug("sock %p: CLC type %u received (%u bytes)\n", smc, hdr->type,
		 hdr->length);
	return hdr->type;
}

static int asmc_clc_recv(struct asmc_sock *smc, u8 *buf, u8 expect,
			 struct asmc_clc_hdr *hdr)
{
	return __asmc_clc_recv(smc, buf, expect, hdr, ASMC_CLC_WAIT_TIME);
}

/* Read and drop one CLC message when there was no buffer for it: its
 * bytes must not stay in the stream the fallback hands the application.
 * Returns the message type or a negative error.
 */
static int asmc_clc_skip(struct asmc_sock *smc, u8 expect)
{
	unsigned long deadline = jiffies + ASMC_CLC_WAIT_TIME;
	struct asmc_clc_hdr hdr;
	u8 chunk[64];
	u32 left, n;
	int rc;

	rc = asmc_clc_read(smc, chunk, ASMC_CLC_HDR_LEN, deadline);
	if (rc)
		return rc;
	if (asmc_clc_hdr_parse(chunk, ASMC_CLC_HDR_LEN, &hdr) ||
	    (hdr.type != expect && hdr.type != ASMC_CLC_DECLINE))
		return -EPROTO;
	for (left = hdr.length - ASMC_CLC_HDR_LEN; left; left -= n) {
		n = min_t(u32, left, sizeof(chunk));
		rc = asmc_clc_read(smc, chunk, n, deadline);
		if (rc)
			return rc;
	}
	return hdr.type;
}

static int asmc_clc_take_decline(const u8 *buf, const struct asmc_clc_hdr *hdr,
				 struct asmc_hs_result *res)
{
	struct asmc_clc_decline dcl;

	if (asmc_clc_decline_parse(buf, hdr->length, &dcl))
		return -EPROTO;
	res->reason = ASMC_DECL_PEERDECL;
	res->peer_diag = dcl.reason;
	return 0;
}

/* The first link's CONFIRM_LINK exchange timed out (@reason): the peer may
 * have given up first and sent its own Decline, after which it reads the
 * stream as the application's. Looked for ASMC_CLC_WAIT_SHORT: taken, the
 * result is ASMC_CLC_DECLINE and no Decline of ours may follow; none
 * came, @reason; a broken stream, a negative error.
 */
static int asmc_clc_declined_late(struct asmc_sock *smc, u8 *buf,
				  struct asmc_clc_hdr *hdr,
				  struct asmc_hs_result *res, int reason)
{
	int rc = __asmc_clc_recv(smc, buf, ASMC_CLC_DECLINE, hdr,
				 ASMC_CLC_WAIT_SHORT);

	if (rc == -ETIMEDOUT)
		return reason;
	if (rc == ASMC_CLC_DECLINE)
		rc = asmc_clc_take_decline(buf, hdr, res) ?: ASMC_CLC_DECLINE;
	return rc;	/* ASMC_CLC_DECLINE or an error */
}

/* ---- SMC-R ------------------------------------------------------------- */

/* the application set SO_RCVBUF (@rx) or SO_SNDBUF */
static bool asmc_clc_buf_set(struct asmc_sock *smc, bool rx)
{
	return smc->sk.sk_userlocks & (rx ? SOCK_RCVBUF_LOCK : SOCK_SNDBUF_LOCK);
}

/* Receive buffer size: half of the socket's receive buffer when the
 * application set SO_RCVBUF, as the socket API promises twice the payload
 * room, else net.smc.rmem (which asmc_buf_cap() may cut while the
 * module's buffers are over budget); 16 KiB .. 512 KiB. The send buffer
 * alike.
 */
static u32 asmc_clc_buf_want(struct asmc_sock *smc, bool rx)
{
	struct asmc_sysctl *sc = &asmc_net(sock_net(&smc->sk))->sysctl;
	u32 want;

	if (asmc_clc_buf_set(smc, rx))
		want = (rx ? READ_ONCE(smc->sk.sk_rcvbuf) :
			     READ_ONCE(smc->sk.sk_sndbuf)) / 2;
	else
		want = rx ? READ_ONCE(sc->rmem) : READ_ONCE(sc->wmem);
	return clamp_t(u32, want, 16384, 524288);
}

/* What the link group dumps show of a v2 peer: negotiated EID, release
 * and limits, the peer's OS and host name (first contact messages carry
 * them). The group is not usable before its setup is done.
 */
static void asmc_clc_note_peer(struct asmc_lgr *lgr,
			       const struct asmc_clc_accept *m, const u8 *eid,
			       const struct asmc_clc_v2x *agreed)
{
	memcpy(lgr->eid, eid, sizeof(lgr->eid));
	lgr->peer_os = m->os_type;
	lgr->peer_release = agreed->release;
	memcpy(lgr->peer_hostname, m->hostname, sizeof(lgr->peer_hostname) - 1);
	lgr->peer_hostname[sizeof(lgr->peer_hostname) - 1] = '\0';
	mutex_lock(&lgr->mutex);
	if (agreed->release >= ASMC_RELEASE_1)
		lgr->max_conns = agreed->max_conns;
	/* v2.1 the agreed limit; v2.0 agrees none and keeps ours (a server
	 * offers, a client asks for, no link beyond it)
	 */
	lgr->max_links = agreed->max_links;
	mutex_unlock(&lgr->mutex);
}

/* Our side of a v2.1 negotiation: latest release, the sysctl limits; no
 * more links than this module builds (ASMC_LINKS_USED).
 */
static void asmc_clc_v2x_ours(struct net *net, struct asmc_clc_v2x *ours)
{
	struct asmc_sysctl *sc = &asmc_net(net)->sysctl;

	ours->release = ASMC_RELEASE_LATEST;
	ours->max_conns = READ_ONCE(sc->smcr_max_conns_per_lgr);
	ours->max_links = min(READ_ONCE(sc->smcr_max_links_per_lgr),
			      ASMC_LINKS_USED);
}

/* Get both buffers of the connection from its link group. */
static int asmc_clc_bufs(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	struct net *net = sock_net(&smc->sk);
	u32 want_rx = asmc_clc_buf_want(smc, true);
	u32 want_tx = asmc_clc_buf_want(smc, false);
	u32 most_rx = want_rx, first_tx;
	bool reused;

	/* the RMB is taken now; the send buffer when it grows (its cut,
	 * if any, is asmc_tx_grow()'s)
	 */
	if (!asmc_clc_buf_set(smc, true) && asmc_buf_cap(&want_rx))
		pr_debug("conn %p: over budget, RMB %u bytes\n", conn, want_rx);

	conn->rmb = asmc_buf_get(conn->lgr, true, want_rx, most_rx, &reused);
	if (conn->rmb)
		asmc_stats_rmb(net, false, reused ? ASMC_STAT_RMB_REUSE :
						    ASMC_STAT_RMB_ALLOC);
	/* the send buffer starts small: an idle connection, or one of small
	 * messages, never needs more; asmc_tx_grow() takes the full size
	 */
	first_tx = min_t(u32, want_tx, ASMC_SNDBUF_FIRST);
	conn->sndbuf = asmc_buf_get(conn->lgr, false, first_tx, first_tx,
				    &reused);
	if (conn->sndbuf)
		asmc_stats_rmb(net, true, reused ? ASMC_STAT_RMB_REUSE :
						   ASMC_STAT_RMB_ALLOC);
	if (!conn->rmb || !conn->sndbuf)
		return -ENOMEM;
	/* memory was short, or the budget cut it: a smaller buffer than
	 * asked for (asmc_tx_grow() counts the send buffer alike)
	 */
	if (conn->rmb->size < most_rx)
		asmc_stats_rmb(net, false, ASMC_STAT_RMB_DGRADE);
	conn->rmbe_size = conn->rmb->size;
	conn->sndbuf_size = conn->sndbuf->size;
	conn->sndbuf_want = max_t(u32, asmc_buf_round(want_tx),
				  conn->sndbuf_size);
	return 0;
}

/* Undo a failed attach: buffers back, connection out of its group. When
 * the handshake broke off after our Accept or Confirm went out (@sent),
 * the peer may take the connection for established and write into our
 * RMB: unless the group ends anyway (first contact), the RMB is kept
 * from other connections.
 */
static void asmc_clc_detach(struct asmc_sock *smc, struct asmc_lgr_ref *ref,
			    bool sent)
{
	struct asmc_conn *conn = &smc->conn;

	asmc_tx_stop(smc);	/* a CDC from the peer may have pushed */
	if (sent && !ref->first_contact && conn->rmb) {
		asmc_buf_quarantine(conn->lgr, conn->rmb);
		conn->rmb = NULL;
	}
	asmc_lgr_leave(smc);
	asmc_lgr_setup_done(ref, false);
}

/* Fill an Accept/Confirm describing our side of the connection. */
static void asmc_clc_fill_accept(struct asmc_sock *smc, struct asmc_link *lnk,
				 struct asmc_clc_accept *a, u8 type, u8 version,
				 bool first_contact, const u8 *eid,
				 const struct asmc_clc_v2x *agreed)
{
	struct asmc_conn *conn = &smc->conn;
	struct ib_mr *mr = conn->rmb->map[lnk->slot].mr;

	memset(a, 0, sizeof(*a));
	a->type = type;
	a->version = version;	/* v1: the fields below 64 only */
	a->first_contact = first_contact;
	asmc_clc_peer_id(a->peer_id, lnk->sel.mac);
	memcpy(a->gid, lnk->sel.gid, 16);
	memcpy(a->mac, lnk->sel.mac, ETH_ALEN);
	a->qpn = lnk->qp->qp_num;
	a->rkey = mr->rkey;
	a->rmbe_idx = 1;
	a->token = conn->token;
	a->rmbe_size = asmc_rmbe_size_to_code(conn->rmbe_size, 5);
	a->mtu = lnk->path_mtu;
	a->rmb_addr = mr->iova;
	a->psn = lnk->psn;
	memcpy(a->eid, eid, ASMC_EID_LEN);
	if (first_contact) {
		a->v2_direct = lnk->v2_direct;
		a->os_type = ASMC_OS_LINUX;
		a->release = agreed->release;
		if (agreed->release >= ASMC_RELEASE_1) {
			a->max_conns = agreed->max_conns;
			a->max_links = agreed->max_links;
		}
		memset(a->hostname, ' ', sizeof(a->hostname));
		memcpy(a->hostname, utsname()->nodename,
		       min_t(size_t, strlen(utsname()->nodename),
			     sizeof(a->hostname)));
		if (type == ASMC_CLC_CONFIRM) {
			a->n_gids = 1;
			memcpy(a->gids[0], lnk->sel.gid, 16);
		}
	}
}

static int asmc_clc_send_accept(struct asmc_sock *smc,
				const struct asmc_clc_accept *a)
{
	u8 buf[ASMC_CLC_MAX_LEN];
	int len;

	len = asmc_clc_accept_build(buf, sizeof(buf), a);
	if (len < 0)
		return len;
	return asmc_clc_send(smc, buf, len);
}

/* What the peer told us about its side of the connection. */
static int asmc_clc_take_peer(struct asmc_sock *smc,
			      const struct asmc_clc_accept *a)
{
	struct asmc_conn *conn = &smc->conn;

	u32 size = asmc_rmbe_code_to_size(a->rmbe_size);

	if (a->rmbe_idx != 1 || !a->token)
		return -EPROTO;
	if (size < 16384 || size > (1u << 20))
		return -EPROTO;		/* absurd buffer sizes are refused */
	/* CDCs of this connection may already be arriving */
	spin_lock_bh(&conn->lock);
	conn->peer_token = a->token;
	conn->peer_rkey = a->rkey;
	conn->peer_rmb_addr = a->rmb_addr;
	conn->peer_rmbe_size = size;
	spin_unlock_bh(&conn->lock);
	/* the group's table has (or gets) the peer's RMB on every link: a
	 * failover finds it there
	 */
	conn->peer_rtok = asmc_rtok_add(conn->lgr, conn->link->slot, a->rkey,
					a->rmb_addr);
	return 0;
}

/* Is the peer's IPv4 address (in its v2 GID) reachable without a router? */
static bool asmc_clc_direct(struct sock *clcsk, const u8 *gid)
{
	struct rtable *rt;
	struct flowi4 fl4 = {};
	__be32 daddr;
	bool direct;

	memcpy(&daddr, gid + 12, 4);
	fl4.daddr = daddr;
	fl4.saddr = inet_sk(clcsk)->inet_saddr;
	fl4.flowi4_oif = clcsk->sk_bound_dev_if;
	rt = ip_route_output_key(sock_net(clcsk), &fl4);
	if (IS_ERR(rt))
		return false;
	direct = !rt->rt_uses_gateway;
	ip_rt_put(rt);
	return direct;
}

static int asmc_clc_peer_link(struct asmc_link *lnk,
			      const struct asmc_clc_accept *a, u8 local_mtu)
{
	memcpy(lnk->peer_gid, a->gid, 16);
	memcpy(lnk->peer_mac, a->mac, ETH_ALEN);
	lnk->peer_qpn = a->qpn;
	lnk->peer_psn = a->psn;
	if (!a->mtu)
		return -EPROTO;
	lnk->path_mtu = min_t(u8, local_mtu, a->mtu);
	return 0;
}

/* The connection is ready for data: SMC-R mode. */
static void asmc_clc_smc_ready(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	conn->rx_cons_sent = 0;
	smc->smc_mode = true;
	/* SO_SNDBUF/SO_RCVBUF report the buffers in use, doubled as the
	 * socket API does, unless the application chose its own
	 */
	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_sndbuf, 2 * conn->sndbuf_want);
	if (!(smc->sk.sk_userlocks & SOCK_RCVBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_rcvbuf, 2 * conn->rmbe_size);
	asmc_stats_conn_ok(sock_net(&smc->sk), smc->role == ASMC_ROLE_SERVER,
			   conn->lgr->smc_version >= 2);
	asmc_stats_rmb_size(sock_net(&smc->sk), false, conn->rmbe_size);
	asmc_stats_rmb_size(sock_net(&smc->sk), true, conn->sndbuf_size);
	asmc_obj_created(ASMC_OBJ_CONN, conn);
}

/* The connection's source address as 16 bytes (IPv4 v4-mapped). */
static void asmc_clc_src(struct sock *clcsk, u8 *src)
{
	if (clcsk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&clcsk->sk_v6_rcv_saddr))
		memcpy(src, &clcsk->sk_v6_rcv_saddr, 16);
	else
		ipv6_addr_set_v4mapped(inet_sk(clcsk)->inet_saddr,
				       (struct in6_addr *)src);
}

/* Addresses and prefix lengths of the network device @ifindex: IPv4 ones
 * for an IPv4 connection, else IPv6 ones that are not link-local.
 */
static int asmc_clc_dev_prefixes(struct net *net, int ifindex, bool v4,
				 struct asmc_clc_prefix *out, int max)
{
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp;
	struct net_device *ndev;
	struct in_device *in4;
	struct inet6_dev *in6;
	int n = 0;

	rcu_read_lock();
	ndev = dev_get_by_index_rcu(net, ifindex);
	if (!ndev)
		goto out;
	if (v4) {
		in4 = __in_dev_get_rcu(ndev);
		if (!in4)
			goto out;
		in_dev_for_each_ifa_rcu(ifa, in4) {
			if (n == max)
				break;
			memset(&out[n], 0, sizeof(out[n]));
			ipv6_addr_set_v4mapped(ifa->ifa_local,
					       (struct in6_addr *)out[n].addr);
			out[n].len = ifa->ifa_prefixlen;
			out[n++].v4 = true;
		}
		goto out;
	}
	in6 = __in6_dev_get(ndev);
	if (!in6)
		goto out;
	read_lock_bh(&in6->lock);
	list_for_each_entry(ifp, &in6->addr_list, if_list) {
		if (n == max)
			break;
		if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
			continue;
		memcpy(out[n].addr, &ifp->addr, 16);
		out[n].len = ifp->prefix_len;
		out[n++].v4 = false;
	}
	read_unlock_bh(&in6->lock);
out:
	rcu_read_unlock();
	return n;
}

#define ASMC_CLC_DEV_PREFIXES	16	/* addresses of a device we look at */

/* Client: can this connection offer SMC-R v1? Needs a v1 GID (or, with
 * net.smc.smcr_v1 = 2, the source address's RoCE v2 GID) and a subnet to
 * name in the IP prefix area, which @p gets (IPv6 entries in @v6buf).
 */
static bool asmc_clc_client_v1(struct sock *clcsk, struct asmc_ibsel *sel,
			       struct asmc_clc_proposal *p, u8 *v6buf)
{
	struct asmc_sysctl *sc = &asmc_net(sock_net(clcsk))->sysctl;
	struct asmc_clc_prefix *pfx;
	int mode = READ_ONCE(sc->smcr_v1), n;
	u8 src[16];
	bool ok;

	if (mode == ASMC_V1_OFF ||
	    asmc_ib_select_v1(clcsk, mode == ASMC_V1_ANY_GID, sel))
		return false;
	pfx = kcalloc(ASMC_CLC_DEV_PREFIXES, sizeof(*pfx), GFP_KERNEL);
	asmc_clc_src(clcsk, src);
	n = pfx ? asmc_clc_dev_prefixes(sock_net(clcsk), sel->ifindex,
					ipv6_addr_v4mapped((void *)src), pfx,
					ASMC_CLC_DEV_PREFIXES) : 0;
	ok = !asmc_clc_prefix_area(p, src, pfx, n, v6buf);
	kfree(pfx);
	if (!ok)
		asmc_ibsel_put(sel);
	return ok;
}

/* Server: do the client's v1 prefixes name a subnet of our device? */
static bool asmc_clc_server_prefix_ok(struct sock *clcsk, int ifindex,
				      const struct asmc_clc_proposal *p)
{
	struct asmc_clc_prefix *pfx;
	u8 src[16];
	bool ok;
	int n;

	pfx = kcalloc(ASMC_CLC_DEV_PREFIXES, sizeof(*pfx), GFP_KERNEL);
	if (!pfx)
		return false;
	asmc_clc_src(clcsk, src);
	n = asmc_clc_dev_prefixes(sock_net(clcsk), ifindex,
				  ipv6_addr_v4mapped((void *)src), pfx,
				  ASMC_CLC_DEV_PREFIXES);
	ok = asmc_clc_prefix_match(p, pfx, n);
	kfree(pfx);
	return ok;
}

/* Client side of the handshake. Returns 1 when the connection runs over
 * SMC-R, 0 with res->reason set for a TCP fallback (a Decline was sent or
 * received), or a negative error (the connection fails). Offers SMC-R v2
 * and v1 as far as the sysctls, devices and addresses allow; the server
 * picks one.
 */
int asmc_clc_client_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct net *net = sock_net(&smc->sk);
	u8 eids[ASMC_CLC_MAX_UEID_RX][ASMC_EID_LEN];
	u8 v6buf[ASMC_CLC_MAX_PREFIX * ASMC_CLC_IPV6_ENTRY];
	struct asmc_ibsel sel1 = {}, sel2 = {}, *sel;
	struct asmc_clc_proposal prop = {};
	struct asmc_clc_v2x ours, agreed;
	struct asmc_lgr_ref ref = {};
	struct asmc_clc_accept acc, cfm;
	struct asmc_clc_hdr hdr;
	struct asmc_link *lnk;
	u8 version = 1, *buf;
	bool v1, v2 = false;
	u32 reason = 0;
	int rc, n = 0;

	res->peer_diag = 0;
	if (READ_ONCE(asmc_net(net)->sysctl.smcr_v2) &&
	    !asmc_ib_select_v2(clcsk, &sel2)) {
		n = asmc_ueid_copy(net, eids, SMC_MAX_UEID);
		v2 = n > 0;
		if (!v2) {
			/* SMC-R v2 needs a user EID on both hosts */
			asmc_ibsel_put(&sel2);
			reason = ASMC_DECL_NOUEID;
		}
	}
	v1 = asmc_clc_client_v1(clcsk, &sel1, &prop, v6buf);
	if (!v1 && !v2) {
		reason = reason ?: ASMC_DECL_NOSMCDEV;
		goto decline;
	}
	buf = ASMC_FAULTY(ASMC_FAULT_CLC, NULL,
			  kmalloc(ASMC_CLC_MAX_LEN, GFP_KERNEL));
	if (!buf) {
		reason = ASMC_DECL_MEM;
		goto decline;
	}

	prop.version = 2;
	prop.v1_path = v1 ? ASMC_PATH_R : ASMC_PATH_NONE;
	prop.v2_path = v2 ? ASMC_PATH_R : ASMC_PATH_NONE;
	asmc_clc_peer_id(prop.peer_id, v1 ? sel1.mac : sel2.mac);
	if (v1) {
		memcpy(prop.gid, sel1.gid, 16);
		memcpy(prop.mac, sel1.mac, ETH_ALEN);
	}
	prop.n_ueid = n;
	prop.ueids = &eids[0][0];
	memcpy(prop.roce_v2_gid, sel2.gid, 16);
	asmc_clc_v2x_ours(net, &ours);
	prop.release = ours.release;
	prop.max_conns = ours.max_conns;
	prop.max_links = ours.max_links;
	rc = asmc_clc_proposal_build(buf, ASMC_CLC_MAX_LEN, &prop);
	if (rc > 0)
		rc = asmc_clc_send(smc, buf, rc);
	if (rc)
		goto out_free;

	rc = asmc_clc_recv(smc, buf, ASMC_CLC_ACCEPT, &hdr);
	if (rc < 0)
		goto out_free;
	if (rc == ASMC_CLC_DECLINE) {
		rc = asmc_clc_take_decline(buf, &hdr, res);
		goto out_free;
	}
	rc = asmc_clc_accept_parse(buf, hdr.length, &acc);
	if (rc)
		goto out_free;
	version = acc.version >= 2 ? 2 : 1;
	if (acc.smcd || (version == 2 ? !v2 : !v1)) {
		reason = ASMC_DECL_MODEUNSUPP;
		goto decline_free;
	}
	sel = version == 2 ? &sel2 : &sel1;
	if (version == 2 && !asmc_ueid_match(net, acc.eid, acc.eid)) {
		reason = ASMC_DECL_NOUEID;
		goto decline_free;
	}
	/* a first contact's v2 Accept carries the agreed release and limits */
	agreed = ours;
	if (version == 2 && acc.first_contact) {
		reason = asmc_clc_v2x_client(&acc, &ours, &agreed);
		if (reason)
			goto decline_free;
	}

	rc = asmc_lgr_client_attach(smc, acc.peer_id, acc.gid, acc.mac, acc.qpn,
				    version, acc.first_contact, sel, &ref);
	if (rc == -ENOENT) {
		/* the server reused a group we do not have */
		kfree(buf);
		asmc_ibsel_put(&sel1);
		asmc_ibsel_put(&sel2);
		res->reason = ASMC_DECL_SYNCERR;
		return asmc_clc_send_decline_sync(smc, version);
	}
	if (rc) {
		reason = rc == -ENOMEM ? ASMC_DECL_MEM : ASMC_DECL_INTERR;
		goto decline_free;
	}
	lnk = ref.link;
	if (ref.first_contact) {
		/* v1 peers share a subnet: one hop */
		lnk->v2_direct = version == 1 || acc.v2_direct ||
				 asmc_clc_direct(clcsk, acc.gid);
		rc = asmc_clc_peer_link(lnk, &acc, lnk->sel.mtu);
		if (!rc)
			rc = asmc_link_rtr(lnk);
		if (rc) {
			reason = ASMC_DECL_ERR_RDYLNK;
			goto decline_detach;
		}
		if (version == 2)
			asmc_clc_note_peer(ref.lgr, &acc, acc.eid, &agreed);
	}
	rc = asmc_clc_take_peer(smc, &acc);
	if (rc)
		goto abort_detach;
	if (asmc_clc_bufs(smc)) {
		reason = ASMC_DECL_MEM;
		goto decline_detach;
	}
	if (!ref.first_contact) {
		if (asmc_llc_confirm_rkey(lnk, smc->conn.rmb)) {
			reason = ASMC_DECL_ERR_RTOK;
			goto decline_detach;
		}
	}

	asmc_clc_fill_accept(smc, lnk, &cfm, ASMC_CLC_CONFIRM, version,
			     ref.first_contact, acc.eid, &agreed);
	rc = asmc_clc_send_accept(smc, &cfm);
	if (rc)
		goto abort_detach;
	if (ref.first_contact) {
		/* our Confirm gave the peer the first RMB's rkey; marked
		 * before the link is up, as an ADD_LINK may follow at once
		 * and lists only the rkeys the peer knows
		 */
		asmc_buf_rkey_first(ref.lgr, smc->conn.rmb);
		rc = asmc_llc_client_confirm_link(lnk, smc->conn.rmb);
		if (rc == ASMC_DECL_TIMEOUT_CL)
			rc = asmc_clc_declined_late(smc, buf, &hdr, res, rc);
		if (rc == ASMC_CLC_DECLINE) {
			/* the server declined our Confirm: its Decline must
			 * not stay in the stream the fallback hands over
			 */
			asmc_clc_detach(smc, &ref, false);
			rc = 0;
			goto out_free;
		}
		if (rc > 0) {
			reason = rc;
			goto decline_detach;
		}
		if (rc)
			goto abort_detach;
		asmc_lgr_setup_done(&ref, true);
	}
	kfree(buf);
	/* a first contact's link took its selection over */
	asmc_ibsel_put(&sel1);
	asmc_ibsel_put(&sel2);
	asmc_clc_smc_ready(smc);
	return 1;

abort_detach:
	asmc_clc_detach(smc, &ref, true);
	rc = rc < 0 ? rc : -EPROTO;
	goto out_free;
decline_detach:
	asmc_clc_detach(smc, &ref, false);
decline_free:
	kfree(buf);
decline:
	asmc_ibsel_put(&sel1);
	asmc_ibsel_put(&sel2);
	res->reason = reason;
	return asmc_clc_send_decline(smc, reason, version);
out_free:
	kfree(buf);
	asmc_ibsel_put(&sel1);
	asmc_ibsel_put(&sel2);
	return rc;
}

/* Pick the first proposed user EID that we have too. */
static bool asmc_clc_match_ueid(struct net *net,
				const struct asmc_clc_proposal *p, u8 *eid)
{
	int i;

	for (i = 0; i < p->n_ueid; i++)
		if (asmc_ueid_match(net, p->ueids + i * ASMC_EID_LEN, eid))
			return true;
	return false;
}

/* Server: can we take the client's SMC-R v2 offer? 0 or a Decline reason;
 * on success @sel holds the device.
 */
static u32 asmc_clc_server_v2(struct sock *clcsk,
			      const struct asmc_clc_proposal *p, u8 *eid,
			      const struct asmc_clc_v2x *ours,
			      struct asmc_clc_v2x *agreed,
			      struct asmc_ibsel *sel)
{
	u32 reason;

	if (!p->n_ueid || !asmc_clc_match_ueid(sock_net(clcsk), p, eid))
		return ASMC_DECL_NOUEID;
	reason = asmc_clc_v2x_server(p, ours, agreed);
	if (reason)
		return reason;
	return asmc_ib_select_v2(clcsk, sel) ? ASMC_DECL_NOSMCRDEV : 0;
}

/* Server: can we take the client's SMC-R v1 offer (a v1 GID as
 * net.smc.smcr_v1 allows, and a common subnet)? 0 or a Decline reason.
 */
static u32 asmc_clc_server_v1(struct sock *clcsk,
			      const struct asmc_clc_proposal *p,
			      struct asmc_ibsel *sel)
{
	int mode = READ_ONCE(asmc_net(sock_net(clcsk))->sysctl.smcr_v1);

	if (mode == ASMC_V1_OFF ||
	    asmc_ib_select_v1(clcsk, mode == ASMC_V1_ANY_GID, sel))
		return ASMC_DECL_NOSMCRDEV;
	if (!asmc_clc_server_prefix_ok(clcsk, sel->ifindex, p)) {
		asmc_ibsel_put(sel);
		return ASMC_DECL_DIFFPREFIX;
	}
	return 0;
}

/* Server side: wait for the Proposal (or a Decline) and answer it. Returns
 * 1 for SMC-R, 0 with res->reason set for a fallback, or a negative error.
 */
int asmc_clc_server_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct net *net = sock_net(&smc->sk);
	struct asmc_clc_proposal prop;
	struct asmc_clc_v2x ours, agreed;
	struct asmc_lgr_ref ref = {};
	struct asmc_clc_accept acc, cfm;
	struct asmc_ibsel sel = {};
	struct asmc_clc_hdr hdr;
	struct asmc_link *lnk;
	u8 eid[ASMC_EID_LEN];
	u32 reason = 0, v1_reason;
	u8 version = 1, smcv = 0;
	u8 *buf;
	int rc;

	buf = ASMC_FAULTY(ASMC_FAULT_CLC, NULL,
			  kmalloc(ASMC_CLC_MAX_LEN, GFP_KERNEL));
	if (!buf) {
		/* the Proposal still has to leave the stream */
		rc = asmc_clc_skip(smc, ASMC_CLC_PROPOSAL);
		if (rc < 0)
			return rc;
		if (rc == ASMC_CLC_DECLINE) {
			res->reason = ASMC_DECL_PEERDECL;
			return 0;
		}
		res->reason = ASMC_DECL_MEM;
		return asmc_clc_send_decline(smc, ASMC_DECL_MEM, 1);
	}
	rc = asmc_clc_recv(smc, buf, ASMC_CLC_PROPOSAL, &hdr);
	if (rc < 0)
		goto out;
	if (rc == ASMC_CLC_DECLINE) {
		rc = asmc_clc_take_decline(buf, &hdr, res);
		goto out;
	}
	rc = asmc_clc_proposal_parse(buf, hdr.length, &prop);
	if (rc)
		goto out;
	version = prop.version >= 2 ? 2 : 1;

	/* SMC-R v2 when both can, else v1; a Decline names what stopped v2
	 * if the client offered it, else what stopped v1
	 */
	asmc_clc_v2x_ours(net, &ours);
	agreed = ours;
	reason = ASMC_DECL_NOSMCRDEV;
	if (version >= 2 && asmc_path_has_r(prop.v2_path) &&
	    READ_ONCE(asmc_net(net)->sysctl.smcr_v2)) {
		reason = asmc_clc_server_v2(clcsk, &prop, eid, &ours, &agreed,
					    &sel);
		if (!reason)
			smcv = 2;
	}
	if (!smcv && asmc_path_has_r(prop.v1_path)) {
		v1_reason = asmc_clc_server_v1(clcsk, &prop, &sel);
		if (!v1_reason)
			smcv = 1;
		else if (reason == ASMC_DECL_NOSMCRDEV)
			reason = v1_reason;
	}
	if (!smcv)
		goto decline;
	rc = asmc_lgr_server_attach(smc, prop.peer_id, smcv == 2 ?
				    prop.roce_v2_gid : prop.gid, prop.mac,
				    smcv, &sel, &ref);
	if (rc) {
		reason = rc == -ENOMEM ? ASMC_DECL_MEM : ASMC_DECL_INTERR;
		goto decline_sel;
	}
	lnk = ref.link;
	/* v1 peers share a subnet: one hop */
	if (ref.first_contact)
		lnk->v2_direct = smcv == 1 ||
				 asmc_clc_direct(clcsk, prop.roce_v2_gid);
	if (asmc_clc_bufs(smc)) {
		reason = ASMC_DECL_MEM;
		goto decline_detach;
	}
	if (!ref.first_contact &&
	    asmc_llc_confirm_rkey(lnk, smc->conn.rmb)) {
		reason = ASMC_DECL_ERR_RTOK;
		goto decline_detach;
	}

	asmc_clc_fill_accept(smc, lnk, &acc, ASMC_CLC_ACCEPT, smcv,
			     ref.first_contact, eid, &agreed);
	rc = asmc_clc_send_accept(smc, &acc);
	if (rc)
		goto abort_detach;
	rc = asmc_clc_recv(smc, buf, ASMC_CLC_CONFIRM, &hdr);
	if (rc < 0)
		goto abort_detach;
	if (rc == ASMC_CLC_DECLINE) {
		rc = asmc_clc_take_decline(buf, &hdr, res);
		asmc_clc_detach(smc, &ref, false);
		asmc_ibsel_put(&sel);
		goto out;
	}
	rc = asmc_clc_accept_parse(buf, hdr.length, &cfm);
	if (!rc && (cfm.smcd || (cfm.version >= 2 ? 2 : 1) != smcv))
		rc = -EPROTO;
	if (!rc)
		rc = asmc_clc_take_peer(smc, &cfm);
	if (rc)
		goto abort_detach;
	if (ref.first_contact) {
		reason = smcv == 2 ? asmc_clc_v2x_confirm_check(&cfm, &agreed) :
				     0;
		if (reason)
			goto decline_detach;
		rc = asmc_clc_peer_link(lnk, &cfm, lnk->sel.mtu);
		if (!rc)
			rc = asmc_link_rtr(lnk);
		if (!rc)
			rc = asmc_link_rts(lnk);
		if (rc) {
			reason = ASMC_DECL_ERR_RDYLNK;
			goto decline_detach;
		}
		if (smcv == 2)
			asmc_clc_note_peer(ref.lgr, &cfm, eid, &agreed);
		if (asmc_buf_register(smc->conn.rmb, lnk)) {
			reason = ASMC_DECL_ERR_REGBUF;
			goto decline_detach;
		}
		/* our Accept gave the peer the first RMB's rkey */
		asmc_buf_rkey_first(ref.lgr, smc->conn.rmb);
		rc = asmc_llc_server_confirm_link(lnk);
		if (rc == ASMC_DECL_TIMEOUT_CL)
			rc = asmc_clc_declined_late(smc, buf, &hdr, res, rc);
		if (rc == ASMC_CLC_DECLINE) {
			/* the client gave up first: it is on TCP already */
			asmc_clc_detach(smc, &ref, false);
			asmc_ibsel_put(&sel);
			rc = 0;
			goto out;
		}
		if (rc > 0) {
			reason = rc;
			goto decline_detach;
		}
		if (rc)
			goto abort_detach;
		asmc_lgr_setup_done(&ref, true);
	}
	asmc_ibsel_put(&sel);
	kfree(buf);
	asmc_clc_smc_ready(smc);
	return 1;

abort_detach:
	asmc_clc_detach(smc, &ref, true);
	asmc_ibsel_put(&sel);
	rc = rc < 0 ? rc : -EPROTO;
	goto out;
decline_detach:
	asmc_clc_detach(smc, &ref, false);
decline_sel:
	asmc_ibsel_put(&sel);
decline:
	res->reason = reason;
	rc = asmc_clc_send_decline(smc, reason, version);
out:
	kfree(buf);
	return rc;
}
