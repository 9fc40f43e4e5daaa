// SPDX-License-Identifier: GPL-2.0
/* Object accounting and the debugfs directory /sys/kernel/debug/smc:
 * "objects" (created/destroyed/live per type), "sockets", "stats".
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
	return 0;
}

void asmc_debugfs_exit(void)
{
	debugfs_remove_recursive(asmc_debugfs_dir);
}
