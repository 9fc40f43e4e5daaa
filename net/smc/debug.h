/* SPDX-License-Identifier: GPL-2.0 */
/* Debug support: created/destroyed counters for every object the module
 * allocates (so a test can prove all were freed) and the debugfs files.
 */
#ifndef ASMC_DEBUG_H
#define ASMC_DEBUG_H

#include <linux/atomic.h>
#include <linux/printk.h>
#include <linux/spinlock.h>

enum asmc_obj {
	ASMC_OBJ_SOCK,		/* struct asmc_sock */
	ASMC_OBJ_CLCSOCK,	/* internal TCP socket */
	ASMC_OBJ_WORK,		/* queued handshake/accept work items */
	ASMC_OBJ_IBDEV,		/* struct asmc_ibdev (lives while the device does) */
	ASMC_OBJ_LGR,		/* link group */
	ASMC_OBJ_LINK,		/* link: QP, CQs, control buffers */
	ASMC_OBJ_BUF,		/* RMB or send buffer */
	ASMC_OBJ_CONN,		/* SMC-R connection state of a socket */
	ASMC_OBJ_DEVREF,	/* a reference held on an asmc_ibdev */
	ASMC_OBJ_SLOT,		/* a left link's slot, held until its QP is gone */
	ASMC_OBJ_MAX
};

struct asmc_objcount {
	atomic64_t created;
	atomic64_t destroyed;
};

extern struct asmc_objcount asmc_objcount[ASMC_OBJ_MAX];
extern const char *const asmc_obj_names[ASMC_OBJ_MAX];

static inline void asmc_obj_created(enum asmc_obj type, const void *obj)
{
	atomic64_inc(&asmc_objcount[type].created);
	pr_debug("%s %p created\n", asmc_obj_names[type], obj);
}

static inline void asmc_obj_destroyed(enum asmc_obj type, const void *obj)
{
	atomic64_inc(&asmc_objcount[type].destroyed);
	pr_debug("%s %p destroyed\n", asmc_obj_names[type], obj);
}

/* Fault injection into the module's own calls (debugfs smc/fault/):
 * a site whose bit is set in "sites" fails every "interval"-th time it
 * runs, "times" times at most (-1: no limit). Stock kernels lack a
 * module-scoped failslab, so the error paths get their own switch.
 */
enum asmc_fault_site {
	ASMC_FAULT_SOCK,	/* sk_alloc of an AF_SMC socket */
	ASMC_FAULT_CLC,		/* CLC message buffers */
	ASMC_FAULT_LGR,		/* link group and link structs */
	ASMC_FAULT_BUF,		/* RMBs and send buffers: memory, DMA map, MR */
	ASMC_FAULT_VERBS,	/* PD, CQs, QPs, control slot arrays */
	ASMC_FAULT_LLC,		/* a received LLC request is lost */
	ASMC_FAULT_POST,	/* ib_post_send of CDC/LLC/registration */
	ASMC_FAULT_SLOWQP,	/* destroying a link's QP takes slowqp_ms
				 * (5 s), as with rxe waiting for packets
				 * still in flight
				 */
	ASMC_FAULT_LATECL,	/* a client starts waiting for its first
				 * CONFIRM_LINK late (ASMC_FAULT_LATECL_MS):
				 * it has arrived by then
				 */
	ASMC_FAULT_LOSTCQE,	/* a send's completion never comes (rxe may
				 * not flush a QP's sends)
				 */
	ASMC_FAULT_LATEACT,	/* a client's first link turns active
				 * lateact_ms (debugfs) after its
				 * CONFIRM_LINK answer went out: the server's
				 * ADD_LINK comes before (and is rejected
				 * where it waits longer than 2 s)
				 */
	ASMC_FAULT_LOSTCL,	/* a client loses the server's CONFIRM_LINK
				 * of a new link (each one counts)
				 */
	ASMC_FAULT_DUPCL,	/* a server sends its first CONFIRM_LINK
				 * again at once, as if unanswered
				 */
	ASMC_FAULT_MAX
};

bool asmc_fault(enum asmc_fault_site site);
u32 asmc_fault_slow_ms(void);	/* the delay of ASMC_FAULT_SLOWQP */
u32 asmc_fault_lateact_ms(void);	/* the delay of ASMC_FAULT_LATEACT */
#define ASMC_FAULT_LATECL_MS	300

/* @call, or @fail when a fault is injected at @site */
#define ASMC_FAULTY(site, fail, call) (asmc_fault(site) ? (fail) : (call))

/* One-shot change of the next message of one type this host sends (tests:
 * debugfs smc/clc_inject for CLC, smc/wr_inject for CDC and LLC on a
 * link), so the selftests feed malformed messages to a peer through the
 * real protocol. Written "TYPE [KIND] [OFF=VAL]... [trunc=N]": TYPE is
 * the CLC type (1..4) or the first byte of a CDC/LLC message, KIND
 * (wr_inject only) narrows it to CDCs with data or without, or LLC
 * requests or responses (v2 ADD_LINKs larger than a slot too); the bytes
 * at OFF get VAL, the send ends after N bytes; "none" disarms. Reading
 * shows what is armed and how many went out altered.
 */
#define ASMC_INJ_PATCHES	8

enum {
	ASMC_INJ_DATA	= 1,	/* a CDC after RDMA WRITEs */
	ASMC_INJ_CTRL	= 2,	/* a CDC alone */
	ASMC_INJ_REQ	= 4,	/* an LLC request */
	ASMC_INJ_RESP	= 8,	/* an LLC response */
};

struct asmc_inject {
	spinlock_t	lock;		/* protects all below */
	bool		armed;
	u8		type;
	u8		kinds;		/* ASMC_INJ_*, 0: any */
	int		n;
	u16		off[ASMC_INJ_PATCHES];
	u8		val[ASMC_INJ_PATCHES];
	u16		trunc;		/* send only this many bytes, 0: all */
	u64		fired;
	/* fixed: which types and kinds may be armed, the largest offset */
	u8		type_min, type_max, kinds_ok;
	u16		max_len;
	const char	*what;
};

extern struct asmc_inject asmc_clc_inj, asmc_wr_inj;

/* Apply an armed change to @buf (a message of @type and @kind, @len
 * bytes, that the caller may alter); returns the length to send.
 */
size_t asmc_inject(struct asmc_inject *inj, u8 type, u8 kind, u8 *buf,
		   size_t len);

static inline bool asmc_inject_armed(struct asmc_inject *inj)
{
	return unlikely(READ_ONCE(inj->armed));
}

s64 asmc_obj_live(enum asmc_obj type);
int asmc_debugfs_init(void);
void asmc_debugfs_exit(void);

#endif /* ASMC_DEBUG_H */
