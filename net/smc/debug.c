// SPDX-License-Identifier: GPL-2.0
/* Object accounting and the debugfs directory /sys/kernel/debug/smc:
 * "objects" (created/destroyed/live per type), "sockets", "stats".
 */
#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "debug.h"
#include "netns.h"
#include "socket.h"

struct asmc_objcount asmc_objcount[ASMC_OBJ_MAX];

const char *const asmc_obj_names[ASMC_OBJ_MAX] = {
	[ASMC_OBJ_SOCK]		= "sock",
	[ASMC_OBJ_CLCSOCK]	= "clcsock",
	[ASMC_OBJ_WORK]		= "work",
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

static int stats_show(struct seq_file *m, void *v)
{
	asmc_stats_show(m, &asmc_net(current->nsproxy->net_ns)->stats);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

int asmc_debugfs_init(void)
{
	asmc_debugfs_dir = debugfs_create_dir("smc", NULL);
	debugfs_create_file("objects", 0444, asmc_debugfs_dir, NULL,
			    &objects_fops);
	debugfs_create_file("sockets", 0444, asmc_debugfs_dir, NULL,
			    &sockets_fops);
	debugfs_create_file("stats", 0444, asmc_debugfs_dir, NULL,
			    &stats_fops);
	return 0;
}

void asmc_debugfs_exit(void)
{
	debugfs_remove_recursive(asmc_debugfs_dir);
}
