// SPDX-License-Identifier: GPL-2.0
/* SMC_GEN_NETLINK object dumps (link groups, links, devices): hooks for the
 * link-group and IB layers to fill; until then they list no objects.
 */
#include "netlink.h"

/* SMC_NETLINK_GET_LGR_SMCR: one SMC_GEN_LGR_SMCR nest per SMC-R link group
 * of the namespace (SMC_NLA_LGR_R_*). No link groups exist yet.
 */
int asmc_nl_dump_lgr_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}

/* SMC_NETLINK_GET_LINK_SMCR: one SMC_GEN_LINK_SMCR nest per link
 * (SMC_NLA_LINK_*), each message also carrying its group's
 * SMC_GEN_LGR_SMCR nest with SMC_NLA_LGR_R_ID.
 */
int asmc_nl_dump_link_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
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

/* SMC_NETLINK_GET_DEV_SMCR: one SMC_GEN_DEV_SMCR nest per RDMA device the
 * IB layer uses (SMC_NLA_DEV_*, ports in SMC_NLA_DEV_PORT/PORT2).
 */
int asmc_nl_dump_dev_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}
