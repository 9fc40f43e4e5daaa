// SPDX-License-Identifier: GPL-2.0
/* User EID table and system EID state of a network namespace: validation of
 * the EID text, add/remove/flush for netlink, copy/match for the handshake.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include "eid.h"
#include "netns.h"

/* Errors, chosen to match what smc-tools (smcr/smcd ueid) interpret:
 * invalid text -EINVAL, already defined -EEXIST, table full -ERANGE
 * ("maximum number of User EIDs is reached"), remove of an EID that is not
 * defined -ENOENT. Without a system EID, enabling/disabling it is
 * -EOPNOTSUPP ("operation not supported by kernel").
 */

static struct asmc_eid_table *asmc_eid_table(struct net *net)
{
	return &asmc_net(net)->eid;
}

void asmc_eid_net_init(struct asmc_eid_table *t)
{
	memset(t, 0, sizeof(*t));
	spin_lock_init(&t->lock);
	t->seid_enabled = asmc_seid_available();
}

static bool asmc_eid_char_ok(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-';
}

/* SMC-WIRE 9.1 and smcd-ueid(8): exactly 32 bytes, A-Z 0-9 '.' '-', the
 * first alphanumeric, no two consecutive dots, blank padded at the end
 * (no blank inside), not empty.
 */
static bool asmc_ueid_valid(const char *text)
{
	int end, i;

	if (strnlen(text, ASMC_EID_LEN_RAW + 1) != ASMC_EID_LEN_RAW)
		return false;
	for (end = ASMC_EID_LEN_RAW; end > 0 && text[end - 1] == ' '; end--)
		;
	if (!end)
		return false;
	if (text[0] == '.' || text[0] == '-')
		return false;
	for (i = 0; i < end; i++) {
		if (!asmc_eid_char_ok(text[i]))
			return false;
		if (i && text[i] == '.' && text[i - 1] == '.')
			return false;
	}
	return true;
}

static int asmc_ueid_find(struct asmc_eid_table *t, const u8 *eid32)
{
	int i;

	lockdep_assert_held(&t->lock);
	for (i = 0; i < t->ueid_cnt; i++)
		if (!memcmp(t->ueid[i], eid32, ASMC_EID_LEN_RAW))
			return i;
	return -1;
}

int asmc_ueid_add(struct net *net, const char *text)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	int rc = 0;

	if (!asmc_ueid_valid(text))
		return -EINVAL;
	spin_lock_bh(&t->lock);
	if (asmc_ueid_find(t, (const u8 *)text) >= 0)
		rc = -EEXIST;
	else if (t->ueid_cnt >= SMC_MAX_UEID)
		rc = -ERANGE;
	else
		memcpy(t->ueid[t->ueid_cnt++], text, ASMC_EID_LEN_RAW);
	spin_unlock_bh(&t->lock);
	return rc;
}

int asmc_ueid_remove(struct net *net, const char *text)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	int i, rc = 0;

	if (strnlen(text, ASMC_EID_LEN_RAW + 1) != ASMC_EID_LEN_RAW)
		return -EINVAL;
	spin_lock_bh(&t->lock);
	i = asmc_ueid_find(t, (const u8 *)text);
	if (i < 0) {
		rc = -ENOENT;
	} else {
		memmove(t->ueid[i], t->ueid[i + 1],
			(t->ueid_cnt - i - 1) * ASMC_EID_LEN_RAW);
		t->ueid_cnt--;
		memset(t->ueid[t->ueid_cnt], 0, ASMC_EID_LEN_RAW);
		/* smcd-seid(8): a disabled system EID comes back when the
		 * last user EID goes; smc-tools expect -EAGAIN to say so.
		 */
		if (!t->ueid_cnt && asmc_seid_available() && !t->seid_enabled) {
			t->seid_enabled = true;
			rc = -EAGAIN;
		}
	}
	spin_unlock_bh(&t->lock);
	return rc;
}

void asmc_ueid_flush(struct net *net)
{
	struct asmc_eid_table *t = asmc_eid_table(net);

	spin_lock_bh(&t->lock);
	memset(t->ueid, 0, sizeof(t->ueid));
	t->ueid_cnt = 0;
	if (asmc_seid_available())
		t->seid_enabled = true;
	spin_unlock_bh(&t->lock);
}

int asmc_ueid_copy(struct net *net, u8 (*eids)[ASMC_EID_LEN_RAW], int max)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	int n;

	if (max <= 0)
		return 0;
	spin_lock_bh(&t->lock);
	n = min(max, t->ueid_cnt);
	memcpy(eids, t->ueid, n * ASMC_EID_LEN_RAW);
	spin_unlock_bh(&t->lock);
	return n;
}

bool asmc_ueid_match(struct net *net, const u8 *eid32, u8 *match_out32)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	bool found;
	int i;

	spin_lock_bh(&t->lock);
	i = asmc_ueid_find(t, eid32);
	found = i >= 0;
	if (found && match_out32)
		memcpy(match_out32, t->ueid[i], ASMC_EID_LEN_RAW);
	spin_unlock_bh(&t->lock);
	return found;
}

int asmc_ueid_count(struct net *net)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	int n;

	spin_lock_bh(&t->lock);
	n = t->ueid_cnt;
	spin_unlock_bh(&t->lock);
	return n;
}

/* The system EID is built from the s390 machine type; other architectures
 * have none and the in-tree kernel then reports no SEID at all. This module
 * is for such machines, so there is never one here.
 */
bool asmc_seid_available(void)
{
	return false;
}

bool asmc_seid_enabled(struct net *net)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	bool on;

	if (!asmc_seid_available())
		return false;
	spin_lock_bh(&t->lock);
	on = t->seid_enabled;
	spin_unlock_bh(&t->lock);
	return on;
}

/* Fills the 32-byte system EID; -EOPNOTSUPP when the machine has none. */
int asmc_seid_copy(struct net *net, u8 *seid32)
{
	return -EOPNOTSUPP;
}

/* SMC_NETLINK_ENABLE/DISABLE_SEID. Disabling needs a user EID to fall back
 * to (-ENOENT otherwise, as smcd-seid(8) describes).
 */
int asmc_seid_set_enabled(struct net *net, bool enable)
{
	struct asmc_eid_table *t = asmc_eid_table(net);
	int rc = 0;

	if (!asmc_seid_available())
		return -EOPNOTSUPP;
	spin_lock_bh(&t->lock);
	if (!enable && !t->ueid_cnt)
		rc = -ENOENT;
	else
		t->seid_enabled = enable;
	spin_unlock_bh(&t->lock);
	return rc;
}
