/* SPDX-License-Identifier: GPL-2.0 */
/* RDMA devices usable for SMC-R: discovery through an ib_client, port state,
 * and the choice of device, port and GID for a connection.
 */
#ifndef ASMC_IB_H
#define ASMC_IB_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include "debug.h"

#define ASMC_IB_MAX_PORTS	2

#define ASMC_IBDEV_GIDS_CHANGED	0	/* events: a GID table changed */

struct asmc_ibport {
	bool		active;		/* IB_PORT_ACTIVE */
	enum ib_mtu	mtu;		/* active MTU */
	int		gid_tbl_len;
};

/* One RDMA device. Lives on asmc_ibdevs (RCU) from add() to remove();
 * links hold references. remove() takes it off the list, makes the link
 * groups using it let go, and waits until the last reference is gone
 * before the PD is freed and the device may disappear.
 */
struct asmc_ibdev {
	struct list_head	node;		/* asmc_ibdevs, RCU */
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	refcount_t		ref;
	struct completion	unused;		/* ref dropped to zero */
	bool			removing;
	struct ib_event_handler	event_handler;
	struct work_struct	port_work;
	unsigned long		events;		/* ASMC_IBDEV_* bits */
	spinlock_t		lock;		/* ports */
	u8			nports;
	struct asmc_ibport	ports[ASMC_IB_MAX_PORTS];
	struct rcu_head		rcu;
};

/* What a connection uses on the local side. */
struct asmc_ibsel {
	struct asmc_ibdev	*dev;		/* reference held */
	u8			port;		/* 1-based */
	u8			gid_index;
	u8			gid[16];
	u8			mac[ETH_ALEN];
	enum ib_mtu		mtu;
	bool			roce_v2;	/* a RoCE v2 (UDP) GID */
	u32			saddr;		/* IPv4 source, network order */
	int			ifindex;	/* the connection's net_device */
};

/* Is @sel on port @port of @dev? */
static inline bool asmc_ibsel_on(const struct asmc_ibsel *sel,
				 const struct asmc_ibdev *dev, u8 port)
{
	return sel->dev == dev && sel->port == port;
}

int asmc_ib_init(void);
void asmc_ib_exit(void);

bool asmc_ib_any_device(void);
int asmc_ib_select_v2(struct sock *clcsk, struct asmc_ibsel *sel);
int asmc_ib_select_v1(struct sock *clcsk, bool any_gid,
		      struct asmc_ibsel *sel);
int asmc_ib_select_alt(struct net *net, const struct asmc_ibsel *const *used,
		       int nused, const u8 *peer_gid, bool must_reach,
		       u8 version, bool v1_any_gid, struct asmc_ibsel *sel);
int asmc_ib_select_same(struct net *net, const struct asmc_ibsel *in_use,
			const u8 *peer_gid, struct asmc_ibsel *sel);
bool asmc_ib_peer_local(struct net *net, const u8 *gid);
bool asmc_ib_sel_reaches(struct net *net, const struct asmc_ibsel *sel,
			 const u8 *gid);
void asmc_ibsel_put(struct asmc_ibsel *sel);
struct asmc_ibdev *asmc_ibdev_get_nth(unsigned long n);
int asmc_ib_port_ifindex(struct asmc_ibdev *dev, u8 port);
bool asmc_ibsel_port_active(const struct asmc_ibsel *sel);

static inline void asmc_ibdev_get(struct asmc_ibdev *dev)
{
	refcount_inc(&dev->ref);
	asmc_obj_created(ASMC_OBJ_DEVREF, dev);
}

void asmc_ibdev_put(struct asmc_ibdev *dev);

#endif /* ASMC_IB_H */
