// SPDX-License-Identifier: GPL-2.0
/* Tests of the link keepalive's decision (net/smc/llc_keepalive.c): each
 * rule at its edge, and runs of the work against a dead and a live peer,
 * also across a jiffies wrap. KUnit suite smc_llc_keepalive, or a
 * userspace TAP program (wire_test_shim.h).
 */
#include "../../../net/smc/llc_keepalive.h"
#include "wire_test_shim.h"

#define T_HZ 250UL

static const struct asmc_ka_times t_std = {
	.period = 30 * T_HZ,	/* the sysctl's default */
	.probe = 5 * T_HZ,
	.wait = 4 * T_HZ,
	.retry = T_HZ / 4,
};

/* a link that last heard from the peer, and saw its last completion, at
 * @base, with nothing in flight and nothing pending
 */
static struct asmc_ka_link ka_link(unsigned long base)
{
	struct asmc_ka_link k = {
		.last_rx = base, .tx_start = base, .last_ack = base,
	};

	return k;
}

/* the same tests from these starting points; the last two cross a wrap */
static const unsigned long bases[] = {
	1000, (unsigned long)-1 - 3 * T_HZ, (unsigned long)-1 - 40 * T_HZ,
};

/* @fn from each of bases[] */
static void each_base(struct kunit *test,
		      void (*fn)(struct kunit *test, unsigned long base))
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bases); i++)
		fn(test, bases[i]);
}

/* the KUnit case test_NAME: NAME_at() from each base */
#define BASE_CASE(name)						\
	static void test_##name(struct kunit *test)			\
	{								\
		each_base(test, name##_at);				\
	}

static void idle_at(struct kunit *test, unsigned long base)
{
	unsigned long delay;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	k = ka_link(base);
	v = asmc_ka_decide(&k, &t_std, base + T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET && delay == t_std.probe + 1,
	      "base %lu: 1 s idle: quiet, next run after a probe (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, base + 28 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET && delay == 2 * T_HZ + 1,
	      "base %lu: 28 s idle: next run 1 tick after the period (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, base + 30 * T_HZ - 1, &delay);
	CHECK(v == ASMC_KA_QUIET && delay == 2,
	      "base %lu: a tick before the period: quiet (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, base + 30 * T_HZ, &delay);
	CHECK(v == ASMC_KA_TEST_IDLE && delay == t_std.wait,
	      "base %lu: period reached: TEST_LINK, wait for it (%d, %lu)",
	      base, v, delay);
}

BASE_CASE(idle)

static void await_at(struct kunit *test, unsigned long base)
{
	unsigned long delay;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	k = ka_link(base);
	k.await_since = (base + 2 * T_HZ) | 1;
	v = asmc_ka_decide(&k, &t_std, base + 3 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET &&
	      delay == k.await_since + t_std.probe - (base + 3 * T_HZ) + 1,
	      "base %lu: unanswered 1 s: next run when the probe is due (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, k.await_since + t_std.probe - 1,
			   &delay);
	CHECK(v == ASMC_KA_QUIET,
	      "base %lu: a tick before the probe: quiet (%d)", base, v);
	v = asmc_ka_decide(&k, &t_std, k.await_since + t_std.probe,
			   &delay);
	CHECK(v == ASMC_KA_TEST_AWAIT && delay == t_std.wait,
	      "base %lu: unanswered for the probe: early TEST_LINK (%d, %lu)",
	      base, v, delay);
}

BASE_CASE(await)

/* a connection waits for the peer's window, the last receive (which
 * ended the link's await) was for another one: probed as if awaited
 * since that receive
 */
static void blocked_at(struct kunit *test, unsigned long base)
{
	unsigned long delay;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	k = ka_link(base);
	k.blocked = true;
	v = asmc_ka_decide(&k, &t_std, base + 2 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET &&
	      delay == (base | 1) + t_std.probe - (base + 2 * T_HZ) + 1,
	      "base %lu: blocked 2 s: next run when the probe is due (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, base + t_std.probe - 1, &delay);
	CHECK(v == ASMC_KA_QUIET,
	      "base %lu: blocked, a tick before the probe: quiet (%d)", base, v);
	v = asmc_ka_decide(&k, &t_std, base + t_std.probe + 1, &delay);
	CHECK(v == ASMC_KA_TEST_AWAIT && delay == t_std.wait,
	      "base %lu: blocked, silent for the probe: early TEST_LINK (%d, %lu)",
	      base, v, delay);
	k.blocked = false;
	v = asmc_ka_decide(&k, &t_std, base + t_std.probe + 1, &delay);
	CHECK(v == ASMC_KA_QUIET,
	      "base %lu: not blocked, silent for the probe: quiet (%d)", base,
	      v);
}

BASE_CASE(blocked)

static void stall_at(struct kunit *test, unsigned long base)
{
	unsigned long delay, now;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	k = ka_link(base);
	k.inflight = true;
	k.tx_start = base + T_HZ;
	now = base + T_HZ + t_std.probe;
	v = asmc_ka_decide(&k, &t_std, now - 1, &delay);
	CHECK(v == ASMC_KA_QUIET && delay == 2,
	      "base %lu: in flight a tick short of the probe: quiet (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, now, &delay);
	CHECK(v == ASMC_KA_TEST_STALL,
	      "base %lu: in flight for the probe, no completion: TEST_LINK (%d)",
	      base, v);
	k.last_ack = base + 3 * T_HZ;
	v = asmc_ka_decide(&k, &t_std, now, &delay);
	CHECK(v == ASMC_KA_QUIET &&
	      delay == k.last_ack + t_std.probe - now + 1,
	      "base %lu: a completion 2 s later moves the probe (%d, %lu)",
	      base, v, delay);
	k.inflight = false;
	v = asmc_ka_decide(&k, &t_std, base + 29 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET,
	      "base %lu: nothing in flight: no stall however old tx_start (%d)",
	      base, v);
}

BASE_CASE(stall)

static void pending_at(struct kunit *test, unsigned long base)
{
	unsigned long delay, sent;
	struct asmc_ka_link k;
	enum asmc_ka_verdict v;

	sent = base + 30 * T_HZ;
	k = ka_link(base);
	k.test_pending = true;
	k.test_posted = true;
	k.test_sent = sent;
	v = asmc_ka_decide(&k, &t_std, sent + T_HZ, &delay);
	CHECK(v == ASMC_KA_WAIT && delay == 3 * T_HZ,
	      "base %lu: 1 s after the TEST_LINK: wait 3 s more (%d, %lu)",
	      base, v, delay);
	v = asmc_ka_decide(&k, &t_std, sent + t_std.wait, &delay);
	CHECK(v == ASMC_KA_DOWN,
	      "base %lu: nothing for the wait: link down (%d)", base, v);
	k.last_ack = sent + 2 * T_HZ;
	v = asmc_ka_decide(&k, &t_std, sent + t_std.wait, &delay);
	CHECK(v == ASMC_KA_WAIT && delay == 2 * T_HZ,
	      "base %lu: a completion after it extends the wait (%d, %lu)",
	      base, v, delay);
	k.test_posted = false;
	v = asmc_ka_decide(&k, &t_std, sent + t_std.wait, &delay);
	CHECK(v == ASMC_KA_REPOST && delay == 2 * T_HZ &&
	      asmc_ka_busy_delay(&t_std, delay) == t_std.retry,
	      "base %lu: not posted yet: post again soon (%d, %lu)",
	      base, v, delay);
	CHECK(asmc_ka_busy_delay(&t_std, 3) == 3,
	      "the retry never runs past the deadline");
	k.last_rx = sent;
	v = asmc_ka_decide(&k, &t_std, sent + 10 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET,
	      "base %lu: a message in the same tick answers it (%d)",
	      base, v);
	k.last_rx = sent + 1;
	k.last_ack = base;
	v = asmc_ka_decide(&k, &t_std, sent + 10 * T_HZ, &delay);
	CHECK(v == ASMC_KA_QUIET && delay == t_std.probe + 1,
	      "base %lu: answered: back to the idle rule (%d, %lu)",
	      base, v, delay);
}

BASE_CASE(pending)

/* The work against a simulated peer, run by run as the kernel would. A
 * peer that answers gets every TEST_LINK answered after @rtt (0: a dead
 * peer, nothing comes back and no send completes); @busy: no send slot is
 * ever free. Returns when the link went down (0: never, within @until).
 */
struct ka_sim {
	unsigned long base, until, rtt;
	bool busy;
	struct asmc_ka_link k;
	int tests, runs;
};

static unsigned long ka_simulate(struct ka_sim *s)
{
	const struct asmc_ka_times *t = &t_std;
	unsigned long now = s->base + t->probe, delay, answer = 0;
	bool answering = false;
	enum asmc_ka_verdict v;

	while (asmc_ka_after(s->base + s->until, now)) {
		if (answering && !asmc_ka_after(answer, now)) {
			s->k.last_rx = answer;
			s->k.last_ack = answer;
			answering = false;
		}
		s->runs++;
		v = asmc_ka_decide(&s->k, t, now, &delay);
		switch (v) {
		case ASMC_KA_DOWN:
			return now;
		case ASMC_KA_QUIET:
			s->k.test_pending = false;
			break;
		case ASMC_KA_WAIT:
			break;
		case ASMC_KA_REPOST:
		case ASMC_KA_TEST_IDLE:
		case ASMC_KA_TEST_AWAIT:
		case ASMC_KA_TEST_STALL:
			if (v != ASMC_KA_REPOST) {
				s->tests++;
				s->k.test_sent = now;
				s->k.test_pending = true;
				s->k.test_posted = false;
			}
			if (s->busy) {
				delay = asmc_ka_busy_delay(t, delay);
				break;
			}
			s->k.test_sent = now;
			s->k.test_posted = true;
			if (s->rtt) {
				answer = now + s->rtt;
				answering = true;
			}
			break;
		}
		if (!delay || delay > t->period + 1)
			return 1;	/* a run that never comes, or comes now */
		now += delay;
	}
	return 0;
}

/* a simulation from @base for @until ticks, the link as ka_link() */
static void ka_sim_init(struct ka_sim *s, unsigned long base,
			unsigned long until)
{
	memset(s, 0, sizeof(*s));
	s->base = base;
	s->until = until;
	s->k = ka_link(base);
}

static void dead_peer_at(struct kunit *test, unsigned long base)
{
	unsigned long down;
	struct ka_sim s;

	/* data in flight since base, rxe retrying it for ever */
	ka_sim_init(&s, base, 120 * T_HZ);
	s.k.inflight = true;
	s.k.await_since = base | 1;
	down = ka_simulate(&s);
	CHECK(down && down - base >= t_std.probe + t_std.wait &&
	      down - base <= t_std.probe + t_std.wait + 2,
	      "base %lu: dead peer with data in flight: down after %lu ticks (probe + wait = %lu)",
	      base, down - base, t_std.probe + t_std.wait);
	CHECK(s.tests == 1, "base %lu: one TEST_LINK before that (%d)",
	      base, s.tests);

	/* the same with every slot busy: the TEST_LINK never leaves */
	ka_sim_init(&s, base, 120 * T_HZ);
	s.busy = true;
	s.k.inflight = true;
	down = ka_simulate(&s);
	CHECK(down && down - base <= t_std.probe + t_std.wait + 2,
	      "base %lu: all slots busy: down after %lu ticks, %d runs",
	      base, down - base, s.runs);

	/* an idle link to a dead peer: one period, then the wait */
	ka_sim_init(&s, base, 120 * T_HZ);
	down = ka_simulate(&s);
	CHECK(down && down - base >= t_std.period + t_std.wait &&
	      down - base <= t_std.period + t_std.wait + 2,
	      "base %lu: idle dead peer: down after %lu ticks (period + wait = %lu)",
	      base, down - base, t_std.period + t_std.wait);
}

BASE_CASE(dead_peer)

static void live_peer_at(struct kunit *test, unsigned long base)
{
	const unsigned long rtts[] = { 1, T_HZ, t_std.wait - 1 };
	unsigned long down;
	struct ka_sim s;
	size_t j;

	for (j = 0; j < ARRAY_SIZE(rtts); j++) {
		ka_sim_init(&s, base, 600 * T_HZ);
		s.rtt = rtts[j];
		down = ka_simulate(&s);
		CHECK(!down,
		      "base %lu, rtt %lu: an answering peer keeps the link (down at %lu)",
		      base, s.rtt, down ? down - base : 0);
		/* one TEST_LINK per period and answer: 600 s / (30 s + rtt),
		 * give or take the last one
		 */
		CHECK(s.tests >= (int)(s.until / (t_std.period + s.rtt + 2)) - 1 &&
		      s.tests <= (int)(s.until / t_std.period),
		      "base %lu, rtt %lu: %d TEST_LINKs in 600 s idle, %d runs",
		      base, s.rtt, s.tests, s.runs);
	}
}

BASE_CASE(live_peer)

static struct kunit_case llc_keepalive_cases[] = {
	KUNIT_CASE(test_idle),
	KUNIT_CASE(test_await),
	KUNIT_CASE(test_blocked),
	KUNIT_CASE(test_stall),
	KUNIT_CASE(test_pending),
	KUNIT_CASE(test_dead_peer),
	KUNIT_CASE(test_live_peer),
	{}
};

WIRE_TEST_SUITE(llc_keepalive, llc_keepalive_cases);
