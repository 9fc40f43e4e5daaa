/* SPDX-License-Identifier: GPL-2.0 */
/* Per-network-namespace state of the module (counters now; sysctls, EID
 * and pnet tables later), reached through net_generic().
 */
#ifndef ASMC_NETNS_H
#define ASMC_NETNS_H

#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "stats.h"

struct asmc_net {
	struct asmc_stats stats;
};

extern unsigned int asmc_net_id;

static inline struct asmc_net *asmc_net(const struct net *net)
{
	return net_generic(net, asmc_net_id);
}

int asmc_netns_init(void);
void asmc_netns_exit(void);

#endif /* ASMC_NETNS_H */
