// SPDX-License-Identifier: GPL-2.0
/* Per-namespace SMC counters: the fallback reason table (code -> count per
 * role) and handshake error counts, with a text dump for debugfs.
 */
#include <linux/seq_file.h>
#include "stats.h"

void asmc_stats_init(struct asmc_stats *st)
{
	memset(st, 0, sizeof(*st));
	spin_lock_init(&st->lock);
}

void asmc_stats_fallback(struct asmc_stats *st, bool server, u32 reason)
{
	int role = server ? ASMC_STAT_SERVER : ASMC_STAT_CLIENT;
	struct asmc_fback_rsn *slot = NULL;
	int i;

	spin_lock_bh(&st->lock);
	st->fback_total[role]++;
	for (i = 0; i < ASMC_FBACK_RSN_MAX; i++) {
		if (st->fback[i].code == reason || !st->fback[i].code) {
			slot = &st->fback[i];
			break;
		}
	}
	if (slot) {
		slot->code = reason;
		slot->count[role]++;
	} else {
		st->fback_unrecorded[role]++;
	}
	spin_unlock_bh(&st->lock);
}

void asmc_stats_hs_err(struct asmc_stats *st, bool server)
{
	spin_lock_bh(&st->lock);
	st->hs_err[server ? ASMC_STAT_SERVER : ASMC_STAT_CLIENT]++;
	spin_unlock_bh(&st->lock);
}

void asmc_stats_show(struct seq_file *m, struct asmc_stats *st)
{
	struct asmc_stats snap;
	int i;

	spin_lock_bh(&st->lock);
	snap = *st;
	spin_unlock_bh(&st->lock);

	seq_printf(m, "fallback_server %llu\n",
		   snap.fback_total[ASMC_STAT_SERVER]);
	seq_printf(m, "fallback_client %llu\n",
		   snap.fback_total[ASMC_STAT_CLIENT]);
	seq_printf(m, "hs_err_server %llu\n", snap.hs_err[ASMC_STAT_SERVER]);
	seq_printf(m, "hs_err_client %llu\n", snap.hs_err[ASMC_STAT_CLIENT]);
	for (i = 0; i < ASMC_FBACK_RSN_MAX && snap.fback[i].code; i++)
		seq_printf(m, "fallback_reason 0x%08x server %llu client %llu\n",
			   snap.fback[i].code,
			   snap.fback[i].count[ASMC_STAT_SERVER],
			   snap.fback[i].count[ASMC_STAT_CLIENT]);
}
