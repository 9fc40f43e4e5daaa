// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the CLC decoders: every parser runs on the peer's
 * bytes, and whatever parses must re-encode to a message that parses the same.
 */
#include "fuzz_eq.h"

static void proposal_round_trip(const struct asmc_clc_proposal *p, size_t len)
{
	struct asmc_clc_proposal q, r;
	u8 out[ASMC_CLC_MAX_LEN], out2[ASMC_CLC_MAX_LEN];
	int olen, olen2;

	olen = asmc_clc_proposal_build(out, sizeof(out), p);
	FUZZ_ASSERT(olen > 0 && olen == asmc_clc_proposal_len(p));
	/* the canonical layout is never longer, only gaps can be dropped */
	FUZZ_ASSERT((size_t)olen <= len);
	FUZZ_ASSERT(asmc_clc_proposal_parse(out, olen, &q) == 0);
	FUZZ_ASSERT(prop_eq(p, &q));
	olen2 = asmc_clc_proposal_build(out2, sizeof(out2), &q);
	FUZZ_ASSERT(olen2 == olen && !memcmp(out, out2, olen));
	FUZZ_ASSERT(asmc_clc_proposal_build(out2, olen - 1, &q) == -ENOSPC);
	FUZZ_ASSERT(asmc_clc_proposal_parse(out2, olen, &r) == 0);
}

static void accept_round_trip(const struct asmc_clc_accept *a, size_t len)
{
	struct asmc_clc_accept b;
	u8 out[ASMC_CLC_MAX_LEN], out2[ASMC_CLC_MAX_LEN];
	int olen;

	if (a->smcd) {
		FUZZ_ASSERT(asmc_clc_accept_build(out, sizeof(out), a) ==
			    -EINVAL);
		return;
	}
	olen = asmc_clc_accept_build(out, sizeof(out), a);
	FUZZ_ASSERT(olen > 0 && (size_t)olen <= len);
	FUZZ_ASSERT(asmc_clc_accept_parse(out, olen, &b) == 0);
	FUZZ_ASSERT(acc_eq(a, &b));
	FUZZ_ASSERT(asmc_clc_accept_build(out2, sizeof(out2), &b) == olen &&
		    !memcmp(out, out2, olen));
}

static void decline_round_trip(const struct asmc_clc_decline *d)
{
	struct asmc_clc_decline e;
	u8 out[ASMC_CLC_DECL_LEN_V2];
	size_t olen;

	olen = asmc_clc_decline_build(out, sizeof(out), d->peer_id, d->reason,
				      d->version, d->out_of_sync);
	FUZZ_ASSERT(olen == (d->version >= 2 ? ASMC_CLC_DECL_LEN_V2 :
					       ASMC_CLC_DECL_LEN_V1));
	FUZZ_ASSERT(asmc_clc_decline_parse(out, olen, &e) == 0);
	/* the builder writes version 1 or 2 and our own OS type */
	FUZZ_ASSERT(e.version == (d->version >= 2 ? 2 : 1) &&
		    e.out_of_sync == d->out_of_sync &&
		    e.reason == d->reason &&
		    !memcmp(e.peer_id, d->peer_id, 8) &&
		    e.os_type == (d->version >= 2 ? ASMC_OS_LINUX : 0));
}

/* The server's v1 prefix check reads the parsed IP area (the IPv6
 * entries inside the message): it must stay in bounds, and a device
 * holding exactly the proposed IPv4 subnet must match.
 */
static void prefix_check(const struct asmc_clc_proposal *p)
{
	struct asmc_clc_prefix dev[2] = {
		{ .addr = { [10] = 0xff, [11] = 0xff }, .v4 = true },
		{ .addr = { 0x20, 0x01, 0x0d, 0xb8 }, .len = 64 },
	};

	if (p->v1_path == ASMC_PATH_NONE)
		return;
	(void)asmc_clc_prefix_match(p, dev, 2);
	if (p->n_ipv6)
		return;
	put_unaligned_be32(p->ipv4_subnet, dev[0].addr + 12);
	dev[0].len = p->ipv4_prefix_len;
	FUZZ_ASSERT(asmc_clc_prefix_match(p, dev, 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct asmc_clc_proposal p;
	struct asmc_clc_accept a;
	struct asmc_clc_decline d;
	struct asmc_clc_hdr hdr;
	int rp, ra, rd, ok = 0;
	size_t len = size;
	u8 *msg;

	/* like clc.c: the header decides how many bytes make the message */
	if (asmc_clc_hdr_parse(data, size, &hdr) == 0 && hdr.length <= size)
		len = hdr.length;
	msg = fuzz_copy(data, len);
	(void)asmc_clc_trailer_ok(msg, len);

	rp = asmc_clc_proposal_parse(msg, len, &p);
	ra = asmc_clc_accept_parse(msg, len, &a);
	rd = asmc_clc_decline_parse(msg, len, &d);
	FUZZ_ASSERT(rp == 0 || rp == -EPROTO);
	FUZZ_ASSERT(ra == 0 || ra == -EPROTO);
	FUZZ_ASSERT(rd == 0 || rd == -EPROTO);
	if (rp == 0) {
		ok++;
		FUZZ_ASSERT(hdr.type == ASMC_CLC_PROPOSAL && hdr.length == len &&
			    len <= ASMC_CLC_PROP_MAX);
		proposal_round_trip(&p, len);
		prefix_check(&p);
	}
	if (ra == 0) {
		ok++;
		FUZZ_ASSERT(hdr.type == a.type && hdr.length == len &&
			    asmc_clc_trailer_ok(msg, len));
		accept_round_trip(&a, len);
	}
	if (rd == 0) {
		ok++;
		FUZZ_ASSERT(hdr.type == ASMC_CLC_DECLINE);
		decline_round_trip(&d);
	}
	FUZZ_ASSERT(ok <= 1);
	free(msg);
	return 0;
}
