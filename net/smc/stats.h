/* SPDX-License-Identifier: GPL-2.0 */
/* Per-namespace counters: fallbacks by reason and role, handshake errors,
 * connections; read by debugfs now and by SMC_GEN_NETLINK later.
 */
#ifndef ASMC_STATS_H
#define ASMC_STATS_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct seq_file;

#define ASMC_FBACK_RSN_MAX	30	/* distinct reason codes kept */

enum {
	ASMC_STAT_SERVER,
	ASMC_STAT_CLIENT,
	ASMC_STAT_ROLES
};

struct asmc_fback_rsn {
	u32 code;
	u64 count[ASMC_STAT_ROLES];
};

/* lock protects everything; these counters change once per connection */
struct asmc_stats {
	spinlock_t lock;
	struct asmc_fback_rsn fback[ASMC_FBACK_RSN_MAX];
	u64 fback_total[ASMC_STAT_ROLES];
	u64 fback_unrecorded[ASMC_STAT_ROLES];	/* table was full */
	u64 hs_err[ASMC_STAT_ROLES];
};

void asmc_stats_init(struct asmc_stats *st);
void asmc_stats_fallback(struct asmc_stats *st, bool server, u32 reason);
void asmc_stats_hs_err(struct asmc_stats *st, bool server);
void asmc_stats_show(struct seq_file *m, struct asmc_stats *st);

#endif /* ASMC_STATS_H */
