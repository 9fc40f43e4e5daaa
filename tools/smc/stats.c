// SPDX-License-Identifier: GPL-2.0
/* smc(8): "smc stats" (SMC_NETLINK_GET_STATS) and the fallback statistics
 * (SMC_NETLINK_GET_FBACK_STATS) with the reasons in words.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <linux/smc.h>
#include "smc.h"

/* Names of the uapi attributes, as JSON keys */
static const char *const buckets[] = {
	NULL, "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k",
	"g_1024k",
};
static const char *const rmb_names[] = {
	NULL, "size_sm_peer_cnt", "size_sm_cnt", "full_peer_cnt", "full_cnt",
	"reuse_cnt", "alloc_cnt", "dgrade_cnt",
};
static const char *const hist_names[] = {
	NULL, "tx_rmb_size", "rx_rmb_size", "tx_pload_size", "rx_pload_size",
};
static const char *const scalar_names[] = {
	[SMC_NLA_STATS_T_CLNT_V1_SUCC] = "clnt_v1_succ",
	[SMC_NLA_STATS_T_CLNT_V2_SUCC] = "clnt_v2_succ",
	[SMC_NLA_STATS_T_SRV_V1_SUCC] = "srv_v1_succ",
	[SMC_NLA_STATS_T_SRV_V2_SUCC] = "srv_v2_succ",
	[SMC_NLA_STATS_T_SENDPAGE_CNT] = "sendpage_cnt",
	[SMC_NLA_STATS_T_SPLICE_CNT] = "splice_cnt",
	[SMC_NLA_STATS_T_CORK_CNT] = "cork_cnt",
	[SMC_NLA_STATS_T_NDLY_CNT] = "ndly_cnt",
	[SMC_NLA_STATS_T_URG_DATA_CNT] = "urg_data_cnt",
	[SMC_NLA_STATS_T_RX_BYTES] = "rx_bytes",
	[SMC_NLA_STATS_T_TX_BYTES] = "tx_bytes",
	[SMC_NLA_STATS_T_RX_CNT] = "rx_cnt",
	[SMC_NLA_STATS_T_TX_CNT] = "tx_cnt",
};

#define NBUCKET	(SMC_NLA_STATS_PLOAD_MAX + 1)
#define NRMB	(SMC_NLA_STATS_RMB_MAX + 1)
#define NSCALAR	(SMC_NLA_STATS_T_MAX + 1)

struct tech {
	uint64_t hist[SMC_NLA_STATS_T_RXPLOAD_SIZE + 1][NBUCKET];
	uint64_t rmb[2][NRMB];		/* tx, rx */
	uint64_t v[NSCALAR];
};

struct stats {
	bool have;
	struct tech smcd, smcr;
	uint64_t clnt_hs_err, srv_hs_err;
};

#define MAX_FBACK 128

struct fback {
	int n;
	uint64_t srv_total, clnt_total;
	struct {
		bool server;
		uint32_t code;
		uint32_t count;
	} r[MAX_FBACK];
};

static void parse_u64s(const struct nlattr *nest, uint64_t *out, int n)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	int i;

	if (!nest)
		return;
	smc_nl_parse_nest(nest, tb);
	for (i = 1; i < n && i < SMC_NL_TB_MAX; i++)
		if (tb[i])
			out[i] = nla_u64(tb[i]);
}

static void parse_tech(const struct nlattr *nest, struct tech *t)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	int i;

	if (!nest)
		return;
	smc_nl_parse_nest(nest, tb);
	for (i = SMC_NLA_STATS_T_TX_RMB_SIZE;
	     i <= SMC_NLA_STATS_T_RXPLOAD_SIZE; i++)
		parse_u64s(tb[i], t->hist[i], NBUCKET);
	parse_u64s(tb[SMC_NLA_STATS_T_TX_RMB_STATS], t->rmb[0], NRMB);
	parse_u64s(tb[SMC_NLA_STATS_T_RX_RMB_STATS], t->rmb[1], NRMB);
	for (i = SMC_NLA_STATS_T_CLNT_V1_SUCC; i < NSCALAR; i++)
		if (tb[i])
			t->v[i] = nla_u64(tb[i]);
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX], *nb[SMC_NL_TB_MAX];
	struct stats *s = data;

	smc_nl_parse_genl(nlh, tb);
	if (!tb[SMC_GEN_STATS])
		return MNL_CB_OK;
	smc_nl_parse_nest(tb[SMC_GEN_STATS], nb);
	s->have = true;
	parse_tech(nb[SMC_NLA_STATS_SMCD_TECH], &s->smcd);
	parse_tech(nb[SMC_NLA_STATS_SMCR_TECH], &s->smcr);
	s->clnt_hs_err = nla_u64(nb[SMC_NLA_STATS_CLNT_HS_ERR_CNT]);
	s->srv_hs_err = nla_u64(nb[SMC_NLA_STATS_SRV_HS_ERR_CNT]);
	return MNL_CB_OK;
}

static int fback_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX], *nb[SMC_NL_TB_MAX];
	struct fback *f = data;

	smc_nl_parse_genl(nlh, tb);
	if (!tb[SMC_GEN_FBACK_STATS])
		return MNL_CB_OK;
	smc_nl_parse_nest(tb[SMC_GEN_FBACK_STATS], nb);
	f->srv_total = nla_u64(nb[SMC_NLA_FBACK_STATS_SRV_CNT]);
	f->clnt_total = nla_u64(nb[SMC_NLA_FBACK_STATS_CLNT_CNT]);
	if (f->n >= MAX_FBACK)
		return MNL_CB_OK;
	f->r[f->n].server = nla_u8(nb[SMC_NLA_FBACK_STATS_TYPE]);
	f->r[f->n].code = nla_u32(nb[SMC_NLA_FBACK_STATS_RSN_CODE]);
	f->r[f->n].count = nla_u16(nb[SMC_NLA_FBACK_STATS_RSN_CNT]);
	f->n++;
	return MNL_CB_OK;
}

static int fetch(struct stats *s, struct fback *f)
{
	int rc = 0;

	if (s)
		rc = smc_gen_dump(SMC_NETLINK_GET_STATS, stats_cb, s, "stats");
	if (!rc && f)
		rc = smc_gen_dump(SMC_NETLINK_GET_FBACK_STATS, fback_cb, f,
				  "fallback stats");
	return rc;
}

/* ---- JSON ---- */

static void tech_json(const char *key, const struct tech *t)
{
	int i, j;

	jw_obj_open(key);
	for (i = SMC_NLA_STATS_T_TX_RMB_SIZE;
	     i <= SMC_NLA_STATS_T_RXPLOAD_SIZE; i++) {
		jw_obj_open(hist_names[i]);
		for (j = 1; j < NBUCKET; j++)
			jw_u64(buckets[j], t->hist[i][j]);
		jw_obj_close();
	}
	for (i = 0; i < 2; i++) {
		jw_obj_open(i ? "rx_rmb_stats" : "tx_rmb_stats");
		for (j = 1; j < NRMB; j++)
			jw_u64(rmb_names[j], t->rmb[i][j]);
		jw_obj_close();
	}
	for (i = SMC_NLA_STATS_T_CLNT_V1_SUCC; i < NSCALAR; i++)
		jw_u64(scalar_names[i], t->v[i]);
	jw_obj_close();
}

static void fback_json(const struct fback *f, bool explain)
{
	const struct smc_reason *r;
	char hex[16];
	int i;

	jw_obj_open(explain ? NULL : "fallback");
	jw_u64("server_total", f->srv_total);
	jw_u64("client_total", f->clnt_total);
	jw_arr_open("reasons");
	for (i = 0; i < f->n; i++) {
		r = smc_reason_find(f->r[i].code);
		snprintf(hex, sizeof(hex), "0x%08x", f->r[i].code);
		jw_obj_open(NULL);
		jw_str("role", f->r[i].server ? "server" : "client");
		jw_u64("code", f->r[i].code);
		jw_str("code_hex", hex);
		jw_str("reason", smc_reason_text(f->r[i].code));
		jw_u64("count", f->r[i].count);
		if (explain && r) {
			jw_str("cause", r->cause);
			jw_str("fix", r->fix);
		}
		jw_obj_close();
	}
	jw_arr_close();
	jw_obj_close();
}

/* ---- tables ---- */

static uint64_t sum(const uint64_t *v, int n)
{
	uint64_t s = 0;
	int i;

	for (i = 1; i < n; i++)
		s += v[i];
	return s;
}

static bool tech_used(const struct tech *t)
{
	int i;

	for (i = 0; i < NSCALAR; i++)
		if (t->v[i])
			return true;
	for (i = 0; i < 2; i++)
		if (sum(t->rmb[i], NRMB))
			return true;
	return false;
}

/* One row per size bucket but the first: "  WHAT UPTO<size>", the last
 * one "  WHAT >1024k"; TX and RX counts.
 */
static void hist_rows(struct table *tb, const char *what, const char *upto,
		      const uint64_t *tx, const uint64_t *rx)
{
	int i;

	for (i = 1; i < NBUCKET; i++) {
		tbl_row(tb);
		if (i == NBUCKET - 1)
			tbl_cell(tb, "  %s >1024k", what);
		else
			tbl_cell(tb, "  %s %s%s", what, upto, buckets[i]);
		tbl_cell(tb, "%llu", (unsigned long long)tx[i]);
		tbl_cell(tb, "%llu", (unsigned long long)rx[i]);
	}
}

static void tech_text(const char *name, const struct tech *t)
{
	struct table *tb;
	int i;

	printf("%s\n", name);
	tb = tbl_new(3, "  CONNECTIONS", "CLIENT", "SERVER");
	tbl_row(tb);
	tbl_cell(tb, "  v1");
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_CLNT_V1_SUCC]);
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_SRV_V1_SUCC]);
	tbl_row(tb);
	tbl_cell(tb, "  v2");
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_CLNT_V2_SUCC]);
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_SRV_V2_SUCC]);
	tbl_print(tb);

	tb = tbl_new(3, "  DATA", "TX", "RX");
	tbl_row(tb);
	tbl_cell(tb, "  bytes");
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_TX_BYTES]);
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_RX_BYTES]);
	tbl_row(tb);
	tbl_cell(tb, "  calls");
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_TX_CNT]);
	tbl_cell(tb, "%llu", (unsigned long long)t->v[SMC_NLA_STATS_T_RX_CNT]);
	hist_rows(tb, "payload", "<=", t->hist[SMC_NLA_STATS_T_TXPLOAD_SIZE],
		  t->hist[SMC_NLA_STATS_T_RXPLOAD_SIZE]);
	hist_rows(tb, "buffer", "", t->hist[SMC_NLA_STATS_T_TX_RMB_SIZE],
		  t->hist[SMC_NLA_STATS_T_RX_RMB_SIZE]);
	for (i = 1; i < NRMB; i++) {
		tbl_row(tb);
		tbl_cell(tb, "  buffers %s", rmb_names[i]);
		tbl_cell(tb, "%llu", (unsigned long long)t->rmb[0][i]);
		tbl_cell(tb, "%llu", (unsigned long long)t->rmb[1][i]);
	}
	tbl_print(tb);

	tb = tbl_new(2, "  SPECIAL CALLS", "COUNT");
	for (i = SMC_NLA_STATS_T_SENDPAGE_CNT;
	     i <= SMC_NLA_STATS_T_URG_DATA_CNT; i++) {
		tbl_row(tb);
		tbl_cell(tb, "  %s", scalar_names[i]);
		tbl_cell(tb, "%llu", (unsigned long long)t->v[i]);
	}
	tbl_print(tb);
}

static void fback_text(const struct fback *f, bool explain)
{
	const struct smc_reason *r;
	struct table *t;
	int i;

	printf("Fallbacks to TCP: client %llu, server %llu\n",
	       (unsigned long long)f->clnt_total,
	       (unsigned long long)f->srv_total);
	if (!f->n)
		return;
	if (explain) {
		for (i = 0; i < f->n; i++) {
			r = smc_reason_find(f->r[i].code);
			printf("  %-6s %6u x 0x%08x %s\n",
			       f->r[i].server ? "server" : "client",
			       f->r[i].count, f->r[i].code,
			       smc_reason_text(f->r[i].code));
			if (r) {
				printf("      cause: %s\n", r->cause);
				printf("      fix:   %s\n", r->fix);
			}
		}
		return;
	}
	t = tbl_new(4, "  ROLE", "COUNT", "CODE", "REASON");
	for (i = 0; i < f->n; i++) {
		tbl_row(t);
		tbl_cell(t, "  %s", f->r[i].server ? "server" : "client");
		tbl_cell(t, "%u", f->r[i].count);
		tbl_cell(t, "0x%08x", f->r[i].code);
		tbl_cell(t, "%s", smc_reason_text(f->r[i].code));
	}
	tbl_print(t);
}

int smc_fallback_show(bool explain)
{
	static struct fback f;
	int rc;

	memset(&f, 0, sizeof(f));
	rc = fetch(NULL, &f);
	if (rc)
		return rc;
	if (opts.json) {
		jw_begin();
		fback_json(&f, true);
		jw_end();
	} else {
		fback_text(&f, explain);
	}
	return 0;
}

static int stats_show(void)
{
	static struct stats s;
	static struct fback f;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&f, 0, sizeof(f));
	rc = fetch(&s, &f);
	if (rc)
		return rc;
	if (opts.json) {
		jw_begin();
		jw_obj_open(NULL);
		tech_json("smcr", &s.smcr);
		tech_json("smcd", &s.smcd);
		jw_u64("clnt_hs_err_cnt", s.clnt_hs_err);
		jw_u64("srv_hs_err_cnt", s.srv_hs_err);
		fback_json(&f, false);
		jw_obj_close();
		jw_end();
		return 0;
	}
	tech_text("SMC-R", &s.smcr);
	if (tech_used(&s.smcd) || opts.details)
		tech_text("SMC-D", &s.smcd);
	else
		printf("SMC-D: not used (all counters zero)\n");
	printf("Handshake errors: client %llu, server %llu\n",
	       (unsigned long long)s.clnt_hs_err,
	       (unsigned long long)s.srv_hs_err);
	fback_text(&f, false);
	return 0;
}

static void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: smc stats [ show | json ]\n"
		"Counters of the network namespace: SMC-R (and SMC-D) connections,\n"
		"bytes and calls, buffer sizes, handshake errors, fallbacks per\n"
		"reason. \"json\" is \"smc -j stats\". There is no reset: the SMC\n"
		"netlink interface has no command for it.\n");
}

int do_stats(int argc, char **argv)
{
	if (argc > 1)
		return usage_error("stats: too many arguments");
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return stats_show();
	if (matches(argv[0], "json")) {
		opts.json = true;
		return stats_show();
	}
	if (is_help(argv[0])) {
		stats_usage(stdout);
		return 0;
	}
	if (matches(argv[0], "reset")) {
		fprintf(stderr,
			"smc: stats reset: not supported: <linux/smc.h> has no command to reset the statistics\n");
		return SMC_EXIT_ERR;
	}
	stats_usage(stderr);
	return usage_error("unknown stats command \"%s\"", argv[0]);
}
