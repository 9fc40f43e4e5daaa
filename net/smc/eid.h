/* SPDX-License-Identifier: GPL-2.0 */
/* Enterprise IDs per network namespace: the user EID table (SMC_NETLINK_*_UEID)
 * and the system EID state, read by the CLC handshake for SMC v2.
 */
#ifndef ASMC_EID_H
#define ASMC_EID_H

#include <linux/smc.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct net;

#define ASMC_EID_LEN_RAW	SMC_MAX_EID_LEN	/* 32 bytes, blank padded */

/* One namespace's EIDs. lock protects everything; readers copy out under
 * it, so it is only ever held for a few memcpy()s (any context but hard
 * irq: it is taken with _bh).
 */
struct asmc_eid_table {
	spinlock_t lock;
	int ueid_cnt;				/* entries 0..ueid_cnt-1 used */
	u8 ueid[SMC_MAX_UEID][ASMC_EID_LEN_RAW];	/* in insertion order */
	bool seid_enabled;			/* only meaningful with a SEID */
};

void asmc_eid_net_init(struct asmc_eid_table *t);

/* For the CLC handshake. */
int asmc_ueid_copy(struct net *net, u8 (*eids)[ASMC_EID_LEN_RAW], int max);
bool asmc_ueid_match(struct net *net, const u8 *eid32, u8 *match_out32);
int asmc_ueid_count(struct net *net);

/* System EID: derived from the machine on s390 only. This module targets
 * machines without one (x86 and others), so these report "none".
 */
bool asmc_seid_available(void);
bool asmc_seid_enabled(struct net *net);
int asmc_seid_copy(struct net *net, u8 *seid32);

/* For SMC_GEN_NETLINK. text is the attribute: 32 characters + NUL. */
int asmc_ueid_add(struct net *net, const char *text);
int asmc_ueid_remove(struct net *net, const char *text);
void asmc_ueid_flush(struct net *net);
int asmc_seid_set_enabled(struct net *net, bool enable);

#endif /* ASMC_EID_H */
