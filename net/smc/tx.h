/* SPDX-License-Identifier: GPL-2.0 */
/* Sending on an SMC-R connection: the application's bytes go into the
 * send buffer, then by RDMA WRITE into the peer's RMBE, announced by CDC.
 */
#ifndef ASMC_TX_H
#define ASMC_TX_H

#include <linux/types.h>

struct asmc_conn;
struct asmc_link;
struct asmc_sock;
struct msghdr;
struct page;
struct work_struct;

#define ASMC_AUTOCORK_SIZE	(64 * 1024)

int asmc_tx_sendmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len);
void asmc_tx_push(struct asmc_sock *smc, bool can_sleep);
void asmc_tx_init(struct asmc_conn *conn);
void asmc_tx_work(struct work_struct *work);
void asmc_tx_stop(struct asmc_sock *smc);
void asmc_tx_switch_link(struct asmc_sock *smc, struct asmc_link *lnk,
			 u32 rkey, u64 addr);
void asmc_tx_failover_resume(struct asmc_sock *smc);
u64 asmc_tx_space(struct asmc_sock *smc);
bool asmc_tx_writable(struct asmc_sock *smc);
bool asmc_tx_idle(struct asmc_conn *conn);
void asmc_tx_nospace(struct asmc_sock *smc);
ssize_t asmc_tx_sendpage(struct asmc_sock *smc, struct page *page, int offset,
			 size_t size, int flags);

#endif /* ASMC_TX_H */
