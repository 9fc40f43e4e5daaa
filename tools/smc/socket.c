// SPDX-License-Identifier: GPL-2.0
/* smc(8): "smc socket show", the AF_SMC sockets of the network namespace
 * through NETLINK_SOCK_DIAG (smc_diag), like ss(8) for SMC.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/smc_diag.h>
#include "smc.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

struct sock_info {
	struct smc_diag_msg m;
	bool have_shut, have_fb, have_conn, have_lgr, have_dmb;
	uint8_t shut;
	struct smc_diag_fallback fb;
	struct smc_diag_conninfo conn;
	struct smc_diag_lgrinfo lgr;
	struct smcd_diag_dmbinfo dmb;
};

struct sock_list {
	int n, cap;
	struct sock_info *s;
};

/* Copies an attribute's payload, zero-filling what a shorter one lacks */
static bool attr_copy(const struct nlattr *a, void *dst, size_t size)
{
	size_t len = mnl_attr_get_payload_len(a);

	memset(dst, 0, size);
	memcpy(dst, mnl_attr_get_payload(a), len < size ? len : size);
	return true;
}

static int diag_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct sock_list *l = data;
	struct sock_info *s;
	size_t hdr = MNL_ALIGN(sizeof(struct smc_diag_msg));

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct smc_diag_msg))
		return MNL_CB_OK;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->s = realloc(l->s, l->cap * sizeof(*l->s));
		if (!l->s) {
			perror("smc");
			exit(SMC_EXIT_ERR);
		}
	}
	s = &l->s[l->n++];
	memset(s, 0, sizeof(*s));
	memcpy(&s->m, mnl_nlmsg_get_payload(nlh), sizeof(s->m));
	if (mnl_nlmsg_get_payload_len(nlh) > hdr)
		smc_nl_parse((const char *)mnl_nlmsg_get_payload(nlh) + hdr,
			     mnl_nlmsg_get_payload_len(nlh) - hdr, tb);
	else
		memset(tb, 0, sizeof(tb));
	if (tb[SMC_DIAG_SHUTDOWN]) {
		s->have_shut = true;
		s->shut = nla_u8(tb[SMC_DIAG_SHUTDOWN]);
	}
	if (tb[SMC_DIAG_FALLBACK])
		s->have_fb = attr_copy(tb[SMC_DIAG_FALLBACK], &s->fb,
				       sizeof(s->fb));
	if (tb[SMC_DIAG_CONNINFO])
		s->have_conn = attr_copy(tb[SMC_DIAG_CONNINFO], &s->conn,
					 sizeof(s->conn));
	if (tb[SMC_DIAG_LGRINFO])
		s->have_lgr = attr_copy(tb[SMC_DIAG_LGRINFO], &s->lgr,
					sizeof(s->lgr));
	if (tb[SMC_DIAG_DMBINFO])
		s->have_dmb = attr_copy(tb[SMC_DIAG_DMBINFO], &s->dmb,
					sizeof(s->dmb));
	return MNL_CB_OK;
}

static const char *state_name(unsigned int st)
{
	switch (st) {
	case 1:
		return "ACTIVE";
	case 2:
		return "INIT";
	case 7:
		return "CLOSED";
	case 10:
		return "LISTEN";
	case 20:
		return "PEERCLOSEWAIT1";
	case 21:
		return "PEERCLOSEWAIT2";
	case 22:
		return "APPCLOSEWAIT1";
	case 23:
		return "APPCLOSEWAIT2";
	case 24:
		return "APPFINCLOSEWAIT";
	case 25:
		return "PEERFINCLOSEWAIT";
	case 26:
		return "PEERABORTWAIT";
	case 27:
		return "PROCESSABORT";
	default:
		return "UNKNOWN";
	}
}

static const char *mode_name(const struct sock_info *s)
{
	switch (s->m.diag_mode) {
	case SMC_DIAG_MODE_SMCR:
		/* not yet decided until a connection exists */
		return s->m.diag_state == 1 || s->m.diag_state >= 20 ||
		       s->have_conn ? "SMCR" : "-";
	case SMC_DIAG_MODE_FALLBACK_TCP:
		return "TCP";
	case SMC_DIAG_MODE_SMCD:
		return "SMCD";
	default:
		return "unknown";
	}
}

/* ADDR:PORT, [ADDR6]:PORT, or "*" for a wildcard address */
static void addr_fmt(const struct sock_info *s, bool peer, char *buf,
		     size_t size)
{
	const __be32 *a = peer ? s->m.id.idiag_dst : s->m.id.idiag_src;
	uint16_t port = ntohs(peer ? s->m.id.idiag_dport : s->m.id.idiag_sport);
	char txt[INET6_ADDRSTRLEN] = "?";

	if (s->m.diag_family == AF_INET6) {
		inet_ntop(AF_INET6, a, txt, sizeof(txt));
		snprintf(buf, size, "[%s]:%u", txt, port);
	} else {
		inet_ntop(AF_INET, a, txt, sizeof(txt));
		snprintf(buf, size, "%s:%u", txt, port);
	}
	if (!strcmp(txt, "0.0.0.0") || !strcmp(txt, "::"))
		snprintf(buf, size, "*:%u", port);
	if (peer && !port && (!strcmp(txt, "0.0.0.0") || !strcmp(txt, "::")))
		snprintf(buf, size, "*:*");
}

/* The address alone, wildcards as they are */
static void addr_raw(const struct sock_info *s, bool peer, char *buf,
		     size_t size)
{
	const __be32 *a = peer ? s->m.id.idiag_dst : s->m.id.idiag_src;

	if (!inet_ntop(s->m.diag_family == AF_INET6 ? AF_INET6 : AF_INET, a,
		       buf, size))
		snprintf(buf, size, "?");
}

static void cursor_json(const char *key, const struct smc_diag_cursor *c)
{
	jw_obj_open(key);
	jw_u64("wrap", c->wrap);
	jw_u64("count", c->count);
	jw_obj_close();
}

static void cstr(char *dst, const uint8_t *src, size_t len)
{
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void sock_json(const struct sock_info *s)
{
	char buf[80], gid[41], ib[IB_DEVICE_NAME_MAX + 1];
	char ifn[IF_NAMESIZE];
	uint64_t cookie = (uint64_t)s->m.id.idiag_cookie[1] << 32 |
			  s->m.id.idiag_cookie[0];

	jw_obj_open(NULL);
	jw_u64("inode", s->m.diag_inode);
	jw_u64("uid", s->m.diag_uid);
	jw_u64("cookie", cookie);
	jw_str("family", s->m.diag_family == AF_INET6 ? "inet6" : "inet");
	jw_str("state", state_name(s->m.diag_state));
	jw_u64("state_code", s->m.diag_state);
	jw_str("mode", mode_name(s));
	jw_u64("mode_code", s->m.diag_mode);
	addr_fmt(s, false, buf, sizeof(buf));
	jw_str("local", buf);
	addr_fmt(s, true, buf, sizeof(buf));
	jw_str("peer", buf);
	addr_raw(s, false, buf, sizeof(buf));
	jw_str("local_addr", buf);
	jw_u64("local_port", ntohs(s->m.id.idiag_sport));
	addr_raw(s, true, buf, sizeof(buf));
	jw_str("peer_addr", buf);
	jw_u64("peer_port", ntohs(s->m.id.idiag_dport));
	if (s->m.id.idiag_if && if_indextoname(s->m.id.idiag_if, ifn))
		jw_str("dev", ifn);
	jw_u64("shutdown", s->have_shut ? s->shut : s->m.diag_shutdown);
	if (s->have_fb && (s->fb.reason || s->fb.peer_diagnosis ||
			   s->m.diag_mode == SMC_DIAG_MODE_FALLBACK_TCP)) {
		jw_obj_open("fallback");
		jw_u64("reason_code", s->fb.reason);
		snprintf(buf, sizeof(buf), "0x%08x", s->fb.reason);
		jw_str("reason_hex", buf);
		jw_str("reason", smc_reason_text(s->fb.reason));
		jw_u64("peer_diagnosis_code", s->fb.peer_diagnosis);
		snprintf(buf, sizeof(buf), "0x%08x", s->fb.peer_diagnosis);
		jw_str("peer_diagnosis_hex", buf);
		jw_str("peer_diagnosis", smc_reason_text(s->fb.peer_diagnosis));
		jw_obj_close();
	} else {
		jw_null("fallback");
	}
	if (s->have_conn) {
		const struct smc_diag_conninfo *c = &s->conn;

		jw_obj_open("conn");
		jw_u64("token", c->token);
		jw_u64("sndbuf", c->sndbuf_size);
		jw_u64("rmbe", c->rmbe_size);
		jw_u64("peer_rmbe", c->peer_rmbe_size);
		cursor_json("rx_prod", &c->rx_prod);
		cursor_json("rx_cons", &c->rx_cons);
		cursor_json("tx_prod", &c->tx_prod);
		cursor_json("tx_cons", &c->tx_cons);
		jw_u64("rx_prod_flags", c->rx_prod_flags);
		jw_u64("rx_conn_state_flags", c->rx_conn_state_flags);
		jw_u64("tx_prod_flags", c->tx_prod_flags);
		jw_u64("tx_conn_state_flags", c->tx_conn_state_flags);
		cursor_json("tx_prep", &c->tx_prep);
		cursor_json("tx_sent", &c->tx_sent);
		cursor_json("tx_fin", &c->tx_fin);
		jw_obj_close();
	} else {
		jw_null("conn");
	}
	if (s->have_lgr) {
		const struct smc_diag_linkinfo *k = &s->lgr.lnk[0];

		jw_obj_open("link");
		jw_str("role", s->lgr.role ? "server" : "client");
		jw_u64("link_id", k->link_id);
		cstr(ib, k->ibname, sizeof(k->ibname));
		jw_str("ibdev", ib);
		jw_u64("ibport", k->ibport);
		cstr(gid, k->gid, sizeof(k->gid));
		jw_str("gid", gid);
		cstr(gid, k->peer_gid, sizeof(k->peer_gid));
		jw_str("peer_gid", gid);
		jw_obj_close();
	} else {
		jw_null("link");
	}
	if (s->have_dmb) {
		jw_obj_open("dmb");
		jw_u64("linkid", s->dmb.linkid);
		jw_u64("peer_gid", s->dmb.peer_gid);
		jw_u64("my_gid", s->dmb.my_gid);
		jw_u64("token", s->dmb.token);
		jw_u64("peer_token", s->dmb.peer_token);
		jw_obj_close();
	}
	jw_obj_close();
}

static void sock_details(const struct sock_info *s)
{
	char gid[41], pgid[41], ib[IB_DEVICE_NAME_MAX + 1];

	if (s->have_conn) {
		const struct smc_diag_conninfo *c = &s->conn;

		printf("\ttoken %#010x sndbuf %u rmbe %u peer_rmbe %u\n",
		       c->token, c->sndbuf_size, c->rmbe_size,
		       c->peer_rmbe_size);
		printf("\trx_prod %u:%u rx_cons %u:%u tx_prod %u:%u tx_cons %u:%u\n",
		       c->rx_prod.wrap, c->rx_prod.count, c->rx_cons.wrap,
		       c->rx_cons.count, c->tx_prod.wrap, c->tx_prod.count,
		       c->tx_cons.wrap, c->tx_cons.count);
		printf("\ttx_prep %u:%u tx_sent %u:%u tx_fin %u:%u flags rx %02x:%02x tx %02x:%02x\n",
		       c->tx_prep.wrap, c->tx_prep.count, c->tx_sent.wrap,
		       c->tx_sent.count, c->tx_fin.wrap, c->tx_fin.count,
		       c->rx_prod_flags, c->rx_conn_state_flags,
		       c->tx_prod_flags, c->tx_conn_state_flags);
	}
	if (s->have_lgr) {
		const struct smc_diag_linkinfo *k = &s->lgr.lnk[0];

		cstr(ib, k->ibname, sizeof(k->ibname));
		cstr(gid, k->gid, sizeof(k->gid));
		cstr(pgid, k->peer_gid, sizeof(k->peer_gid));
		printf("\tlink %u %s %s/%u gid %s peer_gid %s\n", k->link_id,
		       s->lgr.role ? "server" : "client", ib, k->ibport, gid,
		       pgid);
	}
	if (s->have_fb && s->fb.reason) {
		const struct smc_reason *r = smc_reason_find(s->fb.reason);

		if (r)
			printf("\tfix: %s\n", r->fix);
	}
}

static int sock_dump(struct sock_list *l)
{
	struct smc_diag_req *req;
	struct nlmsghdr *nlh;
	struct smc_nl nl;
	int rc;

	memset(&nl, 0, sizeof(nl));
	nl.sk = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!nl.sk || mnl_socket_bind(nl.sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		smc_nl_close(&nl);
		smc_nl_extack[0] = '\0';
		return smc_nl_error("sock_diag socket", rc);
	}
	nl.portid = mnl_socket_get_portid(nl.sk);
	nlh = smc_nl_msg(&nl, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->diag_family = AF_SMC;
	/* extension N is asked for by bit N - 1 */
	req->diag_ext = 1 << (SMC_DIAG_CONNINFO - 1) |
			1 << (SMC_DIAG_LGRINFO - 1) |
			1 << (SMC_DIAG_SHUTDOWN - 1) |
			1 << (SMC_DIAG_DMBINFO - 1) |
			1 << (SMC_DIAG_FALLBACK - 1);
	rc = smc_nl_talk(&nl, nlh, diag_cb, l);
	smc_nl_close(&nl);
	if (rc == -ENOENT) {
		fprintf(stderr,
			"smc: socket show: %s (ENOENT): no sock_diag handler for AF_SMC: load smc_diag (modprobe smc_diag, or insmod net/smc/smc_diag.ko)\n",
			strerror(ENOENT));
		return SMC_EXIT_ERR;
	}
	return rc ? smc_nl_error("socket show", rc) : 0;
}

int do_socket(int argc, char **argv)
{
	struct sock_list l = { 0 };
	char local[80], peer[80];
	struct table *t;
	int i, rc;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smc socket show\n"
		       "AF_SMC sockets of the network namespace: state, mode (SMCR, or\n"
		       "TCP after a fallback, with the reason), addresses of the internal\n"
		       "TCP socket, buffer sizes; -d adds cursors, link and the fix for a\n"
		       "fallback. Needs the smc_diag module.\n");
		return 0;
	}
	if (argc > 0 && !matches(argv[0], "show") && !matches(argv[0], "list"))
		return usage_error("unknown socket command \"%s\"", argv[0]);
	if (argc > 1)
		return usage_error("socket show takes no argument");
	rc = sock_dump(&l);
	if (rc)
		goto out;
	if (opts.json) {
		jw_begin();
		jw_arr_open(NULL);
		for (i = 0; i < l.n; i++)
			sock_json(&l.s[i]);
		jw_arr_close();
		jw_end();
		goto out;
	}
	t = tbl_new(9, "STATE", "MODE", "LOCAL", "PEER", "UID", "INODE",
		    "SNDBUF", "RMBE", "FALLBACK");
	for (i = 0; i < l.n; i++) {
		const struct sock_info *s = &l.s[i];

		addr_fmt(s, false, local, sizeof(local));
		addr_fmt(s, true, peer, sizeof(peer));
		tbl_row(t);
		tbl_cell(t, "%s", state_name(s->m.diag_state));
		tbl_cell(t, "%s", mode_name(s));
		tbl_cell(t, "%s", local);
		tbl_cell(t, "%s", peer);
		tbl_cell(t, "%u", s->m.diag_uid);
		tbl_cell(t, "%llu", (unsigned long long)s->m.diag_inode);
		if (s->have_conn) {
			tbl_cell(t, "%u", s->conn.sndbuf_size);
			tbl_cell(t, "%u", s->conn.rmbe_size);
		} else {
			tbl_cell(t, "-");
			tbl_cell(t, "-");
		}
		if (s->have_fb && s->fb.reason) {
			if (s->fb.peer_diagnosis)
				tbl_cell(t, "0x%08x %s (peer: 0x%08x %s)",
					 s->fb.reason,
					 smc_reason_text(s->fb.reason),
					 s->fb.peer_diagnosis,
					 smc_reason_text(s->fb.peer_diagnosis));
			else
				tbl_cell(t, "0x%08x %s", s->fb.reason,
					 smc_reason_text(s->fb.reason));
		} else {
			tbl_cell(t, "-");
		}
	}
	if (!opts.details) {
		tbl_print(t);
		goto out;
	}
	/* with details each socket's lines follow its row: one table per
	 * socket would lose the alignment, so print the rows one by one
	 */
	tbl_print(t);
	for (i = 0; i < l.n; i++) {
		const struct sock_info *s = &l.s[i];

		if (!s->have_conn && !s->have_lgr && !(s->have_fb && s->fb.reason))
			continue;
		addr_fmt(s, false, local, sizeof(local));
		addr_fmt(s, true, peer, sizeof(peer));
		printf("%s %s -> %s (inode %llu):\n", mode_name(s), local, peer,
		       (unsigned long long)s->m.diag_inode);
		sock_details(s);
	}
out:
	free(l.s);
	return rc;
}
