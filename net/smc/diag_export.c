// SPDX-License-Identifier: GPL-2.0
/* The part of smc_diag that must know smc.ko's objects and locks: walking
 * the socket list in resumable batches and reading one socket consistently.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/module.h>
#include <linux/sock_diag.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include "cdc.h"
#include "diag_export.h"
#include "lgr.h"
#include "socket.h"

/* A socket that asmc_sock_alloc() has listed but not finished: it has no
 * internal TCP socket yet and may still be freed with sk_free(), whatever
 * its reference count says. Nobody can have a descriptor for it yet, so
 * leaving it out loses nothing.
 */
static bool asmc_diag_unborn(const struct asmc_sock *smc)
{
	return !READ_ONCE(smc->clcsock) &&
	       READ_ONCE(smc->sk.sk_state) == ASMC_INIT;
}

int asmc_diag_collect(struct net *net, struct sock *after,
		      struct sock **batch, int max)
{
	struct asmc_sock *smc = after ? asmc_sk(after) : NULL;
	int n = 0;

	if (max <= 0)
		return 0;
	spin_lock_bh(&asmc_all_lock);
	smc = list_prepare_entry(smc, &asmc_all_socks, all_node);
	list_for_each_entry_continue(smc, &asmc_all_socks, all_node) {
		if (!net_eq(sock_net(&smc->sk), net) || asmc_diag_unborn(smc))
			continue;
		/* a count of zero: sk_destruct will unlist it shortly */
		if (!refcount_inc_not_zero(&smc->sk.sk_refcnt))
			continue;
		batch[n++] = &smc->sk;
		if (n == max)
			break;
	}
	spin_unlock_bh(&asmc_all_lock);
	return n;
}
EXPORT_SYMBOL_GPL(asmc_diag_collect);

/* The addresses and ports of the internal TCP socket. */
static void asmc_diag_tcp_id(struct sock *clcsk, struct asmc_diag_snap *s)
{
	struct inet_diag_sockid *id = &s->msg.id;

	s->msg.diag_family = clcsk->sk_family;
	id->idiag_sport = inet_sk(clcsk)->inet_sport;
	id->idiag_dport = clcsk->sk_dport;
	id->idiag_if = clcsk->sk_bound_dev_if;
#if IS_ENABLED(CONFIG_IPV6)
	if (clcsk->sk_family == AF_INET6) {
		memcpy(id->idiag_src, &clcsk->sk_v6_rcv_saddr,
		       sizeof(id->idiag_src));
		memcpy(id->idiag_dst, &clcsk->sk_v6_daddr,
		       sizeof(id->idiag_dst));
		return;
	}
#endif
	id->idiag_src[0] = clcsk->sk_rcv_saddr;
	id->idiag_dst[0] = clcsk->sk_daddr;
}

static struct smc_diag_cursor asmc_diag_cursor(u64 total, u32 size)
{
	struct smc_diag_cursor dc = {};
	struct asmc_cursor c;

	if (!size)
		return dc;
	c = asmc_total_to_cursor(total, size);
	dc.wrap = c.wrap;
	dc.count = c.count;
	return dc;
}

/* Cursors and flags: "rx" is what the peer's CDC messages told us, "tx"
 * what ours told the peer; prep/sent/fin are positions in our send buffer
 * (written by the application, posted as RDMA writes, completed).
 */
static void asmc_diag_conn(struct asmc_conn *conn, struct smc_diag_conninfo *c)
{
	spin_lock_bh(&conn->lock);
	c->token = conn->token;
	c->sndbuf_size = conn->sndbuf_size;
	c->rmbe_size = conn->rmbe_size;
	c->peer_rmbe_size = conn->peer_rmbe_size;
	c->rx_prod = asmc_diag_cursor(conn->rx_prod, conn->rmbe_size);
	c->rx_cons = asmc_diag_cursor(conn->peer_cons, conn->peer_rmbe_size);
	c->tx_prod = asmc_diag_cursor(conn->tx_prod, conn->peer_rmbe_size);
	c->tx_cons = asmc_diag_cursor(conn->rx_cons_sent, conn->rmbe_size);
	c->rx_prod_flags = conn->peer_prod_flags;
	c->rx_conn_state_flags = conn->peer_conn_flags;
	c->tx_prod_flags = (conn->tx_blocked ? ASMC_CDC_WRITE_BLOCKED : 0) |
			   (conn->tx_urg_pending ? ASMC_CDC_URG_PENDING : 0);
	c->tx_conn_state_flags = conn->sent_conn_flags;
	c->tx_prep = asmc_diag_cursor(conn->sb_filled, conn->sndbuf_size);
	c->tx_sent = asmc_diag_cursor(conn->sb_posted, conn->sndbuf_size);
	c->tx_fin = asmc_diag_cursor(conn->sb_done, conn->sndbuf_size);
	spin_unlock_bh(&conn->lock);
}

/* The connection's link. Caller holds the socket lock and made sure the
 * group cannot go: see asmc_diag_snapshot(). The group's mutex keeps the
 * link's device from going (a link leaves its group under it before its
 * hardware is freed); the struct itself lives as long as the group.
 */
static bool asmc_diag_lgr(struct asmc_conn *conn, struct asmc_lgr *lgr,
			  struct smc_diag_lgrinfo *li)
{
	struct smc_diag_linkinfo *l = &li->lnk[0];
	struct asmc_link *lnk;
	bool found = false;

	mutex_lock(&lgr->mutex);
	li->role = lgr->role == ASMC_ROLE_SERVER;
	lnk = conn->link;
	if (lnk && lgr->links[lnk->slot] == lnk && lnk->sel.dev) {
		l->link_id = lnk->link_id;
		strscpy((char *)l->ibname, dev_name(&lnk->sel.dev->ibdev->dev),
			sizeof(l->ibname));
		l->ibport = lnk->sel.port;
		snprintf((char *)l->gid, sizeof(l->gid), "%pI6", lnk->sel.gid);
		snprintf((char *)l->peer_gid, sizeof(l->peer_gid), "%pI6",
			 lnk->peer_gid);
		found = true;
	}
	mutex_unlock(&lgr->mutex);
	return found;
}

void asmc_diag_snapshot(struct sock *sk, struct asmc_diag_snap *s)
{
	struct asmc_sock *smc = asmc_sk(sk);
	struct sock *clcsk = NULL;
	struct asmc_lgr *lgr;

	memset(s, 0, sizeof(*s));
	lock_sock(sk);
	/* no internal socket any more: the family the socket was made for */
	s->msg.diag_family = sk->sk_protocol ? AF_INET6 : AF_INET;
	s->msg.diag_state = sk->sk_state;
	s->fell_back = asmc_is_fallback(smc);
	s->msg.diag_mode = s->fell_back ? SMC_DIAG_MODE_FALLBACK_TCP :
					  SMC_DIAG_MODE_SMCR;
	s->msg.diag_shutdown = READ_ONCE(sk->sk_shutdown);
	/* clcsock changes only under our lock */
	if (smc->clcsock)
		clcsk = smc->clcsock->sk;
	if (clcsk) {
		asmc_diag_tcp_id(clcsk, s);
		/* after a fallback TCP alone knows the shutdown state */
		if (s->fell_back)
			s->msg.diag_shutdown = READ_ONCE(clcsk->sk_shutdown);
	}
	sock_diag_save_cookie(sk, s->msg.id.idiag_cookie);
	s->msg.diag_inode = sock_i_ino(sk);
	s->uid = sock_i_uid(sk);
	s->fallback.reason = smc->fallback_rsn;
	s->fallback.peer_diagnosis = smc->peer_diag;

	if (READ_ONCE(smc->smc_mode)) {
		asmc_diag_conn(&smc->conn, &s->conn);
		s->has_conn = true;
		/* The connection leaves its group in close_work, without our
		 * lock; that work is only queued once the socket is dead, and
		 * a socket that belongs to a file dies only in release()
		 * under our lock. So while we hold it, a socket that has a
		 * file and is not dead keeps its group.
		 */
		lgr = READ_ONCE(smc->conn.lgr);
		if (lgr && sk->sk_socket && !sock_flag(sk, SOCK_DEAD))
			s->has_lgr = asmc_diag_lgr(&smc->conn, lgr, &s->lgr);
	}
	release_sock(sk);
}
EXPORT_SYMBOL_GPL(asmc_diag_snapshot);
