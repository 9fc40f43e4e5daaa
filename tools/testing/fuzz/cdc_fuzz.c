// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the CDC decoder and the cursor arithmetic: parsed
 * CDCs round-trip, and cursors taken from them obey the ring invariants.
 */
#include "fuzz_eq.h"

static void cursor_props(const struct asmc_cdc_msg *m, const u8 *raw)
{
	u32 size = 16384u << (raw[26] % 6);	/* 16 KiB .. 512 KiB */
	struct asmc_cursor a = m->cons, b, c;
	u32 s, d;

	/* arbitrary wire cursors: must not fault, results stay bounded */
	d = asmc_cursor_dist(m->cons, m->prod, size);
	FUZZ_ASSERT(asmc_cursor_free(m->cons, m->prod, size) <= size);
	/* between valid cursors the distance exceeds the ring exactly when
	 * the second is more than one ring ahead (an overrun): one wrap
	 * later and not past the first's count, or the same wrap, is not
	 */
	if (asmc_cursor_valid(m->cons, size) &&
	    asmc_cursor_valid(m->prod, size)) {
		u16 dw = m->prod.wrap - m->cons.wrap;

		FUZZ_ASSERT((d <= size) ==
			    (!dw || (dw == 1 && m->prod.count <= m->cons.count)));
		FUZZ_ASSERT(dw > 1 || d < 2 * size);
	}
	(void)asmc_cursor_backwards(m->cons, m->prod);
	(void)asmc_cursor_newer(m->cons, m->prod);

	/* a valid cursor advanced by 0..size bytes */
	a.count %= size;
	s = m->prod.count % (size + 1);
	b = asmc_cursor_add(a, s, size);
	FUZZ_ASSERT(asmc_cursor_valid(b, size));
	FUZZ_ASSERT(asmc_cursor_dist(a, b, size) == s);
	FUZZ_ASSERT(asmc_cursor_free(a, b, size) == size - s);
	FUZZ_ASSERT(!asmc_cursor_backwards(a, b));
	FUZZ_ASSERT(asmc_cursor_newer(a, b) == (s != 0));
	FUZZ_ASSERT(asmc_cursor_to_end(a, size) >= 1);
	FUZZ_ASSERT((b.wrap == a.wrap) == (s < asmc_cursor_to_end(a, size)));
	/* advancing in two steps is advancing once */
	c = asmc_cursor_add(asmc_cursor_add(a, s / 3, size), s - s / 3, size);
	FUZZ_ASSERT(asmc_cursor_equal(b, c));
	FUZZ_ASSERT(asmc_cursor_equal(asmc_cursor_from_u64(
					asmc_cursor_to_u64(b)), b));

	/* serial numbers: antisymmetric except half a circle apart */
	if ((u16)(m->seqno - (u16)m->token) != 0x8000)
		FUZZ_ASSERT(asmc_seq_before(m->seqno, (u16)m->token) ==
			    asmc_seq_after((u16)m->token, m->seqno));
	FUZZ_ASSERT(!(asmc_seq_before(m->seqno, (u16)m->token) &&
		      asmc_seq_after(m->seqno, (u16)m->token)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct asmc_cdc_msg m, n;
	u8 out[ASMC_CDC_LEN], out2[ASMC_CDC_LEN];
	u8 *msg = fuzz_copy(data, size);
	int rc;

	rc = asmc_cdc_parse(msg, size, &m);
	FUZZ_ASSERT(rc == 0 || rc == -EPROTO);
	if (rc == 0) {
		FUZZ_ASSERT(size >= ASMC_CDC_LEN && asmc_cdc_is_cdc(msg, size));
		FUZZ_ASSERT(asmc_cdc_build(out, sizeof(out), &m) == ASMC_CDC_LEN);
		/* every non-reserved byte comes back */
		FUZZ_ASSERT(!memcmp(out, msg, 8) && !memcmp(out + 10, msg + 10, 6) &&
			    !memcmp(out + 18, msg + 18, 8));
		FUZZ_ASSERT(asmc_cdc_parse(out, sizeof(out), &n) == 0);
		FUZZ_ASSERT(cdc_eq(&m, &n));
		FUZZ_ASSERT(asmc_cdc_build(out2, sizeof(out2), &n) == ASMC_CDC_LEN &&
			    !memcmp(out, out2, ASMC_CDC_LEN));
		cursor_props(&m, msg);
	}
	free(msg);
	return 0;
}
