// SPDX-License-Identifier: GPL-2.0
/* CLC wire codec: checks every length, offset and count of a received CLC
 * message before anything is read from it, and builds the messages we send.
 */
#include "clc_wire.h"

/* Fixed offsets of the proposal (see Documentation/networking/smc.rst). */
#define PROP_PEER_ID	8
#define PROP_GID	16
#define PROP_MAC	32
#define PROP_IPOFF	38
#define PROP_V1_FIXED	40	/* header..ip-area offset */
#define PROP_V2OFF	50
#define PROP_V2_BASE	52	/* v2 extension offset counts from here */
#define PROP_V2_FIXED	80	/* v1 part plus the SMC-D area */
#define PROP_IPAREA	8	/* subnet, prefix length, reserved, count */
#define PROP_PREFIX6	17
#define V2EXT_FIXED	40
#define SMCDV2EXT_FIXED	48
#define ISM_ENTRY	10

int asmc_clc_hdr_parse(const u8 *buf, size_t n, struct asmc_clc_hdr *hdr)
{
	u32 eye;

	if (n < ASMC_CLC_HDR_LEN)
		return -EPROTO;
	eye = get_unaligned_be32(buf);
	if (eye != ASMC_CLC_EYE_R && eye != ASMC_CLC_EYE_D)
		return -EPROTO;
	hdr->smcd_eye = eye == ASMC_CLC_EYE_D;
	hdr->type = buf[4];
	hdr->length = get_unaligned_be16(buf + 5);
	hdr->version = buf[7] >> 4;
	hdr->bits = buf[7] & 0x0f;
	if (hdr->version < 1)
		return -EPROTO;
	if (hdr->type < ASMC_CLC_PROPOSAL || hdr->type > ASMC_CLC_DECLINE)
		return -EPROTO;
	if (hdr->length < asmc_clc_min_len(hdr->type, hdr->version) ||
	    hdr->length > ASMC_CLC_MAX_LEN)
		return -EPROTO;
	return 0;
}

/* Smallest length a message of this type and version can have. */
size_t asmc_clc_min_len(u8 type, u8 version)
{
	switch (type) {
	case ASMC_CLC_PROPOSAL:
		/* v1: fixed part, IP area, trailer; v2: adds the SMC-D area */
		return (version == 1 ? PROP_V1_FIXED + PROP_IPAREA :
				       PROP_V2_FIXED) + ASMC_CLC_TRL_LEN;
	case ASMC_CLC_ACCEPT:
	case ASMC_CLC_CONFIRM:
		return 48;	/* SMC-D v1, the shortest accept/confirm */
	case ASMC_CLC_DECLINE:
		return ASMC_CLC_DECL_LEN_V1;
	}
	return ASMC_CLC_HDR_LEN + ASMC_CLC_TRL_LEN;
}

bool asmc_clc_trailer_ok(const u8 *msg, size_t len)
{
	u32 eye;

	if (len < ASMC_CLC_HDR_LEN + ASMC_CLC_TRL_LEN)
		return false;
	eye = get_unaligned_be32(msg + len - ASMC_CLC_TRL_LEN);
	return eye == ASMC_CLC_EYE_R || eye == ASMC_CLC_EYE_D;
}

int asmc_clc_decline_parse(const u8 *msg, size_t len,
			   struct asmc_clc_decline *dcl)
{
	struct asmc_clc_hdr hdr;
	size_t want;

	if (asmc_clc_hdr_parse(msg, len, &hdr) || hdr.type != ASMC_CLC_DECLINE)
		return -EPROTO;
	want = hdr.version == 1 ? ASMC_CLC_DECL_LEN_V1 : ASMC_CLC_DECL_LEN_V2;
	if (hdr.length != want || len < want)
		return -EPROTO;
	dcl->version = hdr.version;
	dcl->out_of_sync = hdr.bits & 0x08;
	memcpy(dcl->peer_id, msg + 8, 8);
	dcl->reason = get_unaligned_be32(msg + 16);
	dcl->os_type = msg[20] >> 4;
	return 0;
}

size_t asmc_clc_decline_build(u8 *buf, size_t size, const u8 peer_id[8],
			      u32 reason, u8 version, bool out_of_sync)
{
	size_t len = version >= 2 ? ASMC_CLC_DECL_LEN_V2 : ASMC_CLC_DECL_LEN_V1;

	if (size < len)
		return 0;
	memset(buf, 0, len);
	put_unaligned_be32(ASMC_CLC_EYE_R, buf);
	buf[4] = ASMC_CLC_DECLINE;
	put_unaligned_be16(len, buf + 5);
	buf[7] = (version >= 2 ? 2 : 1) << 4 | (out_of_sync ? 0x08 : 0);
	if (peer_id)
		memcpy(buf + 8, peer_id, 8);
	put_unaligned_be32(reason, buf + 16);
	if (version >= 2)
		buf[20] = 2 << 4;	/* OS type: Linux */
	put_unaligned_be32(ASMC_CLC_EYE_R, buf + len - ASMC_CLC_TRL_LEN);
	return len;
}

/* [pos, pos + n) must lie inside the body, before the trailer. */
static bool in_body(size_t pos, size_t n, size_t len)
{
	return pos <= len - ASMC_CLC_TRL_LEN &&
	       n <= len - ASMC_CLC_TRL_LEN - pos;
}

static int parse_ip_area(const u8 *msg, size_t len, size_t pos,
			 struct asmc_clc_proposal *p, size_t *used)
{
	if (!in_body(pos, PROP_IPAREA, len))
		return -EPROTO;
	p->ipv4_subnet = get_unaligned_be32(msg + pos);
	p->ipv4_prefix_len = msg[pos + 4];
	p->n_ipv6 = msg[pos + 7];
	if (p->n_ipv6 > ASMC_CLC_MAX_PREFIX || p->ipv4_prefix_len > 32)
		return -EPROTO;
	*used = PROP_IPAREA + (size_t)p->n_ipv6 * PROP_PREFIX6;
	if (!in_body(pos, *used, len))
		return -EPROTO;
	p->ipv6 = msg + pos + PROP_IPAREA;
	return 0;
}

static int parse_v2_ext(const u8 *msg, size_t len, size_t pos,
			struct asmc_clc_proposal *p, size_t *used)
{
	size_t smcd_off;

	if (!in_body(pos, V2EXT_FIXED, len))
		return -EPROTO;
	p->n_ueid = msg[pos];
	p->n_ism = msg[pos + 1];
	p->release = msg[pos + 3] >> 4;
	p->seid = msg[pos + 3] & 0x01;
	if (p->n_ueid > ASMC_CLC_MAX_UEID_RX || p->n_ism > ASMC_CLC_MAX_ISM)
		return -EPROTO;
	memcpy(p->roce_v2_gid, msg + pos + 8, 16);
	*used = V2EXT_FIXED + (size_t)p->n_ueid * ASMC_EID_LEN;
	if (!in_body(pos, *used, len))
		return -EPROTO;
	p->ueids = msg + pos + V2EXT_FIXED;
	if (!asmc_path_has_d(p->v2_path))
		return 0;
	smcd_off = get_unaligned_be16(msg + pos + 6);
	/* the SMC-D extension follows the UEIDs; any other place is bogus */
	if (smcd_off != *used - 8)
		return -EPROTO;
	if (!in_body(pos + *used, SMCDV2EXT_FIXED +
		     (size_t)p->n_ism * ISM_ENTRY, len))
		return -EPROTO;
	p->smcd_v2_ext = msg + pos + *used;
	*used += SMCDV2EXT_FIXED + (size_t)p->n_ism * ISM_ENTRY;
	return 0;
}

/* Validate a complete proposal of @len bytes (as announced in its header)
 * and describe it in @p; pointers in @p point into @msg.
 */
int asmc_clc_proposal_parse(const u8 *msg, size_t len,
			    struct asmc_clc_proposal *p)
{
	struct asmc_clc_hdr hdr;
	size_t ipoff, pos, used, expect;
	int rc;

	memset(p, 0, sizeof(*p));
	if (asmc_clc_hdr_parse(msg, len, &hdr) || hdr.type != ASMC_CLC_PROPOSAL)
		return -EPROTO;
	if (hdr.length != len || len > ASMC_CLC_PROP_MAX ||
	    !asmc_clc_trailer_ok(msg, len))
		return -EPROTO;
	p->version = hdr.version;
	p->v1_path = hdr.bits & 0x03;
	p->v2_path = hdr.version >= 2 ? (hdr.bits >> 2) & 0x03 :
					ASMC_PATH_NONE;
	memcpy(p->peer_id, msg + PROP_PEER_ID, 8);
	memcpy(p->gid, msg + PROP_GID, 16);
	memcpy(p->mac, msg + PROP_MAC, 6);
	ipoff = get_unaligned_be16(msg + PROP_IPOFF);
	if (ipoff > PROP_V2_FIXED - PROP_V1_FIXED)
		return -EPROTO;
	if (p->v1_path == ASMC_PATH_NONE && p->v2_path == ASMC_PATH_NONE)
		return -EPROTO;

	if (hdr.version == 1) {
		if (asmc_path_has_d(p->v1_path) &&
		    ipoff != PROP_V2_FIXED - PROP_V1_FIXED)
			return -EPROTO;
		rc = parse_ip_area(msg, len, PROP_V1_FIXED + ipoff, p, &used);
		if (rc)
			return rc;
		expect = PROP_V1_FIXED + ipoff + used + ASMC_CLC_TRL_LEN;
		return len == expect ? 0 : -EPROTO;
	}

	expect = PROP_V2_FIXED + ASMC_CLC_TRL_LEN;
	if (p->v1_path != ASMC_PATH_NONE) {
		rc = parse_ip_area(msg, len, PROP_V1_FIXED + ipoff, p, &used);
		if (rc)
			return rc;
		expect += used;
	}
	if (p->v2_path != ASMC_PATH_NONE) {
		pos = get_unaligned_be16(msg + PROP_V2OFF);
		if (pos == 0)
			return -EPROTO;
		pos += PROP_V2_BASE;
		rc = parse_v2_ext(msg, len, pos, p, &used);
		if (rc)
			return rc;
		expect += used;
	}
	return len == expect ? 0 : -EPROTO;
}
