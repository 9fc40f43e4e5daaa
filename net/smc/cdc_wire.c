// SPDX-License-Identifier: GPL-2.0
/* CDC wire codec and cursor arithmetic: decodes and encodes the 44-byte CDC
 * message, computes distances, advances and free space in an RMBE ring, and
 * decides how much a push claims and when a send pushes.
 */
#include "cdc_wire.h"

#define CDC_SEQNO	2
#define CDC_TOKEN	4
#define CDC_PROD	10	/* wrap (2) + count (4) */
#define CDC_CONS	18
#define CDC_PROD_FLAGS	24
#define CDC_CONN_FLAGS	25

static struct asmc_cursor get_cursor(const u8 *p)
{
	struct asmc_cursor c = {
		.wrap = get_unaligned_be16(p),
		.count = get_unaligned_be32(p + 2),
	};

	return c;
}

static void put_cursor(struct asmc_cursor c, u8 *p)
{
	put_unaligned_be16(c.wrap, p);
	put_unaligned_be32(c.count, p + 2);
}

/* Decode a CDC. Cursors are not checked against the RMBE size here: the
 * caller does that with asmc_cursor_valid(), it knows the size.
 */
int asmc_cdc_parse(const u8 *buf, size_t len, struct asmc_cdc_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len < ASMC_CDC_LEN || buf[0] != ASMC_CDC_TYPE ||
	    buf[1] != ASMC_CDC_LEN)
		return -EPROTO;
	m->seqno = get_unaligned_be16(buf + CDC_SEQNO);
	m->token = get_unaligned_be32(buf + CDC_TOKEN);
	m->prod = get_cursor(buf + CDC_PROD);
	m->cons = get_cursor(buf + CDC_CONS);
	m->prod_flags = buf[CDC_PROD_FLAGS];
	m->conn_flags = buf[CDC_CONN_FLAGS];
	return 0;
}

int asmc_cdc_build(u8 *buf, size_t size, const struct asmc_cdc_msg *m)
{
	if (size < ASMC_CDC_LEN)
		return -ENOSPC;
	memset(buf, 0, ASMC_CDC_LEN);
	buf[0] = ASMC_CDC_TYPE;
	buf[1] = ASMC_CDC_LEN;
	put_unaligned_be16(m->seqno, buf + CDC_SEQNO);
	put_unaligned_be32(m->token, buf + CDC_TOKEN);
	put_cursor(m->prod, buf + CDC_PROD);
	put_cursor(m->cons, buf + CDC_CONS);
	buf[CDC_PROD_FLAGS] = m->prod_flags;
	buf[CDC_CONN_FLAGS] = m->conn_flags;
	return ASMC_CDC_LEN;
}

/* Bytes from @from to @to in a ring of @size (SMC-WIRE 8.1): the count
 * difference within one wrap, else (size - from.count) + to.count for the
 * next wrap, so equal counts one wrap apart are a full ring, and whole
 * rings more for each further wrap (up to 0xffffffff): a peer's cursor
 * that jumps wraps is an overrun, not one ring. A cursor behind @from in
 * the same wrap gives 0. Check asmc_cursor_backwards() first for received
 * cursors; a result above @size means the peer overran the ring.
 */
u32 asmc_cursor_dist(struct asmc_cursor from, struct asmc_cursor to,
		     u32 size)
{
	u64 d;

	if (from.wrap == to.wrap)
		return to.count > from.count ? to.count - from.count : 0;
	if (from.count > size)
		return to.count;	/* invalid @from: never underflow */
	d = (u64)(u16)(to.wrap - from.wrap) * size - from.count + to.count;
	return d > 0xffffffffu ? 0xffffffffu : (u32)d;
}

/* @c advanced by @bytes in a ring of @size; wrap rolls over at 65535. */
struct asmc_cursor asmc_cursor_add(struct asmc_cursor c, u32 bytes, u32 size)
{
	u64 pos;

	if (!size)
		return c;
	pos = (u64)c.count + bytes;
	c.wrap += (u16)(pos / size);
	c.count = (u32)(pos % size);
	return c;
}

/* Linux's rule for ignoring a received cursor (SMC-WIRE 8.1): same wrap
 * and a smaller count, or a smaller wrap other than 0 (0 after 65535 is
 * the roll-over, so any move to wrap 0 counts as forward).
 */
bool asmc_cursor_backwards(struct asmc_cursor prev, struct asmc_cursor next)
{
	if (next.wrap == prev.wrap)
		return next.count < prev.count;
	return next.wrap < prev.wrap && next.wrap != 0;
}

/* @next is a real advance over @prev: different and not backwards. */
bool asmc_cursor_newer(struct asmc_cursor prev, struct asmc_cursor next)
{
	return !asmc_cursor_equal(prev, next) &&
	       !asmc_cursor_backwards(prev, next);
}

/* Free bytes in the peer's ring of @size: @size minus what lies between the
 * peer's last reported consumer cursor @cons and our producer cursor @prod
 * (0 when the ring is full or the cursors are inconsistent).
 */
u32 asmc_cursor_free(struct asmc_cursor cons, struct asmc_cursor prod,
		     u32 size)
{
	u32 used = asmc_cursor_dist(cons, prod, size);

	return used < size ? size - used : 0;
}

u64 asmc_tx_claim(u64 waiting, u64 peer_free, u64 to_urg, u32 peer_rmbe,
		  u32 split)
{
	u64 len = waiting < peer_free ? waiting : peer_free;
	u32 part = split ? peer_rmbe / split : peer_rmbe;

	if (to_urg && to_urg < len)
		len = to_urg;
	if (part < ASMC_TX_CLAIM_MIN)
		part = ASMC_TX_CLAIM_MIN;
	return len < part ? len : part;
}

enum asmc_tx_act asmc_tx_policy(u64 waiting, u64 len, u64 space,
				u32 sndbuf_size, u32 autocork, bool corked)
{
	u64 limit = sndbuf_size / 2;

	if (autocork && autocork < limit)
		limit = autocork;
	if (waiting >= limit)
		return ASMC_TX_GO;
	if (corked)
		return ASMC_TX_HOLD;
	if (len >= limit || !space || !autocork)
		return ASMC_TX_GO;
	return ASMC_TX_CORK;
}

bool asmc_sndbuf_should_grow(u32 size, u32 want, bool outgrown, bool idle,
			     u64 left, u64 space)
{
	return size < want && idle && (outgrown || left > space);
}

bool asmc_sndbuf_writable(bool outgrown, bool idle, u64 space)
{
	if (outgrown && !idle)
		return false;
	return space != 0;
}

bool asmc_cdc_update_due(u64 prod, u64 cons, u64 cons_sent, u32 size,
			 u8 peer_flags)
{
	u64 unreported = cons - cons_sent;
	u64 believed_used = prod - cons_sent;
	u32 step = size / 10 > 2048 ? size / 10 : 2048;

	if (!unreported)
		return false;
	if (peer_flags & (ASMC_CDC_WRITE_BLOCKED | ASMC_CDC_CONS_UPD_REQ))
		return true;
	return unreported >= step && believed_used * 2 >= size;
}
