// SPDX-License-Identifier: GPL-2.0
/* Userspace unit tests of the CLC wire codec (net/smc/clc_wire.c), built
 * from the same source as the module; TAP output.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../../net/smc/clc_wire.h"

static int n, failed;

#define CHECK(cond, name) do {						\
	n++;								\
	if (cond) {							\
		printf("ok %d - clc_wire: %s\n", n, name);		\
	} else {							\
		failed++;						\
		printf("not ok %d - clc_wire: %s\n# %s:%d: %s\n", n,	\
		       name, __FILE__, __LINE__, #cond);		\
	}								\
} while (0)

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

int main(void)
{
	struct asmc_clc_proposal p;
	struct asmc_clc_decline d;
	struct asmc_clc_hdr h;
	u8 buf[1100];
	size_t len, i;
	int rc;

	printf("TAP version 13\n");

	/* decline round trip, both versions */
	len = asmc_clc_decline_build(buf, sizeof(buf), (const u8 *)"ABCDEFGH",
				     ASMC_DECL_NOSMCDEV, 1, false);
	CHECK(len == 28, "v1 decline is 28 bytes");
	CHECK(buf[7] == 0x10, "v1 decline header byte 7");
	CHECK(asmc_clc_decline_parse(buf, len, &d) == 0 &&
	      d.reason == ASMC_DECL_NOSMCDEV && d.version == 1 &&
	      !memcmp(d.peer_id, "ABCDEFGH", 8), "v1 decline parses back");
	len = asmc_clc_decline_build(buf, sizeof(buf), NULL, ASMC_DECL_SYNCERR,
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

	/* header checks */
	len = make_v2_proposal(buf, 1);
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

	/* proposals */
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

	/* every truncation and every single-byte corruption of a valid
	 * proposal either parses or is refused, and never reads outside
	 * (run under valgrind/ASan by `make check-unit`)
	 */
	len = make_v1v2_proposal(buf);
	for (i = 0; i < len; i++) {
		u8 *copy = malloc(i ? i : 1);

		memcpy(copy, buf, i);
		if (i >= 8)
			put_unaligned_be16(i, copy + 5);
		rc = asmc_clc_proposal_parse(copy, i, &p);
		free(copy);
		if (rc != -EPROTO)
			break;
	}
	CHECK(i == len, "every truncated proposal is refused");
	for (i = 8; i < len; i++) {
		u8 *copy = malloc(len);
		int b;

		for (b = 0; b < 256; b += 17) {
			memcpy(copy, buf, len);
			copy[i] = b;
			(void)asmc_clc_proposal_parse(copy, len, &p);
		}
		free(copy);
	}
	/* reaching this line is the check: ASan/UBSan abort on any fault */
	CHECK(i == len, "single-byte corruptions parse or are refused, no fault");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
