// SPDX-License-Identifier: GPL-2.0
/* Object accounting and the debugfs directory /sys/kernel/debug/smc:
 * "objects" (created/destroyed/live per type), "sockets", "stats", the
 * message injection hooks and the fault injection knobs under "fault/".
 */
#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "debug.h"
#include "clc.h"
#include "clc_wire.h"
#include "llc_wire.h"
#include "lgr.h"
#include "netns.h"
#include "socket.h"
#include "wr.h"

struct asmc_objcount asmc_objcount[ASMC_OBJ_MAX];

const char *const asmc_obj_names[ASMC_OBJ_MAX] = {
	[ASMC_OBJ_SOCK]		= "sock",
	[ASMC_OBJ_CLCSOCK]	= "clcsock",
	[ASMC_OBJ_WORK]		= "work",
	[ASMC_OBJ_IBDEV]	= "ibdev",
	[ASMC_OBJ_LGR]		= "lgr",
	[ASMC_OBJ_LINK]		= "link",
	[ASMC_OBJ_BUF]		= "buf",
	[ASMC_OBJ_CONN]		= "conn",
	[ASMC_OBJ_DEVREF]	= "devref",
	[ASMC_OBJ_SLOT]		= "slot",
};

static struct dentry *asmc_debugfs_dir;

s64 asmc_obj_live(enum asmc_obj type)
{
	return atomic64_read(&asmc_objcount[type].created) -
	       atomic64_read(&asmc_objcount[type].destroyed);
}

static int objects_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ASMC_OBJ_MAX; i++)
		seq_printf(m, "%-8s created %lld destroyed %lld live %lld\n",
			   asmc_obj_names[i],
			   (s64)atomic64_read(&asmc_objcount[i].created),
			   (s64)atomic64_read(&asmc_objcount[i].destroyed),
			   asmc_obj_live(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objects);

static int sockets_show(struct seq_file *m, void *v)
{
	asmc_socks_show(m, current->nsproxy->net_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sockets);

static int lgrs_show(struct seq_file *m, void *v)
{
	asmc_lgr_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lgrs);

static int stats_show(struct seq_file *m, void *v)
{
	asmc_stats_show(m, &asmc_net(current->nsproxy->net_ns)->stats);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* bytes the module's buffers pin, their budget, connections cut to it */
static int bufs_show(struct seq_file *m, void *v)
{
	asmc_buf_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bufs);

/* Any write frees idle link groups now instead of after 600 s (tests). */
static ssize_t flush_idle_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	asmc_lgr_flush_idle();
	return len;
}

struct asmc_inject asmc_clc_inj = {
	.lock = __SPIN_LOCK_UNLOCKED(asmc_clc_inj.lock),
	.type_min = 1, .type_max = 4, .max_len = ASMC_CLC_MAX_LEN,
	.what = "CLC message",
};

struct asmc_inject asmc_wr_inj = {
	.lock = __SPIN_LOCK_UNLOCKED(asmc_wr_inj.lock),
	.type_min = 1, .type_max = 255, .max_len = ASMC_LLC_MAX_LEN,
	.kinds_ok = ASMC_INJ_DATA | ASMC_INJ_CTRL | ASMC_INJ_REQ |
		    ASMC_INJ_RESP,
	.what = "CDC/LLC message",
};

static const char *const asmc_inj_kinds[] = { "data", "ctrl", "req", "resp" };

/* Parse one word of a spec after TYPE into @inj (its lock held). */
static int asmc_inject_word(struct asmc_inject *inj, char *tok)
{
	unsigned long v, o;
	char *eq;
	int i;

	for (i = 0; i < ARRAY_SIZE(asmc_inj_kinds); i++) {
		if (strcmp(tok, asmc_inj_kinds[i]))
			continue;
		if (!(inj->kinds_ok & BIT(i)))
			return -EINVAL;
		inj->kinds |= BIT(i);
		return 0;
	}
	eq = strchr(tok, '=');
	if (!eq)
		return -EINVAL;
	*eq = 0;
	if (kstrtoul(eq + 1, 0, &v))
		return -EINVAL;
	if (!strcmp(tok, "trunc")) {
		if (!v || v >= inj->max_len)
			return -EINVAL;
		inj->trunc = v;
		return 0;
	}
	if (kstrtoul(tok, 0, &o) || o >= inj->max_len || v > 255 ||
	    inj->n >= ASMC_INJ_PATCHES)
		return -EINVAL;
	inj->off[inj->n] = o;
	inj->val[inj->n++] = v;
	return 0;
}

/* Arm @inj from @spec; a bad spec leaves nothing armed. */
static int asmc_inject_set(struct asmc_inject *inj, char *spec)
{
	char *tok;
	int rc = 0;
	u8 type;

	tok = strsep(&spec, "\n ");
	if (tok && !strcmp(tok, "none")) {
		spin_lock_bh(&inj->lock);
		WRITE_ONCE(inj->armed, false);
		spin_unlock_bh(&inj->lock);
		return 0;
	}
	if (!tok || kstrtou8(tok, 0, &type) || type < inj->type_min ||
	    type > inj->type_max)
		return -EINVAL;
	spin_lock_bh(&inj->lock);
	inj->armed = false;
	inj->kinds = 0;
	inj->n = 0;
	inj->trunc = 0;
	while (!rc && (tok = strsep(&spec, "\n ")))
		if (*tok)
			rc = asmc_inject_word(inj, tok);
	inj->type = type;
	WRITE_ONCE(inj->armed, !rc);
	spin_unlock_bh(&inj->lock);
	return rc;
}

size_t asmc_inject(struct asmc_inject *inj, u8 type, u8 kind, u8 *buf,
		   size_t len)
{
	int i;

	spin_lock_bh(&inj->lock);
	if (!inj->armed || inj->type != type ||
	    (inj->kinds && !(inj->kinds & kind))) {
		spin_unlock_bh(&inj->lock);
		return len;
	}
	for (i = 0; i < inj->n; i++)
		if (inj->off[i] < len)
			buf[inj->off[i]] = inj->val[i];
	if (inj->trunc && inj->trunc < len)
		len = inj->trunc;
	WRITE_ONCE(inj->armed, false);	/* once */
	inj->fired++;
	spin_unlock_bh(&inj->lock);
	pr_info("%s type %#x sent altered for a test\n", inj->what, type);
	return len;
}

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[256];
	int rc;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	rc = asmc_inject_set(file_inode(file)->i_private, buf);
	return rc ? rc : len;
}

static int inject_show(struct seq_file *m, void *v)
{
	struct asmc_inject *inj = m->private;

	spin_lock_bh(&inj->lock);
	if (inj->armed)
		seq_printf(m, "armed %#x kinds %#x patches %d trunc %u\n",
			   inj->type, inj->kinds, inj->n, inj->trunc);
	else
		seq_puts(m, "armed none\n");
	seq_printf(m, "fired %llu\n", inj->fired);
	spin_unlock_bh(&inj->lock);
	return 0;
}

static int inject_open(struct inode *inode, struct file *file)
{
	return single_open(file, inject_show, inode->i_private);
}

static const struct file_operations inject_fops = {
	.owner		= THIS_MODULE,
	.open		= inject_open,
	.read		= seq_read,
	.write		= inject_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct file_operations flush_idle_fops = {
	.owner	= THIS_MODULE,
	.write	= flush_idle_write,
};

static const char *const asmc_fault_names[ASMC_FAULT_MAX] = {
	[ASMC_FAULT_SOCK]	= "sock",
	[ASMC_FAULT_CLC]	= "clc",
	[ASMC_FAULT_LGR]	= "lgr",
	[ASMC_FAULT_BUF]	= "buf",
	[ASMC_FAULT_VERBS]	= "verbs",
	[ASMC_FAULT_LLC]	= "llc",
	[ASMC_FAULT_POST]	= "post",
	[ASMC_FAULT_SLOWQP]	= "slowqp",
	[ASMC_FAULT_LATECL]	= "latecl",
	[ASMC_FAULT_LOSTCQE]	= "lostcqe",
	[ASMC_FAULT_LATEACT]	= "lateact",
	[ASMC_FAULT_LOSTCL]	= "lostcl",
	[ASMC_FAULT_DUPCL]	= "dupcl",
};

/* The knobs are plain integers read without a lock: a test sets
 * interval and times first and the sites mask last.
 */
static u32 asmc_fault_sites;
static u32 asmc_fault_interval = 1;
static atomic_t asmc_fault_times = ATOMIC_INIT(-1);
static atomic_t asmc_fault_calls = ATOMIC_INIT(0);
static atomic64_t asmc_fault_injected[ASMC_FAULT_MAX];
static u32 asmc_fault_slowqp_ms = 5000;
static u32 asmc_fault_late_ms = 300;

u32 asmc_fault_slow_ms(void)
{
	return READ_ONCE(asmc_fault_slowqp_ms);
}

u32 asmc_fault_lateact_ms(void)
{
	return min_t(u32, READ_ONCE(asmc_fault_late_ms), 10000);
}

bool asmc_fault(enum asmc_fault_site site)
{
	u32 interval;
	int left;

	if (likely(!(READ_ONCE(asmc_fault_sites) & BIT(site))))
		return false;
	interval = READ_ONCE(asmc_fault_interval);
	if (interval > 1 &&
	    atomic_inc_return(&asmc_fault_calls) % interval)
		return false;
	/* times: -1 unlimited, else a budget used up one by one */
	do {
		left = atomic_read(&asmc_fault_times);
		if (!left)
			return false;
		if (left < 0)
			break;
	} while (atomic_cmpxchg(&asmc_fault_times, left, left - 1) != left);
	atomic64_inc(&asmc_fault_injected[site]);
	pr_debug("fault injected: %s at %pS\n", asmc_fault_names[site],
		 __builtin_return_address(0));
	return true;
}

static int fault_injected_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ASMC_FAULT_MAX; i++)
		seq_printf(m, "%-6s bit %d injected %lld\n", asmc_fault_names[i],
			   i, (s64)atomic64_read(&asmc_fault_injected[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fault_injected);

/* "times" takes -1 (no limit), which the unsigned simple attributes of
 * debugfs refuse
 */
static ssize_t fault_times_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%d\n",
			  atomic_read(&asmc_fault_times));

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t fault_times_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	int v, rc;

	rc = kstrtoint_from_user(ubuf, len, 0, &v);
	if (rc)
		return rc;
	if (v < -1)
		return -EINVAL;
	atomic_set(&asmc_fault_times, v);
	return len;
}

static const struct file_operations fault_times_fops = {
	.owner	= THIS_MODULE,
	.read	= fault_times_read,
	.write	= fault_times_write,
	.llseek	= default_llseek,
};

static void asmc_fault_debugfs(struct dentry *parent)
{
	struct dentry *dir = debugfs_create_dir("fault", parent);

	debugfs_create_x32("sites", 0600, dir, &asmc_fault_sites);
	debugfs_create_u32("interval", 0600, dir, &asmc_fault_interval);
	debugfs_create_file("times", 0600, dir, NULL, &fault_times_fops);
	debugfs_create_u32("slowqp_ms", 0600, dir, &asmc_fault_slowqp_ms);
	debugfs_create_u32("lateact_ms", 0600, dir, &asmc_fault_late_ms);
	debugfs_create_file("injected", 0444, dir, NULL,
			    &fault_injected_fops);
}

int asmc_debugfs_init(void)
{
	asmc_debugfs_dir = debugfs_create_dir("smc", NULL);
	debugfs_create_file("objects", 0444, asmc_debugfs_dir, NULL,
			    &objects_fops);
	debugfs_create_file("sockets", 0444, asmc_debugfs_dir, NULL,
			    &sockets_fops);
	debugfs_create_file("stats", 0444, asmc_debugfs_dir, NULL,
			    &stats_fops);
	debugfs_create_file("lgrs", 0444, asmc_debugfs_dir, NULL,
			    &lgrs_fops);
	debugfs_create_file("flush_idle", 0200, asmc_debugfs_dir, NULL,
			    &flush_idle_fops);
	debugfs_create_file("bufs", 0444, asmc_debugfs_dir, NULL, &bufs_fops);
	debugfs_create_file("clc_inject", 0600, asmc_debugfs_dir,
			    &asmc_clc_inj, &inject_fops);
	debugfs_create_file("wr_inject", 0600, asmc_debugfs_dir,
			    &asmc_wr_inj, &inject_fops);
	asmc_fault_debugfs(asmc_debugfs_dir);
	return 0;
}

void asmc_debugfs_exit(void)
{
	debugfs_remove_recursive(asmc_debugfs_dir);
}
