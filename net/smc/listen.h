/* SPDX-License-Identifier: GPL-2.0 */
/* Passive open: listen(), the accept work that takes TCP children from the
 * listening clcsock and runs their server handshake, and accept().
 */
#ifndef ASMC_LISTEN_H
#define ASMC_LISTEN_H

#include <linux/poll.h>
#include "socket.h"

int asmc_listen(struct socket *sock, int backlog);
int asmc_accept(struct socket *sock, struct socket *newsock, int flags,
		bool kern);
__poll_t asmc_listen_poll(struct asmc_sock *lsmc);
void asmc_listen_stop(struct asmc_sock *lsmc);
void asmc_listen_flush(struct asmc_sock *lsmc);
void asmc_accept_work(struct work_struct *work);

#endif /* ASMC_LISTEN_H */
