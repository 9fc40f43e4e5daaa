// SPDX-License-Identifier: GPL-2.0
/* Per-network-namespace state: allocated by the pernet machinery for every
 * namespace, including the ones that exist when the module loads.
 */
#include "netns.h"

unsigned int asmc_net_id __read_mostly;

static int __net_init asmc_net_init(struct net *net)
{
	struct asmc_net *sn = asmc_net(net);

	asmc_stats_init(&sn->stats);
	if (asmc_stats_alloc(&sn->stats))
		return -ENOMEM;
	asmc_eid_net_init(&sn->eid);
	asmc_pnet_net_init(&sn->pnet);
	sn->limit_hs = 0;
	if (asmc_sysctl_net_init(net)) {
		asmc_pnet_net_exit(&sn->pnet);
		asmc_stats_free(&sn->stats);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit asmc_net_exit(struct net *net)
{
	struct asmc_net *sn = asmc_net(net);

	asmc_sysctl_net_exit(net);
	asmc_pnet_net_exit(&sn->pnet);
	asmc_stats_free(&sn->stats);
}

static struct pernet_operations asmc_net_ops = {
	.init	= asmc_net_init,
	.exit	= asmc_net_exit,
	.id	= &asmc_net_id,
	.size	= sizeof(struct asmc_net),
};

int asmc_netns_init(void)
{
	return register_pernet_subsys(&asmc_net_ops);
}

void asmc_netns_exit(void)
{
	unregister_pernet_subsys(&asmc_net_ops);
}
