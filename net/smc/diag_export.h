/* SPDX-License-Identifier: GPL-2.0 */
/* What smc.ko lends the separate smc_diag module: the sockets of one network
 * namespace in batches, and a snapshot of one socket taken under its locks.
 */
#ifndef ASMC_DIAG_EXPORT_H
#define ASMC_DIAG_EXPORT_H

#include <linux/list.h>
#include <linux/smc_diag.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct net;
struct sock;

/* smc.ko only: every asmc_sock of every namespace, in creation order
 * (socket.c adds at the tail on creation, removes in sk_destruct).
 * asmc_all_lock (bh) guards the list.
 */
extern struct list_head asmc_all_socks;
extern spinlock_t asmc_all_lock;

/* One socket as smc_diag reports it. The uapi structures are filled
 * completely except msg.diag_uid, which depends on the requester's user
 * namespace (hence uid). has_* say which optional parts are valid.
 */
struct asmc_diag_snap {
	struct smc_diag_msg		msg;
	kuid_t				uid;
	bool				fell_back;	/* TCP for good */
	bool				has_conn;	/* SMC-R connection */
	bool				has_lgr;	/* link known */
	struct smc_diag_fallback	fallback;
	struct smc_diag_conninfo	conn;
	struct smc_diag_lgrinfo		lgr;
};

/* Up to @max sockets of @net that come after @after in the list (from the
 * start when @after is NULL), each with a reference the caller drops with
 * sock_put(). The caller must hold a reference on @after: that keeps it on
 * the list, so a walk resumed from it neither skips nor repeats a socket
 * that lived through the whole walk. Returns how many were stored; fewer
 * than @max means the end of the list was reached.
 */
int asmc_diag_collect(struct net *net, struct sock *after,
		      struct sock **batch, int max);

/* Fill @snap from @sk (a reference held, no spinlock held: this sleeps). */
void asmc_diag_snapshot(struct sock *sk, struct asmc_diag_snap *snap);

#endif /* ASMC_DIAG_EXPORT_H */
