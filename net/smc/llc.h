/* SPDX-License-Identifier: GPL-2.0 */
/* LLC: link-level control messages over a link's QP (CONFIRM_LINK,
 * ADD_LINK, CONFIRM/DELETE_RKEY, TEST_LINK, DELETE_LINK).
 */
#ifndef ASMC_LLC_H
#define ASMC_LLC_H

#include "lgr.h"
#include "link.h"
#include "llc_wire.h"

struct asmc_buf;

/* The LLC message version of a group's links (its SMC version's). */
static inline u8 asmc_llc_version(const struct asmc_lgr *lgr)
{
	return lgr->smc_version >= 2 ? ASMC_LLC_V2 : ASMC_LLC_V1;
}

void asmc_llc_rx(struct asmc_link *lnk, const u8 *buf, u32 len);
void asmc_llc_link_init(struct asmc_link *lnk);
void asmc_llc_link_stop(struct asmc_link *lnk);
void asmc_llc_link_active(struct asmc_link *lnk);

int asmc_llc_server_confirm_link(struct asmc_link *lnk);
int asmc_llc_client_confirm_link(struct asmc_link *lnk,
				 struct asmc_buf *rmb);
int asmc_llc_confirm_rkey(struct asmc_link *lnk, struct asmc_buf *rmb);
void asmc_llc_send_delete_all(struct asmc_link *lnk, u32 reason);
void asmc_llc_send_delete_link(struct asmc_link *lnk, u8 link_id, u32 reason);
int asmc_llc_send_big(struct asmc_link *lnk, struct asmc_llc_msg *msg);
void asmc_llc_offer_no_link(struct asmc_link *lnk);
void asmc_llc_req_add_link_none(struct asmc_link *lnk);
int asmc_llc_add_link_cont(struct asmc_link *via, u8 link_id,
			   struct asmc_llc_msg *first,
			   const struct asmc_llc_rkey *rk, u16 n,
			   void (*learn)(void *ctx, const struct asmc_llc_rkey *e),
			   void *ctx);
int asmc_llc_add_link_exchange(struct asmc_link *via, struct asmc_llc_msg *req,
			       struct asmc_llc_msg *resp, u8 **big);
int asmc_llc_server_confirm_new(struct asmc_link *lnk);

#endif /* ASMC_LLC_H */
