/* SPDX-License-Identifier: GPL-2.0 */
/* Generic netlink control interfaces: the families SMC_GEN_NETLINK (system
 * info, objects, statistics, EIDs, handshake limit) and SMC_PNETID.
 */
#ifndef ASMC_NETLINK_H
#define ASMC_NETLINK_H

#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>

extern struct genl_family asmc_gen_nl_family;	/* SMC_GEN_NETLINK */

int asmc_nl_init(void);
void asmc_nl_exit(void);

/* Starts one message of a dump of SMC_GEN_NETLINK command cmd (NLM_F_MULTI,
 * addressed to the requester); NULL when skb is full.
 */
int asmc_nl_dump_full(struct sk_buff *skb);
void *asmc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
		       u8 cmd);

/* Object dumps (nl_objects.c), one per SMC_NETLINK_GET_* object command.
 * Contract, as for any netlink dumpit: put one message per object (each
 * with its SMC_GEN_* nest) into skb starting at the position kept in
 * cb->args[], return skb->len to be called again, 0 when done, or a
 * negative errno. They run in the requester's context; sock_net(cb->skb->sk)
 * is its namespace.
 */
int asmc_nl_dump_lgr_smcr(struct sk_buff *skb, struct netlink_callback *cb);
int asmc_nl_dump_link_smcr(struct sk_buff *skb, struct netlink_callback *cb);
int asmc_nl_dump_lgr_smcd(struct sk_buff *skb, struct netlink_callback *cb);
int asmc_nl_dump_dev_smcd(struct sk_buff *skb, struct netlink_callback *cb);
int asmc_nl_dump_dev_smcr(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* ASMC_NETLINK_H */
