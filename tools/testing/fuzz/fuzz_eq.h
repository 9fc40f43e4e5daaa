/* SPDX-License-Identifier: GPL-2.0 */
/* Field-by-field equality of parsed CLC, LLC and CDC messages (pointer
 * fields compared by the bytes they point to), for the fuzz round trips.
 */
#ifndef ASMC_FUZZ_EQ_H
#define ASMC_FUZZ_EQ_H

#include <stdio.h>
#include <stdlib.h>
#include "clc_wire.h"
#include "llc_wire.h"
#include "cdc_wire.h"

/* a failed assertion is a crash libFuzzer records with its input */
#define FUZZ_ASSERT(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: assertion failed: %s\n",	\
			__FILE__, __LINE__, #c);			\
		abort();						\
	}								\
} while (0)

static inline bool bytes_eq(const void *a, const void *b, size_t n)
{
	if (!n)
		return true;
	if (!a || !b)
		return false;
	return !memcmp(a, b, n);
}

static inline bool prop_eq(const struct asmc_clc_proposal *a,
			   const struct asmc_clc_proposal *b)
{
	return a->version == b->version && a->v1_path == b->v1_path &&
	       a->v2_path == b->v2_path &&
	       bytes_eq(a->peer_id, b->peer_id, 8) &&
	       bytes_eq(a->gid, b->gid, 16) && bytes_eq(a->mac, b->mac, 6) &&
	       a->ism_gid == b->ism_gid && a->ism_chid == b->ism_chid &&
	       a->ipv4_subnet == b->ipv4_subnet &&
	       a->ipv4_prefix_len == b->ipv4_prefix_len &&
	       a->n_ipv6 == b->n_ipv6 &&
	       bytes_eq(a->ipv6, b->ipv6, (size_t)a->n_ipv6 * 17) &&
	       a->n_ueid == b->n_ueid &&
	       bytes_eq(a->ueids, b->ueids, (size_t)a->n_ueid * 32) &&
	       a->n_ism == b->n_ism && a->release == b->release &&
	       a->seid == b->seid &&
	       bytes_eq(a->roce_v2_gid, b->roce_v2_gid, 16) &&
	       !a->smcd_v2_ext == !b->smcd_v2_ext &&
	       (!a->smcd_v2_ext ||
		bytes_eq(a->smcd_v2_ext, b->smcd_v2_ext,
			 ASMC_CLC_SMCDV2_FIXED +
			 (size_t)a->n_ism * ASMC_CLC_ISM_ENTRY));
}

static inline bool acc_eq(const struct asmc_clc_accept *a,
			  const struct asmc_clc_accept *b)
{
	return a->type == b->type && a->version == b->version &&
	       a->first_contact == b->first_contact && a->smcd == b->smcd &&
	       bytes_eq(a->peer_id, b->peer_id, 8) &&
	       bytes_eq(a->gid, b->gid, 16) && bytes_eq(a->mac, b->mac, 6) &&
	       a->qpn == b->qpn && a->rkey == b->rkey &&
	       a->rmbe_idx == b->rmbe_idx && a->token == b->token &&
	       a->rmbe_size == b->rmbe_size && a->mtu == b->mtu &&
	       a->rmb_addr == b->rmb_addr && a->psn == b->psn &&
	       bytes_eq(a->eid, b->eid, sizeof(a->eid)) &&
	       a->v2_direct == b->v2_direct && a->os_type == b->os_type &&
	       a->release == b->release &&
	       bytes_eq(a->hostname, b->hostname, sizeof(a->hostname)) &&
	       a->n_gids == b->n_gids &&
	       bytes_eq(a->gids, b->gids, sizeof(a->gids));
}

static inline bool rkey_eq(const struct asmc_llc_rkey *a,
			   const struct asmc_llc_rkey *b)
{
	return a->rkey == b->rkey && a->rkey_new == b->rkey_new &&
	       a->addr_new == b->addr_new;
}

static inline bool llc_eq(const struct asmc_llc_msg *a,
			  const struct asmc_llc_msg *b)
{
	int i;

	if (a->type != b->type || a->version != b->version ||
	    a->flags != b->flags)
		return false;
	switch (a->type) {
	case ASMC_LLC_CONFIRM_LINK: {
		const struct asmc_llc_confirm_link *x = &a->confirm_link;
		const struct asmc_llc_confirm_link *y = &b->confirm_link;

		return bytes_eq(x->mac, y->mac, 6) &&
		       bytes_eq(x->gid, y->gid, 16) && x->qpn == y->qpn &&
		       x->link_id == y->link_id && x->link_uid == y->link_uid &&
		       x->max_links == y->max_links;
	}
	case ASMC_LLC_ADD_LINK: {
		const struct asmc_llc_add_link *x = &a->add_link;
		const struct asmc_llc_add_link *y = &b->add_link;

		return bytes_eq(x->mac, y->mac, 6) &&
		       bytes_eq(x->gid, y->gid, 16) && x->qpn == y->qpn &&
		       x->link_id == y->link_id && x->mtu == y->mtu &&
		       x->psn == y->psn &&
		       x->reject_reason == y->reject_reason &&
		       x->has_ext == y->has_ext &&
		       x->v2_direct == y->v2_direct &&
		       bytes_eq(x->target_gid, y->target_gid, 16) &&
		       x->n_rkeys == y->n_rkeys &&
		       bytes_eq(x->rkeys_wire, y->rkeys_wire,
				(size_t)x->n_rkeys * ASMC_LLC_RKEY_ENTRY_LEN);
	}
	case ASMC_LLC_ADD_LINK_CONT: {
		const struct asmc_llc_add_link_cont *x = &a->add_link_cont;
		const struct asmc_llc_add_link_cont *y = &b->add_link_cont;

		return x->link_id == y->link_id && x->n_rkeys == y->n_rkeys &&
		       rkey_eq(&x->rkeys[0], &y->rkeys[0]) &&
		       rkey_eq(&x->rkeys[1], &y->rkeys[1]);
	}
	case ASMC_LLC_DELETE_LINK:
		return a->delete_link.link_id == b->delete_link.link_id &&
		       a->delete_link.reason == b->delete_link.reason;
	case ASMC_LLC_CONFIRM_RKEY: {
		const struct asmc_llc_confirm_rkey *x = &a->confirm_rkey;
		const struct asmc_llc_confirm_rkey *y = &b->confirm_rkey;

		if (x->n_other != y->n_other || x->rkey != y->rkey ||
		    x->addr != y->addr)
			return false;
		for (i = 0; i < 2; i++)
			if (x->other[i].link_id != y->other[i].link_id ||
			    x->other[i].rkey != y->other[i].rkey ||
			    x->other[i].addr != y->other[i].addr)
				return false;
		return true;
	}
	case ASMC_LLC_DELETE_RKEY:
		if (a->delete_rkey.n_rkeys != b->delete_rkey.n_rkeys ||
		    a->delete_rkey.err != b->delete_rkey.err)
			return false;
		for (i = 0; i < ASMC_LLC_DEL_RKEY_MAX; i++)
			if (a->delete_rkey.rkeys[i] != b->delete_rkey.rkeys[i])
				return false;
		return true;
	case ASMC_LLC_TEST_LINK:
		return bytes_eq(a->test_link.data, b->test_link.data, 16);
	case ASMC_LLC_REQ_ADD_LINK:
		return a->req_add_link.n_gids == b->req_add_link.n_gids &&
		       bytes_eq(a->req_add_link.gids, b->req_add_link.gids,
				(size_t)a->req_add_link.n_gids * 16);
	}
	return true;	/* CONFIRM_RKEY_CONT: header only */
}

static inline bool cdc_eq(const struct asmc_cdc_msg *a,
			  const struct asmc_cdc_msg *b)
{
	return a->seqno == b->seqno && a->token == b->token &&
	       asmc_cursor_equal(a->prod, b->prod) &&
	       asmc_cursor_equal(a->cons, b->cons) &&
	       a->prod_flags == b->prod_flags &&
	       a->conn_flags == b->conn_flags;
}

/* the fuzz input as an exactly sized heap copy: ASan sees any read past it */
static inline u8 *fuzz_copy(const u8 *data, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	FUZZ_ASSERT(p);
	if (len)
		memcpy(p, data, len);
	return p;
}

#endif /* ASMC_FUZZ_EQ_H */
