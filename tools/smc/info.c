// SPDX-License-Identifier: GPL-2.0
/* smc(8): system information and the EID settings of SMC_GEN_NETLINK:
 * "smc info", "smc ueid", "smc seid" and "smc hslimit".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <linux/smc.h>
#include "smc.h"

struct sysinfo {
	bool have;
	unsigned int ver, rel;
	bool ism_v2, smcr_v2, have_smcr_v2;
	char host[SMC_MAX_HOSTNAME_LEN + 1];
	char seid[SMC_MAX_EID_LEN + 1];
};

struct eids {
	int n;
	char eid[SMC_MAX_UEID * 2][SMC_MAX_EID_LEN + 1];
};

struct seid {
	bool have_entry, have_enabled, enabled;
	char eid[SMC_MAX_EID_LEN + 1];
};

struct hslimit {
	bool have, enabled;
};

/* EIDs travel blank padded to 32 characters: shown without the blanks */
static void rstrip(char *s)
{
	size_t len = strlen(s);

	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
}

static int sysinfo_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX], *nb[SMC_NL_TB_MAX];
	struct sysinfo *si = data;

	smc_nl_parse_genl(nlh, tb);
	if (!tb[SMC_GEN_SYS_INFO])
		return MNL_CB_OK;
	smc_nl_parse_nest(tb[SMC_GEN_SYS_INFO], nb);
	si->have = true;
	si->ver = nla_u8(nb[SMC_NLA_SYS_VER]);
	si->rel = nla_u8(nb[SMC_NLA_SYS_REL]);
	si->ism_v2 = nla_u8(nb[SMC_NLA_SYS_IS_ISM_V2]);
	si->have_smcr_v2 = nb[SMC_NLA_SYS_IS_SMCR_V2];
	si->smcr_v2 = nla_u8(nb[SMC_NLA_SYS_IS_SMCR_V2]);
	nla_str(nb[SMC_NLA_SYS_LOCAL_HOST], si->host, sizeof(si->host));
	nla_str(nb[SMC_NLA_SYS_SEID], si->seid, sizeof(si->seid));
	rstrip(si->seid);
	return MNL_CB_OK;
}

static int ueid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct eids *e = data;

	smc_nl_parse_genl(nlh, tb);
	if (!tb[SMC_NLA_EID_TABLE_ENTRY] || e->n >= (int)ARRAY_SIZE(e->eid))
		return MNL_CB_OK;
	nla_str(tb[SMC_NLA_EID_TABLE_ENTRY], e->eid[e->n], sizeof(e->eid[0]));
	rstrip(e->eid[e->n]);
	e->n++;
	return MNL_CB_OK;
}

static int seid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct seid *s = data;

	smc_nl_parse_genl(nlh, tb);
	if (tb[SMC_NLA_SEID_ENTRY]) {
		s->have_entry = true;
		nla_str(tb[SMC_NLA_SEID_ENTRY], s->eid, sizeof(s->eid));
		rstrip(s->eid);
	}
	if (tb[SMC_NLA_SEID_ENABLED]) {
		s->have_enabled = true;
		s->enabled = nla_u8(tb[SMC_NLA_SEID_ENABLED]);
	}
	return MNL_CB_OK;
}

static int hslimit_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX];
	struct hslimit *h = data;

	smc_nl_parse_genl(nlh, tb);
	if (tb[SMC_NLA_HS_LIMITATION_ENABLED]) {
		h->have = true;
		h->enabled = nla_u8(tb[SMC_NLA_HS_LIMITATION_ENABLED]);
	}
	return MNL_CB_OK;
}

static const char *yes_no(bool v)
{
	return v ? "yes" : "no";
}

/* ---- smc info ---- */

int do_info(int argc, char **argv)
{
	struct sysinfo si = { 0 };
	struct hslimit hs = { 0 };
	struct seid sd = { 0 };
	struct eids ue = { 0 };
	struct table *t;
	int rc, i;

	if (argc > 0 && is_help(argv[0])) {
		printf("Usage: smc info\n"
		       "SMC version and release, SMC-R v2 and ISM v2 support, host name,\n"
		       "system and user EIDs, handshake limitation.\n");
		return 0;
	}
	if (argc > 0 && !matches(argv[0], "show"))
		return usage_error("info takes no argument (\"%s\")", argv[0]);
	rc = smc_gen_dump(SMC_NETLINK_GET_SYS_INFO, sysinfo_cb, &si, "info");
	if (!rc)
		rc = smc_gen_dump(SMC_NETLINK_DUMP_UEID, ueid_cb, &ue,
				  "ueid dump");
	if (!rc)
		rc = smc_gen_dump(SMC_NETLINK_DUMP_SEID, seid_cb, &sd,
				  "seid dump");
	if (!rc)
		rc = smc_gen_dump(SMC_NETLINK_DUMP_HS_LIMITATION, hslimit_cb,
				  &hs, "hslimit dump");
	if (rc)
		return rc;

	if (opts.json) {
		jw_begin();
		jw_obj_open(NULL);
		jw_u64("version", si.ver);
		jw_u64("release", si.rel);
		jw_str("hostname", si.host);
		jw_bool("smcr_v2", si.smcr_v2);
		jw_bool("ism_v2", si.ism_v2);
		jw_str_or_null("seid", si.seid);
		jw_bool("seid_enabled", sd.enabled);
		jw_arr_open("ueids");
		for (i = 0; i < ue.n; i++)
			jw_str(NULL, ue.eid[i]);
		jw_arr_close();
		jw_bool("handshake_limitation", hs.enabled);
		jw_obj_close();
		jw_end();
		return 0;
	}
	t = tbl_new(2, (const char *)NULL);
	tbl_row(t);
	tbl_cell(t, "SMC version:");
	tbl_cell(t, "%u.%u", si.ver, si.rel);
	tbl_row(t);
	tbl_cell(t, "Host name:");
	tbl_cell(t, "%s", si.host);
	tbl_row(t);
	tbl_cell(t, "SMC-R v2:");
	tbl_cell(t, "%s", si.have_smcr_v2 ? yes_no(si.smcr_v2) : "n/a");
	tbl_row(t);
	tbl_cell(t, "ISM v2 (SMC-D):");
	tbl_cell(t, "%s", yes_no(si.ism_v2));
	tbl_row(t);
	tbl_cell(t, "System EID:");
	tbl_cell(t, "%s%s", si.seid[0] ? si.seid : "n/a",
		 si.seid[0] ? (sd.enabled ? " (enabled)" : " (disabled)") : "");
	tbl_row(t);
	tbl_cell(t, "User EIDs:");
	if (!ue.n)
		tbl_cell(t, "none (SMC-R v2 needs one: smc ueid add EID)");
	for (i = 0; i < ue.n; i++) {
		if (i) {
			tbl_row(t);
			tbl_cell(t, "%s", "");
		}
		tbl_cell(t, "%s", ue.eid[i]);
	}
	tbl_row(t);
	tbl_cell(t, "Handshake limitation:");
	tbl_cell(t, "%s", hs.enabled ? "enabled" : "disabled");
	tbl_print(t);
	return 0;
}

/* ---- smc ueid ---- */

static void ueid_usage(FILE *f)
{
	fprintf(f,
		"Usage: smc ueid { show | add EID | del EID | flush }\n"
		"EID: up to 32 characters A-Z 0-9 . - (lower case is raised), the\n"
		"first alphanumeric; SMC-R v2 needs the same user EID on both hosts.\n");
}

static void eid_attr(struct nlmsghdr *nlh, void *data)
{
	mnl_attr_put_strz(nlh, SMC_NLA_EID_TABLE_ENTRY, data);
}

/* The wire form: upper case, blank padded to 32 characters; a longer text
 * is passed on as it is, for the kernel to judge.
 */
static void eid_format(const char *in, char *out, size_t size)
{
	size_t i, len = strlen(in);

	for (i = 0; i < len && i < size - 1; i++)
		out[i] = toupper((unsigned char)in[i]);
	for (; i < SMC_MAX_EID_LEN && i < size - 1; i++)
		out[i] = ' ';
	out[i] = '\0';
}

static int ueid_show(void)
{
	struct eids ue = { 0 };
	struct table *t;
	int rc, i;

	rc = smc_gen_dump(SMC_NETLINK_DUMP_UEID, ueid_cb, &ue, "ueid show");
	if (rc)
		return rc;
	if (opts.json) {
		jw_begin();
		jw_arr_open(NULL);
		for (i = 0; i < ue.n; i++) {
			jw_obj_open(NULL);
			jw_str("ueid", ue.eid[i]);
			jw_obj_close();
		}
		jw_arr_close();
		jw_end();
		return 0;
	}
	if (!ue.n)
		return 0;
	t = tbl_new(1, "UEID");
	for (i = 0; i < ue.n; i++) {
		tbl_row(t);
		tbl_cell(t, "%s", ue.eid[i]);
	}
	tbl_print(t);
	return 0;
}

int do_ueid(int argc, char **argv)
{
	char eid[256];

	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list")) {
		if (argc > 1)
			return usage_error("ueid show takes no argument");
		return ueid_show();
	}
	if (is_help(argv[0])) {
		ueid_usage(stdout);
		return 0;
	}
	if (matches(argv[0], "add") || matches(argv[0], "del") ||
	    matches(argv[0], "delete") || matches(argv[0], "remove")) {
		bool add = matches(argv[0], "add");

		if (argc != 2)
			return usage_error("ueid %s needs one EID", argv[0]);
		if (!argv[1][0])
			return usage_error("empty EID");
		if (strlen(argv[1]) >= sizeof(eid))
			return usage_error("EID longer than %zu characters",
					   sizeof(eid) - 1);
		eid_format(argv[1], eid, sizeof(eid));
		return smc_gen_do(add ? SMC_NETLINK_ADD_UEID :
					SMC_NETLINK_REMOVE_UEID,
				  eid_attr, eid, add ? "ueid add" : "ueid del");
	}
	if (matches(argv[0], "flush")) {
		if (argc > 1)
			return usage_error("ueid flush takes no argument");
		return smc_gen_do(SMC_NETLINK_FLUSH_UEID, NULL, NULL,
				  "ueid flush");
	}
	ueid_usage(stderr);
	return usage_error("unknown ueid command \"%s\"", argv[0]);
}

/* ---- smc seid ---- */

static int seid_show(void)
{
	struct seid sd = { 0 };
	int rc;

	rc = smc_gen_dump(SMC_NETLINK_DUMP_SEID, seid_cb, &sd, "seid show");
	if (rc)
		return rc;
	if (opts.json) {
		jw_begin();
		jw_obj_open(NULL);
		jw_str_or_null("seid", sd.eid);
		jw_bool("enabled", sd.enabled);
		jw_obj_close();
		jw_end();
		return 0;
	}
	printf("SEID: %s\nEnabled: %s\n", sd.have_entry ? sd.eid : "n/a",
	       sd.have_enabled ? yes_no(sd.enabled) : "n/a");
	return 0;
}

int do_seid(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list")) {
		if (argc > 1)
			return usage_error("seid show takes no argument");
		return seid_show();
	}
	if (is_help(argv[0])) {
		printf("Usage: smc seid { show | enable | disable }\n"
		       "The system EID (SMC-D v2); a host without one answers\n"
		       "\"not supported\" to enable and disable.\n");
		return 0;
	}
	if (argc > 1)
		return usage_error("seid %s takes no argument", argv[0]);
	if (matches(argv[0], "enable"))
		return smc_gen_do(SMC_NETLINK_ENABLE_SEID, NULL, NULL,
				  "seid enable");
	if (matches(argv[0], "disable"))
		return smc_gen_do(SMC_NETLINK_DISABLE_SEID, NULL, NULL,
				  "seid disable");
	return usage_error("unknown seid command \"%s\"", argv[0]);
}

/* ---- smc hslimit ---- */

static int hslimit_show(void)
{
	struct hslimit hs = { 0 };
	int rc;

	rc = smc_gen_dump(SMC_NETLINK_DUMP_HS_LIMITATION, hslimit_cb, &hs,
			  "hslimit show");
	if (rc)
		return rc;
	if (opts.json) {
		jw_begin();
		jw_obj_open(NULL);
		jw_bool("enabled", hs.enabled);
		jw_obj_close();
		jw_end();
		return 0;
	}
	printf("Handshake limitation: %s\n",
	       !hs.have ? "n/a" : hs.enabled ? "enabled" : "disabled");
	return 0;
}

int do_hslimit(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list")) {
		if (argc > 1)
			return usage_error("hslimit show takes no argument");
		return hslimit_show();
	}
	if (is_help(argv[0])) {
		printf("Usage: smc hslimit { show | enable | disable }\n"
		       "Handshake limitation: under a SYN flood, an AF_SMC listener\n"
		       "may handle new connections as plain TCP.\n");
		return 0;
	}
	if (argc > 1)
		return usage_error("hslimit %s takes no argument", argv[0]);
	if (matches(argv[0], "enable"))
		return smc_gen_do(SMC_NETLINK_ENABLE_HS_LIMITATION, NULL, NULL,
				  "hslimit enable");
	if (matches(argv[0], "disable"))
		return smc_gen_do(SMC_NETLINK_DISABLE_HS_LIMITATION, NULL, NULL,
				  "hslimit disable");
	return usage_error("unknown hslimit command \"%s\"", argv[0]);
}
