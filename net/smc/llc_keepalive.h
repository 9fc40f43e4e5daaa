/* SPDX-License-Identifier: GPL-2.0 */
/* The link keepalive's decision (when to send a TEST_LINK, when a link is
 * dead) as a pure function of times in jiffies, unit-tested in userspace.
 */
#ifndef ASMC_LLC_KEEPALIVE_H
#define ASMC_LLC_KEEPALIVE_H

#include "wire.h"

/* What the keepalive knows of one link, read once per run (jiffies). */
struct asmc_ka_link {
	unsigned long last_rx;		/* last message received */
	unsigned long await_since;	/* 0, or the oldest send still waiting
					 * for an answer (a data CDC, an LLC
					 * request)
					 */
	unsigned long tx_start;		/* sends in flight went from 0 to 1 */
	unsigned long last_ack;		/* last good send completion */
	unsigned long test_sent;	/* the pending TEST_LINK was due */
	bool inflight;			/* sends in flight now */
	bool blocked;			/* data waits for the peer's window:
					 * an answer is awaited since last_rx
					 */
	bool test_pending;		/* a TEST_LINK awaits its answer */
	bool test_posted;		/* ... and was posted (slots were free) */
};

/* The rules' durations in jiffies; all > 0. */
struct asmc_ka_times {
	unsigned long period;	/* net.smc.smcr_testlink_time: idle probe */
	unsigned long probe;	/* unanswered or uncompleted sends: probe */
	unsigned long wait;	/* silence after a TEST_LINK: link down */
	unsigned long retry;	/* all send slots busy: post again after */
};

enum asmc_ka_verdict {
	ASMC_KA_QUIET,		/* nothing due: run again after *delay */
	ASMC_KA_WAIT,		/* pending TEST_LINK unanswered: *delay */
	ASMC_KA_REPOST,		/* pending TEST_LINK not posted: post it */
	ASMC_KA_DOWN,		/* no message nor completion after it */
	ASMC_KA_TEST_IDLE,	/* send a TEST_LINK: nothing came for period */
	ASMC_KA_TEST_AWAIT,	/* ... a send got no answer for probe */
	ASMC_KA_TEST_STALL,	/* ... sends in flight, no completion */
};

/* true when @a is later than @b, across a jiffies wrap */
static inline bool asmc_ka_after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
}

static inline unsigned long asmc_ka_later(unsigned long a, unsigned long b)
{
	return asmc_ka_after(b, a) ? b : a;
}

/* Decide one keepalive run at @now. *delay is when to run again, for
 * QUIET and WAIT, and for REPOST and TEST_* if the TEST_LINK could be
 * posted; asmc_ka_busy_delay() gives the delay when it could not.
 * Any verdict but WAIT, REPOST and DOWN ends a pending TEST_LINK.
 */
enum asmc_ka_verdict asmc_ka_decide(const struct asmc_ka_link *k,
				    const struct asmc_ka_times *t,
				    unsigned long now, unsigned long *delay);

/* When every send slot was busy: try the post again soon, within @delay. */
static inline unsigned long asmc_ka_busy_delay(const struct asmc_ka_times *t,
					       unsigned long delay)
{
	return t->retry < delay ? t->retry : delay;
}

#endif /* ASMC_LLC_KEEPALIVE_H */
