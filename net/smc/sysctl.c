// SPDX-License-Identifier: GPL-2.0
/* /proc/sys/net/smc: one table per network namespace, registered from the
 * pernet init; every namespace starts from the defaults below. init_net
 * also shows the host-wide values.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include "lgr.h"
#include "netns.h"
#include "sysctl.h"
#include "tx.h"
#include "wr.h"

static int asmc_lim_zero;
static int asmc_lim_one = 1;
static int asmc_lim_two = 2;
static int asmc_lim_links = ASMC_SYSCTL_LINKS;
static int asmc_lim_testlink = INT_MAX / HZ;	/* seconds, as jiffies */
static int asmc_lim_buf_min = ASMC_SYSCTL_BUF_MIN;
static int asmc_lim_buf_max = INT_MAX / 2;
static int asmc_lim_conns_min = 16;
static int asmc_lim_conns_max = ASMC_CONNS_PER_LGR;
static int asmc_lim_wr_min = 2;
static int asmc_lim_wr_max = 2048;

/* .data holds the value's offset in struct asmc_net; each namespace's
 * copy points it at that namespace's field.
 */
#define ASMC_INT(name, field, lo, hi) {					\
	.procname	= name,						\
	.data		= (void *)offsetof(struct asmc_net, field),	\
	.maxlen		= sizeof(int),					\
	.mode		= 0644,						\
	.proc_handler	= proc_dointvec_minmax,				\
	.extra1		= (lo),						\
	.extra2		= (hi),						\
}

static const struct ctl_table asmc_sysctl_template[] = {
	{
		.procname	= "autocorking_size",
		.data		= (void *)offsetof(struct asmc_net,
						   sysctl.autocorking_size),
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	ASMC_INT("smcr_buf_type", sysctl.smcr_buf_type,
		 &asmc_lim_zero, &asmc_lim_two),
	ASMC_INT("smcr_testlink_time", sysctl.smcr_testlink_time,
		 &asmc_lim_zero, &asmc_lim_testlink),
	ASMC_INT("wmem", sysctl.wmem, &asmc_lim_buf_min, &asmc_lim_buf_max),
	ASMC_INT("rmem", sysctl.rmem, &asmc_lim_buf_min, &asmc_lim_buf_max),
	ASMC_INT("smcr_max_links_per_lgr", sysctl.smcr_max_links_per_lgr,
		 &asmc_lim_one, &asmc_lim_links),
	ASMC_INT("smcr_max_conns_per_lgr", sysctl.smcr_max_conns_per_lgr,
		 &asmc_lim_conns_min, &asmc_lim_conns_max),
	ASMC_INT("limit_smc_hs", limit_hs, &asmc_lim_zero, &asmc_lim_one),
	ASMC_INT("smcr_max_send_wr", sysctl.smcr_max_send_wr,
		 &asmc_lim_wr_min, &asmc_lim_wr_max),
	ASMC_INT("smcr_max_recv_wr", sysctl.smcr_max_recv_wr,
		 &asmc_lim_wr_min, &asmc_lim_wr_max),
	ASMC_INT("smcr_v1", sysctl.smcr_v1, &asmc_lim_zero, &asmc_lim_two),
	ASMC_INT("smcr_v2", sysctl.smcr_v2, &asmc_lim_zero, &asmc_lim_one),
	{ }
};

/* host-wide: the memory they bound is the host's (init_net only) */
static struct ctl_table asmc_sysctl_host[] = {
	{
		.procname	= "buf_limit",
		.data		= &asmc_buf_limit,
		.maxlen		= sizeof(asmc_buf_limit),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{ }
};

static void asmc_sysctl_defaults(struct asmc_sysctl *s)
{
	s->autocorking_size = ASMC_AUTOCORK_SIZE;
	s->smcr_buf_type = 0;
	s->smcr_testlink_time = ASMC_TESTLINK_TIME / HZ;
	s->wmem = ASMC_SYSCTL_WMEM;
	s->rmem = ASMC_SYSCTL_RMEM;
	s->smcr_max_links_per_lgr = ASMC_SYSCTL_LINKS;
	s->smcr_max_conns_per_lgr = ASMC_CONNS_PER_LGR;
	s->smcr_max_send_wr = ASMC_WR_TX_SLOTS;
	s->smcr_max_recv_wr = ASMC_WR_RX_BUFS;
	s->smcr_v1 = ASMC_V1_ROCE1;
	s->smcr_v2 = 1;
}

/* Set the defaults and register the namespace's own table. */
int asmc_sysctl_net_init(struct net *net)
{
	struct asmc_net *sn = asmc_net(net);
	struct ctl_table *t;
	int i, n = ARRAY_SIZE(asmc_sysctl_template) - 1;

	asmc_sysctl_defaults(&sn->sysctl);
	t = kmemdup(asmc_sysctl_template, sizeof(asmc_sysctl_template),
		    GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t[i].data = (char *)sn + (uintptr_t)t[i].data;
	sn->sysctl.hdr = asmc_register_net_sysctl(net, "net/smc", t, n);
	if (!sn->sysctl.hdr) {
		kfree(t);
		return -ENOMEM;
	}
	if (!net_eq(net, &init_net))
		return 0;
	sn->sysctl.host_hdr =
		asmc_register_net_sysctl(net, "net/smc", asmc_sysctl_host,
					 ARRAY_SIZE(asmc_sysctl_host) - 1);
	if (!sn->sysctl.host_hdr) {
		asmc_sysctl_net_exit(net);
		return -ENOMEM;
	}
	return 0;
}

void asmc_sysctl_net_exit(struct net *net)
{
	struct asmc_net *sn = asmc_net(net);
	const struct ctl_table *t;

	if (sn->sysctl.host_hdr) {
		unregister_net_sysctl_table(sn->sysctl.host_hdr);
		sn->sysctl.host_hdr = NULL;
	}
	if (!sn->sysctl.hdr)
		return;
	t = sn->sysctl.hdr->ctl_table_arg;
	unregister_net_sysctl_table(sn->sysctl.hdr);
	sn->sysctl.hdr = NULL;
	kfree(t);
}
