/* SPDX-License-Identifier: GPL-2.0 */
/* LLC (link layer control) messages of v1 and v2 link groups as bytes: pure
 * encoders and validating decoders with no kernel state; built in userspace.
 */
#ifndef ASMC_LLC_WIRE_H
#define ASMC_LLC_WIRE_H

#include "wire.h"

#define ASMC_LLC_LEN		44	/* every v1 message, most v2 ones */
#define ASMC_LLC_MAX_LEN	8192	/* v2 large messages */
#define ASMC_LLC_HDR_LEN	4

/* version nibble of byte 0 */
#define ASMC_LLC_V1		0	/* v1 link group: 8-bit length */
#define ASMC_LLC_V2		2	/* v2 link group: 16-bit LE length */

/* message type (low nibble of byte 0) */
#define ASMC_LLC_CONFIRM_LINK		0x01
#define ASMC_LLC_ADD_LINK		0x02
#define ASMC_LLC_ADD_LINK_CONT		0x03	/* v1 only */
#define ASMC_LLC_DELETE_LINK		0x04
#define ASMC_LLC_REQ_ADD_LINK		0x05	/* v2 only */
#define ASMC_LLC_CONFIRM_RKEY		0x06
#define ASMC_LLC_TEST_LINK		0x07
#define ASMC_LLC_CONFIRM_RKEY_CONT	0x08	/* v1 only, recognised only */
#define ASMC_LLC_DELETE_RKEY		0x09

/* flags (byte 3) */
#define ASMC_LLC_FLAG_RESP		0x80	/* every type */
#define ASMC_LLC_FLAG_NO_RMBE_EYEC	0x03	/* CONFIRM_LINK */
#define ASMC_LLC_FLAG_ADD_LNK_REJ	0x40	/* ADD_LINK response */
#define ASMC_LLC_FLAG_DEL_LINK_ALL	0x40	/* DELETE_LINK */
#define ASMC_LLC_FLAG_DEL_LINK_ORDERLY	0x20	/* DELETE_LINK */
#define ASMC_LLC_FLAG_RKEY_NEG		0x20	/* CONFIRM/DELETE_RKEY */
#define ASMC_LLC_FLAG_RKEY_RETRY	0x10	/* CONFIRM_RKEY */

/* ADD_LINK v1 reject reason (byte 2 low nibble) */
#define ASMC_LLC_REJ_NO_ALT_PATH	1

/* ADD_LINK v2 extension */
#define ASMC_LLC_ADD_LINK_EXT_LEN	72	/* + 16 per rkey entry */
#define ASMC_LLC_V2_DIRECT		0x80
#define ASMC_LLC_RKEY_ENTRY_LEN		16

#define ASMC_LLC_MAX_LINKS		2	/* "max links" Linux sends */
#define ASMC_LLC_DEL_RKEY_MAX		8	/* rkeys in a DELETE_RKEY */
#define ASMC_LLC_CONF_RKEY_MAX_OTHER	2	/* extra CONFIRM_RKEY entries */

/* DELETE_LINK reason codes */
#define ASMC_LLC_DEL_LOST_PATH		0x00010000u
#define ASMC_LLC_DEL_OP_INIT_TERM	0x00020000u
#define ASMC_LLC_DEL_PROG_INIT_TERM	0x00030000u
#define ASMC_LLC_DEL_PROT_VIOL		0x00040000u
#define ASMC_LLC_DEL_NO_ASYM_NEEDED	0x00050000u
#define ASMC_LLC_DEL_NOLNK		0x00100000u
#define ASMC_LLC_DEL_NOLGR		0x00200000u

/* Common header; asmc_llc_hdr_parse() needs only 4 bytes, so the receive
 * path can learn a v2 message's length before assembling the rest.
 */
struct asmc_llc_hdr {
	u8 type;		/* ASMC_LLC_* */
	u8 version;		/* ASMC_LLC_V1 or ASMC_LLC_V2 */
	u16 length;		/* v1: 44; v2: 44..8192 */
	u8 flags;
};

/* one rkey of an RMB for a new link (ADD_LINK v2 ext, ADD_LINK_CONT) */
struct asmc_llc_rkey {
	u32 rkey;		/* on the link carrying the message */
	u32 rkey_new;		/* on the new link */
	u64 addr_new;		/* RMB address on the new link */
};

/* CONFIRM_RKEY entries 2 and 3: the RMB on another link */
struct asmc_llc_rkey_ref {
	u8 link_id;
	u32 rkey;
	u64 addr;
};

struct asmc_llc_confirm_link {
	u8 mac[6];
	u8 gid[16];
	u32 qpn;		/* 24 bit */
	u8 link_id;		/* non-zero */
	u32 link_uid;
	u8 max_links;
};

struct asmc_llc_add_link {
	u8 mac[6];
	u8 gid[16];
	u32 qpn;		/* 24 bit */
	u8 link_id;
	u8 mtu;			/* IB MTU code, 4 bit */
	u32 psn;		/* 24 bit */
	u8 reject_reason;	/* v1 only (byte 2, 4 bit); 0 in v2 */
	/* v2 extension (v2 only; a 44-byte v2 ADD_LINK has none) */
	bool has_ext;
	bool v2_direct;
	u8 target_gid[16];
	u16 n_rkeys;
	/* parse: n_rkeys entries of 16 bytes inside the message, read them
	 * with asmc_llc_rkey_get(); build: copied if rkeys is NULL
	 */
	const u8 *rkeys_wire;
	const struct asmc_llc_rkey *rkeys;	/* build only */
};

struct asmc_llc_add_link_cont {
	u8 link_id;		/* non-zero */
	u8 n_rkeys;		/* still to send, counting these (<= 2 here) */
	struct asmc_llc_rkey rkeys[2];
};

struct asmc_llc_delete_link {
	u8 link_id;		/* 0 with ASMC_LLC_FLAG_DEL_LINK_ALL */
	u32 reason;		/* ASMC_LLC_DEL_* */
};

struct asmc_llc_confirm_rkey {
	u8 n_other;		/* valid entries in other[]; > 2: answer
				 * with RESP | RKEY_NEG | RKEY_RETRY
				 */
	u32 rkey;		/* on the link carrying the message */
	u64 addr;
	struct asmc_llc_rkey_ref other[2];
};

struct asmc_llc_delete_rkey {
	u8 n_rkeys;		/* 0..8 */
	u8 err;			/* v1: mask 0x80 >> i; v2: count of invalid */
	u32 rkeys[ASMC_LLC_DEL_RKEY_MAX];
};

struct asmc_llc_test_link {
	u8 data[16];
};

struct asmc_llc_req_add_link {
	u8 n_gids;
	const u8 *gids;		/* n_gids * 16 bytes (parse: in the message) */
};

/* A parsed LLC message, tagged by type; the input of asmc_llc_build(). */
struct asmc_llc_msg {
	u8 type;		/* ASMC_LLC_* */
	u8 version;		/* ASMC_LLC_V1 or ASMC_LLC_V2 */
	u8 flags;		/* byte 3, ASMC_LLC_FLAG_* */
	union {
		struct asmc_llc_confirm_link confirm_link;
		struct asmc_llc_add_link add_link;
		struct asmc_llc_add_link_cont add_link_cont;
		struct asmc_llc_delete_link delete_link;
		struct asmc_llc_confirm_rkey confirm_rkey;
		struct asmc_llc_delete_rkey delete_rkey;
		struct asmc_llc_test_link test_link;
		struct asmc_llc_req_add_link req_add_link;
	};
};

/* Decoders return 0, -EPROTO (malformed: drop it) or -EOPNOTSUPP (not an
 * LLC type/version we know, CDC included: Linux drops these silently).
 */
int asmc_llc_hdr_parse(const u8 *buf, size_t len, struct asmc_llc_hdr *hdr);
int asmc_llc_parse(const u8 *buf, size_t len, struct asmc_llc_msg *msg);

/* Encoders return the length written, -EINVAL or -ENOSPC. */
int asmc_llc_len(const struct asmc_llc_msg *msg);
int asmc_llc_build(u8 *buf, size_t size, const struct asmc_llc_msg *msg);

void asmc_llc_rkey_get(const u8 *wire, unsigned int i,
		       struct asmc_llc_rkey *e);
void asmc_llc_rkey_put(u8 *wire, unsigned int i,
		       const struct asmc_llc_rkey *e);

static inline bool asmc_llc_is_resp(const struct asmc_llc_msg *msg)
{
	return msg->flags & ASMC_LLC_FLAG_RESP;
}

/* A v1 client's ADD_LINK "invite": a request naming only the port it
 * would have a link on (MAC, GID), no QP, link ID, MTU or PSN. The
 * server answers it with an ADD_LINK offer of its own, if any.
 */
static inline bool asmc_llc_is_invite(const struct asmc_llc_msg *msg)
{
	const struct asmc_llc_add_link *a = &msg->add_link;

	return msg->type == ASMC_LLC_ADD_LINK &&
	       msg->version == ASMC_LLC_V1 && !asmc_llc_is_resp(msg) &&
	       !a->qpn && !a->link_id && !a->mtu && !a->psn;
}

#endif /* ASMC_LLC_WIRE_H */
