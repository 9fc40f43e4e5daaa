/* SPDX-License-Identifier: GPL-2.0 */
/* CDC (connection data control) message codec and pure cursor arithmetic:
 * plain values in, plain values out, so the data path needs no locks here.
 */
#ifndef ASMC_CDC_WIRE_H
#define ASMC_CDC_WIRE_H

#include "wire.h"

#define ASMC_CDC_TYPE		0xFE
#define ASMC_CDC_LEN		44

/* producer flags (byte 24) */
#define ASMC_CDC_WRITE_BLOCKED	0x80
#define ASMC_CDC_URG_PENDING	0x40
#define ASMC_CDC_URG_PRESENT	0x20
#define ASMC_CDC_CONS_UPD_REQ	0x10
#define ASMC_CDC_FAILOVER	0x08

/* connection-state flags (byte 25) */
#define ASMC_CDC_PEER_DONE_WRITING	0x80
#define ASMC_CDC_PEER_CONN_CLOSED	0x40
#define ASMC_CDC_PEER_CONN_ABORT	0x20

/* A position in an RMBE ring: count = offset (0 <= count < RMBE size),
 * wrap = how often count passed the end (16 bit, rolls over).
 */
struct asmc_cursor {
	u16 wrap;
	u32 count;
};

struct asmc_cdc_msg {
	u16 seqno;
	u32 token;		/* the receiver's alert token */
	struct asmc_cursor prod;
	struct asmc_cursor cons;
	u8 prod_flags;		/* ASMC_CDC_WRITE_BLOCKED ... (raw byte) */
	u8 conn_flags;		/* ASMC_CDC_PEER_* (raw byte) */
};

static inline bool asmc_cdc_is_cdc(const u8 *buf, size_t len)
{
	return len >= 1 && buf[0] == ASMC_CDC_TYPE;
}

/* 0 or -EPROTO (not type 0xFE with length 44, or fewer than 44 bytes) */
int asmc_cdc_parse(const u8 *buf, size_t len, struct asmc_cdc_msg *msg);
/* 44 or -ENOSPC; reserved bytes are zero */
int asmc_cdc_build(u8 *buf, size_t size, const struct asmc_cdc_msg *msg);

/* Cursor arithmetic. @size is the RMBE size in bytes (> 0); cursors taken
 * from the wire must pass asmc_cursor_valid() before they are used.
 */
static inline bool asmc_cursor_valid(struct asmc_cursor c, u32 size)
{
	return c.count < size;
}

/* The cursor packed into one u64 (wrap in bits 32..47) so it can live in
 * an atomic64_t or be compared for equality in one step.
 */
static inline u64 asmc_cursor_to_u64(struct asmc_cursor c)
{
	return (u64)c.wrap << 32 | c.count;
}

static inline struct asmc_cursor asmc_cursor_from_u64(u64 v)
{
	struct asmc_cursor c = { .wrap = (u16)(v >> 32), .count = (u32)v };

	return c;
}

static inline bool asmc_cursor_equal(struct asmc_cursor a,
				     struct asmc_cursor b)
{
	return a.wrap == b.wrap && a.count == b.count;
}

/* Bytes from @c to the end of the ring: the most one RDMA WRITE starting
 * at @c can take before the target range wraps to offset 0.
 */
static inline u32 asmc_cursor_to_end(struct asmc_cursor c, u32 size)
{
	return c.count < size ? size - c.count : 0;
}

u32 asmc_cursor_dist(struct asmc_cursor from, struct asmc_cursor to,
		     u32 size);
struct asmc_cursor asmc_cursor_add(struct asmc_cursor c, u32 bytes,
				   u32 size);
bool asmc_cursor_backwards(struct asmc_cursor prev, struct asmc_cursor next);
bool asmc_cursor_newer(struct asmc_cursor prev, struct asmc_cursor next);
u32 asmc_cursor_free(struct asmc_cursor cons, struct asmc_cursor prod,
		     u32 size);

/* Bytes the next push claims of @waiting: no more than the @peer_free room
 * of the peer's RMBE, not past the urgent byte (@to_urg bytes ahead, 0:
 * none), and at most 1/@split of the peer's @peer_rmbe bytes but never
 * less than ASMC_TX_CLAIM_MIN per CDC: in a large window the peer reads and
 * returns room for the first part while the rest is still on the way,
 * without a CDC for every few KiB.
 */
#define ASMC_TX_CLAIM_MIN	65536
#define ASMC_TX_SPLIT		8	/* the @split the send path uses */
u64 asmc_tx_claim(u64 waiting, u64 peer_free, u64 to_urg, u32 peer_rmbe,
		  u32 split);

/* What a send does after copying @len bytes (@waiting now unposted, @space
 * left in the send buffer of @sndbuf_size): ASMC_TX_GO pushes; ASMC_TX_HOLD
 * keeps the data (MSG_MORE/TCP_CORK, @corked) until half a buffer or
 * @autocork bytes wait; ASMC_TX_CORK pushes only if no CDC is in flight,
 * else the next completion does (autocorking of small writes; @autocork 0
 * turns it off). Writes of at least that limit, and writes that filled
 * the buffer, always go.
 */
enum asmc_tx_act { ASMC_TX_GO, ASMC_TX_HOLD, ASMC_TX_CORK };
enum asmc_tx_act asmc_tx_policy(u64 waiting, u64 len, u64 space,
				u32 sndbuf_size, u32 autocork, bool corked);

/* The send buffer starts small (ASMC_SNDBUF_FIRST) and grows to the size
 * the socket wants (@want) once writes outgrow it. @idle: no byte of the
 * buffer is in flight; @space: its free bytes.
 *
 * asmc_sndbuf_outgrown: a write found the buffer full or copied only part
 * of itself: it counts as outgrown only while it is below @want.
 * asmc_sndbuf_should_grow: swap it now, before copying @left more bytes?
 * Only when empty, and once outgrown or when @left does not fit.
 * asmc_sndbuf_writable: poll()'s view; an outgrown small buffer reads
 * writable only once empty, so writers of small pieces that never block
 * get it grown too.
 */
static inline bool asmc_sndbuf_outgrown(u32 size, u32 want)
{
	return size < want;
}

bool asmc_sndbuf_should_grow(u32 size, u32 want, bool outgrown, bool idle,
			     u64 left, u64 space);
bool asmc_sndbuf_writable(bool outgrown, bool idle, u64 space);

/* Is a consumer update owed to the peer? Byte totals of our RMBE: @prod
 * written by the peer, @cons read by the application, @cons_sent last
 * reported; @size the RMBE's size, @peer_flags the producer flags of the
 * peer's last CDC. Only when something is unreported: at once if the peer
 * says it is blocked or asks, else once a tenth of the ring (at least
 * 2 KiB) was read while the peer believes the ring at least half full.
 * (Receiver-side silly window avoidance: an update per small read would
 * draw a small write per update.)
 */
bool asmc_cdc_update_due(u64 prod, u64 cons, u64 cons_sent, u32 size,
			 u8 peer_flags);

/* After a failover to another link, the byte total posting restarts
 * from: what the old link may have lost goes again. The peer surely has
 * what a completed CDC announced (@done) and what it reported consumed
 * (@cons): going back further could overwrite, in its RMBE, data of a
 * later lap not yet read. Never ahead of what was posted (@posted).
 */
static inline u64 asmc_failover_resend_from(u64 done, u64 cons, u64 posted)
{
	u64 from = done > cons ? done : cons;

	return from < posted ? from : posted;
}

/* 16-bit serial number arithmetic for CDC sequence numbers: @a is older
 * than @b if it lies in the half of the number circle behind @b (a
 * distance of exactly 0x8000 counts as older).
 */
static inline bool asmc_seq_before(u16 a, u16 b)
{
	return a != b && ((u16)(a - b) & 0x8000);
}

static inline bool asmc_seq_after(u16 a, u16 b)
{
	return a != b && !asmc_seq_before(a, b);
}

#endif /* ASMC_CDC_WIRE_H */
