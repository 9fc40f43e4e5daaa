// SPDX-License-Identifier: GPL-2.0
/* Object accounting and the debugfs directory /sys/kernel/debug/smc:
 * "objects" (created/destroyed/live per type), "sockets", "stats", and
 * the fault injection knobs under "fault/".
 */
#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "debug.h"
#include "clc.h"
#include "lgr.h"
#include "netns.h"
#include "socket.h"

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

/* Any write frees idle link groups now instead of after 600 s (tests). */
static ssize_t flush_idle_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	asmc_lgr_flush_idle();
	return len;
}

/* Arm a one-shot change of the next CLC message of a type (tests). */
static ssize_t clc_inject_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[256];
	int rc;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	rc = asmc_clc_inject_set(buf);
	return rc ? rc : len;
}

static const struct file_operations clc_inject_fops = {
	.owner	= THIS_MODULE,
	.write	= clc_inject_write,
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

u32 asmc_fault_slow_ms(void)
{
	return READ_ONCE(asmc_fault_slowqp_ms);
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
	debugfs_create_file("clc_inject", 0200, asmc_debugfs_dir, NULL,
			    &clc_inject_fops);
	asmc_fault_debugfs(asmc_debugfs_dir);
	return 0;
}

void asmc_debugfs_exit(void)
{
	debugfs_remove_recursive(asmc_debugfs_dir);
}
