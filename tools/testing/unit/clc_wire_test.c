// SPDX-License-Identifier: GPL-2.0
/* Tests of the CLC wire codec (net/smc/clc_wire.c), built from the same
 * source as the module: KUnit suite smc_clc_wire, or a userspace TAP program
 * (wire_test_shim.h).
 */
#include "../../../net/smc/clc_wire.h"
#include "wire_test_shim.h"

/* message buffers (allocated: larger than a kernel stack frame may be) */
#define BUF_LEN	1024

static const u8 eye_r[4] = { 0xE2, 0xD4, 0xC3, 0xD9 };

/* A proposal as a Linux 6.1 client sends it for SMC-R v2 only with one
 * UEID (byte 7 = 0x22, 156 bytes, IP-area offset 0, v2 extension at 80).
 */
static size_t make_v2_proposal(u8 *m, int ueids)
{
	size_t len = 80 + 40 + 32 * ueids + 4;

	memset(m, 0, len);
	memcpy(m, eye_r, 4);
	m[4] = ASMC_CLC_PROPOSAL;
	put_unaligned_be16(len, m + 5);
	m[7] = 0x20 | (ASMC_PATH_R << 2) | ASMC_PATH_NONE;
	put_unaligned_be16(28, m + 50);		/* v2 ext at 52 + 28 = 80 */
	m[80] = ueids;
	memset(m + 80 + 8, 0x11, 16);		/* RoCE v2 GID */
	memset(m + 120, 'A', 32 * ueids);
	memcpy(m + len - 4, eye_r, 4);
	return len;
}

/* SMC-R v1 + v2, IPv4, one UEID: 164 bytes, byte 7 = 0x20 */
static size_t make_v1v2_proposal(u8 *m)
{
	size_t len = 164;

	memset(m, 0, len);
	memcpy(m, eye_r, 4);
	m[4] = ASMC_CLC_PROPOSAL;
	put_unaligned_be16(len, m + 5);
	m[7] = 0x20;
	put_unaligned_be16(40, m + 38);		/* IP area at 80 */
	put_unaligned_be32(0xC0000200, m + 80);	/* 192.0.2.0 */
	m[84] = 24;
	put_unaligned_be16(36, m + 50);		/* v2 ext at 88 */
	m[88] = 1;
	memcpy(m + len - 4, eye_r, 4);
	return len;
}

static bool prop_equal(const struct asmc_clc_proposal *a,
		       const struct asmc_clc_proposal *b)
{
	size_t smcd = ASMC_CLC_SMCDV2_FIXED + (size_t)a->n_ism * ASMC_CLC_ISM_ENTRY;

	if (a->version != b->version || a->v1_path != b->v1_path ||
	    a->v2_path != b->v2_path || memcmp(a->peer_id, b->peer_id, 8) ||
	    memcmp(a->gid, b->gid, 16) || memcmp(a->mac, b->mac, 6) ||
	    a->ism_gid != b->ism_gid || a->ism_chid != b->ism_chid ||
	    a->ipv4_subnet != b->ipv4_subnet ||
	    a->ipv4_prefix_len != b->ipv4_prefix_len ||
	    a->n_ipv6 != b->n_ipv6 || a->n_ueid != b->n_ueid ||
	    a->n_ism != b->n_ism || a->release != b->release ||
	    a->seid != b->seid || memcmp(a->roce_v2_gid, b->roce_v2_gid, 16) ||
	    a->max_conns != b->max_conns || a->max_links != b->max_links ||
	    a->feature_mask != b->feature_mask)
		return false;
	if (a->n_ipv6 && memcmp(a->ipv6, b->ipv6, a->n_ipv6 * 17))
		return false;
	if (a->n_ueid && memcmp(a->ueids, b->ueids, a->n_ueid * 32))
		return false;
	if (!a->smcd_v2_ext != !b->smcd_v2_ext)
		return false;
	return !a->smcd_v2_ext || !memcmp(a->smcd_v2_ext, b->smcd_v2_ext, smcd);
}

/* build(p) parses back to p */
static bool prop_reencodes(const struct asmc_clc_proposal *p)
{
	struct asmc_clc_proposal q;
	u8 out[ASMC_CLC_PROP_MAX];
	int len = asmc_clc_proposal_build(out, sizeof(out), p);

	return len > 0 && asmc_clc_proposal_parse(out, len, &q) == 0 &&
	       prop_equal(p, &q);
}

static void test_decline(struct kunit *test)
{
	struct asmc_clc_decline d;
	u8 *buf = wt_alloc(test, BUF_LEN);
	size_t len;

	/* decline round trip, both versions */
	len = asmc_clc_decline_build(buf, BUF_LEN, (const u8 *)"ABCDEFGH",
				     ASMC_DECL_NOSMCDEV, 1, false);
	CHECK(len == 28, "v1 decline is 28 bytes");
	CHECK(buf[7] == 0x10, "v1 decline header byte 7");
	CHECK(asmc_clc_decline_parse(buf, len, &d) == 0 &&
	      d.reason == ASMC_DECL_NOSMCDEV && d.version == 1 &&
	      !memcmp(d.peer_id, "ABCDEFGH", 8), "v1 decline parses back");
	len = asmc_clc_decline_build(buf, BUF_LEN, NULL, ASMC_DECL_SYNCERR,
				     2, true);
	CHECK(len == 44 && buf[7] == 0x28 && buf[20] == 0x20,
	      "v2 decline: 44 bytes, out-of-sync bit, OS type Linux");
	CHECK(asmc_clc_decline_parse(buf, len, &d) == 0 && d.out_of_sync &&
	      d.reason == ASMC_DECL_SYNCERR, "v2 decline parses back");
	CHECK(asmc_clc_decline_build(buf, 27, NULL, 1, 1, false) == 0,
	      "decline build refuses a short buffer");
	buf[6] = 45;	/* wrong length for v2 */
	CHECK(asmc_clc_decline_parse(buf, 45, &d) == -EPROTO,
	      "decline with wrong length is refused");
}

static void test_header(struct kunit *test)
{
	struct asmc_clc_hdr h;
	u8 *buf = wt_alloc(test, BUF_LEN);

	make_v2_proposal(buf, 1);
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == 0 && h.length == 156 &&
	      h.version == 2 && h.type == ASMC_CLC_PROPOSAL, "header parses");
	CHECK(asmc_clc_hdr_parse(buf, 7, &h) == -EPROTO, "short header refused");
	buf[0] = 0;
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == -EPROTO, "bad eyecatcher refused");
	buf[0] = 0xE2;
	buf[7] = 0x02;
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == -EPROTO, "version 0 refused");
	buf[7] = 0x22;
	buf[4] = 9;
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == -EPROTO, "unknown type refused");
	buf[4] = ASMC_CLC_PROPOSAL;
	put_unaligned_be16(2000, buf + 5);
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == -EPROTO, "absurd length refused");
	put_unaligned_be16(10, buf + 5);
	CHECK(asmc_clc_hdr_parse(buf, 8, &h) == -EPROTO, "tiny length refused");
}

static void test_proposal_parse(struct kunit *test)
{
	struct asmc_clc_proposal p;
	u8 *buf = wt_alloc(test, BUF_LEN);
	size_t len;
	int rc;

	len = make_v2_proposal(buf, 1);
	rc = asmc_clc_proposal_parse(buf, len, &p);
	CHECK(rc == 0 && p.version == 2 && p.v2_path == ASMC_PATH_R &&
	      p.v1_path == ASMC_PATH_NONE && p.n_ueid == 1 &&
	      p.ueids == buf + 120 && p.roce_v2_gid[0] == 0x11,
	      "Linux v2-only proposal (156 bytes) parses");
	len = make_v1v2_proposal(buf);
	rc = asmc_clc_proposal_parse(buf, len, &p);
	CHECK(rc == 0 && p.v1_path == ASMC_PATH_R && p.ipv4_prefix_len == 24 &&
	      p.ipv4_subnet == 0xC0000200 && p.n_ueid == 1,
	      "Linux v1+v2 proposal (164 bytes) parses");
	CHECK(asmc_clc_proposal_parse(buf, len - 1, &p) == -EPROTO,
	      "proposal shorter than its header says is refused");
	buf[len - 1] = 0;
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal with a bad trailer is refused");
	len = make_v1v2_proposal(buf);
	buf[87] = 9;	/* 9 IPv6 prefixes */
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal with 9 IPv6 prefixes is refused");
	len = make_v1v2_proposal(buf);
	buf[88] = 9;	/* 9 UEIDs */
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal with 9 UEIDs is refused");
	len = make_v1v2_proposal(buf);
	put_unaligned_be16(200, buf + 50);	/* v2 ext beyond the end */
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal with v2 extension offset past the end is refused");
	len = make_v1v2_proposal(buf);
	put_unaligned_be16(41, buf + 38);
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal with IP-area offset > 40 is refused");
	len = make_v2_proposal(buf, 0);
	buf[7] = 0x2a;	/* v1 none, v2 none */
	CHECK(asmc_clc_proposal_parse(buf, len, &p) == -EPROTO,
	      "proposal offering nothing is refused");
}

/* every truncation and every single-byte corruption of a valid proposal
 * either parses or is refused, and never reads outside (the copies are
 * allocated to their exact size: ASan in userspace, KASAN in the kernel)
 */
static void test_proposal_mutations(struct kunit *test)
{
	struct asmc_clc_proposal p;
	u8 *buf = wt_alloc(test, BUF_LEN);
	size_t len, i;
	int rc;

	len = make_v1v2_proposal(buf);
	for (i = 0; i < len; i++) {
		u8 *copy = wt_alloc(test, i ? i : 1);

		memcpy(copy, buf, i);
		if (i >= 8)
			put_unaligned_be16(i, copy + 5);
		rc = asmc_clc_proposal_parse(copy, i, &p);
		wt_free(test, copy);
		if (rc != -EPROTO)
			break;
	}
	CHECK(i == len, "every truncated proposal is refused");
	{
		int bad = 0, parsed = 0;

		for (i = 8; i < len; i++) {
			u8 *copy = wt_alloc(test, len);
			int b;

			for (b = 0; b < 256; b += 17) {
				memcpy(copy, buf, len);
				copy[i] = b;
				rc = asmc_clc_proposal_parse(copy, len, &p);
				if (rc == 0) {
					parsed++;
					bad += !prop_reencodes(&p);
				} else if (rc != -EPROTO) {
					bad++;
				}
			}
			wt_free(test, copy);
		}
		CHECK(bad == 0 && parsed > 0,
		      "single-byte corruptions: parse and re-encode to the same proposal, or -EPROTO (%d parsed)",
		      parsed);
	}
}

static const u8 peer_id[8] = { 0x12, 0x34, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const u8 gid_v1[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			       0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 };
static const u8 gid_v2[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
			       0, 0, 0xff, 0xff, 192, 0, 2, 1 };
static const u8 mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

/* Linux client, IPv4, SMC-R v1 only: 92 bytes, byte 7 = 0x28 (SMC-WIRE
 * 3.5), written out byte by byte from the layout of 3.1 and 3.2.
 */
static const u8 prop_v1_only[92] = {
	0xE2, 0xD4, 0xC3, 0xD9, 0x01, 0x00, 0x5C, 0x28,	/* header */
	0x12, 0x34, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,	/* peer ID */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,			/* GID */
	0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,		/* MAC */
	0x00, 0x28,					/* IP area at 80 */
	0, 0, 0, 0, 0, 0, 0, 0,				/* ISM GID */
	0, 0,						/* ISM CHID */
	0, 0,						/* no v2 ext */
	[52 ... 79] = 0,				/* reserved */
	0xC0, 0x00, 0x02, 0x00, 24, 0, 0, 0,		/* 192.0.2.0/24 */
	0xE2, 0xD4, 0xC3, 0xD9,				/* trailer */
};

static void base_prop(struct asmc_clc_proposal *p)
{
	memset(p, 0, sizeof(*p));
	p->version = 2;
	memcpy(p->peer_id, peer_id, 8);
	memcpy(p->gid, gid_v1, 16);
	memcpy(p->mac, mac, 6);
}

static void test_proposal_build(struct kunit *test)
{
	static u8 ipv6[8 * 17], ueids[8 * 32], smcd[48 + 80];
	struct asmc_clc_proposal p, q;
	u8 *buf = wt_alloc(test, BUF_LEN), *ref = wt_alloc(test, BUF_LEN);
	size_t i, rlen;
	int len;

	/* v1 only, byte-exact against the layout */
	base_prop(&p);
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	p.ipv4_subnet = 0xC0000200;
	p.ipv4_prefix_len = 24;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 92 && !memcmp(buf, prop_v1_only, 92),
	      "proposal build: Linux SMC-R v1 only is the 92-byte layout");
	CHECK(asmc_clc_proposal_len(&p) == 92, "proposal len: 92 for v1 only");
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == 0 && prop_equal(&p, &q),
	      "proposal build: v1 only parses back to the same fields");

	/* v2 only with one UEID: 156 bytes, byte 7 0x22, IP offset 0 */
	rlen = make_v2_proposal(ref, 1);
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.v1_path = ASMC_PATH_NONE;
	p.v2_path = ASMC_PATH_R;
	p.n_ueid = 1;
	memset(ueids, 'A', sizeof(ueids));
	p.ueids = ueids;
	memset(p.roce_v2_gid, 0x11, 16);
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 156 && (size_t)len == rlen && !memcmp(buf, ref, rlen),
	      "proposal build: Linux SMC-R v2 only (156 bytes) matches the layout");
	CHECK(buf[7] == 0x22 && buf[38] == 0 && buf[39] == 0 &&
	      get_unaligned_be16(buf + 50) == 28,
	      "proposal build: v2 only has byte 7 0x22, IP offset 0, v2 ext at 80");

	/* v1 + v2, IPv4, one UEID: 164 bytes, v2 extension at 88 */
	rlen = make_v1v2_proposal(ref);
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_R;
	p.ipv4_subnet = 0xC0000200;
	p.ipv4_prefix_len = 24;
	p.n_ueid = 1;
	memset(ueids, 0, 32);
	p.ueids = ueids;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 164 && !memcmp(buf, ref, rlen) && buf[7] == 0x20,
	      "proposal build: Linux SMC-R v1+v2 (164 bytes) matches the layout");
	CHECK(get_unaligned_be16(buf + 38) == 40 &&
	      get_unaligned_be16(buf + 50) == 36,
	      "proposal build: v1+v2 has IP area at 80 and v2 extension at 88");

	/* largest proposal: 8 IPv6 prefixes, 8 UEIDs, SMC-D v2 with 8 ISMs */
	base_prop(&p);
	p.v1_path = ASMC_PATH_BOTH;
	p.v2_path = ASMC_PATH_BOTH;
	p.ism_gid = 0x1122334455667788ull;
	p.ism_chid = 0xabcd;
	p.n_ipv6 = 8;
	for (i = 0; i < sizeof(ipv6); i++)
		ipv6[i] = i;
	p.ipv6 = ipv6;
	p.n_ueid = 8;
	for (i = 0; i < sizeof(ueids); i++)
		ueids[i] = 'A' + i % 26;
	p.ueids = ueids;
	p.n_ism = 8;
	for (i = 0; i < sizeof(smcd); i++)
		smcd[i] = 0x80 + i;
	p.smcd_v2_ext = smcd;
	p.release = 1;
	p.seid = true;
	memcpy(p.roce_v2_gid, gid_v2, 16);
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == ASMC_CLC_PROP_MAX,
	      "proposal build: 8 prefixes, 8 UEIDs, 8 ISMs is 652 bytes (%d)", len);
	CHECK(buf[7] == 0x2f && buf[80 + 7] == 8 &&
	      get_unaligned_be16(buf + 50) == 28 + 8 + 8 * 17 &&
	      get_unaligned_be16(buf + 52 + 28 + 8 + 136 + 6) == 32 + 8 * 32,
	      "proposal build: offsets of the largest proposal");
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == 0 && prop_equal(&p, &q) &&
	      q.ism_gid == 0x1122334455667788ull && q.release == 1 && q.seid,
	      "proposal build: largest proposal parses back to the same fields");
	CHECK(asmc_clc_proposal_build(buf, len - 1, &p) == -ENOSPC,
	      "proposal build: one byte short gives -ENOSPC");

	/* NULL SMC-D v2 extension: zero-filled */
	p.smcd_v2_ext = NULL;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	for (i = 0; i < 48 + 80 && !buf[len - 4 - 128 + i]; i++)
		;
	CHECK(len == 652 && i == 128,
	      "proposal build: missing SMC-D v2 extension is zero-filled");

	/* a pure v1 proposal: version 1, no SMC-D area, prefix at 40 */
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	p.ipv4_subnet = 0x0a000000;
	p.ipv4_prefix_len = 8;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 52 && buf[7] == 0x10 && buf[38] == 0 && buf[39] == 0 &&
	      buf[44] == 8, "proposal build: version 1 SMC-R is 52 bytes, prefix at 40");
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == 0 && prop_equal(&p, &q),
	      "proposal build: version 1 parses back");
	p.v1_path = ASMC_PATH_D;
	p.ism_gid = 7;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 92 && buf[39] == 40 && buf[47] == 7 &&
	      asmc_clc_proposal_parse(buf, len, &q) == 0 && q.ism_gid == 7,
	      "proposal build: version 1 SMC-D keeps the SMC-D area (IP offset 40)");
	put_unaligned_be16(0, buf + 38);
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == -EPROTO,
	      "proposal parse: SMC-D v1 offer with IP offset 0 is refused");

	/* v2 proposal offering SMC-D for v1 must have IP offset 40 too */
	base_prop(&p);
	p.v1_path = ASMC_PATH_BOTH;
	p.v2_path = ASMC_PATH_NONE;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 92 && asmc_clc_proposal_parse(buf, len, &q) == 0,
	      "proposal build: v2 message offering SMC-R+D for v1 parses");
	put_unaligned_be16(32, buf + 38);
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == -EPROTO,
	      "proposal parse: SMC-D v1 offer with IP offset 32 is refused");

	/* v2 with SMC-D in the v2 path but SMC-D ext in the wrong place */
	base_prop(&p);
	p.v1_path = ASMC_PATH_NONE;
	p.v2_path = ASMC_PATH_D;
	p.n_ism = 1;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 80 + 40 + 48 + 10 + 4 &&
	      asmc_clc_proposal_parse(buf, len, &q) == 0 && q.smcd_v2_ext &&
	      q.n_ism == 1, "proposal build: SMC-D v2 only with one ISM parses");
	put_unaligned_be16(33, buf + 80 + 6);
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == -EPROTO,
	      "proposal parse: SMC-D v2 extension offset not after the UEIDs is refused");

	/* builder refuses what it cannot encode */
	base_prop(&p);
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	p.version = 0;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: version 0 is -EINVAL");
	p.version = 16;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: version 16 is -EINVAL");
	p.version = 1;
	p.v2_path = ASMC_PATH_R;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: version 1 with a v2 path is -EINVAL");
	p.version = 2;
	p.v1_path = ASMC_PATH_NONE;
	p.v2_path = ASMC_PATH_NONE;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: offering nothing is -EINVAL");
	p.v1_path = 4;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: path code 4 is -EINVAL");
	p.v1_path = ASMC_PATH_R;
	p.n_ipv6 = 9;
	p.ipv6 = ipv6;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: 9 IPv6 prefixes is -EINVAL");
	p.n_ipv6 = 1;
	p.ipv6 = NULL;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: IPv6 count without prefixes is -EINVAL");
	p.n_ipv6 = 0;
	p.ipv4_prefix_len = 33;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: IPv4 prefix length 33 is -EINVAL");
	p.ipv4_prefix_len = 24;
	p.v2_path = ASMC_PATH_R;
	p.n_ueid = 9;
	p.ueids = ueids;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: 9 UEIDs is -EINVAL");
	p.n_ueid = 1;
	p.ueids = NULL;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: UEID count without UEIDs is -EINVAL");
	p.ueids = ueids;
	p.n_ism = 9;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: 9 ISMs is -EINVAL");
	p.n_ism = 0;
	p.release = 16;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == -EINVAL,
	      "proposal build: release 16 is -EINVAL");
	p.release = 0;
	CHECK(asmc_clc_proposal_build(buf, BUF_LEN, &p) == 164,
	      "proposal build: the same proposal with valid fields builds");
}

/* Server Accept, SMC-R v1, first contact: 68 bytes written out from the
 * layout of SMC-WIRE 4.1.
 */
static const u8 acc_v1[68] = {
	0xE2, 0xD4, 0xC3, 0xD9, 0x02, 0x00, 0x44, 0x18,	/* header */
	0x12, 0x34, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,	/* peer ID */
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,			/* GID */
	0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,		/* MAC */
	0x00, 0x12, 0x34,				/* QPN */
	0xAA, 0xBB, 0xCC, 0xDD,				/* rkey */
	0x01,						/* RMBE index */
	0x00, 0x00, 0x00, 0x2A,				/* token */
	0x24,						/* 64 KiB, 2048 */
	0x00,
	0x00, 0x00, 0x7F, 0x00, 0x12, 0x34, 0x50, 0x00,	/* RMB address */
	0x00,
	0xAB, 0xCD, 0xEF,				/* PSN */
	0xE2, 0xD4, 0xC3, 0xD9,				/* trailer */
};

static void base_acc(struct asmc_clc_accept *a, u8 type, u8 version,
		     bool fc)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->version = version;
	a->first_contact = fc;
	memcpy(a->peer_id, peer_id, 8);
	memcpy(a->gid, version == 1 ? gid_v1 : gid_v2, 16);
	memcpy(a->mac, mac, 6);
	a->qpn = 0x1234;
	a->rkey = 0xAABBCCDD;
	a->rmbe_idx = 1;
	a->token = 42;
	a->rmbe_size = 2;
	a->mtu = ASMC_MTU_2048;
	a->rmb_addr = 0x00007F0012345000ull;
	a->psn = 0xABCDEF;
	if (version >= 2)
		memcpy(a->eid, "SMC-EID-TEST                    ", 32);
	if (version >= 2 && fc) {
		a->v2_direct = true;
		a->os_type = ASMC_OS_LINUX;
		memcpy(a->hostname, "host-a                          ", 32);
	}
}

static bool acc_equal(const struct asmc_clc_accept *a,
		      const struct asmc_clc_accept *b)
{
	return a->type == b->type && a->version == b->version &&
	       a->first_contact == b->first_contact && a->smcd == b->smcd &&
	       !memcmp(a->peer_id, b->peer_id, 8) &&
	       !memcmp(a->gid, b->gid, 16) && !memcmp(a->mac, b->mac, 6) &&
	       a->qpn == b->qpn && a->rkey == b->rkey &&
	       a->rmbe_idx == b->rmbe_idx && a->token == b->token &&
	       a->rmbe_size == b->rmbe_size && a->mtu == b->mtu &&
	       a->rmb_addr == b->rmb_addr && a->psn == b->psn &&
	       !memcmp(a->eid, b->eid, 32) && a->v2_direct == b->v2_direct &&
	       a->os_type == b->os_type && a->release == b->release &&
	       !memcmp(a->hostname, b->hostname, 32) &&
	       a->max_conns == b->max_conns && a->max_links == b->max_links &&
	       a->feature_mask == b->feature_mask && a->n_gids == b->n_gids &&
	       !memcmp(a->gids, b->gids, sizeof(a->gids));
}

static void set_len(u8 *buf, size_t len)
{
	put_unaligned_be16(len, buf + 5);
	memcpy(buf + len - 4, eye_r, 4);
}

static void test_accept(struct kunit *test)
{
	struct asmc_clc_accept a, b;
	u8 *buf = wt_alloc(test, BUF_LEN), *copy = wt_alloc(test, BUF_LEN);
	u8 *out = wt_alloc(test, BUF_LEN);
	int len, bad, parsed, rc;
	size_t i;

	/* SMC-R v1 Accept, byte-exact */
	base_acc(&a, ASMC_CLC_ACCEPT, 1, true);
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 68 && !memcmp(buf, acc_v1, 68),
	      "accept build: SMC-R v1 first contact is the 68-byte layout");
	CHECK(asmc_clc_accept_parse(acc_v1, 68, &b) == 0 && acc_equal(&a, &b),
	      "accept parse: SMC-R v1 layout gives back every field");
	CHECK(b.qpn == 0x1234 && b.psn == 0xABCDEF && b.rmbe_size == 2 &&
	      b.mtu == 4 && b.rmb_addr == 0x00007F0012345000ull && b.first_contact,
	      "accept parse: 24-bit QPN/PSN, size and MTU nibbles, 64-bit address");
	a.first_contact = false;
	a.type = ASMC_CLC_CONFIRM;
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 68 && buf[4] == 3 && buf[7] == 0x10 &&
	      !memcmp(buf + 8, acc_v1 + 8, 56),
	      "confirm build: SMC-R v1 without first contact has byte 7 0x10");
	CHECK(asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b),
	      "confirm parse: SMC-R v1 round trip");
	memcpy(copy, buf, 68);
	copy[64] = 0;
	set_len(copy, 69);
	CHECK(asmc_clc_accept_parse(copy, 69, &b) == -EPROTO,
	      "accept parse: SMC-R v1 of 69 bytes is refused");
	memcpy(copy, buf, 68);
	set_len(copy, 64);
	CHECK(asmc_clc_accept_parse(copy, 64, &b) == -EPROTO,
	      "accept parse: SMC-R v1 of 64 bytes is refused");

	/* SMC-R v2 without first contact: 108 bytes */
	base_acc(&a, ASMC_CLC_ACCEPT, 2, false);
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 108 && buf[7] == 0x20 && !memcmp(buf + 64, a.eid, 32) &&
	      !memcmp(buf + 104, eye_r, 4) && get_unaligned_be16(buf + 5) == 108,
	      "accept build: SMC-R v2 is 108 bytes, EID at 64, trailer at 104");
	CHECK(asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b),
	      "accept parse: SMC-R v2 round trip");
	memcpy(copy, buf, 104);
	memset(copy + 104, 0x55, 16);
	set_len(copy, 124);
	CHECK(asmc_clc_accept_parse(copy, 124, &b) == 0 && acc_equal(&a, &b),
	      "accept parse: SMC-R v2 longer than 108 is accepted, tail ignored");
	memcpy(copy, buf, 104);
	set_len(copy, 107);
	CHECK(asmc_clc_accept_parse(copy, 107, &b) == -EPROTO,
	      "accept parse: SMC-R v2 of 107 bytes is refused");

	/* SMC-R v2 Accept with first contact: 160 bytes */
	base_acc(&a, ASMC_CLC_ACCEPT, 2, true);
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 160 && buf[7] == 0x28 && buf[104] == 0x80 &&
	      buf[105] == 0x20 && !memcmp(buf + 108, "host-a", 6) &&
	      !memcmp(buf + 156, eye_r, 4),
	      "accept build: SMC-R v2 first contact is 160 bytes, direct, Linux");
	CHECK(asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b) &&
	      b.v2_direct && b.os_type == 2,
	      "accept parse: SMC-R v2 first contact round trip");
	memcpy(copy, buf, 108);
	set_len(copy, 112);
	CHECK(asmc_clc_accept_parse(copy, 112, &b) == -EPROTO,
	      "accept parse: first-contact v2 Accept without its extension is refused");

	/* SMC-R v2 Confirm with first contact and 2 GIDs: 196 bytes */
	base_acc(&a, ASMC_CLC_CONFIRM, 2, true);
	a.n_gids = 2;
	memcpy(a.gids[0], gid_v2, 16);
	memset(a.gids[1], 0x77, 16);
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 196 && buf[156] == 2 && !memcmp(buf + 160, gid_v2, 16) &&
	      buf[176] == 0x77 && !memcmp(buf + 192, eye_r, 4),
	      "confirm build: v2 first contact with 2 GIDs is 196 bytes");
	CHECK(asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b),
	      "confirm parse: v2 first contact with GID list round trip");
	a.n_gids = 1;
	CHECK(asmc_clc_accept_len(&a) == 180,
	      "confirm len: v2 first contact with 1 GID is 180");
	memcpy(copy, buf, 180);
	copy[156] = 2;
	set_len(copy, 180);
	CHECK(asmc_clc_accept_parse(copy, 180, &b) == -EPROTO,
	      "confirm parse: GID count beyond the message is refused");
	memcpy(copy, buf, 160);
	copy[156] = 9;
	memset(copy + 160, 0, 9 * 16);
	set_len(copy, 164 + 9 * 16);
	CHECK(asmc_clc_accept_parse(copy, 164 + 9 * 16, &b) == -EPROTO,
	      "confirm parse: 9 GIDs are refused");
	memcpy(copy, buf, 160);
	set_len(copy, 160);
	CHECK(asmc_clc_accept_parse(copy, 160, &b) == -EPROTO,
	      "confirm parse: first-contact v2 Confirm of 160 bytes is refused");

	/* SMC-D: recognised, reported, not decoded */
	memset(copy, 0, BUF_LEN);
	memcpy(copy, "\xE2\xD4\xC3\xC4\x02\x00\x30\x11", 8);
	set_len(copy, 48);
	CHECK(asmc_clc_accept_parse(copy, 48, &b) == 0 && b.smcd &&
	      b.version == 1 && b.type == 2 && b.qpn == 0,
	      "accept parse: SMC-D v1 (48 bytes) is reported as SMC-D");
	set_len(copy, 52);
	CHECK(asmc_clc_accept_parse(copy, 52, &b) == -EPROTO,
	      "accept parse: SMC-D v1 of 52 bytes is refused");
	copy[7] = 0x29;
	set_len(copy, 114);
	CHECK(asmc_clc_accept_parse(copy, 114, &b) == 0 && b.smcd &&
	      b.first_contact && b.version == 2,
	      "accept parse: SMC-D v2 first contact (114 bytes) is SMC-D");
	set_len(copy, 113);
	CHECK(asmc_clc_accept_parse(copy, 113, &b) == -EPROTO,
	      "accept parse: SMC-D v2 first contact of 113 bytes is refused");
	copy[7] = 0x21;
	set_len(copy, 78);
	CHECK(asmc_clc_accept_parse(copy, 78, &b) == 0 && b.smcd,
	      "accept parse: SMC-D v2 (78 bytes) is SMC-D");
	b.smcd = true;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &b) == -EINVAL,
	      "accept build: SMC-D is -EINVAL");

	/* other refusals */
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	memcpy(copy, buf, len);
	copy[7] = (copy[7] & 0xfc) | 2;
	CHECK(asmc_clc_accept_parse(copy, len, &b) == -EPROTO,
	      "accept parse: type code 2 (none) is refused");
	copy[7] |= 3;
	CHECK(asmc_clc_accept_parse(copy, len, &b) == -EPROTO,
	      "accept parse: type code 3 (both) is refused");
	memcpy(copy, buf, len);
	copy[len - 1] = 0;
	CHECK(asmc_clc_accept_parse(copy, len, &b) == -EPROTO,
	      "accept parse: bad trailer is refused");
	CHECK(asmc_clc_accept_parse(buf, len - 1, &b) == -EPROTO,
	      "accept parse: buffer shorter than the header length is refused");
	memcpy(copy, buf, len);
	copy[4] = ASMC_CLC_PROPOSAL;
	CHECK(asmc_clc_accept_parse(copy, len, &b) == -EPROTO,
	      "accept parse: a Proposal is refused");
	copy[4] = ASMC_CLC_DECLINE;
	CHECK(asmc_clc_accept_parse(copy, len, &b) == -EPROTO,
	      "accept parse: a Decline is refused");

	base_acc(&a, ASMC_CLC_ACCEPT, 1, false);
	a.qpn = 0x1000000;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: 25-bit QPN is -EINVAL");
	a.qpn = 1;
	a.psn = 0x1000000;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: 25-bit PSN is -EINVAL");
	a.psn = 1;
	a.mtu = 16;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: MTU code 16 is -EINVAL");
	a.mtu = 5;
	a.rmbe_size = 16;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: size code 16 is -EINVAL");
	a.rmbe_size = 5;
	a.type = ASMC_CLC_DECLINE;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: type Decline is -EINVAL");
	a.type = ASMC_CLC_CONFIRM;
	a.version = 0;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: version 0 is -EINVAL");
	a.version = 2;
	a.first_contact = true;
	a.n_gids = 9;
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == -EINVAL,
	      "accept build: 9 GIDs is -EINVAL");
	a.n_gids = 8;
	CHECK(asmc_clc_accept_build(buf, 164 + 127, &a) == -ENOSPC,
	      "accept build: one byte short gives -ENOSPC");
	CHECK(asmc_clc_accept_build(buf, BUF_LEN, &a) == 164 + 128,
	      "accept build: 8 GIDs is 292 bytes");

	/* truncations and corruptions of a v2 first-contact Confirm */
	base_acc(&a, ASMC_CLC_CONFIRM, 2, true);
	a.n_gids = 2;
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	bad = 0;
	for (i = 0; i < (size_t)len; i++) {
		u8 *t = wt_alloc(test, i ? i : 1);

		memcpy(t, buf, i);
		if (i >= 8)
			put_unaligned_be16(i, t + 5);
		if (i >= 12)
			memcpy(t + i - 4, eye_r, 4);
		rc = asmc_clc_accept_parse(t, i, &b);
		/* cut after the GID list start: still a valid v2 Confirm
		 * only when it covers the announced GIDs
		 */
		if (rc == 0 ? i < 196 : rc != -EPROTO)
			bad++;
		wt_free(test, t);
	}
	CHECK(bad == 0, "every truncated v2 Confirm is refused");
	bad = 0;
	parsed = 0;
	for (i = 0; i < (size_t)len; i++) {
		int v;

		for (v = 0; v < 256; v += 15) {
			int olen;

			memcpy(copy, buf, len);
			copy[i] = v;
			rc = asmc_clc_accept_parse(copy, len, &b);
			if (rc == -EPROTO)
				continue;
			if (rc) {
				bad++;
				continue;
			}
			parsed++;
			if (b.smcd)
				continue;
			olen = asmc_clc_accept_build(out, BUF_LEN, &b);
			if (olen <= 0 ||
			    asmc_clc_accept_parse(out, olen, &a) ||
			    !acc_equal(&a, &b))
				bad++;
		}
	}
	CHECK(bad == 0 && parsed > 0,
	      "single-byte corruptions of a Confirm: re-encode to the same fields or -EPROTO (%d parsed)",
	      parsed);
}

static void test_sizes(struct kunit *test)
{
	static const u32 sz[] = { 16384, 32768, 65536, 131072, 262144, 524288 };
	u8 c;
	int bad = 0;

	for (c = 0; c < 6; c++)
		bad += asmc_rmbe_code_to_size(c) != sz[c] ||
		       asmc_rmbe_size_to_code(sz[c], ASMC_RMBE_CODE_MAX_R) != c ||
		       asmc_rmbe_size_to_code(sz[c] + 1, 15) != c + 1 ||
		       (c && asmc_rmbe_size_to_code(sz[c] - 1, 15) != c);
	CHECK(bad == 0, "rmbe size: codes 0..5 are 16 KiB..512 KiB and round up");
	CHECK(asmc_rmbe_code_to_size(15) == 16384u << 15,
	      "rmbe size: code 15 is 512 MiB");
	CHECK(asmc_rmbe_size_to_code(0, 5) == 0 &&
	      asmc_rmbe_size_to_code(1, 5) == 0 &&
	      asmc_rmbe_size_to_code(16384, 5) == 0,
	      "rmbe size: up to 16 KiB is code 0");
	CHECK(asmc_rmbe_size_to_code(16385, 5) == 1 &&
	      asmc_rmbe_size_to_code(65537, 5) == 3,
	      "rmbe size: one byte above a power of two rounds up");
	CHECK(asmc_rmbe_size_to_code(1 << 20, ASMC_RMBE_CODE_MAX_R) == 5 &&
	      asmc_rmbe_size_to_code(1 << 20, ASMC_RMBE_CODE_MAX_D) == 6 &&
	      asmc_rmbe_size_to_code(0xffffffffu, ASMC_RMBE_CODE_MAX_D) == 6,
	      "rmbe size: capped at 5 (SMC-R) / 6 (SMC-D)");
	CHECK(asmc_rmbe_size_to_code(0xffffffffu, 200) == 15,
	      "rmbe size: a cap above 15 still gives at most 15");
	CHECK(asmc_mtu_code_to_bytes(1) == 256 && asmc_mtu_code_to_bytes(2) == 512 &&
	      asmc_mtu_code_to_bytes(3) == 1024 &&
	      asmc_mtu_code_to_bytes(4) == 2048 &&
	      asmc_mtu_code_to_bytes(5) == 4096,
	      "mtu: codes 1..5 are 256..4096 bytes");
	CHECK(asmc_mtu_code_to_bytes(0) == 0 && asmc_mtu_code_to_bytes(6) == 0 &&
	      asmc_mtu_code_to_bytes(15) == 0, "mtu: codes 0 and 6..15 are invalid (0)");
	CHECK(asmc_mtu_bytes_to_code(256) == 1 && asmc_mtu_bytes_to_code(4096) == 5 &&
	      asmc_mtu_bytes_to_code(2048) == 4, "mtu: exact sizes map to their codes");
	CHECK(asmc_mtu_bytes_to_code(1500) == 3 && asmc_mtu_bytes_to_code(9000) == 5 &&
	      asmc_mtu_bytes_to_code(255) == 0 && asmc_mtu_bytes_to_code(0) == 0,
	      "mtu: other sizes round down (1500 -> 1024), below 256 -> 0");
}

/* One step of the v2.1 negotiation: SERVER answers a Proposal (side =
 * our latest release and limits), CLIENT checks an Accept (side = what we
 * proposed), CONFIRM checks a Confirm (side = what was agreed); in_* come
 * from the peer's message; want_* is the agreement when rc is 0.
 */
enum { V2X_SERVER, V2X_CLIENT, V2X_CONFIRM };
static const struct v2x_case {
	const char *what;
	u8 step, rel, conns, links, in_rel, in_conns, in_links;
	u32 rc;
	u8 want_rel, want_conns, want_links;
} v2x_cases[] = {
	{ "server: agrees on release 1 and the lower limits",
	  V2X_SERVER, 1, 255, 1, 1, 255, 2, 0, 1, 255, 1 },
	{ "server: a later release proposed gets our latest (1)",
	  V2X_SERVER, 1, 255, 1, 7, 20, 1, 0, 1, 20, 1 },
	{ "server: a v2.0 client gets release 0, its reserved bytes ignored",
	  V2X_SERVER, 1, 255, 1, 0, 0, 0, 0, 0, 255, 1 },
	{ "server: 15 connections per group -> Decline 0x0303000a",
	  V2X_SERVER, 1, 255, 1, 1, 15, 1, ASMC_DECL_MAXCONNERR, 0, 0, 0 },
	{ "server: 0 links per group -> Decline 0x0303000b",
	  V2X_SERVER, 1, 255, 1, 1, 16, 0, ASMC_DECL_MAXLINKERR, 0, 0, 0 },
	{ "client: takes the server's lower limits",
	  V2X_CLIENT, 1, 255, 1, 1, 100, 1, 0, 1, 100, 1 },
	{ "client: a v2.0 server's Accept (release 0) is fine",
	  V2X_CLIENT, 1, 255, 1, 0, 0, 0, 0, 0, 255, 1 },
	{ "client: release above the proposed -> Decline 0x03030009",
	  V2X_CLIENT, 1, 255, 1, 2, 100, 1, ASMC_DECL_RELEASEERR, 0, 0, 0 },
	{ "client: 15 connections -> Decline 0x0303000a",
	  V2X_CLIENT, 1, 255, 1, 1, 15, 1, ASMC_DECL_MAXCONNERR, 0, 0, 0 },
	{ "client: more connections than proposed -> Decline 0x0303000a",
	  V2X_CLIENT, 1, 100, 1, 1, 101, 1, ASMC_DECL_MAXCONNERR, 0, 0, 0 },
	{ "client: more links than proposed -> Decline 0x0303000b",
	  V2X_CLIENT, 1, 100, 1, 1, 100, 2, ASMC_DECL_MAXLINKERR, 0, 0, 0 },
	{ "client: 0 links -> Decline 0x0303000b",
	  V2X_CLIENT, 1, 100, 1, 1, 100, 0, ASMC_DECL_MAXLINKERR, 0, 0, 0 },
	{ "confirm check: the agreed values pass",
	  V2X_CONFIRM, 1, 100, 1, 1, 100, 1, 0, 1, 100, 1 },
	{ "confirm check: another release -> Decline 0x03030009",
	  V2X_CONFIRM, 1, 100, 1, 0, 100, 1, ASMC_DECL_RELEASEERR, 0, 0, 0 },
	{ "confirm check: other connections -> Decline 0x0303000a",
	  V2X_CONFIRM, 1, 100, 1, 1, 99, 1, ASMC_DECL_MAXCONNERR, 0, 0, 0 },
	{ "confirm check: other links -> Decline 0x0303000b",
	  V2X_CONFIRM, 1, 100, 1, 1, 100, 2, ASMC_DECL_MAXLINKERR, 0, 0, 0 },
	{ "confirm check: release 0 ignores the reserved bytes",
	  V2X_CONFIRM, 0, 100, 1, 0, 7, 0, 0, 0, 100, 1 },
};

/* SMC v2.1: where release, max connections and max links sit, and the
 * rules of their negotiation.
 */
static void test_v2x(struct kunit *test)
{
	static u8 ueids[32];
	struct asmc_clc_proposal p, q;
	struct asmc_clc_accept a, b;
	struct asmc_clc_v2x agreed;
	u8 *buf = wt_alloc(test, BUF_LEN);
	size_t i;
	int len;

	/* Proposal: flags byte 83 high nibble, 104/105 conns/links, 106 mask */
	memset(&p, 0, sizeof(p));
	p.version = 2;
	p.v1_path = ASMC_PATH_NONE;
	p.v2_path = ASMC_PATH_R;
	p.n_ueid = 1;
	memset(ueids, 'A', sizeof(ueids));
	p.ueids = ueids;
	p.release = 1;
	p.max_conns = 200;
	p.max_links = 2;
	p.feature_mask = 0x0102;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 156 && buf[83] == 0x10 && buf[104] == 200 &&
	      buf[105] == 2 && buf[106] == 1 && buf[107] == 2,
	      "v2.1 proposal: release in byte 83, conns/links/features at 104..107");
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == 0 && prop_equal(&p, &q),
	      "v2.1 proposal: parses back to the same fields");
	len = make_v2_proposal(buf, 1);
	CHECK(asmc_clc_proposal_parse(buf, len, &q) == 0 && q.release == 0 &&
	      q.max_conns == 0 && q.max_links == 0,
	      "v2.1 proposal: a Linux 6.1 (v2.0) proposal reads as release 0");

	/* Accept/Confirm first-contact extension: 105 low nibble, 140..143 */
	base_acc(&a, ASMC_CLC_ACCEPT, 2, true);
	a.release = 1;
	a.max_conns = 16;
	a.max_links = 1;
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 160 && buf[105] == 0x21 && buf[140] == 16 &&
	      buf[141] == 1 && buf[142] == 0 && buf[143] == 0,
	      "v2.1 accept: release in byte 105, conns/links at 140/141");
	CHECK(asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b),
	      "v2.1 accept: parses back to the same fields");
	base_acc(&a, ASMC_CLC_CONFIRM, 2, true);
	a.release = 1;
	a.max_conns = 255;
	a.max_links = 1;
	a.n_gids = 1;
	len = asmc_clc_accept_build(buf, BUF_LEN, &a);
	CHECK(len == 180 && buf[140] == 255 && buf[141] == 1 &&
	      asmc_clc_accept_parse(buf, len, &b) == 0 && acc_equal(&a, &b),
	      "v2.1 confirm: same extension, GID list after it");

	for (i = 0; i < sizeof(v2x_cases) / sizeof(v2x_cases[0]); i++) {
		const struct v2x_case *c = &v2x_cases[i];
		struct asmc_clc_v2x side = { c->rel, c->conns, c->links };
		u32 rc;

		memset(&agreed, 0, sizeof(agreed));
		if (c->step == V2X_SERVER) {
			p.release = c->in_rel;
			p.max_conns = c->in_conns;
			p.max_links = c->in_links;
			rc = asmc_clc_v2x_server(&p, &side, &agreed);
		} else {
			base_acc(&a, c->step == V2X_CLIENT ? ASMC_CLC_ACCEPT :
				 ASMC_CLC_CONFIRM, 2, true);
			a.release = c->in_rel;
			a.max_conns = c->in_conns;
			a.max_links = c->in_links;
			rc = c->step == V2X_CLIENT ?
				asmc_clc_v2x_client(&a, &side, &agreed) :
				asmc_clc_v2x_confirm_check(&a, &side);
			if (c->step == V2X_CONFIRM)
				agreed = side;
		}
		CHECK(rc == c->rc && (rc || (agreed.release == c->want_rel &&
					     agreed.max_conns == c->want_conns &&
					     agreed.max_links == c->want_links)),
		      "v2.1 %s", c->what);
	}
}

static void set_pfx(struct asmc_clc_prefix *e, const char *hex16, u8 len,
		    bool v4)
{
	int i;

	for (i = 0; i < 32; i++) {
		char c = hex16[i];
		u8 v = c <= '9' ? c - '0' : c - 'a' + 10;

		e->addr[i / 2] = i % 2 ? e->addr[i / 2] | v : v << 4;
	}
	e->len = len;
	e->v4 = v4;
}

/* v1 IP prefix area: the client builds it from its device's addresses,
 * the server matches it against its own.
 */
static void test_prefix(struct kunit *test)
{
	struct asmc_clc_prefix dev[4], srv[3];
	struct asmc_clc_proposal p, q;
	u8 v6buf[8 * ASMC_CLC_IPV6_ENTRY], *buf, src[16];
	int len, i;

	buf = wt_alloc(test, BUF_LEN);
	/* client 192.0.2.1/24 (and 10.1.2.3/8) on its device */
	set_pfx(&dev[0], "00000000000000000000ffff0a010203", 8, true);
	set_pfx(&dev[1], "00000000000000000000ffffc0000201", 24, true);
	set_pfx(&dev[2], "20010db8000100000000000000000001", 64, false);
	set_pfx(&dev[3], "20010db8ffff00000000000000000099", 48, false);
	memcpy(src, dev[1].addr, 16);
	memset(&p, 0, sizeof(p));
	CHECK(asmc_clc_prefix_area(&p, src, dev, 4, v6buf) == 0 &&
	      p.ipv4_subnet == 0xC0000200 && p.ipv4_prefix_len == 24 &&
	      !p.n_ipv6, "IPv4 client offers the subnet of its source address");
	src[15] = 7;	/* 192.0.2.7 is not on the device */
	CHECK(asmc_clc_prefix_area(&p, src, dev, 4, v6buf) == -ENOENT,
	      "IPv4 source not on the device: no prefix, no v1");
	memcpy(src, dev[2].addr, 16);
	CHECK(asmc_clc_prefix_area(&p, src, dev, 4, v6buf) == 0 &&
	      p.n_ipv6 == 2 && v6buf[16] == 64 && v6buf[17 + 16] == 48 &&
	      !memcmp(v6buf, dev[2].addr, 8) && !v6buf[15] &&
	      v6buf[17 + 5] == 0xff && !v6buf[17 + 6],
	      "IPv6 client offers its device's prefixes, masked");
	CHECK(asmc_clc_prefix_area(&p, src, dev, 2, v6buf) == -ENOENT,
	      "IPv6 client without IPv6 prefixes: no v1");

	/* the area survives the wire: build a v1 proposal, parse it */
	memset(&q, 0, sizeof(q));
	asmc_clc_prefix_area(&p, src, dev, 4, v6buf);
	p.version = 2;
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	len = asmc_clc_proposal_build(buf, BUF_LEN, &p);
	CHECK(len == 80 + 8 + 2 * 17 + 4 &&
	      asmc_clc_proposal_parse(buf, len, &q) == 0 && q.n_ipv6 == 2 &&
	      !memcmp(q.ipv6, v6buf, 2 * 17),
	      "v1-only IPv6 proposal with 2 prefixes: %d bytes, parses", len);

	/* server 192.0.2.2/24, 2001:db8:1::2/64 */
	set_pfx(&srv[0], "00000000000000000000ffffc0000202", 24, true);
	set_pfx(&srv[1], "20010db8000100000000000000000002", 64, false);
	set_pfx(&srv[2], "fe800000000000000000000000000002", 64, false);
	CHECK(asmc_clc_prefix_match(&q, srv, 3),
	      "server finds its IPv6 prefix among the proposed ones");
	q.n_ipv6 = 1;
	buf[88 + 16] = 64;	/* only 2001:db8:ffff::/48 left, as /64 */
	q.ipv6 = buf + 88 + 17;
	CHECK(!asmc_clc_prefix_match(&q, srv, 3),
	      "other IPv6 prefix: no match (decline 0x03070000)");
	memset(&q, 0, sizeof(q));
	q.ipv4_subnet = 0xC0000200;
	q.ipv4_prefix_len = 24;
	CHECK(asmc_clc_prefix_match(&q, srv, 3),
	      "IPv4 192.0.2.0/24 matches the server's 192.0.2.2/24");
	q.ipv4_subnet = 0xC0000263;	/* host bits set: still that subnet */
	CHECK(asmc_clc_prefix_match(&q, srv, 3),
	      "IPv4 subnet with host bits set matches too");
	q.ipv4_prefix_len = 25;
	CHECK(!asmc_clc_prefix_match(&q, srv, 3),
	      "IPv4 other prefix length: no match");
	q.ipv4_prefix_len = 24;
	q.ipv4_subnet = 0xC0000300;
	CHECK(!asmc_clc_prefix_match(&q, srv, 3),
	      "IPv4 other subnet: no match");
	q.ipv4_subnet = 0;
	q.ipv4_prefix_len = 0;
	CHECK(!asmc_clc_prefix_match(&q, srv, 3) &&
	      !asmc_clc_prefix_match(&q, srv, 0),
	      "empty IP area (0/0) matches no device");
	for (i = 0; i <= 32; i++) {
		q.ipv4_prefix_len = i;
		srv[0].len = i;
		q.ipv4_subnet = 0xC0000202;
		if (!asmc_clc_prefix_match(&q, srv, 1))
			break;
	}
	CHECK(i == 33, "IPv4 prefix lengths 0..32 match their own address");
}

/* Which GID may carry which SMC-R version (net.smc.smcr_v1 1 and 2). */
static void test_gid_fit(struct kunit *test)
{
	static const u8 src4[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
	static const u8 other[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 9 };
	static const u8 ll[16] = { 0xfe, 0x80, [15] = 1 };

	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V2, src4, 2, false, src4) ==
	      ASMC_GID_FIT_BEST, "v2: the source address's RoCE v2 GID");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V2, other, 2, false, src4) ==
	      ASMC_GID_FIT_NONE, "v2: another address's GID is not used");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V1, src4, 2, false, src4) ==
	      ASMC_GID_FIT_NONE, "v2: never a RoCE v1 GID");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V1, src4, 1, false, src4) ==
	      ASMC_GID_FIT_BEST, "v1: the source address's RoCE v1 GID is best");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V1, ll, 1, false, src4) ==
	      ASMC_GID_FIT_SOME, "v1: any RoCE v1 GID of the device will do");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V2, src4, 1, false, src4) ==
	      ASMC_GID_FIT_NONE, "v1 (smcr_v1 1): no RoCE v2 GID, as Linux");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V2, src4, 1, true, src4) ==
	      ASMC_GID_FIT_BEST, "v1 (smcr_v1 2): the source address's RoCE v2 GID");
	CHECK(asmc_gid_fit(ASMC_GID_ROCE_V2, ll, 1, true, src4) ==
	      ASMC_GID_FIT_NONE, "v1 (smcr_v1 2): not another RoCE v2 GID");
	CHECK(asmc_gid_fit(0, src4, 1, true, src4) == ASMC_GID_FIT_NONE,
	      "unknown GID type: never");
}

static struct kunit_case clc_wire_cases[] = {
	KUNIT_CASE(test_decline),
	KUNIT_CASE(test_header),
	KUNIT_CASE(test_proposal_parse),
	KUNIT_CASE(test_proposal_mutations),
	KUNIT_CASE(test_proposal_build),
	KUNIT_CASE(test_accept),
	KUNIT_CASE(test_sizes),
	KUNIT_CASE(test_v2x),
	KUNIT_CASE(test_prefix),
	KUNIT_CASE(test_gid_fit),
	{}
};
WIRE_TEST_SUITE(clc_wire, clc_wire_cases);
