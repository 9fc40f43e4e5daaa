/* SPDX-License-Identifier: GPL-2.0 */
/* Per-network-namespace state of the module (counters, EID and pnet
 * tables, handshake limitation, sysctls), reached through net_generic().
 */
#ifndef ASMC_NETNS_H
#define ASMC_NETNS_H

#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "eid.h"
#include "pnet.h"
#include "stats.h"
#include "sysctl.h"

/* limit_hs (0 or 1): SMC_NETLINK_ENABLE/DISABLE_HS_LIMITATION and the
 * sysctl net.smc.limit_smc_hs act on it; written with WRITE_ONCE (or by
 * the proc handler), read with READ_ONCE by listen().
 */
struct asmc_net {
	struct asmc_stats stats;
	struct asmc_eid_table eid;
	struct asmc_pnet_table pnet;
	int limit_hs;
	struct asmc_sysctl sysctl;
};

extern unsigned int asmc_net_id;

static inline struct asmc_net *asmc_net(const struct net *net)
{
	return net_generic(net, asmc_net_id);
}

static inline struct asmc_stats *asmc_net_stats(const struct net *net)
{
	return &asmc_net(net)->stats;
}

int asmc_netns_init(void);
void asmc_netns_exit(void);

#endif /* ASMC_NETNS_H */
