// SPDX-License-Identifier: GPL-2.0
/* The generic netlink families of <linux/smc.h>: SMC_GEN_NETLINK (system
 * info, object dumps, statistics, EIDs, handshake limit) and SMC_PNETID.
 */
#include <linux/smc.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "clc_wire.h"
#include "eid.h"
#include "netlink.h"
#include "netns.h"
#include "pnet.h"
#include "stats.h"

/* Conventions of both families:
 * - netns-aware: every command acts on the requester's network namespace.
 * - Commands that change state need CAP_NET_ADMIN in the user namespace
 *   owning that network namespace (GENL_UNS_ADMIN_PERM): the tables are per
 *   namespace, so a container's admin manages its own. Dumps are open to all.
 * - Attributes are validated strictly by the genetlink core (resv_start_op
 *   0): unknown or wrong-sized attributes, strings without their NUL within
 *   the maximum length (too long) get -EINVAL, a string attribute whose NUL
 *   is in place but that is longer than the maximum gets -ERANGE; commands
 *   without input attributes reject any. Missing required attributes:
 *   -EINVAL. An unknown command gets -EOPNOTSUPP, as does NLM_F_DUMP on a
 *   command that is not a dump or the reverse.
 * - SMC_NLA_SYS_VER is 2 (SMC v2 is spoken) and SMC_NLA_SYS_REL 1: the
 *   latest release this module negotiates in CLC (v2.1, as Linux 6.6 and
 *   later report; a 6.1 kernel reports 0). Each link group shows what was
 *   agreed with its peer (SMC_NLA_LGR_V2_REL).
 * - SMC_GEN_FBACK_STATS: one message per (role, reason code) with a
 *   non-zero count: SMC_NLA_FBACK_STATS_TYPE 1 = server, 0 = client (what
 *   smc-tools read), RSN_CODE, RSN_CNT (u16, saturated), and in every
 *   message the totals SRV_CNT and CLNT_CNT. No fallback: empty dump.
 * - System EID: none on this machine (see eid.c): GET_SYS_INFO has no
 *   SMC_NLA_SYS_SEID, DUMP_SEID sends SMC_NLA_SEID_ENABLED 0 without an
 *   entry (smc-tools show "n/a"), ENABLE/DISABLE_SEID give -EOPNOTSUPP.
 */

#define ASMC_NL_SMC_VERSION	2
#define ASMC_NL_SMC_RELEASE	ASMC_RELEASE_LATEST

static struct genl_family asmc_pnet_nl_family;

static struct net *asmc_nl_dump_net(struct netlink_callback *cb)
{
	return sock_net(cb->skb->sk);
}

void *asmc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
		       u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &asmc_gen_nl_family, NLM_F_MULTI, cmd);
}

/* Ends a dump step: a message that did not fit in an empty skb never will. */
int asmc_nl_dump_full(struct sk_buff *skb)
{
	return skb->len ? skb->len : -EMSGSIZE;
}

/* ---- SMC_NETLINK_GET_SYS_INFO ------------------------------------------ */

static int asmc_nl_get_sys_info(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct net *net = asmc_nl_dump_net(cb);
	char host[SMC_MAX_HOSTNAME_LEN + 1];
	char seid[SMC_MAX_EID_LEN + 1];
	struct nlattr *nest;
	void *hdr;

	if (cb->args[0])
		return 0;
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_SYS_INFO);
	if (!hdr)
		return asmc_nl_dump_full(skb);
	nest = nla_nest_start(skb, SMC_GEN_SYS_INFO);
	if (!nest)
		goto cancel;
	/* the caller's UTS namespace; longer names are cut, as in CLC */
	strscpy(host, utsname()->nodename, sizeof(host));
	if (nla_put_u8(skb, SMC_NLA_SYS_VER, ASMC_NL_SMC_VERSION) ||
	    nla_put_u8(skb, SMC_NLA_SYS_REL, ASMC_NL_SMC_RELEASE) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_ISM_V2, 0) ||
	    nla_put_string(skb, SMC_NLA_SYS_LOCAL_HOST, host) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_SMCR_V2,
		       !!READ_ONCE(asmc_net(net)->sysctl.smcr_v2)))
		goto cancel;
	if (!asmc_seid_copy(net, (u8 *)seid)) {
		seid[SMC_MAX_EID_LEN] = '\0';
		if (nla_put_string(skb, SMC_NLA_SYS_SEID, seid))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;

cancel:
	genlmsg_cancel(skb, hdr);
	return asmc_nl_dump_full(skb);
}

/* ---- SMC_NETLINK_GET_STATS / GET_FBACK_STATS ---------------------------- */

static int asmc_nl_put_hist(struct sk_buff *skb, int type, const u64 *h)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int i;

	BUILD_BUG_ON((int)SMC_NLA_STATS_PLOAD_MAX != (int)ASMC_STAT_BUF_MAX);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ASMC_STAT_BUF_MAX; i++)
		if (nla_put_u64_64bit(skb, SMC_NLA_STATS_PLOAD_8K + i, h[i],
				      SMC_NLA_STATS_PLOAD_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int asmc_nl_put_rmb(struct sk_buff *skb, int type, const u64 *r)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int i;

	/* enum asmc_stat_rmb has the order of SMC_NLA_STATS_RMB_* */
	BUILD_BUG_ON((int)SMC_NLA_STATS_RMB_MAX != (int)ASMC_STAT_RMB_MAX);
	BUILD_BUG_ON(SMC_NLA_STATS_RMB_DGRADE_CNT !=
		     SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT + ASMC_STAT_RMB_DGRADE);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ASMC_STAT_RMB_MAX; i++)
		if (nla_put_u64_64bit(skb, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT + i,
				      r[i], SMC_NLA_STATS_RMB_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int asmc_nl_put_tech(struct sk_buff *skb, int type,
			    const struct asmc_stats_tech *t)
{
	static const struct {
		u8 attr;
		u16 off;	/* of the u64 in struct asmc_stats_tech */
	} scalars[] = {
#define ASMC_T(a, f) { SMC_NLA_STATS_T_##a, offsetof(struct asmc_stats_tech, f) }
		ASMC_T(CLNT_V1_SUCC, conn_ok[ASMC_STAT_CLIENT][ASMC_STAT_V1]),
		ASMC_T(CLNT_V2_SUCC, conn_ok[ASMC_STAT_CLIENT][ASMC_STAT_V2]),
		ASMC_T(SRV_V1_SUCC, conn_ok[ASMC_STAT_SERVER][ASMC_STAT_V1]),
		ASMC_T(SRV_V2_SUCC, conn_ok[ASMC_STAT_SERVER][ASMC_STAT_V2]),
		ASMC_T(SENDPAGE_CNT, special[ASMC_STAT_SENDPAGE]),
		ASMC_T(SPLICE_CNT, special[ASMC_STAT_SPLICE]),
		ASMC_T(CORK_CNT, special[ASMC_STAT_CORK]),
		ASMC_T(NDLY_CNT, special[ASMC_STAT_NODELAY]),
		ASMC_T(URG_DATA_CNT, special[ASMC_STAT_URG]),
		ASMC_T(RX_BYTES, bytes[ASMC_STAT_RX]),
		ASMC_T(TX_BYTES, bytes[ASMC_STAT_TX]),
		ASMC_T(RX_CNT, calls[ASMC_STAT_RX]),
		ASMC_T(TX_CNT, calls[ASMC_STAT_TX]),
#undef ASMC_T
	};
	struct nlattr *nest = nla_nest_start(skb, type);
	int i;

	if (!nest)
		return -EMSGSIZE;
	if (asmc_nl_put_hist(skb, SMC_NLA_STATS_T_TX_RMB_SIZE,
			     t->rmb_size[ASMC_STAT_TX]) ||
	    asmc_nl_put_hist(skb, SMC_NLA_STATS_T_RX_RMB_SIZE,
			     t->rmb_size[ASMC_STAT_RX]) ||
	    asmc_nl_put_hist(skb, SMC_NLA_STATS_T_TXPLOAD_SIZE,
			     t->pload[ASMC_STAT_TX]) ||
	    asmc_nl_put_hist(skb, SMC_NLA_STATS_T_RXPLOAD_SIZE,
			     t->pload[ASMC_STAT_RX]) ||
	    asmc_nl_put_rmb(skb, SMC_NLA_STATS_T_TX_RMB_STATS,
			    t->rmb[ASMC_STAT_TX]) ||
	    asmc_nl_put_rmb(skb, SMC_NLA_STATS_T_RX_RMB_STATS,
			    t->rmb[ASMC_STAT_RX]))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(scalars); i++) {
		const u64 *v = (const void *)t + scalars[i].off;

		if (nla_put_u64_64bit(skb, scalars[i].attr, *v,
				      SMC_NLA_STATS_T_PAD))
			return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* SMC-D is not supported: its counters are reported, all zero. */
static const struct asmc_stats_tech asmc_nl_smcd_zero;

static int asmc_nl_get_stats(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = asmc_nl_dump_net(cb);
	struct asmc_stats_snap *snap;
	struct nlattr *nest;
	void *hdr;

	if (cb->args[0])
		return 0;
	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	asmc_stats_snapshot(asmc_net_stats(net), snap);

	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_STATS);
	if (!hdr)
		goto full;
	nest = nla_nest_start(skb, SMC_GEN_STATS);
	if (!nest)
		goto cancel;
	if (asmc_nl_put_tech(skb, SMC_NLA_STATS_SMCD_TECH, &asmc_nl_smcd_zero) ||
	    asmc_nl_put_tech(skb, SMC_NLA_STATS_SMCR_TECH, &snap->smcr) ||
	    nla_put_u64_64bit(skb, SMC_NLA_STATS_CLNT_HS_ERR_CNT,
			      snap->hs_err[ASMC_STAT_CLIENT],
			      SMC_NLA_STATS_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_STATS_SRV_HS_ERR_CNT,
			      snap->hs_err[ASMC_STAT_SERVER],
			      SMC_NLA_STATS_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	kfree(snap);
	return skb->len;

cancel:
	genlmsg_cancel(skb, hdr);
full:
	kfree(snap);
	return asmc_nl_dump_full(skb);
}

static int asmc_nl_put_fback(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct asmc_stats_snap *snap, int role,
			     const struct asmc_fback_rsn *r)
{
	struct nlattr *nest;
	void *hdr;

	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_FBACK_STATS);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_FBACK_STATS);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_FBACK_STATS_TYPE, role == ASMC_STAT_SERVER) ||
	    nla_put_u32(skb, SMC_NLA_FBACK_STATS_RSN_CODE, r->code) ||
	    nla_put_u16(skb, SMC_NLA_FBACK_STATS_RSN_CNT,
			min_t(u64, r->count[role], U16_MAX)) ||
	    nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_SRV_CNT,
			      snap->fback_total[ASMC_STAT_SERVER],
			      SMC_NLA_FBACK_STATS_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_CLNT_CNT,
			      snap->fback_total[ASMC_STAT_CLIENT],
			      SMC_NLA_FBACK_STATS_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/* cb->args[0]: next position, server reasons first, then client ones */
static int asmc_nl_get_fback_stats(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct net *net = asmc_nl_dump_net(cb);
	struct asmc_stats_snap *snap;
	int pos, rc = 0;

	if (cb->args[0] >= 2 * ASMC_FBACK_RSN_MAX)
		return 0;
	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	asmc_stats_snapshot(asmc_net_stats(net), snap);
	for (pos = cb->args[0]; pos < 2 * ASMC_FBACK_RSN_MAX; pos++) {
		int role = pos < ASMC_FBACK_RSN_MAX ? ASMC_STAT_SERVER :
						      ASMC_STAT_CLIENT;
		const struct asmc_fback_rsn *r =
			&snap->fback[pos % ASMC_FBACK_RSN_MAX];

		if (!r->code || !r->count[role])
			continue;
		rc = asmc_nl_put_fback(skb, cb, snap, role, r);
		if (rc)
			break;
	}
	cb->args[0] = pos;
	kfree(snap);
	return rc ? asmc_nl_dump_full(skb) : skb->len;
}

/* ---- user and system EIDs ----------------------------------------------- */

static const struct nla_policy asmc_nl_eid_policy[SMC_NLA_EID_TABLE_MAX + 1] = {
	/* the 32 blank-padded characters and a NUL; shorter ones fail in
	 * asmc_ueid_add() with -EINVAL too
	 */
	[SMC_NLA_EID_TABLE_ENTRY] = { .type = NLA_NUL_STRING,
				      .len = SMC_MAX_EID_LEN },
};

/* cb->args[0]: next table index */
static int asmc_nl_dump_ueid(struct sk_buff *skb, struct netlink_callback *cb)
{
	u8 eids[SMC_MAX_UEID][SMC_MAX_EID_LEN];
	char text[SMC_MAX_EID_LEN + 1];
	int i, n;
	void *hdr;

	n = asmc_ueid_copy(asmc_nl_dump_net(cb), eids, SMC_MAX_UEID);
	for (i = cb->args[0]; i < n; i++) {
		memcpy(text, eids[i], SMC_MAX_EID_LEN);
		text[SMC_MAX_EID_LEN] = '\0';
		hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_DUMP_UEID);
		if (!hdr)
			break;
		if (nla_put_string(skb, SMC_NLA_EID_TABLE_ENTRY, text)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	return i < n ? asmc_nl_dump_full(skb) : skb->len;
}

static const char *asmc_nl_ueid_attr(struct genl_info *info)
{
	struct nlattr *a = info->attrs[SMC_NLA_EID_TABLE_ENTRY];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "missing SMC_NLA_EID_TABLE_ENTRY");
		return NULL;
	}
	return nla_data(a);	/* NUL-terminated: checked by the policy */
}

static int asmc_nl_add_ueid(struct sk_buff *skb, struct genl_info *info)
{
	const char *text = asmc_nl_ueid_attr(info);
	int rc;

	if (!text)
		return -EINVAL;
	rc = asmc_ueid_add(genl_info_net(info), text);
	if (rc == -EINVAL)
		NL_SET_ERR_MSG(info->extack,
			       "user EID must be 32 characters A-Z 0-9 . - (first alphanumeric, no '..') padded with blanks");
	else if (rc == -EEXIST)
		NL_SET_ERR_MSG(info->extack, "user EID already defined");
	else if (rc == -ERANGE)
		NL_SET_ERR_MSG(info->extack, "user EID table is full");
	return rc;
}

static int asmc_nl_remove_ueid(struct sk_buff *skb, struct genl_info *info)
{
	const char *text = asmc_nl_ueid_attr(info);
	int rc;

	if (!text)
		return -EINVAL;
	rc = asmc_ueid_remove(genl_info_net(info), text);
	if (rc == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "user EID not defined");
	return rc;
}

static int asmc_nl_flush_ueid(struct sk_buff *skb, struct genl_info *info)
{
	asmc_ueid_flush(genl_info_net(info));
	return 0;
}

static int asmc_nl_dump_seid(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = asmc_nl_dump_net(cb);
	char seid[SMC_MAX_EID_LEN + 1];
	void *hdr;

	if (cb->args[0])
		return 0;
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_DUMP_SEID);
	if (!hdr)
		return asmc_nl_dump_full(skb);
	if (!asmc_seid_copy(net, (u8 *)seid)) {
		seid[SMC_MAX_EID_LEN] = '\0';
		if (nla_put_string(skb, SMC_NLA_SEID_ENTRY, seid))
			goto cancel;
	}
	if (nla_put_u8(skb, SMC_NLA_SEID_ENABLED, asmc_seid_enabled(net)))
		goto cancel;
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;

cancel:
	genlmsg_cancel(skb, hdr);
	return asmc_nl_dump_full(skb);
}

static int asmc_nl_seid_set(struct genl_info *info, bool enable)
{
	int rc = asmc_seid_set_enabled(genl_info_net(info), enable);

	if (rc == -EOPNOTSUPP)
		NL_SET_ERR_MSG(info->extack, "no system EID on this machine");
	else if (rc == -ENOENT)
		NL_SET_ERR_MSG(info->extack,
			       "system EID cannot be disabled without a user EID");
	return rc;
}

static int asmc_nl_enable_seid(struct sk_buff *skb, struct genl_info *info)
{
	return asmc_nl_seid_set(info, true);
}

static int asmc_nl_disable_seid(struct sk_buff *skb, struct genl_info *info)
{
	return asmc_nl_seid_set(info, false);
}

/* ---- handshake limitation ----------------------------------------------- */

static int asmc_nl_dump_hs_limitation(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct asmc_net *sn = asmc_net(asmc_nl_dump_net(cb));
	void *hdr;

	if (cb->args[0])
		return 0;
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_DUMP_HS_LIMITATION);
	if (!hdr)
		return asmc_nl_dump_full(skb);
	if (nla_put_u8(skb, SMC_NLA_HS_LIMITATION_ENABLED,
		       READ_ONCE(sn->limit_hs))) {
		genlmsg_cancel(skb, hdr);
		return asmc_nl_dump_full(skb);
	}
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;
}

static int asmc_nl_enable_hs_limitation(struct sk_buff *skb,
					struct genl_info *info)
{
	WRITE_ONCE(asmc_net(genl_info_net(info))->limit_hs, true);
	return 0;
}

static int asmc_nl_disable_hs_limitation(struct sk_buff *skb,
					 struct genl_info *info)
{
	WRITE_ONCE(asmc_net(genl_info_net(info))->limit_hs, false);
	return 0;
}

/* ---- SMC_GEN_NETLINK ---------------------------------------------------- */

#define ASMC_NL_DUMP(c, fn)	{ .cmd = (c), .dumpit = (fn) }
#define ASMC_NL_SET(c, fn)	{ .cmd = (c), .doit = (fn), \
				  .flags = GENL_UNS_ADMIN_PERM }

static const struct genl_ops asmc_gen_nl_ops[] = {
	ASMC_NL_DUMP(SMC_NETLINK_GET_SYS_INFO, asmc_nl_get_sys_info),
	ASMC_NL_DUMP(SMC_NETLINK_GET_LGR_SMCR, asmc_nl_dump_lgr_smcr),
	ASMC_NL_DUMP(SMC_NETLINK_GET_LINK_SMCR, asmc_nl_dump_link_smcr),
	ASMC_NL_DUMP(SMC_NETLINK_GET_LGR_SMCD, asmc_nl_dump_lgr_smcd),
	ASMC_NL_DUMP(SMC_NETLINK_GET_DEV_SMCD, asmc_nl_dump_dev_smcd),
	ASMC_NL_DUMP(SMC_NETLINK_GET_DEV_SMCR, asmc_nl_dump_dev_smcr),
	ASMC_NL_DUMP(SMC_NETLINK_GET_STATS, asmc_nl_get_stats),
	ASMC_NL_DUMP(SMC_NETLINK_GET_FBACK_STATS, asmc_nl_get_fback_stats),
	ASMC_NL_DUMP(SMC_NETLINK_DUMP_UEID, asmc_nl_dump_ueid),
	{
		.cmd = SMC_NETLINK_ADD_UEID,
		.doit = asmc_nl_add_ueid,
		.flags = GENL_UNS_ADMIN_PERM,
		.policy = asmc_nl_eid_policy,
		.maxattr = SMC_NLA_EID_TABLE_MAX,
	},
	{
		.cmd = SMC_NETLINK_REMOVE_UEID,
		.doit = asmc_nl_remove_ueid,
		.flags = GENL_UNS_ADMIN_PERM,
		.policy = asmc_nl_eid_policy,
		.maxattr = SMC_NLA_EID_TABLE_MAX,
	},
	ASMC_NL_SET(SMC_NETLINK_FLUSH_UEID, asmc_nl_flush_ueid),
	ASMC_NL_DUMP(SMC_NETLINK_DUMP_SEID, asmc_nl_dump_seid),
	ASMC_NL_SET(SMC_NETLINK_ENABLE_SEID, asmc_nl_enable_seid),
	ASMC_NL_SET(SMC_NETLINK_DISABLE_SEID, asmc_nl_disable_seid),
	ASMC_NL_DUMP(SMC_NETLINK_DUMP_HS_LIMITATION, asmc_nl_dump_hs_limitation),
	ASMC_NL_SET(SMC_NETLINK_ENABLE_HS_LIMITATION,
		    asmc_nl_enable_hs_limitation),
	ASMC_NL_SET(SMC_NETLINK_DISABLE_HS_LIMITATION,
		    asmc_nl_disable_hs_limitation),
};

struct genl_family asmc_gen_nl_family __ro_after_init = {
	.name		= SMC_GENL_FAMILY_NAME,
	.version	= SMC_GENL_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,	/* eid.c, stats.c lock for themselves */
	.module		= THIS_MODULE,
	.ops		= asmc_gen_nl_ops,
	.n_ops		= ARRAY_SIZE(asmc_gen_nl_ops),
	/* resv_start_op 0: strict header and attribute checks everywhere */
};

/* ---- SMC_PNETID --------------------------------------------------------- */

static const struct nla_policy asmc_pnet_policy[SMC_PNETID_MAX + 1] = {
	[SMC_PNETID_NAME]	= { .type = NLA_NUL_STRING,
				    .len = ASMC_PNETID_LEN },
	[SMC_PNETID_ETHNAME]	= { .type = NLA_NUL_STRING,
				    .len = IFNAMSIZ - 1 },
	[SMC_PNETID_IBNAME]	= { .type = NLA_NUL_STRING,
				    .len = ASMC_IBNAME_LEN - 1 },
	[SMC_PNETID_IBPORT]	= { .type = NLA_U8 },
};

/* One entry as smc_pnet(8) prints it: "NAME ETH IB PORT", with "n/a" for
 * the side that is not set and port 255 for a net device.
 */
static int asmc_pnet_nl_fill(struct sk_buff *skb, u32 portid, u32 seq,
			     int flags, const struct asmc_pnet_info *e)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &asmc_pnet_nl_family, flags,
			  SMC_PNETID_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, SMC_PNETID_NAME, e->pnetid) ||
	    nla_put_string(skb, SMC_PNETID_ETHNAME,
			   e->ethname[0] ? e->ethname : "n/a") ||
	    nla_put_string(skb, SMC_PNETID_IBNAME,
			   e->ibname[0] ? e->ibname : "n/a") ||
	    nla_put_u8(skb, SMC_PNETID_IBPORT, e->ibport)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Dump of the table, or of one PNET ID's entries if SMC_PNETID_NAME is
 * given. cb->args[0]: next entry index (among those shown).
 */
static int asmc_pnet_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = asmc_nl_dump_net(cb);
	struct nlattr *tb[SMC_PNETID_MAX + 1];
	char filter[ASMC_PNETID_LEN + 1];
	struct asmc_pnet_info e;
	const char *f = NULL;
	int idx, rc = 0;

	/* validated by the genetlink core already */
	if (nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, SMC_PNETID_MAX,
			asmc_pnet_policy, NULL))
		return -EINVAL;
	if (tb[SMC_PNETID_NAME]) {
		if (asmc_pnetid_normalize(nla_data(tb[SMC_PNETID_NAME]),
					  filter)) {
			NL_SET_ERR_MSG(cb->extack, "invalid PNET ID");
			return -EINVAL;
		}
		f = filter;
	}
	for (idx = cb->args[0]; !asmc_pnet_get(net, f, idx, &e); idx++) {
		rc = asmc_pnet_nl_fill(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI, &e);
		if (rc)
			break;
	}
	cb->args[0] = idx;
	return rc ? asmc_nl_dump_full(skb) : skb->len;
}

static const char *asmc_pnet_nl_name(struct genl_info *info)
{
	struct nlattr *a = info->attrs[SMC_PNETID_NAME];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "missing SMC_PNETID_NAME");
		return NULL;
	}
	return nla_data(a);
}

/* GET without NLM_F_DUMP (smc_pnet -s NAME): one reply per entry of that
 * PNET ID, then the ack; -ENOENT if it has none.
 */
static int asmc_pnet_nl_get(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = asmc_pnet_nl_name(info);
	char pnetid[ASMC_PNETID_LEN + 1];
	struct asmc_pnet_info e;
	struct sk_buff *msg;
	int idx, rc;

	if (!name)
		return -EINVAL;
	if (asmc_pnetid_normalize(name, pnetid)) {
		NL_SET_ERR_MSG(info->extack, "invalid PNET ID");
		return -EINVAL;
	}
	for (idx = 0; !asmc_pnet_get(genl_info_net(info), pnetid, idx, &e);
	     idx++) {
		msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		rc = asmc_pnet_nl_fill(msg, info->snd_portid, info->snd_seq, 0,
				       &e);
		if (rc) {
			nlmsg_free(msg);
			return rc;
		}
		rc = genlmsg_reply(msg, info);
		if (rc)
			return rc;
	}
	if (!idx) {
		NL_SET_ERR_MSG(info->extack, "PNET ID not defined");
		return -ENOENT;
	}
	return 0;
}

static int asmc_pnet_nl_add(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = asmc_pnet_nl_name(info);
	struct nlattr **a = info->attrs;

	if (!name)
		return -EINVAL;
	return asmc_pnet_add(genl_info_net(info), name,
			     a[SMC_PNETID_ETHNAME] ?
				nla_data(a[SMC_PNETID_ETHNAME]) : NULL,
			     a[SMC_PNETID_IBNAME] ?
				nla_data(a[SMC_PNETID_IBNAME]) : NULL,
			     a[SMC_PNETID_IBPORT] ?
				nla_get_u8(a[SMC_PNETID_IBPORT]) : -1,
			     info->extack);
}

static int asmc_pnet_nl_del(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = asmc_pnet_nl_name(info);
	int rc;

	if (!name)
		return -EINVAL;
	rc = asmc_pnet_del(genl_info_net(info), name);
	if (rc == -EINVAL)
		NL_SET_ERR_MSG(info->extack, "invalid PNET ID");
	else if (rc == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "PNET ID not defined");
	return rc;
}

static int asmc_pnet_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	asmc_pnet_flush(genl_info_net(info));
	return 0;
}

static const struct genl_ops asmc_pnet_nl_ops[] = {
	{
		.cmd = SMC_PNETID_GET,
		.doit = asmc_pnet_nl_get,
		.dumpit = asmc_pnet_nl_dump,
	},
	{
		.cmd = SMC_PNETID_ADD,
		.doit = asmc_pnet_nl_add,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = SMC_PNETID_DEL,
		.doit = asmc_pnet_nl_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = SMC_PNETID_FLUSH,
		.doit = asmc_pnet_nl_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family asmc_pnet_nl_family __ro_after_init = {
	.name		= SMCR_GENL_FAMILY_NAME,
	.version	= SMCR_GENL_FAMILY_VERSION,
	.maxattr	= SMC_PNETID_MAX,
	.policy		= asmc_pnet_policy,
	.netnsok	= true,
	.parallel_ops	= true,	/* pnet.c locks for itself */
	.module		= THIS_MODULE,
	.ops		= asmc_pnet_nl_ops,
	.n_ops		= ARRAY_SIZE(asmc_pnet_nl_ops),
};

int asmc_nl_init(void)
{
	int rc;

	rc = asmc_pnet_init();
	if (rc)
		return rc;
	rc = genl_register_family(&asmc_gen_nl_family);
	if (rc)
		goto err_pnet;
	rc = genl_register_family(&asmc_pnet_nl_family);
	if (rc)
		goto err_gen;
	return 0;

err_gen:
	genl_unregister_family(&asmc_gen_nl_family);
err_pnet:
	asmc_pnet_exit();
	return rc;
}

void asmc_nl_exit(void)
{
	genl_unregister_family(&asmc_pnet_nl_family);
	genl_unregister_family(&asmc_gen_nl_family);
	asmc_pnet_exit();
}
