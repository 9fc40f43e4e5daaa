// SPDX-License-Identifier: GPL-2.0
/* CLC wire codec: checks every length, offset and count of a received CLC
 * message before anything is read from it, and builds the messages we send.
 */
#include "clc_wire.h"

/* Fixed offsets of the proposal (SMC-WIRE section 3). */
#define PROP_PEER_ID	8
#define PROP_GID	16
#define PROP_MAC	32
#define PROP_IPOFF	38
#define PROP_V1_FIXED	40	/* header..ip-area offset */
#define PROP_ISM_GID	40
#define PROP_ISM_CHID	48
#define PROP_V2OFF	50
#define PROP_V2_BASE	52	/* v2 extension offset counts from here */
#define PROP_V2_FIXED	80	/* v1 part plus the SMC-D area */
#define PROP_IPAREA	8	/* subnet, prefix length, reserved, count */
#define PROP_PREFIX6	17
#define V2EXT_FIXED	40
#define V2EXT_GID	8
#define V2EXT_SMCDOFF	6
#define V2EXT_MAXCONNS	24	/* release >= 1: conns, links, features */
#define V2EXT_MAXLINKS	25
#define V2EXT_FEATURES	26
#define V2EXT_SMCD_BASE	8	/* SMC-D v2 ext offset counts from here */
#define SMCDV2EXT_FIXED	ASMC_CLC_SMCDV2_FIXED
#define ISM_ENTRY	ASMC_CLC_ISM_ENTRY

/* Accept / Confirm offsets (SMC-WIRE section 4) */
#define ACC_PEER_ID	8
#define ACC_GID		16
#define ACC_MAC		32
#define ACC_QPN		38
#define ACC_RKEY	41
#define ACC_RMBE_IDX	45
#define ACC_TOKEN	46
#define ACC_SIZE_MTU	50
#define ACC_RMB_ADDR	52
#define ACC_PSN		61
#define ACC_EID		64
#define ACC_FC_FLAGS	104
#define ACC_FC_OS	105
#define ACC_FC_HOST	108
#define ACC_FC_MAXCONNS	140	/* release >= 1 */
#define ACC_FC_MAXLINKS	141
#define ACC_FC_FEATURES	142
#define ACC_FC_NGIDS	156
#define ACC_FC_GIDS	160

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
	p->max_conns = msg[pos + V2EXT_MAXCONNS];
	p->max_links = msg[pos + V2EXT_MAXLINKS];
	p->feature_mask = get_unaligned_be16(msg + pos + V2EXT_FEATURES);
	*used = V2EXT_FIXED + (size_t)p->n_ueid * ASMC_EID_LEN;
	if (!in_body(pos, *used, len))
		return -EPROTO;
	p->ueids = msg + pos + V2EXT_FIXED;
	if (!asmc_path_has_d(p->v2_path))
		return 0;
	smcd_off = get_unaligned_be16(msg + pos + 6);
	/* the SMC-D extension follows the UEIDs; any other place is bogus */
	if (smcd_off != *used - V2EXT_SMCD_BASE)
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
	/* an SMC-D v1 offer needs the SMC-D area in front of the IP area */
	if (asmc_path_has_d(p->v1_path) &&
	    ipoff != PROP_V2_FIXED - PROP_V1_FIXED)
		return -EPROTO;
	/* the SMC-D area: always there in v2, in v1 only before the IP area
	 * (len >= 48 + 4 already, so bytes 40..51 are inside the message)
	 */
	if (hdr.version >= 2 || ipoff == PROP_V2_FIXED - PROP_V1_FIXED) {
		p->ism_gid = get_unaligned_be64(msg + PROP_ISM_GID);
		p->ism_chid = get_unaligned_be16(msg + PROP_ISM_CHID);
	}

	if (hdr.version == 1) {
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

static bool prop_has_smcd_area(const struct asmc_clc_proposal *p)
{
	return p->version >= 2 || asmc_path_has_d(p->v1_path) ||
	       p->ism_gid || p->ism_chid;
}

static size_t prop_ip_len(const struct asmc_clc_proposal *p)
{
	if (p->v1_path == ASMC_PATH_NONE)
		return 0;
	return PROP_IPAREA + (size_t)p->n_ipv6 * PROP_PREFIX6;
}

static size_t prop_v2_len(const struct asmc_clc_proposal *p)
{
	size_t len;

	if (p->version < 2 || p->v2_path == ASMC_PATH_NONE)
		return 0;
	len = V2EXT_FIXED + (size_t)p->n_ueid * ASMC_EID_LEN;
	if (asmc_path_has_d(p->v2_path))
		len += SMCDV2EXT_FIXED + (size_t)p->n_ism * ISM_ENTRY;
	return len;
}

/* Length of the proposal asmc_clc_proposal_build() makes of @p, or -EINVAL
 * if @p cannot be encoded (or would not be accepted by our own parser).
 */
int asmc_clc_proposal_len(const struct asmc_clc_proposal *p)
{
	if (p->version < 1 || p->version > 15 || p->v1_path > 3 ||
	    p->v2_path > 3 || p->release > 15)
		return -EINVAL;
	if (p->version == 1 && (p->v2_path != ASMC_PATH_NONE ||
				p->v1_path == ASMC_PATH_NONE))
		return -EINVAL;
	if (p->v1_path == ASMC_PATH_NONE && p->v2_path == ASMC_PATH_NONE)
		return -EINVAL;
	if (p->v1_path != ASMC_PATH_NONE &&
	    (p->n_ipv6 > ASMC_CLC_MAX_PREFIX || p->ipv4_prefix_len > 32 ||
	     (p->n_ipv6 && !p->ipv6)))
		return -EINVAL;
	if (p->version >= 2 && p->v2_path != ASMC_PATH_NONE &&
	    (p->n_ueid > ASMC_CLC_MAX_UEID_RX || p->n_ism > ASMC_CLC_MAX_ISM ||
	     (p->n_ueid && !p->ueids)))
		return -EINVAL;
	return PROP_V1_FIXED +
	       (prop_has_smcd_area(p) ? PROP_V2_FIXED - PROP_V1_FIXED : 0) +
	       prop_ip_len(p) + prop_v2_len(p) + ASMC_CLC_TRL_LEN;
}

/* Encode @p as Linux 6.1 lays a proposal out: SMC-D area, IP area, v2
 * extension, SMC-D v2 extension, each directly after the previous one.
 * Returns the length written or -EINVAL / -ENOSPC.
 */
int asmc_clc_proposal_build(u8 *buf, size_t size,
			    const struct asmc_clc_proposal *p)
{
	size_t pos, v2pos, iplen = prop_ip_len(p);
	int len = asmc_clc_proposal_len(p);
	u8 *v2;

	if (len < 0)
		return len;
	if (size < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	put_unaligned_be32(ASMC_CLC_EYE_R, buf);
	buf[4] = ASMC_CLC_PROPOSAL;
	put_unaligned_be16(len, buf + 5);
	buf[7] = p->version << 4 | p->v1_path;
	if (p->version >= 2)
		buf[7] |= p->v2_path << 2;
	memcpy(buf + PROP_PEER_ID, p->peer_id, 8);
	memcpy(buf + PROP_GID, p->gid, 16);
	memcpy(buf + PROP_MAC, p->mac, 6);
	pos = PROP_V1_FIXED;
	if (prop_has_smcd_area(p)) {
		put_unaligned_be64(p->ism_gid, buf + PROP_ISM_GID);
		put_unaligned_be16(p->ism_chid, buf + PROP_ISM_CHID);
		pos = PROP_V2_FIXED;
	}
	if (iplen) {
		put_unaligned_be16(pos - PROP_V1_FIXED, buf + PROP_IPOFF);
		put_unaligned_be32(p->ipv4_subnet, buf + pos);
		buf[pos + 4] = p->ipv4_prefix_len;
		buf[pos + 7] = p->n_ipv6;
		if (p->n_ipv6)
			memcpy(buf + pos + PROP_IPAREA, p->ipv6,
			       iplen - PROP_IPAREA);
		pos += iplen;
	}
	if (prop_v2_len(p)) {
		put_unaligned_be16(pos - PROP_V2_BASE, buf + PROP_V2OFF);
		v2pos = pos;
		v2 = buf + pos;
		v2[0] = p->n_ueid;
		v2[1] = p->n_ism;
		v2[3] = p->release << 4 | (p->seid ? 0x01 : 0);
		memcpy(v2 + V2EXT_GID, p->roce_v2_gid, 16);
		v2[V2EXT_MAXCONNS] = p->max_conns;
		v2[V2EXT_MAXLINKS] = p->max_links;
		put_unaligned_be16(p->feature_mask, v2 + V2EXT_FEATURES);
		if (p->n_ueid)
			memcpy(v2 + V2EXT_FIXED, p->ueids,
			       (size_t)p->n_ueid * ASMC_EID_LEN);
		pos += V2EXT_FIXED + (size_t)p->n_ueid * ASMC_EID_LEN;
		if (asmc_path_has_d(p->v2_path)) {
			put_unaligned_be16(pos - v2pos - V2EXT_SMCD_BASE,
					   v2 + V2EXT_SMCDOFF);
			if (p->smcd_v2_ext)
				memcpy(buf + pos, p->smcd_v2_ext,
				       SMCDV2EXT_FIXED +
				       (size_t)p->n_ism * ISM_ENTRY);
		}
	}
	put_unaligned_be32(ASMC_CLC_EYE_R, buf + len - ASMC_CLC_TRL_LEN);
	return len;
}

/* Validate a complete Accept or Confirm of @len bytes and describe it in
 * @a. SMC-R v1 must be exactly 68 bytes; SMC-R v2 at least 108 (as Linux
 * accepts), at least 160 (Accept) or 164 + 16 * GIDs (Confirm) with first
 * contact, whose extension we need. Bytes past what we know are ignored.
 */
int asmc_clc_accept_parse(const u8 *msg, size_t len,
			  struct asmc_clc_accept *a)
{
	struct asmc_clc_hdr hdr;
	size_t need;

	memset(a, 0, sizeof(*a));
	if (asmc_clc_hdr_parse(msg, len, &hdr) ||
	    (hdr.type != ASMC_CLC_ACCEPT && hdr.type != ASMC_CLC_CONFIRM))
		return -EPROTO;
	if (hdr.length != len || !asmc_clc_trailer_ok(msg, len))
		return -EPROTO;
	a->type = hdr.type;
	a->version = hdr.version;
	a->first_contact = hdr.bits & ASMC_CLC_FIRST_CONTACT;

	switch (hdr.bits & 0x03) {
	case ASMC_PATH_R:
		break;
	case ASMC_PATH_D:
		if (hdr.version == 1) {
			if (len != ASMC_CLC_ACC_LEN_D_V1)
				return -EPROTO;
		} else if (len < (a->first_contact ? ASMC_CLC_ACC_LEN_D_V2FC :
						      ASMC_CLC_ACC_LEN_D_V2)) {
			return -EPROTO;
		}
		a->smcd = true;
		return 0;
	default:
		return -EPROTO;
	}

	if (hdr.version == 1)
		need = ASMC_CLC_ACC_LEN_V1;
	else if (!a->first_contact)
		need = ASMC_CLC_ACC_LEN_V2;
	else if (hdr.type == ASMC_CLC_ACCEPT)
		need = ASMC_CLC_ACC_LEN_V2FC;
	else
		need = ASMC_CLC_CONF_LEN_V2FC;
	if (hdr.version == 1 ? len != need : len < need)
		return -EPROTO;

	memcpy(a->peer_id, msg + ACC_PEER_ID, 8);
	memcpy(a->gid, msg + ACC_GID, 16);
	memcpy(a->mac, msg + ACC_MAC, 6);
	a->qpn = asmc_get_be24(msg + ACC_QPN);
	a->rkey = get_unaligned_be32(msg + ACC_RKEY);
	a->rmbe_idx = msg[ACC_RMBE_IDX];
	a->token = get_unaligned_be32(msg + ACC_TOKEN);
	a->rmbe_size = msg[ACC_SIZE_MTU] >> 4;
	a->mtu = msg[ACC_SIZE_MTU] & 0x0f;
	a->rmb_addr = get_unaligned_be64(msg + ACC_RMB_ADDR);
	a->psn = asmc_get_be24(msg + ACC_PSN);
	if (hdr.version == 1)
		return 0;

	memcpy(a->eid, msg + ACC_EID, ASMC_EID_LEN);
	if (!a->first_contact)
		return 0;
	a->v2_direct = msg[ACC_FC_FLAGS] & ASMC_CLC_V2_DIRECT;
	a->os_type = msg[ACC_FC_OS] >> 4;
	a->release = msg[ACC_FC_OS] & 0x0f;
	memcpy(a->hostname, msg + ACC_FC_HOST, ASMC_HOSTNAME_LEN);
	a->max_conns = msg[ACC_FC_MAXCONNS];
	a->max_links = msg[ACC_FC_MAXLINKS];
	a->feature_mask = get_unaligned_be16(msg + ACC_FC_FEATURES);
	if (hdr.type == ASMC_CLC_ACCEPT)
		return 0;
	a->n_gids = msg[ACC_FC_NGIDS];
	if (a->n_gids > ASMC_CLC_MAX_GIDS ||
	    len < ASMC_CLC_CONF_LEN_V2FC + (size_t)a->n_gids * ASMC_GID_LEN)
		return -EPROTO;
	memcpy(a->gids, msg + ACC_FC_GIDS, (size_t)a->n_gids * ASMC_GID_LEN);
	return 0;
}

/* Length asmc_clc_accept_build() makes of @a, or -EINVAL. */
int asmc_clc_accept_len(const struct asmc_clc_accept *a)
{
	if ((a->type != ASMC_CLC_ACCEPT && a->type != ASMC_CLC_CONFIRM) ||
	    a->version < 1 || a->version > 15 || a->smcd ||
	    a->qpn > 0xffffff || a->psn > 0xffffff || a->rmbe_size > 15 ||
	    a->mtu > 15 || a->os_type > 15 || a->release > 15 ||
	    a->n_gids > ASMC_CLC_MAX_GIDS)
		return -EINVAL;
	if (a->version == 1)
		return ASMC_CLC_ACC_LEN_V1;
	if (!a->first_contact)
		return ASMC_CLC_ACC_LEN_V2;
	if (a->type == ASMC_CLC_ACCEPT)
		return ASMC_CLC_ACC_LEN_V2FC;
	return ASMC_CLC_CONF_LEN_V2FC + a->n_gids * ASMC_GID_LEN;
}

/* Encode an SMC-R Accept or Confirm (a->type). Returns the length written,
 * -EINVAL (SMC-D, out-of-range field) or -ENOSPC.
 */
int asmc_clc_accept_build(u8 *buf, size_t size,
			  const struct asmc_clc_accept *a)
{
	int len = asmc_clc_accept_len(a);

	if (len < 0)
		return len;
	if (size < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	put_unaligned_be32(ASMC_CLC_EYE_R, buf);
	buf[4] = a->type;
	put_unaligned_be16(len, buf + 5);
	buf[7] = a->version << 4 | (a->first_contact ? ASMC_CLC_FIRST_CONTACT :
						      0) | ASMC_PATH_R;
	memcpy(buf + ACC_PEER_ID, a->peer_id, 8);
	memcpy(buf + ACC_GID, a->gid, 16);
	memcpy(buf + ACC_MAC, a->mac, 6);
	asmc_put_be24(a->qpn, buf + ACC_QPN);
	put_unaligned_be32(a->rkey, buf + ACC_RKEY);
	buf[ACC_RMBE_IDX] = a->rmbe_idx;
	put_unaligned_be32(a->token, buf + ACC_TOKEN);
	buf[ACC_SIZE_MTU] = a->rmbe_size << 4 | a->mtu;
	put_unaligned_be64(a->rmb_addr, buf + ACC_RMB_ADDR);
	asmc_put_be24(a->psn, buf + ACC_PSN);
	if (a->version >= 2) {
		memcpy(buf + ACC_EID, a->eid, ASMC_EID_LEN);
		if (a->first_contact) {
			buf[ACC_FC_FLAGS] = a->v2_direct ? ASMC_CLC_V2_DIRECT :
							   0;
			buf[ACC_FC_OS] = a->os_type << 4 | a->release;
			memcpy(buf + ACC_FC_HOST, a->hostname,
			       ASMC_HOSTNAME_LEN);
			buf[ACC_FC_MAXCONNS] = a->max_conns;
			buf[ACC_FC_MAXLINKS] = a->max_links;
			put_unaligned_be16(a->feature_mask,
					   buf + ACC_FC_FEATURES);
			if (a->type == ASMC_CLC_CONFIRM) {
				buf[ACC_FC_NGIDS] = a->n_gids;
				memcpy(buf + ACC_FC_GIDS, a->gids,
				       (size_t)a->n_gids * ASMC_GID_LEN);
			}
		}
	}
	put_unaligned_be32(ASMC_CLC_EYE_R, buf + len - ASMC_CLC_TRL_LEN);
	return len;
}

static u8 min_u8(u8 a, u8 b)
{
	return a < b ? a : b;
}

/* Server: what to answer a v2 Proposal @p given our own latest release
 * and limits in @ours. Returns 0, or the Decline reason when the client's
 * limits are below what a link group needs.
 */
u32 asmc_clc_v2x_server(const struct asmc_clc_proposal *p,
			const struct asmc_clc_v2x *ours,
			struct asmc_clc_v2x *agreed)
{
	agreed->release = min_u8(p->release, ours->release);
	agreed->max_conns = ours->max_conns;
	agreed->max_links = ours->max_links;
	if (agreed->release < ASMC_RELEASE_1)
		return 0;	/* v2.0: the fields are reserved */
	agreed->max_conns = min_u8(p->max_conns, ours->max_conns);
	if (agreed->max_conns < ASMC_CONNS_MIN)
		return ASMC_DECL_MAXCONNERR;
	agreed->max_links = min_u8(p->max_links, ours->max_links);
	if (agreed->max_links < ASMC_LINKS_MIN)
		return ASMC_DECL_MAXLINKERR;
	return 0;
}

/* Client: check a first-contact Accept @a against what we proposed. The
 * server may only lower each value; the Confirm repeats @agreed.
 */
u32 asmc_clc_v2x_client(const struct asmc_clc_accept *a,
			const struct asmc_clc_v2x *proposed,
			struct asmc_clc_v2x *agreed)
{
	*agreed = *proposed;
	agreed->release = a->release;
	if (a->release > proposed->release)
		return ASMC_DECL_RELEASEERR;
	if (a->release < ASMC_RELEASE_1)
		return 0;
	if (a->max_conns < ASMC_CONNS_MIN || a->max_conns > proposed->max_conns)
		return ASMC_DECL_MAXCONNERR;
	if (a->max_links < ASMC_LINKS_MIN || a->max_links > proposed->max_links)
		return ASMC_DECL_MAXLINKERR;
	agreed->max_conns = a->max_conns;
	agreed->max_links = a->max_links;
	return 0;
}

/* Server: a first-contact Confirm @c must repeat what the Accept said. */
u32 asmc_clc_v2x_confirm_check(const struct asmc_clc_accept *c,
			       const struct asmc_clc_v2x *agreed)
{
	if (c->release != agreed->release)
		return ASMC_DECL_RELEASEERR;
	if (c->release < ASMC_RELEASE_1)
		return 0;
	if (c->max_conns != agreed->max_conns)
		return ASMC_DECL_MAXCONNERR;
	if (c->max_links != agreed->max_links)
		return ASMC_DECL_MAXLINKERR;
	return 0;
}

/* @bytes bytes of @in with only the first @bits bits kept, into @out. */
static void prefix_mask(u8 *out, const u8 *in, unsigned int bits,
			unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		if (bits >= 8)
			out[i] = in[i];
		else
			out[i] = in[i] & (u8)(0xff00 >> bits);
		bits = bits >= 8 ? bits - 8 : 0;
	}
}

static bool is_v4mapped(const u8 *a)
{
	static const u8 pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, pfx, sizeof(pfx));
}

/* Client: the IP prefix area of a v1 offer for a connection from @src (16
 * bytes, IPv4 v4-mapped) over a device with the @n addresses in @dev: the
 * subnet of the IPv4 source address, or up to 8 IPv6 prefixes of the
 * device (written to @ipv6_buf, 8 * 17 bytes). -ENOENT when there is no
 * prefix to offer (v1 is then not possible).
 */
int asmc_clc_prefix_area(struct asmc_clc_proposal *p, const u8 *src,
			 const struct asmc_clc_prefix *dev, int n,
			 u8 *ipv6_buf)
{
	u8 subnet[4];
	int i;

	p->ipv4_subnet = 0;
	p->ipv4_prefix_len = 0;
	p->n_ipv6 = 0;
	p->ipv6 = ipv6_buf;
	if (is_v4mapped(src)) {
		for (i = 0; i < n; i++) {
			if (!dev[i].v4 || dev[i].len > 32 ||
			    memcmp(dev[i].addr, src, 16))
				continue;
			prefix_mask(subnet, src + 12, dev[i].len, 4);
			p->ipv4_subnet = get_unaligned_be32(subnet);
			p->ipv4_prefix_len = dev[i].len;
			return 0;
		}
		return -ENOENT;
	}
	for (i = 0; i < n && p->n_ipv6 < ASMC_CLC_MAX_PREFIX; i++) {
		u8 *e = ipv6_buf + p->n_ipv6 * ASMC_CLC_IPV6_ENTRY;

		if (dev[i].v4 || dev[i].len > 128)
			continue;
		prefix_mask(e, dev[i].addr, dev[i].len, 16);
		e[16] = dev[i].len;
		p->n_ipv6++;
	}
	return p->n_ipv6 ? 0 : -ENOENT;
}

/* Server: does v1 Proposal @p name a subnet of the device's addresses in
 * @dev? IPv4 (no IPv6 prefixes): an address with the proposed prefix
 * length lies in the proposed subnet; IPv6: a prefix and length of the
 * device equal a proposed one.
 */
bool asmc_clc_prefix_match(const struct asmc_clc_proposal *p,
			   const struct asmc_clc_prefix *dev, int n)
{
	u8 mine[16], theirs[16], subnet[4];
	const u8 *e;
	int i, j;

	/* bits past the prefix length do not count (as the peer may set
	 * them): compare both sides masked
	 */
	put_unaligned_be32(p->ipv4_subnet, subnet);
	prefix_mask(subnet, subnet, p->ipv4_prefix_len, 4);
	for (i = 0; i < n; i++) {
		if (!p->n_ipv6) {
			if (!dev[i].v4 || dev[i].len != p->ipv4_prefix_len)
				continue;
			prefix_mask(mine, dev[i].addr + 12, dev[i].len, 4);
			if (!memcmp(mine, subnet, 4))
				return true;
			continue;
		}
		if (dev[i].v4 || dev[i].len > 128)
			continue;
		prefix_mask(mine, dev[i].addr, dev[i].len, 16);
		for (j = 0; j < p->n_ipv6; j++) {
			e = p->ipv6 + j * ASMC_CLC_IPV6_ENTRY;
			if (e[16] != dev[i].len)
				continue;
			prefix_mask(theirs, e, e[16], 16);
			if (!memcmp(theirs, mine, 16))
				return true;
		}
	}
	return false;
}

/* How well a local GID of @gid_type (ASMC_GID_ROCE_*) fits an SMC-R
 * @version link of a connection from @src (16 bytes, IPv4 v4-mapped):
 * v2 takes only the RoCE v2 GID of the source address; v1 takes any RoCE
 * v1 GID of the device (L2: the one of the source address is best) and,
 * with @v1_any_gid, the RoCE v2 GID of the source address.
 */
int asmc_gid_fit(u8 gid_type, const u8 *gid, u8 version, bool v1_any_gid,
		 const u8 *src)
{
	bool same = !memcmp(gid, src, 16);

	if (gid_type == ASMC_GID_ROCE_V2)
		return (version >= 2 || v1_any_gid) && same ?
			ASMC_GID_FIT_BEST : ASMC_GID_FIT_NONE;
	if (gid_type == ASMC_GID_ROCE_V1 && version == 1)
		return same ? ASMC_GID_FIT_BEST : ASMC_GID_FIT_SOME;
	return ASMC_GID_FIT_NONE;
}

/* Compressed RMBE size: 16 KiB << code. */
u32 asmc_rmbe_code_to_size(u8 code)
{
	return ASMC_RMBE_SIZE_MIN << (code & 0x0f);
}

/* Smallest code whose size holds @size bytes (as Linux rounds up), at most
 * @max_code (ASMC_RMBE_CODE_MAX_R for SMC-R).
 */
u8 asmc_rmbe_size_to_code(u32 size, u8 max_code)
{
	u8 code = 0;

	if (max_code > 15)
		max_code = 15;
	while (code < max_code && asmc_rmbe_code_to_size(code) < size)
		code++;
	return code;
}

/* IB MTU code 1..5 -> 256..4096 bytes; 0 for anything else. */
u32 asmc_mtu_code_to_bytes(u8 code)
{
	if (code < ASMC_MTU_256 || code > ASMC_MTU_4096)
		return 0;
	return 128u << code;
}

/* Largest IB MTU code not above @bytes (1500 -> 1024); 0 below 256. */
u8 asmc_mtu_bytes_to_code(u32 bytes)
{
	u8 code = 0;

	while (code < ASMC_MTU_4096 &&
	       asmc_mtu_code_to_bytes(code + 1) <= bytes)
		code++;
	return code;
}
