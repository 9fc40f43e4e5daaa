// SPDX-License-Identifier: GPL-2.0
/* smc(8): "smc pnet", the PNET table of the SMC_PNETID family: which net
 * devices and RDMA device ports share a physical network (PNET ID).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/smc.h>
#include "smc.h"

#define NAMELEN 72

struct pnet_entry {
	char pnetid[NAMELEN], eth[NAMELEN], ib[NAMELEN];
	unsigned int port;
};

struct pnet_list {
	int n, cap;
	struct pnet_entry *e;
};

struct pnet_req {
	const char *pnetid, *eth, *ib;
	int port;		/* -1: not given */
};

static int pnet_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct pnet_list *l = data;
	struct pnet_entry *e;

	smc_nl_parse_genl(nlh, tb);
	if (!tb[SMC_PNETID_NAME])
		return MNL_CB_OK;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		if (!l->e) {
			perror("smc");
			exit(SMC_EXIT_ERR);
		}
	}
	e = &l->e[l->n++];
	nla_str(tb[SMC_PNETID_NAME], e->pnetid, sizeof(e->pnetid));
	nla_str(tb[SMC_PNETID_ETHNAME], e->eth, sizeof(e->eth));
	nla_str(tb[SMC_PNETID_IBNAME], e->ib, sizeof(e->ib));
	e->port = nla_u8(tb[SMC_PNETID_IBPORT]);
	return MNL_CB_OK;
}

static void pnet_attrs(struct nlmsghdr *nlh, void *data)
{
	const struct pnet_req *r = data;

	if (r->pnetid)
		mnl_attr_put_strz(nlh, SMC_PNETID_NAME, r->pnetid);
	if (r->eth)
		mnl_attr_put_strz(nlh, SMC_PNETID_ETHNAME, r->eth);
	if (r->ib)
		mnl_attr_put_strz(nlh, SMC_PNETID_IBNAME, r->ib);
	if (r->port >= 0)
		mnl_attr_put_u8(nlh, SMC_PNETID_IBPORT, r->port);
}

/* The kernel says "n/a" for the side of an entry that is not set */
static bool unset(const char *s)
{
	return !*s || !strcmp(s, "n/a");
}

static int pnet_show(int argc, char **argv)
{
	struct pnet_req req = { .port = -1 };
	struct pnet_list l = { 0 };
	struct table *t;
	int i, rc;

	if (argc > 1)
		return usage_error("pnet show: one PNET ID at most");
	if (argc == 1)
		req.pnetid = argv[0];
	rc = smc_gen_req(SMCR_GENL_FAMILY_NAME, SMC_PNETID_GET, true,
			 pnet_attrs, &req, pnet_cb, &l, "pnet show");
	if (rc)
		goto out;
	if (opts.json) {
		jw_begin();
		jw_arr_open(NULL);
		for (i = 0; i < l.n; i++) {
			struct pnet_entry *e = &l.e[i];

			jw_obj_open(NULL);
			jw_str("pnetid", e->pnetid);
			if (unset(e->eth))
				jw_null("dev");
			else
				jw_str("dev", e->eth);
			if (unset(e->ib)) {
				jw_null("ibdev");
				jw_null("ibport");
			} else {
				jw_str("ibdev", e->ib);
				jw_u64("ibport", e->port);
			}
			jw_obj_close();
		}
		jw_arr_close();
		jw_end();
		goto out;
	}
	if (!l.n)
		goto out;
	t = tbl_new(4, "PNETID", "DEV", "IBDEV", "PORT");
	for (i = 0; i < l.n; i++) {
		struct pnet_entry *e = &l.e[i];

		tbl_row(t);
		tbl_cell(t, "%s", e->pnetid);
		tbl_cell(t, "%s", unset(e->eth) ? "-" : e->eth);
		tbl_cell(t, "%s", unset(e->ib) ? "-" : e->ib);
		if (unset(e->ib))
			tbl_cell(t, "-");
		else
			tbl_cell(t, "%u", e->port);
	}
	tbl_print(t);
out:
	free(l.e);
	return rc;
}

static int pnet_add(int argc, char **argv)
{
	struct pnet_req req = { .port = -1 };
	char *end;
	long v;

	if (argc < 1)
		return usage_error("pnet add needs a PNET ID");
	req.pnetid = argv[0];
	argc--;
	argv++;
	while (argc > 0) {
		if (argc < 2)
			return usage_error("pnet add: \"%s\" needs a value",
					   argv[0]);
		if (!strcmp(argv[0], "dev") || !strcmp(argv[0], "eth") ||
		    !strcmp(argv[0], "netdev")) {
			req.eth = argv[1];
		} else if (!strcmp(argv[0], "ibdev") ||
			   !strcmp(argv[0], "ib")) {
			req.ib = argv[1];
		} else if (!strcmp(argv[0], "port") ||
			   !strcmp(argv[0], "ibport")) {
			errno = 0;
			v = strtol(argv[1], &end, 0);
			if (errno || *end || !*argv[1] || v < 1 || v > 255)
				return usage_error("pnet add: bad port \"%s\"",
						   argv[1]);
			req.port = v;
		} else {
			return usage_error("pnet add: unknown argument \"%s\"",
					   argv[0]);
		}
		argc -= 2;
		argv += 2;
	}
	if (req.port >= 0 && !req.ib)
		return usage_error("pnet add: port needs an ibdev");
	if (!req.eth && !req.ib)
		return usage_error("pnet add: give dev ETH and/or ibdev IBDEV");
	return smc_gen_req(SMCR_GENL_FAMILY_NAME, SMC_PNETID_ADD, false,
			   pnet_attrs, &req, NULL, NULL, "pnet add");
}

static void pnet_usage(FILE *f)
{
	fprintf(f,
		"Usage: smc pnet show [ PNETID ]\n"
		"       smc pnet add PNETID [ dev ETH ] [ ibdev IBDEV [ port N ] ]\n"
		"       smc pnet del PNETID\n"
		"       smc pnet flush\n"
		"PNETID: 1-16 characters A-Z 0-9 (lower case is raised). A net device\n"
		"and an RDMA device port with the same PNET ID are one physical\n"
		"network: SMC-R uses that RDMA port for connections over the device.\n");
}

int do_pnet(int argc, char **argv)
{
	struct pnet_req req = { .port = -1 };

	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return pnet_show(argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (is_help(argv[0])) {
		pnet_usage(stdout);
		return 0;
	}
	if (matches(argv[0], "add"))
		return pnet_add(argc - 1, argv + 1);
	if (matches(argv[0], "del") || matches(argv[0], "delete") ||
	    matches(argv[0], "remove")) {
		if (argc != 2)
			return usage_error("pnet del needs one PNET ID");
		req.pnetid = argv[1];
		return smc_gen_req(SMCR_GENL_FAMILY_NAME, SMC_PNETID_DEL,
				   false, pnet_attrs, &req, NULL, NULL,
				   "pnet del");
	}
	if (matches(argv[0], "flush")) {
		if (argc > 1)
			return usage_error("pnet flush takes no argument");
		return smc_gen_req(SMCR_GENL_FAMILY_NAME, SMC_PNETID_FLUSH,
				   false, NULL, NULL, NULL, NULL, "pnet flush");
	}
	pnet_usage(stderr);
	return usage_error("unknown pnet command \"%s\"", argv[0]);
}
