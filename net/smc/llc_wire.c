// SPDX-License-Identifier: GPL-2.0
/* LLC wire codec: checks version, type, length and every count of a received
 * LLC message before reading it, and builds the LLC messages we send.
 */
#include "llc_wire.h"

/* CONFIRM_LINK (SMC-WIRE 7.2) */
#define CL_MAC		4
#define CL_GID		10
#define CL_QPN		26
#define CL_LINK_ID	29
#define CL_LINK_UID	30
#define CL_MAX_LINKS	34

/* ADD_LINK (7.3) and its v2 extension */
#define AL_MAC		4
#define AL_GID		12
#define AL_QPN		28
#define AL_LINK_ID	31
#define AL_MTU		32
#define AL_PSN		33
#define AL_EXT_FLAGS	44
#define AL_EXT_GID	46
#define AL_EXT_NRKEYS	70
#define AL_EXT_RKEYS	72
#define AL_MAX_RKEYS	((ASMC_LLC_MAX_LEN - ASMC_LLC_ADD_LINK_EXT_LEN) / \
			 ASMC_LLC_RKEY_ENTRY_LEN)

/* ADD_LINK_CONT (7.4) */
#define ALC_LINK_ID	4
#define ALC_NRKEYS	5
#define ALC_RKEYS	8

/* DELETE_LINK (7.5) */
#define DL_LINK_ID	4
#define DL_REASON	5

/* CONFIRM_RKEY (7.6) */
#define CR_NOTHER	4
#define CR_RKEY		5
#define CR_ADDR		9
#define CR_OTHER	17
#define CR_OTHER_LEN	13	/* link ID, rkey, address */

/* DELETE_RKEY (7.7) */
#define DR_NRKEYS	4
#define DR_ERR		5
#define DR_RKEYS	8

/* TEST_LINK (7.8) */
#define TL_DATA		4

/* REQUEST_ADD_LINK (7.9) */
#define RAL_NGIDS	24
#define RAL_GIDS	28

static bool type_known(u8 version, u8 type)
{
	switch (type) {
	case ASMC_LLC_CONFIRM_LINK:
	case ASMC_LLC_ADD_LINK:
	case ASMC_LLC_DELETE_LINK:
	case ASMC_LLC_CONFIRM_RKEY:
	case ASMC_LLC_TEST_LINK:
	case ASMC_LLC_DELETE_RKEY:
		return true;
	case ASMC_LLC_ADD_LINK_CONT:
	case ASMC_LLC_CONFIRM_RKEY_CONT:
		return version == ASMC_LLC_V1;
	case ASMC_LLC_REQ_ADD_LINK:
		return version == ASMC_LLC_V2;
	}
	return false;
}

int asmc_llc_hdr_parse(const u8 *buf, size_t len, struct asmc_llc_hdr *hdr)
{
	if (len < ASMC_LLC_HDR_LEN)
		return -EPROTO;
	hdr->version = buf[0] >> 4;
	hdr->type = buf[0] & 0x0f;
	hdr->flags = buf[3];
	/* version nibble 15 is the CDC type 0xFE: not ours either */
	if ((hdr->version != ASMC_LLC_V1 && hdr->version != ASMC_LLC_V2) ||
	    !type_known(hdr->version, hdr->type))
		return -EOPNOTSUPP;
	if (hdr->version == ASMC_LLC_V1) {
		hdr->length = buf[1];
		if (hdr->length != ASMC_LLC_LEN)
			return -EPROTO;
	} else {
		hdr->length = get_unaligned_le16(buf + 1);
		if (hdr->length < ASMC_LLC_LEN ||
		    hdr->length > ASMC_LLC_MAX_LEN)
			return -EPROTO;
	}
	return 0;
}

void asmc_llc_rkey_get(const u8 *wire, unsigned int i,
		       struct asmc_llc_rkey *e)
{
	wire += (size_t)i * ASMC_LLC_RKEY_ENTRY_LEN;
	e->rkey = get_unaligned_be32(wire);
	e->rkey_new = get_unaligned_be32(wire + 4);
	e->addr_new = get_unaligned_be64(wire + 8);
}

void asmc_llc_rkey_put(u8 *wire, unsigned int i,
		       const struct asmc_llc_rkey *e)
{
	wire += (size_t)i * ASMC_LLC_RKEY_ENTRY_LEN;
	put_unaligned_be32(e->rkey, wire);
	put_unaligned_be32(e->rkey_new, wire + 4);
	put_unaligned_be64(e->addr_new, wire + 8);
}

static int parse_confirm_link(const u8 *buf, struct asmc_llc_confirm_link *c)
{
	memcpy(c->mac, buf + CL_MAC, 6);
	memcpy(c->gid, buf + CL_GID, 16);
	c->qpn = asmc_get_be24(buf + CL_QPN);
	c->link_id = buf[CL_LINK_ID];
	c->link_uid = get_unaligned_be32(buf + CL_LINK_UID);
	c->max_links = buf[CL_MAX_LINKS];
	return c->link_id ? 0 : -EPROTO;
}

static int parse_add_link(const u8 *buf, const struct asmc_llc_hdr *hdr,
			  struct asmc_llc_add_link *a)
{
	memcpy(a->mac, buf + AL_MAC, 6);
	memcpy(a->gid, buf + AL_GID, 16);
	a->qpn = asmc_get_be24(buf + AL_QPN);
	a->link_id = buf[AL_LINK_ID];
	a->mtu = buf[AL_MTU] & 0x0f;
	a->psn = asmc_get_be24(buf + AL_PSN);
	if (hdr->version == ASMC_LLC_V1) {
		a->reject_reason = buf[2] & 0x0f;
		return 0;
	}
	/* v2: 44 bytes (a reject echoes only these) or with the extension */
	if (hdr->length == ASMC_LLC_LEN)
		return 0;
	if (hdr->length < ASMC_LLC_ADD_LINK_EXT_LEN)
		return -EPROTO;
	a->has_ext = true;
	a->v2_direct = buf[AL_EXT_FLAGS] & ASMC_LLC_V2_DIRECT;
	memcpy(a->target_gid, buf + AL_EXT_GID, 16);
	a->n_rkeys = get_unaligned_le16(buf + AL_EXT_NRKEYS);
	if (a->n_rkeys > (hdr->length - ASMC_LLC_ADD_LINK_EXT_LEN) /
			 ASMC_LLC_RKEY_ENTRY_LEN)
		return -EPROTO;
	a->rkeys_wire = buf + AL_EXT_RKEYS;
	return 0;
}

static int parse_add_link_cont(const u8 *buf,
			       struct asmc_llc_add_link_cont *c)
{
	c->link_id = buf[ALC_LINK_ID];
	c->n_rkeys = buf[ALC_NRKEYS];
	asmc_llc_rkey_get(buf + ALC_RKEYS, 0, &c->rkeys[0]);
	asmc_llc_rkey_get(buf + ALC_RKEYS, 1, &c->rkeys[1]);
	return c->link_id ? 0 : -EPROTO;
}

static void parse_confirm_rkey(const u8 *buf,
			       struct asmc_llc_confirm_rkey *c)
{
	const u8 *o;
	int i;

	c->n_other = buf[CR_NOTHER];
	c->rkey = get_unaligned_be32(buf + CR_RKEY);
	c->addr = get_unaligned_be64(buf + CR_ADDR);
	for (i = 0; i < 2; i++) {
		o = buf + CR_OTHER + i * CR_OTHER_LEN;
		c->other[i].link_id = o[0];
		c->other[i].rkey = get_unaligned_be32(o + 1);
		c->other[i].addr = get_unaligned_be64(o + 5);
	}
}

static int parse_delete_rkey(const u8 *buf, struct asmc_llc_delete_rkey *d)
{
	int i;

	d->n_rkeys = buf[DR_NRKEYS];
	d->err = buf[DR_ERR];
	if (d->n_rkeys > ASMC_LLC_DEL_RKEY_MAX)
		return -EPROTO;
	for (i = 0; i < ASMC_LLC_DEL_RKEY_MAX; i++)
		d->rkeys[i] = get_unaligned_be32(buf + DR_RKEYS + 4 * i);
	return 0;
}

static int parse_req_add_link(const u8 *buf, const struct asmc_llc_hdr *hdr,
			      struct asmc_llc_req_add_link *r)
{
	r->n_gids = buf[RAL_NGIDS];
	if (RAL_GIDS + (size_t)r->n_gids * 16 > hdr->length)
		return -EPROTO;
	r->gids = buf + RAL_GIDS;
	return 0;
}

/* Validate the LLC message in the @len contiguous bytes at @buf (a v2 large
 * message with its spill part copied behind the first 44 bytes) and
 * describe it in @m; pointers in @m point into @buf.
 */
int asmc_llc_parse(const u8 *buf, size_t len, struct asmc_llc_msg *m)
{
	struct asmc_llc_hdr hdr;
	int rc;

	memset(m, 0, sizeof(*m));
	if (len < ASMC_LLC_LEN)
		return -EPROTO;
	rc = asmc_llc_hdr_parse(buf, len, &hdr);
	if (rc)
		return rc;
	if (hdr.length > len)
		return -EPROTO;
	m->type = hdr.type;
	m->version = hdr.version;
	m->flags = hdr.flags;
	switch (hdr.type) {
	case ASMC_LLC_CONFIRM_LINK:
		return parse_confirm_link(buf, &m->confirm_link);
	case ASMC_LLC_ADD_LINK:
		return parse_add_link(buf, &hdr, &m->add_link);
	case ASMC_LLC_ADD_LINK_CONT:
		return parse_add_link_cont(buf, &m->add_link_cont);
	case ASMC_LLC_DELETE_LINK:
		m->delete_link.link_id = buf[DL_LINK_ID];
		m->delete_link.reason = get_unaligned_be32(buf + DL_REASON);
		return 0;
	case ASMC_LLC_CONFIRM_RKEY:
		parse_confirm_rkey(buf, &m->confirm_rkey);
		return 0;
	case ASMC_LLC_DELETE_RKEY:
		return parse_delete_rkey(buf, &m->delete_rkey);
	case ASMC_LLC_TEST_LINK:
		memcpy(m->test_link.data, buf + TL_DATA, 16);
		return 0;
	case ASMC_LLC_REQ_ADD_LINK:
		return parse_req_add_link(buf, &hdr, &m->req_add_link);
	case ASMC_LLC_CONFIRM_RKEY_CONT:
		/* layout not specified; Linux never sends it, ignores it */
		return 0;
	}
	return -EOPNOTSUPP;	/* not reached: type_known() */
}

/* Length asmc_llc_build() makes of @m, or -EINVAL if it cannot be encoded
 * (or would not pass asmc_llc_parse()).
 */
int asmc_llc_len(const struct asmc_llc_msg *m)
{
	const struct asmc_llc_add_link *al = &m->add_link;
	const struct asmc_llc_req_add_link *ral = &m->req_add_link;
	size_t len;

	if ((m->version != ASMC_LLC_V1 && m->version != ASMC_LLC_V2) ||
	    !type_known(m->version, m->type) ||
	    m->type == ASMC_LLC_CONFIRM_RKEY_CONT)
		return -EINVAL;
	switch (m->type) {
	case ASMC_LLC_CONFIRM_LINK:
		if (!m->confirm_link.link_id || m->confirm_link.qpn > 0xffffff)
			return -EINVAL;
		break;
	case ASMC_LLC_ADD_LINK:
		if (al->qpn > 0xffffff || al->psn > 0xffffff ||
		    al->mtu > 15 || al->reject_reason > 15)
			return -EINVAL;
		if (!al->has_ext)
			break;
		if (m->version != ASMC_LLC_V2 || al->n_rkeys > AL_MAX_RKEYS ||
		    (al->n_rkeys && !al->rkeys && !al->rkeys_wire))
			return -EINVAL;
		return ASMC_LLC_ADD_LINK_EXT_LEN +
		       al->n_rkeys * ASMC_LLC_RKEY_ENTRY_LEN;
	case ASMC_LLC_ADD_LINK_CONT:
		if (!m->add_link_cont.link_id)
			return -EINVAL;
		break;
	case ASMC_LLC_DELETE_RKEY:
		if (m->delete_rkey.n_rkeys > ASMC_LLC_DEL_RKEY_MAX)
			return -EINVAL;
		break;
	case ASMC_LLC_REQ_ADD_LINK:
		if (ral->n_gids && !ral->gids)
			return -EINVAL;
		len = RAL_GIDS + (size_t)ral->n_gids * 16;
		return len > ASMC_LLC_LEN ? (int)len : ASMC_LLC_LEN;
	}
	return ASMC_LLC_LEN;
}

static void build_add_link(u8 *buf, const struct asmc_llc_msg *m)
{
	const struct asmc_llc_add_link *a = &m->add_link;
	unsigned int i;

	memcpy(buf + AL_MAC, a->mac, 6);
	memcpy(buf + AL_GID, a->gid, 16);
	asmc_put_be24(a->qpn, buf + AL_QPN);
	buf[AL_LINK_ID] = a->link_id;
	buf[AL_MTU] = a->mtu;
	asmc_put_be24(a->psn, buf + AL_PSN);
	/* v2 groups: the length field takes byte 2, no reject reason */
	if (m->version == ASMC_LLC_V1)
		buf[2] = a->reject_reason;
	if (!a->has_ext)
		return;
	buf[AL_EXT_FLAGS] = a->v2_direct ? ASMC_LLC_V2_DIRECT : 0;
	memcpy(buf + AL_EXT_GID, a->target_gid, 16);
	put_unaligned_le16(a->n_rkeys, buf + AL_EXT_NRKEYS);
	if (a->rkeys) {
		for (i = 0; i < a->n_rkeys; i++)
			asmc_llc_rkey_put(buf + AL_EXT_RKEYS, i, &a->rkeys[i]);
	} else if (a->n_rkeys) {
		memcpy(buf + AL_EXT_RKEYS, a->rkeys_wire,
		       (size_t)a->n_rkeys * ASMC_LLC_RKEY_ENTRY_LEN);
	}
}

static void build_confirm_rkey(u8 *buf, const struct asmc_llc_confirm_rkey *c)
{
	u8 *o;
	int i;

	buf[CR_NOTHER] = c->n_other;
	put_unaligned_be32(c->rkey, buf + CR_RKEY);
	put_unaligned_be64(c->addr, buf + CR_ADDR);
	for (i = 0; i < 2; i++) {
		o = buf + CR_OTHER + i * CR_OTHER_LEN;
		o[0] = c->other[i].link_id;
		put_unaligned_be32(c->other[i].rkey, o + 1);
		put_unaligned_be64(c->other[i].addr, o + 5);
	}
}

/* Encode @m; reserved bytes are zero. Returns the length written, -EINVAL
 * or -ENOSPC.
 */
int asmc_llc_build(u8 *buf, size_t size, const struct asmc_llc_msg *m)
{
	const struct asmc_llc_confirm_link *cl = &m->confirm_link;
	const struct asmc_llc_add_link_cont *alc = &m->add_link_cont;
	const struct asmc_llc_req_add_link *ral = &m->req_add_link;
	int len = asmc_llc_len(m);
	int i;

	if (len < 0)
		return len;
	if (size < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	buf[0] = m->version << 4 | m->type;
	if (m->version == ASMC_LLC_V1)
		buf[1] = len;
	else
		put_unaligned_le16(len, buf + 1);
	buf[3] = m->flags;
	switch (m->type) {
	case ASMC_LLC_CONFIRM_LINK:
		memcpy(buf + CL_MAC, cl->mac, 6);
		memcpy(buf + CL_GID, cl->gid, 16);
		asmc_put_be24(cl->qpn, buf + CL_QPN);
		buf[CL_LINK_ID] = cl->link_id;
		put_unaligned_be32(cl->link_uid, buf + CL_LINK_UID);
		buf[CL_MAX_LINKS] = cl->max_links;
		break;
	case ASMC_LLC_ADD_LINK:
		build_add_link(buf, m);
		break;
	case ASMC_LLC_ADD_LINK_CONT:
		buf[ALC_LINK_ID] = alc->link_id;
		buf[ALC_NRKEYS] = alc->n_rkeys;
		asmc_llc_rkey_put(buf + ALC_RKEYS, 0, &alc->rkeys[0]);
		asmc_llc_rkey_put(buf + ALC_RKEYS, 1, &alc->rkeys[1]);
		break;
	case ASMC_LLC_DELETE_LINK:
		buf[DL_LINK_ID] = m->delete_link.link_id;
		put_unaligned_be32(m->delete_link.reason, buf + DL_REASON);
		break;
	case ASMC_LLC_CONFIRM_RKEY:
		build_confirm_rkey(buf, &m->confirm_rkey);
		break;
	case ASMC_LLC_DELETE_RKEY:
		buf[DR_NRKEYS] = m->delete_rkey.n_rkeys;
		buf[DR_ERR] = m->delete_rkey.err;
		for (i = 0; i < ASMC_LLC_DEL_RKEY_MAX; i++)
			put_unaligned_be32(m->delete_rkey.rkeys[i],
					   buf + DR_RKEYS + 4 * i);
		break;
	case ASMC_LLC_TEST_LINK:
		memcpy(buf + TL_DATA, m->test_link.data, 16);
		break;
	case ASMC_LLC_REQ_ADD_LINK:
		buf[RAL_NGIDS] = ral->n_gids;
		if (ral->n_gids)
			memcpy(buf + RAL_GIDS, ral->gids,
			       (size_t)ral->n_gids * 16);
		break;
	}
	return len;
}
