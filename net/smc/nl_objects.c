// SPDX-License-Identifier: GPL-2.0
/* SMC_GEN_NETLINK object dumps: SMC-R link groups, their links and the RDMA
 * devices in use; the SMC-D ones answer empty (no ISM support).
 */
#include <linux/kernel.h>
#include <linux/smc.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include "ib.h"
#include "lgr.h"
#include "netlink.h"
#include "pnet.h"

/* Link states as user space decodes them (uapi-visible numbers). A link
 * sits in its group's slots only from its set-up on, so a not yet active
 * one is "activating" (2); 0 ("unused") names an empty slot, never dumped.
 */
static u32 asmc_nl_link_state(enum asmc_link_state st)
{
	switch (st) {
	case ASMC_LNK_UNUSED:
		return 2;
	case ASMC_LNK_ACTIVE:
		return 3;
	default:
		return 1;	/* inactive: down, being torn down */
	}
}

/* GID as eight groups of four hex digits, as the SMC tools print it. */
static int asmc_nl_put_gid(struct sk_buff *skb, int type, const u8 *gid)
{
	char s[8 * 5];
	int i;

	for (i = 0; i < 8; i++)
		snprintf(s + i * 5, sizeof(s) - i * 5, "%04x%s",
			 gid[2 * i] << 8 | gid[2 * i + 1], i < 7 ? ":" : "");
	return nla_put_string(skb, type, s);
}

/* A fixed-size, not NUL-terminated field as a string. */
static int asmc_nl_put_field(struct sk_buff *skb, int type, const u8 *f,
			     size_t len)
{
	char s[33];

	len = min(len, sizeof(s) - 1);
	memcpy(s, f, len);
	s[len] = '\0';
	return nla_put_string(skb, type, s);
}

static int asmc_nl_put_lgr_v2(struct sk_buff *skb, struct asmc_lgr *lgr)
{
	const struct asmc_link *lnk = asmc_lgr_pick_link(lgr);
	struct nlattr *nest;

	nest = nla_nest_start(skb, SMC_NLA_LGR_R_V2_COMMON);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_VER, lgr->smc_version) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_REL, lgr->peer_release) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_OS, lgr->peer_os) ||
	    asmc_nl_put_field(skb, SMC_NLA_LGR_V2_NEG_EID, lgr->eid,
			      sizeof(lgr->eid)) ||
	    nla_put_string(skb, SMC_NLA_LGR_V2_PEER_HOST, lgr->peer_hostname))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	nest = nla_nest_start(skb, SMC_NLA_LGR_R_V2);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_DIRECT, lnk && lnk->v2_direct) ||
	    nla_put_u8(skb, ASMC_NLA_LGR_R_V2_MAX_CONNS, lgr->max_conns) ||
	    nla_put_u8(skb, ASMC_NLA_LGR_R_V2_MAX_LINKS, lgr->max_links))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* One message with the SMC_GEN_LGR_SMCR nest of @lgr (lgr->mutex held). */
static int asmc_nl_fill_lgr(struct sk_buff *skb, struct netlink_callback *cb,
			    struct asmc_lgr *lgr)
{
	const struct asmc_link *lnk = asmc_lgr_pick_link(lgr);
	char pnetid[ASMC_PNETID_LEN + 1] = "";
	struct nlattr *nest;
	void *hdr;

	lockdep_assert_held(&lgr->mutex);
	if (lnk)
		asmc_pnet_get_ib_pnetid(lgr->net,
					dev_name(&lnk->sel.dev->ibdev->dev),
					lnk->sel.port, pnetid);
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_LGR_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LGR_SMCR);
	if (!nest ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_ID, lgr->id) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_ROLE, lgr->role) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_TYPE, asmc_lgr_type(lgr)) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_BUF_TYPE, 0) ||
	    nla_put_string(skb, SMC_NLA_LGR_R_PNETID, pnetid) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_VLAN_ID, lgr->vlan) ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_CONNS_NUM,
			READ_ONCE(lgr->conns_num)) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_R_NET_COOKIE,
			      lgr->net->net_cookie,
			      SMC_NLA_LGR_R_PAD) ||
	    (lgr->smc_version >= 2 && asmc_nl_put_lgr_v2(skb, lgr)))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* One message with the SMC_GEN_LINK_SMCR nest of @lnk (lgr->mutex held). */
static int asmc_nl_fill_link(struct sk_buff *skb, struct netlink_callback *cb,
			     struct asmc_lgr *lgr, struct asmc_link *lnk)
{
	struct nlattr *nest;
	void *hdr;

	lockdep_assert_held(&lgr->mutex);
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_LINK_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LINK_SMCR);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LINK_ID, lnk->link_id) ||
	    nla_put_u32(skb, SMC_NLA_LINK_STATE,
			asmc_nl_link_state(READ_ONCE(lnk->state))) ||
	    nla_put_u32(skb, SMC_NLA_LINK_CONN_CNT, lnk->conns) ||
	    nla_put_u8(skb, SMC_NLA_LINK_IB_PORT, lnk->sel.port) ||
	    nla_put_u32(skb, SMC_NLA_LINK_NET_DEV,
			asmc_ib_port_ifindex(lnk->sel.dev, lnk->sel.port)) ||
	    nla_put_string(skb, SMC_NLA_LINK_IB_DEV,
			   dev_name(&lnk->sel.dev->ibdev->dev)) ||
	    nla_put_u32(skb, SMC_NLA_LINK_UID, lnk->link_uid) ||
	    nla_put_u32(skb, SMC_NLA_LINK_PEER_UID, lnk->peer_link_uid) ||
	    asmc_nl_put_gid(skb, SMC_NLA_LINK_GID, lnk->sel.gid) ||
	    asmc_nl_put_gid(skb, SMC_NLA_LINK_PEER_GID, lnk->peer_gid))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Link groups of the caller's namespace, each as a message; with @links,
 * each followed by one message per link. Resumes at group cb->args[0],
 * cb->args[1] of its messages already sent.
 */
static int asmc_nl_dump_lgrs(struct sk_buff *skb, struct netlink_callback *cb,
			     bool links)
{
	struct net *net = sock_net(cb->skb->sk);
	struct asmc_link *lnk;
	struct asmc_lgr *lgr;
	int rc = 0;

	for (;; cb->args[0]++, cb->args[1] = 0) {
		lgr = asmc_lgr_get_nth(net, cb->args[0]);
		if (!lgr)
			break;
		mutex_lock(&lgr->mutex);
		if (cb->args[1] == 0) {
			rc = asmc_nl_fill_lgr(skb, cb, lgr);
			if (!rc)
				cb->args[1] = 1;
		}
		/* args[1] - 1: the link slot to send next */
		while (!rc && links && cb->args[1] >= 1 &&
		       cb->args[1] <= ASMC_LINKS_MAX) {
			lnk = lgr->links[cb->args[1] - 1];
			if (lnk)
				rc = asmc_nl_fill_link(skb, cb, lgr, lnk);
			if (!rc)
				cb->args[1]++;
		}
		mutex_unlock(&lgr->mutex);
		asmc_lgr_put(lgr);
		if (rc)
			break;
	}
	return rc ? asmc_nl_dump_full(skb) : skb->len;
}

/* SMC_NETLINK_GET_LGR_SMCR: one SMC_GEN_LGR_SMCR message per link group. */
int asmc_nl_dump_lgr_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return asmc_nl_dump_lgrs(skb, cb, false);
}

/* SMC_NETLINK_GET_LINK_SMCR: each link group's message, then its links'. */
int asmc_nl_dump_link_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return asmc_nl_dump_lgrs(skb, cb, true);
}

/* SMC_NETLINK_GET_LGR_SMCD: SMC-D is not supported: always empty. */
int asmc_nl_dump_lgr_smcd(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}

/* SMC_NETLINK_GET_DEV_SMCD: no ISM devices: always empty. */
int asmc_nl_dump_dev_smcd(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}

static int asmc_nl_put_port(struct sk_buff *skb, struct net *net,
			    struct asmc_ibdev *dev, u8 port, u32 links)
{
	char pnetid[ASMC_PNETID_LEN + 1] = "";
	struct nlattr *nest;
	bool usr;
	int ifindex;

	usr = !asmc_pnet_get_ib_pnetid(net, dev_name(&dev->ibdev->dev), port,
				       pnetid);
	ifindex = asmc_ib_port_ifindex(dev, port);
	nest = nla_nest_start(skb, port == 1 ? SMC_NLA_DEV_PORT :
					       SMC_NLA_DEV_PORT2);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_PNET_USR, usr) ||
	    nla_put_string(skb, SMC_NLA_DEV_PORT_PNETID, pnetid) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_NETDEV, ifindex) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_STATE,
		       READ_ONCE(dev->ports[port - 1].active)) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_VALID, usr || ifindex) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_LNK_CNT, links))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int asmc_nl_fill_dev(struct sk_buff *skb, struct netlink_callback *cb,
			    struct asmc_ibdev *dev)
{
	struct net *net = sock_net(cb->skb->sk);
	u32 links[2] = {};
	struct nlattr *nest;
	void *hdr;
	u8 p, nports = min_t(u8, dev->nports, 2);

	for (p = 1; p <= nports; p++)
		links[p - 1] = asmc_lgr_links_on(dev, p);
	hdr = asmc_nl_dump_hdr(skb, cb, SMC_NETLINK_GET_DEV_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_DEV_SMCR);
	/* with one link per group, every link in use is critical */
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_DEV_IS_CRIT, links[0] || links[1]) ||
	    nla_put_string(skb, SMC_NLA_DEV_IB_NAME,
			   dev_name(&dev->ibdev->dev)))
		goto cancel;
	for (p = 1; p <= nports; p++)
		if (asmc_nl_put_port(skb, net, dev, p, links[p - 1]))
			goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* SMC_NETLINK_GET_DEV_SMCR: one SMC_GEN_DEV_SMCR message per RDMA device
 * (ports 1 and 2 in SMC_NLA_DEV_PORT/PORT2); resumes at cb->args[0].
 */
int asmc_nl_dump_dev_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct asmc_ibdev *dev;
	int rc = 0;

	for (;; cb->args[0]++) {
		dev = asmc_ibdev_get_nth(cb->args[0]);
		if (!dev)
			break;
		rc = asmc_nl_fill_dev(skb, cb, dev);
		asmc_ibdev_put(dev);
		if (rc)
			break;
	}
	return rc ? asmc_nl_dump_full(skb) : skb->len;
}
