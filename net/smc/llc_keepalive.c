// SPDX-License-Identifier: GPL-2.0
/* The link keepalive's decision, free of locks and clocks: llc.c reads the
 * link's times, calls asmc_ka_decide() and carries out the verdict.
 */
#include "llc_keepalive.h"

static unsigned long asmc_ka_min(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/* @at is reached at @now: at <= now, across a jiffies wrap */
static bool asmc_ka_due(unsigned long at, unsigned long now)
{
	return !asmc_ka_after(at, now);
}

enum asmc_ka_verdict asmc_ka_decide(const struct asmc_ka_link *k,
				    const struct asmc_ka_times *t,
				    unsigned long now, unsigned long *delay)
{
	unsigned long stall_at = 0, await, end, next;

	/* A TEST_LINK is pending until any message comes after it was due.
	 * A send completion proves the peer's adapter acked, so the wait
	 * runs from the later of the two; rxe retries a send to a dead peer
	 * for ever, so completions stop too.
	 */
	if (k->test_pending && asmc_ka_after(k->test_sent, k->last_rx)) {
		end = asmc_ka_later(k->test_sent, k->last_ack) + t->wait;
		if (asmc_ka_due(end, now))
			return ASMC_KA_DOWN;
		*delay = end - now;
		return k->test_posted ? ASMC_KA_WAIT : ASMC_KA_REPOST;
	}

	/* a receive ends the wait for an answer, though another connection
	 * of the link may still wait for the peer's window: then the wait
	 * starts again from that receive
	 */
	await = k->await_since;
	if (!await && k->blocked)
		await = k->last_rx | 1;
	*delay = t->wait;
	if (await && asmc_ka_due(await + t->probe, now))
		return ASMC_KA_TEST_AWAIT;
	if (k->inflight) {
		stall_at = asmc_ka_later(k->tx_start, k->last_ack) + t->probe;
		if (asmc_ka_due(stall_at, now))
			return ASMC_KA_TEST_STALL;
	}
	if (asmc_ka_due(k->last_rx + t->period, now))
		return ASMC_KA_TEST_IDLE;

	/* the earliest of the three deadlines, and at least every probe;
	 * one tick late, so that the next run finds the deadline reached
	 */
	next = asmc_ka_min(k->last_rx + t->period - now, t->probe);
	if (k->inflight)
		next = asmc_ka_min(next, stall_at - now);
	if (await)
		next = asmc_ka_min(next, await + t->probe - now);
	*delay = next + 1;
	return ASMC_KA_QUIET;
}
