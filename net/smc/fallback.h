/* SPDX-License-Identifier: GPL-2.0 */
/* TCP fallback: switching a socket to its internal TCP connection for good,
 * and the calls that a fallback (or not yet connected) socket hands to TCP.
 */
#ifndef ASMC_FALLBACK_H
#define ASMC_FALLBACK_H

#include <linux/poll.h>
#include "socket.h"

struct pipe_inode_info;

void asmc_fallback_switch(struct asmc_sock *smc, u32 reason, u32 peer_diag);
void asmc_fallback_attach(struct asmc_sock *smc);
void asmc_fallback_detach(struct asmc_sock *smc);
void asmc_fb_mirror_err(struct asmc_sock *smc);
int asmc_fb_consume_err(struct asmc_sock *smc, int rc);

__poll_t asmc_fb_poll(struct asmc_sock *smc, struct file *file);
int asmc_fb_connect(struct asmc_sock *smc, struct sockaddr *addr, int alen,
		    int flags);
int asmc_fb_ioctl(struct asmc_sock *smc, unsigned int cmd, unsigned long arg);
int asmc_fb_shutdown(struct asmc_sock *smc, int how);
int asmc_fb_sendmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len);
int asmc_fb_recvmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len,
		    int flags);
ssize_t asmc_fb_sendpage(struct asmc_sock *smc, struct page *page,
			 int offset, size_t size, int flags);
ssize_t asmc_fb_splice_read(struct asmc_sock *smc, struct file *file,
			    loff_t *ppos, struct pipe_inode_info *pipe,
			    size_t len, unsigned int flags);
void asmc_fb_splice_eof(struct asmc_sock *smc);

#endif /* ASMC_FALLBACK_H */
