/* SPDX-License-Identifier: GPL-2.0 */
/* Active open: TCP connect of the internal socket with the SMC option, then
 * the client side of the CLC handshake, blocking or in the background.
 */
#ifndef ASMC_CONNECT_H
#define ASMC_CONNECT_H

#include "socket.h"

int asmc_connect(struct socket *sock, struct sockaddr *addr, int alen,
		 int flags);
int asmc_connect_wait(struct asmc_sock *smc, long *timeo);
void asmc_connect_abort(struct asmc_sock *smc);
void asmc_connect_work(struct work_struct *work);

#endif /* ASMC_CONNECT_H */
