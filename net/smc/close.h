/* SPDX-License-Identifier: GPL-2.0 */
/* Closing SMC-R connections: shutdown, orderly close, abort, the peer's
 * close flags, and freeing the connection once both sides are done.
 */
#ifndef ASMC_CLOSE_H
#define ASMC_CLOSE_H

#include <linux/types.h>

struct asmc_sock;

#define ASMC_CLOSE_WAIT		(30 * HZ)	/* peer's close after ours */
#define ASMC_CLOSE_DRAIN	(5 * HZ)	/* our last CDCs to complete */
#define ASMC_CLOSE_TCP_FIN	(HZ)	/* passive side: the peer's TCP FIN */
/* the peer's TCP FIN or reset came, no close flag over SMC: how long its
 * CDC may trail (they travel apart) before the connection is reset
 */
#define ASMC_CLOSE_TCP_GONE	(5 * HZ)

struct work_struct;

void asmc_conn_abort(struct asmc_sock *smc, int err);
void asmc_close_peer_flags(struct asmc_sock *smc, u8 flags);
int asmc_close_shutdown(struct asmc_sock *smc, int how);
void asmc_close_linger(struct asmc_sock *smc);
void asmc_close_release(struct asmc_sock *smc, bool force_abort);
void asmc_close_work(struct work_struct *work);
void asmc_close_watch_tcp(struct asmc_sock *smc);
void asmc_close_tcp_gone_work(struct work_struct *work);

#endif /* ASMC_CLOSE_H */
