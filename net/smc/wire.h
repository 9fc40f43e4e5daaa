/* SPDX-License-Identifier: GPL-2.0 */
/* Shared base of the pure code (wire codecs, keepalive decision): fixed-
 * width types and unaligned BE/LE access, in the kernel and in userspace.
 */
#ifndef ASMC_WIRE_H
#define ASMC_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include "compat.h"	/* get/put_unaligned_*() from this kernel's header */
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline u64 get_unaligned_be64(const void *p)
{
	return (u64)get_unaligned_be32(p) << 32 |
	       get_unaligned_be32((const u8 *)p + 4);
}

static inline u16 get_unaligned_le16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[1] << 8 | b[0]);
}

static inline void put_unaligned_le16(u16 v, void *p)
{
	u8 *b = p;

	b[0] = v;
	b[1] = v >> 8;
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	put_unaligned_be32(v >> 32, p);
	put_unaligned_be32((u32)v, (u8 *)p + 4);
}
#endif /* __KERNEL__ */

/* 24-bit big-endian fields (QP numbers, PSNs). */
static inline u32 asmc_get_be24(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 16 | (u32)b[1] << 8 | b[2];
}

static inline void asmc_put_be24(u32 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 16;
	b[1] = v >> 8;
	b[2] = v;
}

#endif /* ASMC_WIRE_H */
