// SPDX-License-Identifier: GPL-2.0
/* smc(8): the object dumps of SMC_GEN_NETLINK: "smc linkgroup", "smc link"
 * and "smc device", for SMC-R and SMC-D.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/smc.h>
#include "smc.h"

#define STRLEN 72

/* SMC_NLA_LGR_R_V2 entries of SMC v2.1, newer than the 6.1 <linux/smc.h> */
#define NLA_LGR_R_V2_MAX_CONNS	2
#define NLA_LGR_R_V2_MAX_LINKS	3

struct v2common {
	bool have;
	unsigned int ver, rel, os;
	char eid[STRLEN], host[STRLEN];
};

struct lgr {
	bool smcd;
	uint32_t id, conns;
	uint8_t role, type, vlan, buf_type;
	bool have_buf_type, have_cookie, have_direct, direct;
	bool have_limits;	/* SMC v2.1 attributes (Linux 6.6 uapi) */
	unsigned int max_conns, max_links;
	uint64_t net_cookie;
	char pnetid[STRLEN];
	struct v2common v2;
	uint64_t gid, peer_gid;		/* SMC-D */
	uint16_t chid;
};

struct link {
	uint32_t lgr_id;
	uint8_t lgr_role;
	uint8_t id, port;
	uint32_t conns, netdev, uid, peer_uid, state;
	char ibdev[STRLEN], gid[STRLEN], peer_gid[STRLEN];
};

struct port {
	bool have;
	uint8_t pnet_usr, state, valid;
	uint32_t netdev, links;
	char pnetid[STRLEN];
};

struct dev {
	bool smcd, have_use_cnt, have_pci;
	uint32_t use_cnt, fid;
	uint8_t crit;
	uint16_t chid, vendor, device;
	char pci_id[STRLEN], ibname[STRLEN];
	struct port port[2];
};

struct list {
	int n, cap;
	size_t size;
	void *v;
	/* link dumps: the group the following links belong to */
	uint32_t cur_lgr;
	uint8_t cur_role;
	bool smcd;
};

static void *list_add(struct list *l)
{
	void *p;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		p = realloc(l->v, l->cap * l->size);
		if (!p) {
			perror("smc");
			exit(SMC_EXIT_ERR);
		}
		l->v = p;
	}
	p = (char *)l->v + l->n++ * l->size;
	memset(p, 0, l->size);
	return p;
}

static const char *role_name(unsigned int role)
{
	return role ? "server" : "client";
}

static const char *lgr_type_name(unsigned int type)
{
	static const char *const n[] = {
		"NONE", "SINGLE", "SYMMETRIC", "ASYMMETRIC_PEER",
		"ASYMMETRIC_LOCAL",
	};

	return type < ARRAY_SIZE(n) ? n[type] : "unknown";
}

static const char *os_name(unsigned int os)
{
	switch (os) {
	case 1:
		return "z/OS";
	case 2:
		return "Linux";
	case 3:
		return "AIX";
	default:
		return "unknown";
	}
}

static const char *link_state_name(unsigned int st)
{
	static const char *const n[] = {
		"UNUSED", "INACTIVE", "ACTIVATING", "ACTIVE",
	};

	return st < ARRAY_SIZE(n) ? n[st] : "unknown";
}

static const char *ifname(uint32_t idx, char *buf)
{
	if (!idx || !if_indextoname(idx, buf))
		return NULL;
	return buf;
}

/* ---- decoding ---- */

static void rstrip(char *s)
{
	size_t len = strlen(s);

	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
}

static void parse_v2common(const struct nlattr *nest, struct v2common *v)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];

	if (!nest)
		return;
	smc_nl_parse_nest(nest, tb);
	v->have = true;
	v->ver = nla_u8(tb[SMC_NLA_LGR_V2_VER]);
	v->rel = nla_u8(tb[SMC_NLA_LGR_V2_REL]);
	v->os = nla_u8(tb[SMC_NLA_LGR_V2_OS]);
	nla_str(tb[SMC_NLA_LGR_V2_NEG_EID], v->eid, sizeof(v->eid));
	nla_str(tb[SMC_NLA_LGR_V2_PEER_HOST], v->host, sizeof(v->host));
	/* EID and host name travel blank padded, as in CLC */
	rstrip(v->eid);
	rstrip(v->host);
}

static void parse_lgr_r(const struct nlattr *nest, struct lgr *g)
{
	const struct nlattr *tb[SMC_NL_TB_MAX], *v2[SMC_NL_TB_MAX];

	smc_nl_parse_nest(nest, tb);
	g->id = nla_u32(tb[SMC_NLA_LGR_R_ID]);
	g->role = nla_u8(tb[SMC_NLA_LGR_R_ROLE]);
	g->type = nla_u8(tb[SMC_NLA_LGR_R_TYPE]);
	nla_str(tb[SMC_NLA_LGR_R_PNETID], g->pnetid, sizeof(g->pnetid));
	g->vlan = nla_u8(tb[SMC_NLA_LGR_R_VLAN_ID]);
	g->conns = nla_u32(tb[SMC_NLA_LGR_R_CONNS_NUM]);
	g->have_cookie = tb[SMC_NLA_LGR_R_NET_COOKIE];
	g->net_cookie = nla_u64(tb[SMC_NLA_LGR_R_NET_COOKIE]);
	g->have_buf_type = tb[SMC_NLA_LGR_R_BUF_TYPE];
	g->buf_type = nla_u8(tb[SMC_NLA_LGR_R_BUF_TYPE]);
	parse_v2common(tb[SMC_NLA_LGR_R_V2_COMMON], &g->v2);
	if (tb[SMC_NLA_LGR_R_V2]) {
		smc_nl_parse_nest(tb[SMC_NLA_LGR_R_V2], v2);
		g->have_direct = v2[SMC_NLA_LGR_R_V2_DIRECT];
		g->direct = nla_u8(v2[SMC_NLA_LGR_R_V2_DIRECT]);
		g->have_limits = v2[NLA_LGR_R_V2_MAX_CONNS] &&
				 v2[NLA_LGR_R_V2_MAX_LINKS];
		g->max_conns = nla_u8(v2[NLA_LGR_R_V2_MAX_CONNS]);
		g->max_links = nla_u8(v2[NLA_LGR_R_V2_MAX_LINKS]);
	}
}

static void parse_lgr_d(const struct nlattr *nest, struct lgr *g)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];

	smc_nl_parse_nest(nest, tb);
	g->smcd = true;
	g->id = nla_u32(tb[SMC_NLA_LGR_D_ID]);
	g->gid = nla_u64(tb[SMC_NLA_LGR_D_GID]);
	g->peer_gid = nla_u64(tb[SMC_NLA_LGR_D_PEER_GID]);
	g->vlan = nla_u8(tb[SMC_NLA_LGR_D_VLAN_ID]);
	g->conns = nla_u32(tb[SMC_NLA_LGR_D_CONNS_NUM]);
	nla_str(tb[SMC_NLA_LGR_D_PNETID], g->pnetid, sizeof(g->pnetid));
	g->chid = nla_u16(tb[SMC_NLA_LGR_D_CHID]);
	parse_v2common(tb[SMC_NLA_LGR_D_V2_COMMON], &g->v2);
}

static void parse_link(const struct nlattr *nest, struct link *k)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];

	smc_nl_parse_nest(nest, tb);
	k->id = nla_u8(tb[SMC_NLA_LINK_ID]);
	nla_str(tb[SMC_NLA_LINK_IB_DEV], k->ibdev, sizeof(k->ibdev));
	k->port = nla_u8(tb[SMC_NLA_LINK_IB_PORT]);
	nla_str(tb[SMC_NLA_LINK_GID], k->gid, sizeof(k->gid));
	nla_str(tb[SMC_NLA_LINK_PEER_GID], k->peer_gid, sizeof(k->peer_gid));
	k->conns = nla_u32(tb[SMC_NLA_LINK_CONN_CNT]);
	k->netdev = nla_u32(tb[SMC_NLA_LINK_NET_DEV]);
	k->uid = nla_u32(tb[SMC_NLA_LINK_UID]);
	k->peer_uid = nla_u32(tb[SMC_NLA_LINK_PEER_UID]);
	k->state = nla_u32(tb[SMC_NLA_LINK_STATE]);
}

static void parse_port(const struct nlattr *nest, struct port *p)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];

	if (!nest)
		return;
	smc_nl_parse_nest(nest, tb);
	p->have = true;
	p->pnet_usr = nla_u8(tb[SMC_NLA_DEV_PORT_PNET_USR]);
	nla_str(tb[SMC_NLA_DEV_PORT_PNETID], p->pnetid, sizeof(p->pnetid));
	p->netdev = nla_u32(tb[SMC_NLA_DEV_PORT_NETDEV]);
	p->state = nla_u8(tb[SMC_NLA_DEV_PORT_STATE]);
	p->valid = nla_u8(tb[SMC_NLA_DEV_PORT_VALID]);
	p->links = nla_u32(tb[SMC_NLA_DEV_PORT_LNK_CNT]);
}

static void parse_dev(const struct nlattr *nest, struct dev *d)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];

	smc_nl_parse_nest(nest, tb);
	d->have_use_cnt = tb[SMC_NLA_DEV_USE_CNT];
	d->use_cnt = nla_u32(tb[SMC_NLA_DEV_USE_CNT]);
	d->have_pci = tb[SMC_NLA_DEV_PCI_FID] || tb[SMC_NLA_DEV_PCI_ID] ||
		      tb[SMC_NLA_DEV_PCI_VENDOR];
	d->crit = nla_u8(tb[SMC_NLA_DEV_IS_CRIT]);
	d->fid = nla_u32(tb[SMC_NLA_DEV_PCI_FID]);
	d->chid = nla_u16(tb[SMC_NLA_DEV_PCI_CHID]);
	d->vendor = nla_u16(tb[SMC_NLA_DEV_PCI_VENDOR]);
	d->device = nla_u16(tb[SMC_NLA_DEV_PCI_DEVICE]);
	nla_str(tb[SMC_NLA_DEV_PCI_ID], d->pci_id, sizeof(d->pci_id));
	nla_str(tb[SMC_NLA_DEV_IB_NAME], d->ibname, sizeof(d->ibname));
	parse_port(tb[SMC_NLA_DEV_PORT], &d->port[0]);
	parse_port(tb[SMC_NLA_DEV_PORT2], &d->port[1]);
}

static int lgr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct list *l = data;

	smc_nl_parse_genl(nlh, tb);
	if (tb[SMC_GEN_LGR_SMCR])
		parse_lgr_r(tb[SMC_GEN_LGR_SMCR], list_add(l));
	if (tb[SMC_GEN_LGR_SMCD])
		parse_lgr_d(tb[SMC_GEN_LGR_SMCD], list_add(l));
	return MNL_CB_OK;
}

/* The link dump sends each group's message, then its links' */
static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct list *l = data;
	struct link *k;
	struct lgr g;

	smc_nl_parse_genl(nlh, tb);
	if (tb[SMC_GEN_LGR_SMCR]) {
		memset(&g, 0, sizeof(g));
		parse_lgr_r(tb[SMC_GEN_LGR_SMCR], &g);
		l->cur_lgr = g.id;
		l->cur_role = g.role;
	}
	if (tb[SMC_GEN_LINK_SMCR]) {
		k = list_add(l);
		parse_link(tb[SMC_GEN_LINK_SMCR], k);
		k->lgr_id = l->cur_lgr;
		k->lgr_role = l->cur_role;
	}
	return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct list *l = data;
	struct dev *d;

	smc_nl_parse_genl(nlh, tb);
	if (tb[SMC_GEN_DEV_SMCR]) {
		d = list_add(l);
		parse_dev(tb[SMC_GEN_DEV_SMCR], d);
	}
	if (tb[SMC_GEN_DEV_SMCD]) {
		d = list_add(l);
		parse_dev(tb[SMC_GEN_DEV_SMCD], d);
		d->smcd = true;
	}
	return MNL_CB_OK;
}

/* "show [smcr|smcd]": which of the two to dump; -1 on a usage error */
static int which(int argc, char **argv, const char *obj, bool *r, bool *d)
{
	*r = *d = true;
	if (argc > 0 && (matches(argv[0], "show") || matches(argv[0], "list"))) {
		argc--;
		argv++;
	} else if (argc > 0) {
		usage_error("unknown %s command \"%s\"", obj, argv[0]);
		return -1;
	}
	if (argc > 0 && !strcmp(argv[0], "smcr")) {
		*d = false;
		argc--;
	} else if (argc > 0 && !strcmp(argv[0], "smcd")) {
		*r = false;
		argc--;
	}
	if (argc > 0) {
		usage_error("%s show: unexpected \"%s\"", obj, argv[argc - 1]);
		return -1;
	}
	return 0;
}

/* "OBJ show [smcr|smcd]": dump the SMC-R (@cmd_r) and SMC-D (@cmd_d)
 * objects the arguments ask for into @l: 0, a dump's exit status, or -1
 * for bad arguments (already reported).
 */
static int fetch_both(int argc, char **argv, const char *obj, uint8_t cmd_r,
		      uint8_t cmd_d, mnl_cb_t cb, struct list *l)
{
	char what[64];
	bool r, d;
	int rc = 0;

	if (which(argc, argv, obj, &r, &d))
		return -1;
	snprintf(what, sizeof(what), "%s show", obj);
	if (r)
		rc = smc_gen_dump(cmd_r, cb, l, what);
	snprintf(what, sizeof(what), "%s show smcd", obj);
	if (!rc && d)
		rc = smc_gen_dump(cmd_d, cb, l, what);
	return rc;
}

/* -j: the objects of @l as one JSON array, each by @one. */
static void json_array(const struct list *l, void (*one)(const void *obj))
{
	int i;

	jw_begin();
	jw_arr_open(NULL);
	for (i = 0; i < l->n; i++)
		one((const char *)l->v + (size_t)i * l->size);
	jw_arr_close();
	jw_end();
}

/* ---- smc linkgroup ---- */

static void lgr_json(const void *obj)
{
	const struct lgr *g = obj;

	jw_obj_open(NULL);
	jw_str("smc", g->smcd ? "smcd" : "smcr");
	jw_u64("id", g->id);
	if (g->smcd) {
		jw_u64("gid", g->gid);
		jw_u64("peer_gid", g->peer_gid);
		jw_u64("chid", g->chid);
	} else {
		jw_str("role", role_name(g->role));
		jw_str("type", lgr_type_name(g->type));
		if (g->have_buf_type)
			jw_u64("buf_type", g->buf_type);
		if (g->have_cookie)
			jw_u64("net_cookie", g->net_cookie);
	}
	jw_u64("conns", g->conns);
	jw_u64("vlan_id", g->vlan);
	jw_str_or_null("pnetid", g->pnetid);
	if (g->v2.have) {
		jw_obj_open("v2");
		jw_u64("version", g->v2.ver);
		jw_u64("release", g->v2.rel);
		jw_str("peer_os", os_name(g->v2.os));
		jw_str_or_null("negotiated_eid", g->v2.eid);
		jw_str_or_null("peer_host", g->v2.host);
		if (g->have_direct)
			jw_bool("direct", g->direct);
		if (g->have_limits) {
			jw_u64("max_conns", g->max_conns);
			jw_u64("max_links", g->max_links);
		}
		jw_obj_close();
	} else {
		jw_null("v2");
	}
	jw_obj_close();
}

int do_linkgroup(int argc, char **argv)
{
	struct list l = { .size = sizeof(struct lgr) };
	struct lgr *v;
	struct table *t = NULL;
	int i, rc;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smc linkgroup show [ smcr | smcd ]\n"
		       "Link groups of the network namespace (SMC-R and SMC-D).\n");
		return 0;
	}
	rc = fetch_both(argc, argv, "linkgroup", SMC_NETLINK_GET_LGR_SMCR,
			SMC_NETLINK_GET_LGR_SMCD, lgr_cb, &l);
	if (rc < 0)
		return SMC_EXIT_USAGE;
	if (rc)
		goto out;
	v = l.v;
	if (opts.json) {
		json_array(&l, lgr_json);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		if (v[i].smcd)
			continue;
		if (!t)
			t = tbl_new(10, "ID", "SMC", "ROLE", "TYPE", "CONNS",
				    "VLAN", "PNETID", "VER", "PEER", "EID");
		tbl_row(t);
		tbl_cell(t, "%08x", v[i].id);
		tbl_cell(t, "SMC-R");
		tbl_cell(t, "%s", role_name(v[i].role));
		tbl_cell(t, "%s", lgr_type_name(v[i].type));
		if (v[i].have_limits)	/* in use / most the group takes */
			tbl_cell(t, "%u/%u", v[i].conns, v[i].max_conns);
		else
			tbl_cell(t, "%u", v[i].conns);
		tbl_cell(t, "%u", v[i].vlan);
		tbl_cell(t, "%s", v[i].pnetid[0] ? v[i].pnetid : "-");
		if (v[i].v2.have) {
			tbl_cell(t, "v%u.%u", v[i].v2.ver, v[i].v2.rel);
			tbl_cell(t, "%s (%s)", v[i].v2.host[0] ?
				 v[i].v2.host : "-", os_name(v[i].v2.os));
			tbl_cell(t, "%s", v[i].v2.eid[0] ? v[i].v2.eid : "-");
		} else {
			tbl_cell(t, "v1");
			tbl_cell(t, "-");
			tbl_cell(t, "-");
		}
	}
	for (i = 0; i < l.n; i++) {
		if (!v[i].smcd)
			continue;
		if (!t)
			t = tbl_new(10, "ID", "SMC", "ROLE", "TYPE", "CONNS",
				    "VLAN", "PNETID", "VER", "PEER", "EID");
		tbl_row(t);
		tbl_cell(t, "%08x", v[i].id);
		tbl_cell(t, "SMC-D");
		tbl_cell(t, "-");
		tbl_cell(t, "chid %04x", v[i].chid);
		tbl_cell(t, "%u", v[i].conns);
		tbl_cell(t, "%u", v[i].vlan);
		tbl_cell(t, "%s", v[i].pnetid[0] ? v[i].pnetid : "-");
		tbl_cell(t, "%s", v[i].v2.have ? "v2" : "v1");
		tbl_cell(t, "%s", v[i].v2.host[0] ? v[i].v2.host : "-");
		tbl_cell(t, "%s", v[i].v2.eid[0] ? v[i].v2.eid : "-");
	}
	if (t)
		tbl_print(t);
out:
	free(l.v);
	return rc;
}

/* ---- smc link ---- */

static void link_json(const void *obj)
{
	const struct link *k = obj;
	char name[IF_NAMESIZE];

	jw_obj_open(NULL);
	jw_u64("lgr_id", k->lgr_id);
	jw_str("role", role_name(k->lgr_role));
	jw_u64("id", k->id);
	jw_str("state", link_state_name(k->state));
	jw_u64("state_code", k->state);
	jw_str("ibdev", k->ibdev);
	jw_u64("ibport", k->port);
	jw_u64("netdev_ifindex", k->netdev);
	jw_str_or_null("netdev", ifname(k->netdev, name));
	jw_u64("conns", k->conns);
	jw_str("gid", k->gid);
	jw_str("peer_gid", k->peer_gid);
	jw_u64("uid", k->uid);
	jw_u64("peer_uid", k->peer_uid);
	jw_obj_close();
}

int do_link(int argc, char **argv)
{
	struct list l = { .size = sizeof(struct link) };
	char name[IF_NAMESIZE];
	struct table *t;
	struct link *k;
	int i, rc;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smc link show\n"
		       "SMC-R links with their link group, RDMA device and port,\n"
		       "net device, GIDs; -d adds the link UIDs.\n");
		return 0;
	}
	if (argc > 0 && !matches(argv[0], "show") && !matches(argv[0], "list"))
		return usage_error("unknown link command \"%s\"", argv[0]);
	if (argc > 1)
		return usage_error("link show takes no argument");
	rc = smc_gen_dump(SMC_NETLINK_GET_LINK_SMCR, link_cb, &l, "link show");
	if (rc)
		goto out;
	k = l.v;
	if (opts.json) {
		json_array(&l, link_json);
		goto out;
	}
	if (!l.n)
		goto out;
	t = opts.details ?
		tbl_new(11, "LGR", "ROLE", "ID", "STATE", "IBDEV", "PORT",
			"NETDEV", "CONNS", "GID", "PEER_GID", "UID/PEER") :
		tbl_new(10, "LGR", "ROLE", "ID", "STATE", "IBDEV", "PORT",
			"NETDEV", "CONNS", "GID", "PEER_GID");
	for (i = 0; i < l.n; i++) {
		const char *nd = ifname(k[i].netdev, name);

		tbl_row(t);
		tbl_cell(t, "%08x", k[i].lgr_id);
		tbl_cell(t, "%s", role_name(k[i].lgr_role));
		tbl_cell(t, "%u", k[i].id);
		tbl_cell(t, "%s", link_state_name(k[i].state));
		tbl_cell(t, "%s", k[i].ibdev);
		tbl_cell(t, "%u", k[i].port);
		if (nd)
			tbl_cell(t, "%s", nd);
		else
			tbl_cell(t, "%u", k[i].netdev);
		tbl_cell(t, "%u", k[i].conns);
		tbl_cell(t, "%s", k[i].gid);
		tbl_cell(t, "%s", k[i].peer_gid);
		if (opts.details)
			tbl_cell(t, "%08x/%08x", k[i].uid, k[i].peer_uid);
	}
	tbl_print(t);
out:
	free(l.v);
	return rc;
}

/* ---- smc device ---- */

static const char *port_state(uint8_t st)
{
	return st ? "ACTIVE" : "INACTIVE";
}

static void dev_json(const void *obj)
{
	const struct dev *d = obj;
	char name[IF_NAMESIZE];
	int p;

	jw_obj_open(NULL);
	jw_str("smc", d->smcd ? "smcd" : "smcr");
	jw_str_or_null("ibdev", d->ibname);
	if (d->have_use_cnt)
		jw_u64("use_cnt", d->use_cnt);
	else
		jw_null("use_cnt");
	jw_bool("critical", d->crit);
	if (d->have_pci) {
		jw_obj_open("pci");
		jw_str_or_null("id", d->pci_id);
		jw_u64("fid", d->fid);
		jw_u64("chid", d->chid);
		jw_u64("vendor", d->vendor);
		jw_u64("device", d->device);
		jw_obj_close();
	} else {
		jw_null("pci");
	}
	jw_arr_open("ports");
	for (p = 0; p < 2; p++) {
		const struct port *pt = &d->port[p];

		if (!pt->have)
			continue;
		jw_obj_open(NULL);
		jw_u64("port", p + 1);
		jw_str("state", port_state(pt->state));
		jw_bool("valid", pt->valid);
		jw_u64("netdev_ifindex", pt->netdev);
		jw_str_or_null("netdev", ifname(pt->netdev, name));
		jw_str_or_null("pnetid", pt->pnetid);
		jw_bool("pnetid_by_user", pt->pnet_usr);
		jw_u64("links", pt->links);
		jw_obj_close();
	}
	jw_arr_close();
	jw_obj_close();
}

int do_device(int argc, char **argv)
{
	struct list l = { .size = sizeof(struct dev) };
	char name[IF_NAMESIZE];
	struct table *t = NULL;
	struct dev *v;
	int i, p, rc;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smc device show [ smcr | smcd ]\n"
		       "RDMA devices (SMC-R) and ISM devices (SMC-D) known to SMC,\n"
		       "one line per port.\n");
		return 0;
	}
	rc = fetch_both(argc, argv, "device", SMC_NETLINK_GET_DEV_SMCR,
			SMC_NETLINK_GET_DEV_SMCD, dev_cb, &l);
	if (rc < 0)
		return SMC_EXIT_USAGE;
	if (rc)
		goto out;
	v = l.v;
	if (opts.json) {
		json_array(&l, dev_json);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		for (p = 0; p < 2; p++) {
			const struct port *pt = &v[i].port[p];
			const char *nd;

			if (!pt->have)
				continue;
			if (!t)
				t = tbl_new(10, "DEVICE", "SMC", "PORT", "STATE",
					    "VALID", "NETDEV", "PNETID", "LINKS",
					    "CRIT", "USE");
			nd = ifname(pt->netdev, name);
			tbl_row(t);
			tbl_cell(t, "%s", v[i].ibname[0] ? v[i].ibname :
				 v[i].pci_id[0] ? v[i].pci_id : "-");
			tbl_cell(t, "%s", v[i].smcd ? "SMC-D" : "SMC-R");
			tbl_cell(t, "%d", p + 1);
			tbl_cell(t, "%s", port_state(pt->state));
			tbl_cell(t, "%s", pt->valid ? "yes" : "no");
			tbl_cell(t, "%s", nd ? nd : "-");
			tbl_cell(t, "%s%s", pt->pnetid[0] ? pt->pnetid : "-",
				 pt->pnetid[0] && pt->pnet_usr ? " (user)" : "");
			tbl_cell(t, "%u", pt->links);
			tbl_cell(t, "%s", v[i].crit ? "yes" : "no");
			if (v[i].have_use_cnt)
				tbl_cell(t, "%u", v[i].use_cnt);
			else
				tbl_cell(t, "-");
		}
	}
	if (t)
		tbl_print(t);
out:
	free(l.v);
	return rc;
}
