/* SPDX-License-Identifier: GPL-2.0 */
/* CLC handshake over the internal TCP socket: sending and receiving whole
 * CLC messages with timeouts, and the client and server handshake steps.
 */
#ifndef ASMC_CLC_H
#define ASMC_CLC_H

#include "socket.h"

#define ASMC_CLC_WAIT_TIME	(6 * HZ)	/* each awaited CLC message */
#define ASMC_CLC_WAIT_SHORT	(1 * HZ)	/* a Decline after a timeout */

struct asmc_hs_result {
	u32 reason;		/* local fallback reason (CLC decline code) */
	u32 peer_diag;		/* reason the peer gave in its Decline */
};

void asmc_clc_init(void);
int asmc_clc_client_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res);
int asmc_clc_server_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res);

#endif /* ASMC_CLC_H */
