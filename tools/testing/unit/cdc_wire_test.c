// SPDX-License-Identifier: GPL-2.0
/* Tests of the CDC codec and cursor arithmetic (net/smc/cdc_wire.c): layout
 * of SMC-WIRE 8, ring edge cases of 8.1. KUnit suite smc_cdc_wire, or a
 * userspace TAP program (wire_test_shim.h).
 */
#include "../../../net/smc/cdc_wire.h"
#include "wire_test_shim.h"

static const u8 cdc_ref[44] = {
	0xFE, 0x2C, 0x00, 0x01,			/* type, length, seqno 1 */
	0x00, 0x00, 0x00, 0x2A,			/* token */
	0x00, 0x00,
	0x00, 0x03, 0x00, 0x00, 0x10, 0x00,	/* producer (3, 4096) */
	0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0xF0, 0x00,	/* consumer (2, 61440) */
	0xA0,					/* write blocked, urgent */
	0x40,					/* closed */
};

static struct asmc_cursor cur(u16 wrap, u32 count)
{
	struct asmc_cursor c = { .wrap = wrap, .count = count };

	return c;
}

static void test_codec(struct kunit *test)
{
	struct asmc_cdc_msg m, p;
	u8 buf[64];
	int len, i, bad;

	memset(&m, 0, sizeof(m));
	m.seqno = 1;
	m.token = 42;
	m.prod = cur(3, 4096);
	m.cons = cur(2, 0xF000);
	m.prod_flags = ASMC_CDC_WRITE_BLOCKED | ASMC_CDC_URG_PRESENT;
	m.conn_flags = ASMC_CDC_PEER_CONN_CLOSED;
	memset(buf, 0xEE, sizeof(buf));
	len = asmc_cdc_build(buf, sizeof(buf), &m);
	CHECK(len == 44 && !memcmp(buf, cdc_ref, 44) && buf[44] == 0xEE,
	      "CDC builds byte-exact, 44 bytes, nothing written past them");
	CHECK(asmc_cdc_parse(cdc_ref, 44, &p) == 0 && p.seqno == 1 &&
	      p.token == 42 && asmc_cursor_equal(p.prod, m.prod) &&
	      asmc_cursor_equal(p.cons, m.cons) && p.prod_flags == 0xA0 &&
	      p.conn_flags == 0x40, "CDC parses to its fields");
	CHECK(asmc_cdc_is_cdc(cdc_ref, 44) && !asmc_cdc_is_cdc(cdc_ref, 0),
	      "CDC is recognised by byte 0");
	CHECK(asmc_cdc_parse(cdc_ref, 43, &p) == -EPROTO,
	      "CDC of 43 bytes is refused");
	memcpy(buf, cdc_ref, 44);
	buf[1] = 45;
	CHECK(asmc_cdc_parse(buf, 48, &p) == -EPROTO,
	      "CDC with length byte 45 is refused");
	buf[1] = 44;
	buf[0] = 0x27;
	CHECK(asmc_cdc_parse(buf, 44, &p) == -EPROTO && !asmc_cdc_is_cdc(buf, 44),
	      "an LLC TEST_LINK is not a CDC");
	CHECK(asmc_cdc_build(buf, 43, &m) == -ENOSPC,
	      "CDC build into 43 bytes is -ENOSPC");
	m.prod = cur(0xFFFF, 0xFFFFFFFF);
	m.cons = cur(0x8001, 0x80000001);
	m.seqno = 0xFFFF;
	m.token = 0xFFFFFFFF;
	asmc_cdc_build(buf, sizeof(buf), &m);
	CHECK(asmc_cdc_parse(buf, 44, &p) == 0 && p.seqno == 0xFFFF &&
	      p.token == 0xFFFFFFFF && p.prod.wrap == 0xFFFF &&
	      p.prod.count == 0xFFFFFFFF && p.cons.wrap == 0x8001 &&
	      p.cons.count == 0x80000001, "CDC extreme values round trip");
	bad = 0;
	for (i = 2; i < 44; i++) {
		u8 t[44], out[44];
		int j;

		memcpy(t, cdc_ref, 44);
		t[i] ^= 0xFF;
		if (asmc_cdc_parse(t, 44, &p) || asmc_cdc_build(out, 44, &p) != 44) {
			bad++;
			continue;
		}
		for (j = 0; j < 44; j++) {
			bool rsvd = j >= 26 || (j >= 8 && j < 10) ||
				    (j >= 16 && j < 18);

			bad += out[j] != (rsvd ? 0 : t[j]);
		}
	}
	CHECK(bad == 0, "CDC: any byte after the length parses and rebuilds, reserved bytes as 0");
}

static void test_cursors(struct kunit *test)
{
	u32 size, step;
	int c, bad;
	struct asmc_cursor a, b;

	/* every SMC-R RMBE size 16 KiB .. 512 KiB */
	for (c = 0; c <= 5; c++) {
		size = 16384u << c;
		a = asmc_cursor_add(cur(7, size - 1), 1, size);
		CHECK(a.wrap == 8 && a.count == 0,
		      "%u: adding to exactly the end wraps to (w+1, 0)", size);
		a = asmc_cursor_add(cur(7, 100), size, size);
		CHECK(a.wrap == 8 && a.count == 100 &&
		      asmc_cursor_dist(cur(7, 100), a, size) == size &&
		      asmc_cursor_free(cur(7, 100), a, size) == 0,
		      "%u: a full ring is equal counts one wrap apart, no free space",
		      size);
		CHECK(asmc_cursor_free(cur(7, 100), cur(7, 100), size) == size &&
		      asmc_cursor_dist(cur(7, 100), cur(7, 100), size) == 0,
		      "%u: an empty ring has all of it free", size);
		CHECK(asmc_cursor_dist(cur(1, size - 10), cur(2, 20), size) == 30 &&
		      asmc_cursor_free(cur(1, size - 10), cur(2, 20), size) ==
		      size - 30, "%u: distance across the wrap", size);
		a = asmc_cursor_add(cur(0xFFFF, size - 5), 10, size);
		CHECK(a.wrap == 0 && a.count == 5 &&
		      asmc_cursor_dist(cur(0xFFFF, size - 5), a, size) == 10 &&
		      !asmc_cursor_backwards(cur(0xFFFF, size - 5), a) &&
		      asmc_cursor_newer(cur(0xFFFF, size - 5), a),
		      "%u: wrap 65535 rolls over to 0 and still moves forward",
		      size);
		CHECK(asmc_cursor_to_end(cur(3, size - 1), size) == 1 &&
		      asmc_cursor_to_end(cur(3, 0), size) == size &&
		      asmc_cursor_to_end(cur(3, size), size) == 0,
		      "%u: bytes to the end of the ring", size);
		CHECK(asmc_cursor_valid(cur(0, size - 1), size) &&
		      !asmc_cursor_valid(cur(0, size), size),
		      "%u: count must stay below the size", size);
		/* walk the ring in odd steps over several wraps */
		bad = 0;
		a = cur(0xFFFE, 0);
		for (step = 1; step < 3 * size; step = step * 3 + 7) {
			u32 s = step % (size + 1);

			b = asmc_cursor_add(a, s, size);
			if (asmc_cursor_dist(a, b, size) != s ||
			    asmc_cursor_backwards(a, b) ||
			    asmc_cursor_free(a, b, size) != size - s ||
			    !asmc_cursor_valid(b, size) ||
			    (s && !asmc_cursor_newer(a, b)))
				bad++;
			a = b;
		}
		CHECK(bad == 0, "%u: stepping by 0..size keeps dist/free/newer consistent",
		      size);
	}

	size = 65536;
	a = asmc_cursor_add(cur(1, 10), 3 * size + 5, size);
	CHECK(a.wrap == 4 && a.count == 15, "adding 3 rings + 5 bytes adds 3 wraps");
	a = asmc_cursor_add(cur(1, 10), 1000, 0);
	CHECK(a.wrap == 1 && a.count == 10, "adding with size 0 leaves the cursor");
	a = asmc_cursor_add(cur(0, 0), 0xFFFFFFFFu, 16384);
	CHECK(a.wrap == ((0xFFFFFFFFu / 16384) & 0xFFFF) && a.count == 16383,
	      "adding 4 GiB - 1 in a 16 KiB ring wraps the counter modulo 2^16");

	CHECK(asmc_cursor_backwards(cur(5, 100), cur(5, 99)) &&
	      !asmc_cursor_newer(cur(5, 100), cur(5, 99)),
	      "same wrap, smaller count moves backwards");
	CHECK(asmc_cursor_backwards(cur(5, 100), cur(4, 200)),
	      "smaller non-zero wrap moves backwards");
	CHECK(!asmc_cursor_backwards(cur(5, 100), cur(0, 5)),
	      "wrap 0 is never backwards (Linux's roll-over rule)");
	CHECK(!asmc_cursor_backwards(cur(5, 100), cur(5, 100)) &&
	      !asmc_cursor_newer(cur(5, 100), cur(5, 100)),
	      "an equal cursor is neither backwards nor newer");
	CHECK(asmc_cursor_newer(cur(5, 100), cur(5, 101)) &&
	      asmc_cursor_newer(cur(5, 100), cur(6, 0)),
	      "a larger count or wrap is newer");
	CHECK(asmc_cursor_dist(cur(5, 100), cur(5, 50), size) == 0,
	      "distance to a cursor behind in the same wrap is 0");
	CHECK(asmc_cursor_dist(cur(5, 100), cur(6, 200), size) == size + 100 &&
	      asmc_cursor_free(cur(5, 100), cur(6, 200), size) == 0,
	      "an overrun (more than a ring) gives dist > size and no free space");
	CHECK(asmc_cursor_dist(cur(5, size + 7), cur(6, 3), size) == 3,
	      "an invalid 'from' count never underflows");
	CHECK(asmc_cursor_dist(cur(5, 100), cur(7, 50), size) ==
	      2 * size - 50 &&
	      asmc_cursor_dist(cur(5, size - 1), cur(7, 0), size) == size + 1 &&
	      asmc_cursor_free(cur(5, 100), cur(7, 50), size) == 0,
	      "a jump of two wraps is more than a ring, however the counts lie");
	CHECK(asmc_cursor_dist(cur(5, 100), cur(0, 5), size) > size &&
	      asmc_cursor_dist(cur(5, 100), cur(4, 5), 1u << 20) ==
	      0xffffffffu &&
	      asmc_cursor_dist(cur(0xFFFE, 10), cur(0, 5), size) ==
	      2 * size - 5,
	      "a move to wrap 0 other than the roll-over is far more than a ring");

	a = cur(0xBEEF, 0x12345678);
	CHECK(asmc_cursor_to_u64(a) == 0xBEEF12345678ull &&
	      asmc_cursor_equal(asmc_cursor_from_u64(asmc_cursor_to_u64(a)), a),
	      "cursor packs into a u64 and back");
}

static void test_seq(struct kunit *test)
{
	CHECK(asmc_seq_before(1, 2) && !asmc_seq_after(1, 2) &&
	      asmc_seq_after(2, 1), "seq 1 is before 2");
	CHECK(asmc_seq_before(0xFFFF, 0) && asmc_seq_after(0, 0xFFFF),
	      "seq 65535 is before 0 (wrap)");
	CHECK(asmc_seq_before(0xFFF0, 0x0010) && asmc_seq_after(0x7FFF, 0),
	      "seq comparison across the wrap and up to half the circle");
	CHECK(!asmc_seq_before(7, 7) && !asmc_seq_after(7, 7),
	      "equal seqs are neither before nor after");
	CHECK(asmc_seq_before(0x8000, 0) && asmc_seq_before(0, 0x8000) &&
	      !asmc_seq_after(0x8000, 0),
	      "a distance of exactly 0x8000 counts as older both ways");
}

static void test_claim(struct kunit *test)
{
	const u32 k = 1024;

	CHECK(asmc_tx_claim(900 * k, 512 * k, 0, 512 * k, 8) == 64 * k,
	      "a full 512 KiB window goes in eighths");
	CHECK(asmc_tx_claim(900 * k, 1024 * k, 0, 1024 * k, 8) == 128 * k,
	      "a full 1 MiB window goes in eighths");
	CHECK(asmc_tx_claim(100 * k, 64 * k, 0, 64 * k, 8) == 64 * k &&
	      asmc_tx_claim(200 * k, 128 * k, 0, 128 * k, 8) ==
	      ASMC_TX_CLAIM_MIN,
	      "small windows: parts never below ASMC_TX_CLAIM_MIN");
	CHECK(asmc_tx_claim(900 * k, 10 * k, 0, 512 * k, 8) == 10 * k,
	      "no more than the peer has room for");
	CHECK(asmc_tx_claim(5 * k, 512 * k, 0, 512 * k, 8) == 5 * k,
	      "no more than is waiting");
	CHECK(asmc_tx_claim(900 * k, 512 * k, 7, 512 * k, 8) == 7,
	      "not past the urgent byte");
	CHECK(asmc_tx_claim(900 * k, 512 * k, 0, 512 * k, 1) == 512 * k &&
	      asmc_tx_claim(900 * k, 512 * k, 0, 512 * k, 0) == 512 * k,
	      "split 1 or 0: the whole window at once");
	CHECK(asmc_tx_claim(0, 64 * k, 0, 64 * k, 8) == 0 &&
	      asmc_tx_claim(64 * k, 0, 0, 64 * k, 8) == 0,
	      "nothing waiting or no room: nothing claimed");
	CHECK(asmc_tx_claim(~0ull, ~0ull, 0, 1u << 31, 8) == 1u << 28,
	      "huge totals do not overflow");
}

static void test_policy(struct kunit *test)
{
	const u32 k = 1024, buf = 64 * k, ac = 64 * k;

	CHECK(asmc_tx_policy(64, 64, buf - 64, buf, ac, false) == ASMC_TX_CORK,
	      "a small write is corked (pushed unless a CDC is in flight)");
	CHECK(asmc_tx_policy(64, 64, buf - 64, buf, 0, false) == ASMC_TX_GO,
	      "autocorking_size 0: a small write goes at once");
	CHECK(asmc_tx_policy(32 * k, 32 * k, 32 * k, buf, ac, false) ==
	      ASMC_TX_GO &&
	      asmc_tx_policy(100, 32 * k, 32 * k, buf, ac, false) == ASMC_TX_GO,
	      "a write of half the buffer goes at once, however much waits");
	CHECK(asmc_tx_policy(4 * k, 4 * k, 0, buf, ac, false) == ASMC_TX_GO,
	      "a write that filled the send buffer goes at once");
	CHECK(asmc_tx_policy(20 * k, 64, 40 * k, buf, ac, false) ==
	      ASMC_TX_CORK &&
	      asmc_tx_policy(20 * k, 64, 40 * k, buf, 16 * k, false) ==
	      ASMC_TX_GO,
	      "the corking limit is min(autocorking_size, half the buffer)");
	CHECK(asmc_tx_policy(64, 64, buf - 64, buf, ac, true) == ASMC_TX_HOLD &&
	      asmc_tx_policy(4 * k, 4 * k, 0, buf, ac, true) == ASMC_TX_HOLD &&
	      asmc_tx_policy(64, 64, buf - 64, buf, 0, true) == ASMC_TX_HOLD,
	      "MSG_MORE/TCP_CORK hold data, even a full buffer's small rest");
	CHECK(asmc_tx_policy(32 * k, 64, 32 * k, buf, ac, true) == ASMC_TX_GO,
	      "... until half the buffer waits");
}

static void test_sndbuf_grow(struct kunit *test)
{
	const u32 k = 1024, first = 16 * k, want = 256 * k;

	CHECK(asmc_sndbuf_outgrown(first, want) &&
	      !asmc_sndbuf_outgrown(want, want) &&
	      !asmc_sndbuf_outgrown(first, first),
	      "only a buffer below the wanted size can be outgrown");
	CHECK(!asmc_sndbuf_should_grow(first, want, false, true, 4 * k,
				       first),
	      "a write that fits an empty small buffer keeps it");
	CHECK(asmc_sndbuf_should_grow(first, want, false, true, 50 * k, first),
	      "a write that does not fit an empty small buffer grows it");
	CHECK(asmc_sndbuf_should_grow(first, want, true, true, 1, first),
	      "an outgrown buffer grows at the next write once empty");
	CHECK(!asmc_sndbuf_should_grow(first, want, true, false, 50 * k, 0) &&
	      !asmc_sndbuf_should_grow(first, want, false, false, 50 * k,
				       4 * k),
	      "never while bytes of it are in flight");
	CHECK(!asmc_sndbuf_should_grow(want, want, true, true, 1024 * k,
				       want) &&
	      !asmc_sndbuf_should_grow(first, first, true, true, 1024 * k,
				       first),
	      "a buffer of the wanted size (or a want cut to it) stays");
	CHECK(asmc_sndbuf_writable(false, false, 1) &&
	      !asmc_sndbuf_writable(false, true, 0) &&
	      !asmc_sndbuf_writable(false, false, 0),
	      "not outgrown: writable when there is room");
	CHECK(!asmc_sndbuf_writable(true, false, 12 * k) &&
	      asmc_sndbuf_writable(true, true, first),
	      "outgrown: writable only once empty, room or not");
}

static void test_update_due(struct kunit *test)
{
	const u64 k = 1024, base = 5ull << 32;	/* totals far past 4 GiB */
	const u32 size = 64 * k, big = 1024 * k;
	const u8 wb = ASMC_CDC_WRITE_BLOCKED, req = ASMC_CDC_CONS_UPD_REQ;

	CHECK(!asmc_cdc_update_due(base + size, base, base, size, wb) &&
	      !asmc_cdc_update_due(base + size, base, base, size, req) &&
	      !asmc_cdc_update_due(base, base, base, size, 0),
	      "nothing read since the last report: nothing owed, flags or not");
	CHECK(asmc_cdc_update_due(base + size, base + 1, base, size, wb) &&
	      asmc_cdc_update_due(base + 100, base + 1, base, size, req),
	      "the peer blocked or asking: any unreported byte is owed");
	CHECK(!asmc_cdc_update_due(base + size, base + 6 * k, base, size, 0),
	      "a full ring, 6 KiB read: below a tenth, not yet");
	CHECK(asmc_cdc_update_due(base + size, base + 7 * k, base, size, 0),
	      "a full ring, 7 KiB read: a tenth of 64 KiB");
	CHECK(!asmc_cdc_update_due(base + 31 * k, base + 31 * k, base, size,
				   0),
	      "all read, but the peer believes the ring less than half full");
	CHECK(asmc_cdc_update_due(base + 32 * k, base + 7 * k, base, size, 0),
	      "the peer believes it exactly half full: owed");
	CHECK(!asmc_cdc_update_due(base + 16 * k, base + 2047, base, 16 * k,
				   0) &&
	      asmc_cdc_update_due(base + 16 * k, base + 2 * k, base, 16 * k,
				  0),
	      "a small ring: at least 2 KiB");
	CHECK(!asmc_cdc_update_due(base + big, base + 100 * k, base, big, 0) &&
	      asmc_cdc_update_due(base + big, base + 103 * k, base, big, 0),
	      "1 MiB ring: a tenth is 104,857 bytes");
	CHECK(!asmc_cdc_update_due(base + size, base + 6 * k, base, size,
				   (u8)~(wb | req)),
	      "other producer flags do not make it owed");
}

static void test_failover_resend(struct kunit *test)
{
	const u64 k = 1024, base = 7ull << 32;	/* totals far past 4 GiB */

	CHECK(asmc_failover_resend_from(base + 10 * k, base + 4 * k,
					base + 64 * k) == base + 10 * k,
	      "from the last completed CDC when the peer consumed less");
	CHECK(asmc_failover_resend_from(base + 10 * k, base + 40 * k,
					base + 64 * k) == base + 40 * k,
	      "from what the peer consumed when its completion is still due");
	CHECK(asmc_failover_resend_from(base + 64 * k, base + 64 * k,
					base + 64 * k) == base + 64 * k,
	      "everything completed: nothing goes again");
	CHECK(asmc_failover_resend_from(base + 70 * k, base, base + 64 * k) ==
	      base + 64 * k,
	      "never ahead of what was posted");
	CHECK(asmc_failover_resend_from(0, 0, 0) == 0,
	      "a connection that sent nothing");
}

static struct kunit_case cdc_wire_cases[] = {
	KUNIT_CASE(test_codec),
	KUNIT_CASE(test_cursors),
	KUNIT_CASE(test_seq),
	KUNIT_CASE(test_claim),
	KUNIT_CASE(test_policy),
	KUNIT_CASE(test_sndbuf_grow),
	KUNIT_CASE(test_update_due),
	KUNIT_CASE(test_failover_resend),
	{}
};
WIRE_TEST_SUITE(cdc_wire, cdc_wire_cases);
