// SPDX-License-Identifier: GPL-2.0
/* Per-namespace SMC counters: the fallback reason table (code -> count per
 * role), handshake errors and per-CPU SMC-R counters, with a debugfs dump.
 */
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "stats.h"

void asmc_stats_init(struct asmc_stats *st)
{
	memset(st, 0, sizeof(*st));
	spin_lock_init(&st->lock);
}

int asmc_stats_alloc(struct asmc_stats *st)
{
	st->smcr = alloc_percpu(struct asmc_stats_tech);
	return st->smcr ? 0 : -ENOMEM;
}

void asmc_stats_free(struct asmc_stats *st)
{
	free_percpu(st->smcr);
	st->smcr = NULL;
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

void asmc_stats_snapshot(struct asmc_stats *st, struct asmc_stats_snap *snap)
{
	u64 *sum = (u64 *)&snap->smcr;
	int cpu, i;

	BUILD_BUG_ON(sizeof(struct asmc_stats_tech) % sizeof(u64));
	memset(snap, 0, sizeof(*snap));
	spin_lock_bh(&st->lock);
	memcpy(snap->fback, st->fback, sizeof(snap->fback));
	memcpy(snap->fback_total, st->fback_total, sizeof(snap->fback_total));
	memcpy(snap->fback_unrecorded, st->fback_unrecorded,
	       sizeof(snap->fback_unrecorded));
	memcpy(snap->hs_err, st->hs_err, sizeof(snap->hs_err));
	spin_unlock_bh(&st->lock);

	for_each_possible_cpu(cpu) {
		const u64 *c = (const u64 *)per_cpu_ptr(st->smcr, cpu);

		for (i = 0; i < sizeof(snap->smcr) / sizeof(u64); i++)
			sum[i] += READ_ONCE(c[i]);
	}
}

void asmc_stats_show(struct seq_file *m, struct asmc_stats *st)
{
	struct asmc_stats_snap *snap;
	struct asmc_stats_tech *r;
	int i;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	asmc_stats_snapshot(st, snap);
	r = &snap->smcr;

	seq_printf(m, "fallback_server %llu\n",
		   snap->fback_total[ASMC_STAT_SERVER]);
	seq_printf(m, "fallback_client %llu\n",
		   snap->fback_total[ASMC_STAT_CLIENT]);
	seq_printf(m, "hs_err_server %llu\n", snap->hs_err[ASMC_STAT_SERVER]);
	seq_printf(m, "hs_err_client %llu\n", snap->hs_err[ASMC_STAT_CLIENT]);
	for (i = 0; i < ASMC_FBACK_RSN_MAX && snap->fback[i].code; i++)
		seq_printf(m, "fallback_reason 0x%08x server %llu client %llu\n",
			   snap->fback[i].code,
			   snap->fback[i].count[ASMC_STAT_SERVER],
			   snap->fback[i].count[ASMC_STAT_CLIENT]);
	seq_printf(m, "smcr_conn_server v1 %llu v2 %llu\n",
		   r->conn_ok[ASMC_STAT_SERVER][ASMC_STAT_V1],
		   r->conn_ok[ASMC_STAT_SERVER][ASMC_STAT_V2]);
	seq_printf(m, "smcr_conn_client v1 %llu v2 %llu\n",
		   r->conn_ok[ASMC_STAT_CLIENT][ASMC_STAT_V1],
		   r->conn_ok[ASMC_STAT_CLIENT][ASMC_STAT_V2]);
	seq_printf(m, "smcr_tx bytes %llu calls %llu\n",
		   r->bytes[ASMC_STAT_TX], r->calls[ASMC_STAT_TX]);
	seq_printf(m, "smcr_rx bytes %llu calls %llu\n",
		   r->bytes[ASMC_STAT_RX], r->calls[ASMC_STAT_RX]);
	seq_printf(m, "smcr_wire cdc_tx_data %llu cdc_tx_ctrl %llu rdma_writes %llu cdc_rx %llu tx_noslot %llu cdc_rx_bad %llu cdc_rx_drop %llu\n",
		   r->wire[ASMC_STAT_CDC_TX_DATA],
		   r->wire[ASMC_STAT_CDC_TX_CTRL],
		   r->wire[ASMC_STAT_RDMA_WRITE], r->wire[ASMC_STAT_CDC_RX],
		   r->wire[ASMC_STAT_TX_NOSLOT],
		   r->wire[ASMC_STAT_CDC_RX_BAD],
		   r->wire[ASMC_STAT_CDC_RX_DROP]);
	seq_printf(m, "smcr_llc confirm_rkey %llu delete_rkey %llu test_link %llu test_link_early %llu test_link_lost %llu add_link_none %llu add_link_rej %llu llc_rx_bad %llu confirm_again %llu\n",
		   r->wire[ASMC_STAT_LLC_CONFIRM_RKEY],
		   r->wire[ASMC_STAT_LLC_DELETE_RKEY],
		   r->wire[ASMC_STAT_LLC_TEST_LINK],
		   r->wire[ASMC_STAT_LLC_TEST_LINK_EARLY],
		   r->wire[ASMC_STAT_LLC_TEST_LINK_LOST],
		   r->wire[ASMC_STAT_LLC_ADD_LINK_NONE],
		   r->wire[ASMC_STAT_LLC_ADD_LINK_REJ],
		   r->wire[ASMC_STAT_LLC_RX_BAD],
		   r->wire[ASMC_STAT_LLC_CONFIRM_AGAIN]);
	seq_printf(m, "smcr_close fin_wait %llu fin_late %llu tcp_gone %llu\n",
		   r->wire[ASMC_STAT_CLOSE_FIN_WAIT],
		   r->wire[ASMC_STAT_CLOSE_FIN_LATE],
		   r->wire[ASMC_STAT_CLOSE_TCP_GONE]);
	seq_printf(m, "smcr_rmb quarantined %llu\n",
		   r->wire[ASMC_STAT_RMB_QUARANTINE]);
	seq_printf(m, "smcr_links added %llu lost %llu conns_moved %llu conns_lost %llu asked %llu peer_asked %llu asym %llu refused %llu rkeys_unknown %llu wc_errors %llu\n",
		   r->wire[ASMC_STAT_LINK_ADDED],
		   r->wire[ASMC_STAT_LINK_LOST],
		   r->wire[ASMC_STAT_LINK_FAILOVER],
		   r->wire[ASMC_STAT_LINK_FAILOVER_LOST],
		   r->wire[ASMC_STAT_LINK_ASKED],
		   r->wire[ASMC_STAT_LINK_PEER_ASKED],
		   r->wire[ASMC_STAT_LINK_ASYM],
		   r->wire[ASMC_STAT_LINK_REFUSED],
		   r->wire[ASMC_STAT_LINK_RKEY_UNKNOWN],
		   r->wire[ASMC_STAT_LINK_WC_ERROR]);
	kfree(snap);
}
