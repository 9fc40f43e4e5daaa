// SPDX-License-Identifier: GPL-2.0
/* Tests of the LLC wire codec (net/smc/llc_wire.c), built from the module's
 * source; expected bytes are written out from SMC-WIRE 7. KUnit suite
 * smc_llc_wire, or a userspace TAP program (wire_test_shim.h).
 */
#include "../../../net/smc/llc_wire.h"
#include "wire_test_shim.h"

#define GID_A	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, 0, 1
#define GID_B	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 2
static const u8 gid_a[16] = { GID_A };
static const u8 gid_b[16] = { GID_B };
static const u8 mac_a[6] = { 0x02, 0, 0, 0, 0, 0x01 };

/* CONFIRM_LINK request, v1 link group (7.2) */
static const u8 confirm_link_v1[44] = {
	0x01, 0x2C, 0x00, 0x03,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,		/* MAC */
	GID_A,						/* GID */
	0x00, 0x00, 0x11,				/* QPN */
	0x01,						/* link ID */
	0x00, 0x00, 0x00, 0x07,				/* link user ID */
	0x02,						/* max links */
	0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* ADD_LINK request, v2 link group, extension with 2 rkeys (7.3): 104 bytes */
static const u8 add_link_v2[104] = {
	0x22, 0x68, 0x00, 0x00,				/* LE length 104 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,		/* MAC */
	0x00, 0x00,
	GID_B,						/* GID */
	0x00, 0x00, 0x22,				/* QPN */
	0x02,						/* link ID */
	0x04,						/* MTU 2048 */
	0x12, 0x34, 0x56,				/* PSN */
	0, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0x00,					/* v2 direct */
	GID_B,						/* target GID */
	0, 0, 0, 0, 0, 0, 0, 0,
	0x02, 0x00,					/* LE rkey count */
	0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0x10, 0,
	0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0x20, 0,
};

/* ADD_LINK reject response of a v1 client (7.3): reason 1 in byte 2 */
static const u8 add_link_rej_v1[44] = {
	0x02, 0x2C, 0x01, 0xC0,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00,
	GID_A,
	0x00, 0x00, 0x33,
	0x02,
	0x00,						/* MTU 0 */
	0x00, 0x00, 0x01,
	0, 0, 0, 0, 0, 0, 0, 0,
};

/* ADD_LINK_CONT from the client (7.4) */
static const u8 add_link_cont_v1[44] = {
	0x03, 0x2C, 0x00, 0x80,
	0x02, 0x03, 0x00, 0x00,				/* link 2, 3 left */
	0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 1, 0, 0,
	0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 0, 0, 2, 0, 0,
	0, 0, 0, 0,
};

/* DELETE_LINK all, orderly, program-initiated (7.5) */
static const u8 delete_link_v1[44] = {
	0x04, 0x2C, 0x00, 0x60,
	0x00, 0x00, 0x03, 0x00, 0x00,
};

/* CONFIRM_RKEY with 2 more entries, v2 group (7.6) */
static const u8 confirm_rkey_v2[44] = {
	0x26, 0x2C, 0x00, 0x00,
	0x02,
	0x00, 0x00, 0xAB, 0xCD,
	0, 0, 0, 0, 0xDE, 0xAD, 0, 0,
	0x02, 0x00, 0x00, 0xAB, 0xCE, 0, 0, 0, 0, 0xDE, 0xAE, 0, 0,
	0x03, 0x00, 0x00, 0xAB, 0xCF, 0, 0, 0, 0, 0xDE, 0xAF, 0, 0,
	0x00,
};

/* DELETE_RKEY of one rkey, v1 (7.7) */
static const u8 delete_rkey_v1[44] = {
	0x09, 0x2C, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xAB, 0xCD,
};

/* TEST_LINK response, v2 (7.8) */
static const u8 test_link_v2[44] = {
	0x27, 0x2C, 0x00, 0x80,
	'p', 'i', 'n', 'g', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42,
};

/* REQUEST_ADD_LINK with 2 GIDs (7.9): 28 + 32 = 60 bytes */
static const u8 req_add_link_v2[60] = {
	0x25, 0x3C, 0x00, 0x00,
	[24] = 0x02,
	[28] = GID_B,
	[44] = GID_A,
};

/* parse @ref, expect rc 0, type/version, and build it back byte-exact */
static bool parse_rebuilds(struct kunit *test, const u8 *ref, size_t len,
			   u8 type, u8 version, struct asmc_llc_msg *m)
{
	u8 *out;
	bool same;

	if (asmc_llc_parse(ref, len, m) || m->type != type ||
	    m->version != version)
		return false;
	out = wt_alloc(test, ASMC_LLC_MAX_LEN);
	same = asmc_llc_build(out, ASMC_LLC_MAX_LEN, m) == (int)len &&
	       !memcmp(out, ref, len);
	wt_free(test, out);
	return same;
}

static void test_layouts(struct kunit *test)
{
	struct asmc_llc_rkey rk[2] = {
		{ 1, 2, 0x1000 }, { 3, 4, 0x2000 },
	};
	struct asmc_llc_msg m, p;
	struct asmc_llc_rkey e;
	struct asmc_llc_hdr h;
	u8 *buf = wt_alloc(test, ASMC_LLC_MAX_LEN);
	int len;

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_CONFIRM_LINK;
	m.version = ASMC_LLC_V1;
	m.flags = ASMC_LLC_FLAG_NO_RMBE_EYEC;
	memcpy(m.confirm_link.mac, mac_a, 6);
	memcpy(m.confirm_link.gid, gid_a, 16);
	m.confirm_link.qpn = 0x11;
	m.confirm_link.link_id = 1;
	m.confirm_link.link_uid = 7;
	m.confirm_link.max_links = ASMC_LLC_MAX_LINKS;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, confirm_link_v1, 44),
	      "CONFIRM_LINK v1 request builds byte-exact");
	CHECK(parse_rebuilds(test, confirm_link_v1, 44, ASMC_LLC_CONFIRM_LINK,
			     ASMC_LLC_V1, &p) && p.confirm_link.qpn == 0x11 &&
	      p.confirm_link.link_id == 1 && p.confirm_link.link_uid == 7 &&
	      p.confirm_link.max_links == 2 && p.flags == 0x03 &&
	      !asmc_llc_is_resp(&p),
	      "CONFIRM_LINK v1 parses to its fields and back");
	m.version = ASMC_LLC_V2;
	m.flags |= ASMC_LLC_FLAG_RESP;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && buf[0] == 0x21 && buf[1] == 0x2C && buf[2] == 0 &&
	      buf[3] == 0x83 && !memcmp(buf + 4, confirm_link_v1 + 4, 40),
	      "CONFIRM_LINK v2 response: 21 2C 00 83, same body");
	CHECK(asmc_llc_parse(buf, len, &p) == 0 && asmc_llc_is_resp(&p) &&
	      p.version == 2, "CONFIRM_LINK v2 response parses as a response");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK;
	m.version = ASMC_LLC_V2;
	memcpy(m.add_link.mac, "\x02\0\0\0\0\x02", 6);
	memcpy(m.add_link.gid, gid_b, 16);
	m.add_link.qpn = 0x22;
	m.add_link.link_id = 2;
	m.add_link.mtu = 4;
	m.add_link.psn = 0x123456;
	m.add_link.has_ext = true;
	m.add_link.v2_direct = true;
	memcpy(m.add_link.target_gid, gid_b, 16);
	m.add_link.n_rkeys = 2;
	m.add_link.rkeys = rk;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 104 && !memcmp(buf, add_link_v2, 104),
	      "ADD_LINK v2 with 2 rkeys builds byte-exact (104 bytes, LE length/count)");
	CHECK(parse_rebuilds(test, add_link_v2, 104, ASMC_LLC_ADD_LINK, ASMC_LLC_V2,
			     &p) && p.add_link.has_ext && p.add_link.v2_direct &&
	      p.add_link.n_rkeys == 2 && p.add_link.mtu == 4 &&
	      p.add_link.psn == 0x123456 && p.add_link.rkeys_wire == add_link_v2 + 72,
	      "ADD_LINK v2 parses to its fields and back (raw rkeys copied)");
	memset(&e, 0, sizeof(e));
	if (p.add_link.n_rkeys == 2 && p.add_link.rkeys_wire)
		asmc_llc_rkey_get(p.add_link.rkeys_wire, 1, &e);
	CHECK(e.rkey == 3 && e.rkey_new == 4 && e.addr_new == 0x2000,
	      "ADD_LINK v2: rkey entry 2 reads back");
	CHECK(asmc_llc_parse(add_link_v2, 103, &p) == -EPROTO,
	      "ADD_LINK v2: buffer shorter than the length field is refused");
	memcpy(buf, add_link_v2, 104);
	buf[70] = 3;
	CHECK(asmc_llc_parse(buf, 104, &p) == -EPROTO,
	      "ADD_LINK v2: rkey count beyond the length is refused");
	buf[70] = 0;
	buf[71] = 2;	/* 512 if read big-endian */
	CHECK(asmc_llc_parse(buf, 104, &p) == -EPROTO,
	      "ADD_LINK v2: rkey count is little-endian (0x0200 refused)");
	buf[71] = 0;
	buf[70] = 2;
	buf[1] = 60;
	CHECK(asmc_llc_parse(buf, 104, &p) == -EPROTO,
	      "ADD_LINK v2: length between 44 and 72 is refused");
	buf[1] = 44;
	CHECK(asmc_llc_parse(buf, 104, &p) == 0 && !p.add_link.has_ext &&
	      p.add_link.link_id == 2,
	      "ADD_LINK v2 of 44 bytes (a reject echo) has no extension");
	buf[1] = 120;
	CHECK(asmc_llc_parse(buf, 120, &p) == 0 && p.add_link.n_rkeys == 2,
	      "ADD_LINK v2 longer than its rkeys parses");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK;
	m.version = ASMC_LLC_V1;
	m.flags = ASMC_LLC_FLAG_RESP | ASMC_LLC_FLAG_ADD_LNK_REJ;
	memcpy(m.add_link.mac, mac_a, 6);
	memcpy(m.add_link.gid, gid_a, 16);
	m.add_link.qpn = 0x33;
	m.add_link.link_id = 2;
	m.add_link.psn = 1;
	m.add_link.reject_reason = ASMC_LLC_REJ_NO_ALT_PATH;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, add_link_rej_v1, 44),
	      "ADD_LINK v1 reject builds byte-exact (reason 1 in byte 2)");
	CHECK(parse_rebuilds(test, add_link_rej_v1, 44, ASMC_LLC_ADD_LINK,
			     ASMC_LLC_V1, &p) && p.add_link.reject_reason == 1 &&
	      p.flags == 0xC0 && !p.add_link.has_ext,
	      "ADD_LINK v1 reject parses back");
	m.version = ASMC_LLC_V2;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && buf[1] == 0x2C && buf[2] == 0x00 &&
	      asmc_llc_parse(buf, len, &p) == 0 && p.add_link.reject_reason == 0,
	      "ADD_LINK v2 reject: length overwrites byte 2, no reason");
	m.version = ASMC_LLC_V1;
	m.add_link.has_ext = true;
	CHECK(asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m) == -EINVAL,
	      "ADD_LINK v1 with an extension is -EINVAL");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK_CONT;
	m.version = ASMC_LLC_V1;
	m.flags = ASMC_LLC_FLAG_RESP;
	m.add_link_cont.link_id = 2;
	m.add_link_cont.n_rkeys = 3;
	m.add_link_cont.rkeys[0] = (struct asmc_llc_rkey){ 5, 6, 0x10000 };
	m.add_link_cont.rkeys[1] = (struct asmc_llc_rkey){ 7, 8, 0x20000 };
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, add_link_cont_v1, 44),
	      "ADD_LINK_CONT v1 builds byte-exact");
	CHECK(parse_rebuilds(test, add_link_cont_v1, 44, ASMC_LLC_ADD_LINK_CONT,
			     ASMC_LLC_V1, &p) && p.add_link_cont.n_rkeys == 3 &&
	      p.add_link_cont.rkeys[1].addr_new == 0x20000,
	      "ADD_LINK_CONT v1 parses back");
	m.version = ASMC_LLC_V2;
	CHECK(asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m) == -EINVAL,
	      "ADD_LINK_CONT in a v2 group is -EINVAL");
	memcpy(buf, add_link_cont_v1, 44);
	buf[4] = 0;
	CHECK(asmc_llc_parse(buf, 44, &p) == -EPROTO,
	      "ADD_LINK_CONT with link ID 0 is refused");
	buf[0] = 0x23;
	CHECK(asmc_llc_parse(buf, 44, &p) == -EOPNOTSUPP,
	      "ADD_LINK_CONT type 0x23 (v2) is not supported");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_DELETE_LINK;
	m.flags = ASMC_LLC_FLAG_DEL_LINK_ALL | ASMC_LLC_FLAG_DEL_LINK_ORDERLY;
	m.delete_link.reason = ASMC_LLC_DEL_PROG_INIT_TERM;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, delete_link_v1, 44),
	      "DELETE_LINK all/orderly v1 builds byte-exact");
	CHECK(parse_rebuilds(test, delete_link_v1, 44, ASMC_LLC_DELETE_LINK,
			     ASMC_LLC_V1, &p) &&
	      p.delete_link.reason == 0x00030000 && p.delete_link.link_id == 0,
	      "DELETE_LINK parses back");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_CONFIRM_RKEY;
	m.version = ASMC_LLC_V2;
	m.confirm_rkey.n_other = 2;
	m.confirm_rkey.rkey = 0xABCD;
	m.confirm_rkey.addr = 0xDEAD0000;
	m.confirm_rkey.other[0] = (struct asmc_llc_rkey_ref){ 2, 0xABCE, 0xDEAE0000 };
	m.confirm_rkey.other[1] = (struct asmc_llc_rkey_ref){ 3, 0xABCF, 0xDEAF0000 };
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, confirm_rkey_v2, 44),
	      "CONFIRM_RKEY v2 with 2 more entries builds byte-exact");
	CHECK(parse_rebuilds(test, confirm_rkey_v2, 44, ASMC_LLC_CONFIRM_RKEY,
			     ASMC_LLC_V2, &p) && p.confirm_rkey.n_other == 2 &&
	      p.confirm_rkey.other[1].link_id == 3,
	      "CONFIRM_RKEY parses back");
	memcpy(buf, confirm_rkey_v2, 44);
	buf[4] = 3;
	CHECK(asmc_llc_parse(buf, 44, &p) == 0 && p.confirm_rkey.n_other == 3,
	      "CONFIRM_RKEY with 3 more entries parses (caller answers negative)");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_DELETE_RKEY;
	m.delete_rkey.n_rkeys = 1;
	m.delete_rkey.rkeys[0] = 0xABCD;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, delete_rkey_v1, 44),
	      "DELETE_RKEY v1 builds byte-exact");
	CHECK(parse_rebuilds(test, delete_rkey_v1, 44, ASMC_LLC_DELETE_RKEY,
			     ASMC_LLC_V1, &p) && p.delete_rkey.n_rkeys == 1 &&
	      p.delete_rkey.rkeys[0] == 0xABCD, "DELETE_RKEY parses back");
	memcpy(buf, delete_rkey_v1, 44);
	buf[4] = 8;
	buf[5] = 0x81;
	memset(buf + 8, 0x11, 32);
	CHECK(asmc_llc_parse(buf, 44, &p) == 0 && p.delete_rkey.n_rkeys == 8 &&
	      p.delete_rkey.err == 0x81 && p.delete_rkey.rkeys[7] == 0x11111111,
	      "DELETE_RKEY with 8 rkeys and an error mask parses");
	buf[4] = 9;
	CHECK(asmc_llc_parse(buf, 44, &p) == -EPROTO,
	      "DELETE_RKEY with 9 rkeys is refused");
	m.delete_rkey.n_rkeys = 9;
	CHECK(asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m) == -EINVAL,
	      "DELETE_RKEY build with 9 rkeys is -EINVAL");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_TEST_LINK;
	m.version = ASMC_LLC_V2;
	m.flags = ASMC_LLC_FLAG_RESP;
	memcpy(m.test_link.data, "ping", 4);
	m.test_link.data[15] = 0x42;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && !memcmp(buf, test_link_v2, 44),
	      "TEST_LINK v2 response builds byte-exact");
	CHECK(parse_rebuilds(test, test_link_v2, 44, ASMC_LLC_TEST_LINK, ASMC_LLC_V2,
			     &p) && p.test_link.data[15] == 0x42,
	      "TEST_LINK parses back");

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_REQ_ADD_LINK;
	m.version = ASMC_LLC_V2;
	m.req_add_link.n_gids = 2;
	m.req_add_link.gids = req_add_link_v2 + 28;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 60 && !memcmp(buf, req_add_link_v2, 60),
	      "REQUEST_ADD_LINK with 2 GIDs builds byte-exact (60 bytes)");
	CHECK(parse_rebuilds(test, req_add_link_v2, 60, ASMC_LLC_REQ_ADD_LINK,
			     ASMC_LLC_V2, &p) && p.req_add_link.n_gids == 2 &&
	      !memcmp(p.req_add_link.gids + 16, gid_a, 16),
	      "REQUEST_ADD_LINK parses back");
	m.req_add_link.n_gids = 0;
	m.flags = ASMC_LLC_FLAG_RESP;
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && buf[0] == 0x25 && buf[3] == 0x80 &&
	      asmc_llc_parse(buf, len, &p) == 0,
	      "REQUEST_ADD_LINK echo without GIDs is 44 bytes");
	memcpy(buf, req_add_link_v2, 60);
	buf[24] = 3;
	CHECK(asmc_llc_parse(buf, 60, &p) == -EPROTO,
	      "REQUEST_ADD_LINK with more GIDs than bytes is refused");
	buf[24] = 2;
	buf[0] = 0x05;
	buf[1] = 44;
	buf[2] = 0;
	CHECK(asmc_llc_parse(buf, 60, &p) == -EOPNOTSUPP,
	      "REQUEST_ADD_LINK type 0x05 (v1) is not supported");
	m.version = ASMC_LLC_V1;
	CHECK(asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m) == -EINVAL,
	      "REQUEST_ADD_LINK build in a v1 group is -EINVAL");

	/* a v1 client's invite: MAC and GID of its new port, nothing else */
	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK;
	m.version = ASMC_LLC_V1;
	memcpy(m.add_link.mac, "\x02\x00\x00\x00\x00\x07", 6);
	memcpy(m.add_link.gid, gid_b, 16);
	len = asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m);
	CHECK(len == 44 && buf[0] == 0x02 && buf[3] == 0 && buf[9] == 7 &&
	      !memcmp(buf + 12, gid_b, 16) && !buf[28] && !buf[31] &&
	      !buf[32] && asmc_llc_parse(buf, len, &p) == 0 &&
	      asmc_llc_is_invite(&p), "v1 ADD_LINK invite builds and is told");
	buf[31] = 1;
	CHECK(asmc_llc_parse(buf, len, &p) == 0 && !asmc_llc_is_invite(&p),
	      "an ADD_LINK with a link ID is no invite");
	buf[31] = 0;
	buf[3] = 0x80;
	CHECK(asmc_llc_parse(buf, len, &p) == 0 && !asmc_llc_is_invite(&p),
	      "an ADD_LINK response is no invite");
	CHECK(asmc_llc_parse(add_link_v2, 104, &p) == 0 &&
	      !asmc_llc_is_invite(&p), "a v2 ADD_LINK is no invite");

	/* header on its own */
	CHECK(asmc_llc_hdr_parse(add_link_v2, 4, &h) == 0 && h.length == 104 &&
	      h.type == ASMC_LLC_ADD_LINK && h.version == 2 && h.flags == 0,
	      "header of a large v2 message parses from 4 bytes");
	CHECK(asmc_llc_hdr_parse(add_link_v2, 3, &h) == -EPROTO,
	      "header needs 4 bytes");
}

static void test_rejects(struct kunit *test)
{
	const size_t blen = ASMC_LLC_MAX_LEN + 16;
	struct asmc_llc_msg m, p;
	u8 *buf = wt_alloc(test, blen);
	static const u8 unknown[] = { 0x00, 0x05, 0x0A, 0x0F, 0x10, 0x13,
				      0x20, 0x23, 0x28, 0x2A, 0x31, 0xFE };
	size_t i;
	int bad;

	CHECK(asmc_llc_parse(confirm_link_v1, 43, &p) == -EPROTO,
	      "message shorter than 44 bytes is refused");
	memcpy(buf, confirm_link_v1, 44);
	buf[1] = 45;
	CHECK(asmc_llc_parse(buf, 48, &p) == -EPROTO,
	      "v1 length byte 45 is refused");
	buf[1] = 43;
	CHECK(asmc_llc_parse(buf, 48, &p) == -EPROTO,
	      "v1 length byte 43 is refused");
	buf[0] = 0x21;
	put_unaligned_le16(43, buf + 1);
	CHECK(asmc_llc_parse(buf, 48, &p) == -EPROTO,
	      "v2 length 43 is refused");
	put_unaligned_le16(ASMC_LLC_MAX_LEN + 1, buf + 1);
	memset(buf + 44, 0, blen - 44);
	CHECK(asmc_llc_parse(buf, blen, &p) == -EPROTO,
	      "v2 length 8193 is refused");
	put_unaligned_le16(ASMC_LLC_MAX_LEN, buf + 1);
	CHECK(asmc_llc_parse(buf, blen, &p) == 0,
	      "v2 CONFIRM_LINK of 8192 bytes parses (tail ignored)");
	put_unaligned_be16(44, buf + 1);
	CHECK(asmc_llc_parse(buf, blen, &p) == -EPROTO,
	      "v2 length written big-endian (00 2C = 11264) is refused");
	memcpy(buf, confirm_link_v1, 44);
	buf[29] = 0;
	CHECK(asmc_llc_parse(buf, 44, &p) == -EPROTO,
	      "CONFIRM_LINK with link ID 0 is refused");
	buf[29] = 1;
	buf[3] = 0x80;
	CHECK(asmc_llc_parse(buf, 44, &p) == 0 &&
	      !(p.flags & ASMC_LLC_FLAG_NO_RMBE_EYEC),
	      "CONFIRM_LINK without eyecatcher flags parses (caller declines)");
	bad = 0;
	for (i = 0; i < sizeof(unknown); i++) {
		memcpy(buf, confirm_link_v1, 44);
		buf[0] = unknown[i];
		bad += asmc_llc_parse(buf, 44, &p) != -EOPNOTSUPP;
	}
	CHECK(bad == 0, "unknown type/version bytes (incl. CDC 0xFE) are -EOPNOTSUPP");
	memcpy(buf, confirm_link_v1, 44);
	buf[0] = 0x08;
	CHECK(asmc_llc_parse(buf, 44, &p) == 0 &&
	      p.type == ASMC_LLC_CONFIRM_RKEY_CONT,
	      "CONFIRM_RKEY_CONT v1 is recognised");
	CHECK(asmc_llc_build(buf, blen, &p) == -EINVAL,
	      "CONFIRM_RKEY_CONT build is -EINVAL (layout not specified)");
	buf[0] = 0x28;
	CHECK(asmc_llc_parse(buf, 44, &p) == -EOPNOTSUPP,
	      "CONFIRM_RKEY_CONT type 0x28 (v2) is not supported");

	/* builder limits */
	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_TEST_LINK;
	m.version = 1;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "build with version 1 is -EINVAL");
	m.version = 0;
	m.type = 0x0A;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "build of an unknown type is -EINVAL");
	m.type = ASMC_LLC_TEST_LINK;
	CHECK(asmc_llc_build(buf, 43, &m) == -ENOSPC,
	      "build into 43 bytes is -ENOSPC");
	m.type = ASMC_LLC_CONFIRM_LINK;
	m.confirm_link.link_id = 0;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "CONFIRM_LINK build with link ID 0 is -EINVAL");
	m.confirm_link.link_id = 1;
	m.confirm_link.qpn = 0x1000000;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "CONFIRM_LINK build with a 25-bit QPN is -EINVAL");
	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK;
	m.version = ASMC_LLC_V2;
	m.add_link.has_ext = true;
	m.add_link.n_rkeys = 1;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "ADD_LINK build with rkeys but no entries is -EINVAL");
	m.add_link.rkeys_wire = buf + 8192;	/* 16 bytes of zeros */
	memset(buf + 8192, 0, 16);
	CHECK(asmc_llc_build(buf, 8192, &m) == 88,
	      "ADD_LINK build copies raw rkey entries");
	m.add_link.n_rkeys = 507;
	m.add_link.rkeys_wire = NULL;
	m.add_link.rkeys = wt_alloc(test, 508 * sizeof(struct asmc_llc_rkey));
	CHECK(asmc_llc_build(buf, ASMC_LLC_MAX_LEN, &m) == 72 + 507 * 16 &&
	      asmc_llc_parse(buf, ASMC_LLC_MAX_LEN, &p) == 0 &&
	      p.add_link.n_rkeys == 507,
	      "ADD_LINK with 507 rkeys fills 8184 bytes and parses");
	m.add_link.n_rkeys = 508;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "ADD_LINK with 508 rkeys (over 8192 bytes) is -EINVAL");
	wt_free(test, (void *)m.add_link.rkeys);
	m.add_link.n_rkeys = 0;
	m.add_link.rkeys = NULL;
	m.add_link.mtu = 16;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "ADD_LINK build with MTU code 16 is -EINVAL");
	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_REQ_ADD_LINK;
	m.version = ASMC_LLC_V2;
	m.req_add_link.n_gids = 1;
	CHECK(asmc_llc_build(buf, blen, &m) == -EINVAL,
	      "REQUEST_ADD_LINK build with a count but no GIDs is -EINVAL");
}

/* every truncation of every message is refused; every single-byte
 * corruption parses to something that rebuilds to the same parse, or is
 * refused with -EPROTO / -EOPNOTSUPP
 */
static void test_mutations(struct kunit *test)
{
	static const struct { const u8 *b; size_t len; } msgs[] = {
		{ confirm_link_v1, 44 }, { add_link_v2, 104 },
		{ add_link_rej_v1, 44 }, { add_link_cont_v1, 44 },
		{ delete_link_v1, 44 }, { confirm_rkey_v2, 44 },
		{ delete_rkey_v1, 44 }, { test_link_v2, 44 },
		{ req_add_link_v2, 60 },
	};
	struct asmc_llc_msg p, q;
	u8 *out = wt_alloc(test, ASMC_LLC_MAX_LEN);
	u8 *out2 = wt_alloc(test, ASMC_LLC_MAX_LEN);
	int bad = 0, parsed = 0, rc, olen;
	size_t k, i, v;

	for (k = 0; k < sizeof(msgs) / sizeof(msgs[0]); k++) {
		for (i = 0; i < msgs[k].len; i++) {
			u8 *t = wt_alloc(test, i ? i : 1);

			memcpy(t, msgs[k].b, i);
			bad += asmc_llc_parse(t, i, &p) != -EPROTO;
			wt_free(test, t);
		}
	}
	CHECK(bad == 0, "every truncated LLC message is refused");
	bad = 0;
	for (k = 0; k < sizeof(msgs) / sizeof(msgs[0]); k++) {
		u8 *t = wt_alloc(test, msgs[k].len);

		for (i = 0; i < msgs[k].len; i++) {
			for (v = 0; v < 256; v += 5) {
				memcpy(t, msgs[k].b, msgs[k].len);
				t[i] = v;
				rc = asmc_llc_parse(t, msgs[k].len, &p);
				if (rc == 0 && p.type != ASMC_LLC_CONFIRM_RKEY_CONT) {
					parsed++;
					olen = asmc_llc_build(out, ASMC_LLC_MAX_LEN, &p);
					if (olen <= 0 ||
					    asmc_llc_parse(out, olen, &q) ||
					    asmc_llc_build(out2, ASMC_LLC_MAX_LEN, &q) != olen ||
					    memcmp(out, out2, olen))
						bad++;
				} else if (rc && rc != -EPROTO && rc != -EOPNOTSUPP) {
					bad++;
				}
			}
		}
		wt_free(test, t);
	}
	CHECK(bad == 0 && parsed > 1000,
	      "single-byte corruptions re-encode to a fixed point or are refused (%d parsed)",
	      parsed);
}

static struct kunit_case llc_wire_cases[] = {
	KUNIT_CASE(test_layouts),
	KUNIT_CASE(test_rejects),
	KUNIT_CASE(test_mutations),
	{}
};
WIRE_TEST_SUITE(llc_wire, llc_wire_cases);
