/* SPDX-License-Identifier: GPL-2.0 */
/* Receiving on an SMC-R connection: reading what the peer wrote into our
 * RMB, urgent data, and the consumer-cursor updates that pace the peer.
 */
#ifndef ASMC_RX_H
#define ASMC_RX_H

#include <linux/types.h>

struct asmc_sock;
struct file;
struct msghdr;
struct pipe_inode_info;

int asmc_rx_recvmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len,
		    int flags);
u64 asmc_rx_inq(struct asmc_sock *smc);
bool asmc_rx_atmark(struct asmc_sock *smc);
ssize_t asmc_rx_splice_read(struct asmc_sock *smc, struct file *file,
			    struct pipe_inode_info *pipe, size_t len,
			    unsigned int flags);

#endif /* ASMC_RX_H */
