/* SPDX-License-Identifier: GPL-2.0 */
/* The pnet table of a network namespace: user-defined PNET IDs for net
 * devices and RDMA device ports, which group them into physical networks.
 */
#ifndef ASMC_PNET_H
#define ASMC_PNET_H

#include <linux/if.h>
#include <linux/list.h>
#include <linux/types.h>

struct net;
struct net_device;
struct netlink_ext_ack;

#define ASMC_PNETID_LEN		16	/* characters, without the NUL */
#define ASMC_IBNAME_LEN		64	/* IB_DEVICE_NAME_MAX, with the NUL */
#define ASMC_PNET_NO_PORT	255	/* what a net device entry shows */

/* One namespace's table. The entries and the list of all tables are
 * protected by one module-wide spinlock (asmc_pnet_lock in pnet.c, taken
 * with _bh); entries that name a net device are also only added or renamed
 * under RTNL, so they cannot miss that device's NETDEV_UNREGISTER.
 */
struct asmc_pnet_table {
	struct list_head entries;	/* struct asmc_pnet_entry, in add order */
	struct list_head node;		/* on the list of all tables */
};

/* A copy of one entry, as SMC_PNETID_GET shows it: either ethname set
 * (ibname empty, ibport ASMC_PNET_NO_PORT) or ibname and ibport set.
 */
struct asmc_pnet_info {
	char pnetid[ASMC_PNETID_LEN + 1];
	char ethname[IFNAMSIZ];
	char ibname[ASMC_IBNAME_LEN];
	u8 ibport;
};

int asmc_pnet_init(void);
void asmc_pnet_exit(void);
void asmc_pnet_net_init(struct asmc_pnet_table *t);
void asmc_pnet_net_exit(struct asmc_pnet_table *t);

/* Device selection. pnetid receives the NUL-terminated, upper-case ID. */
int asmc_pnet_get_ndev_pnetid(struct net *net, const struct net_device *ndev,
			      char pnetid[ASMC_PNETID_LEN + 1]);
int asmc_pnet_get_ib_pnetid(struct net *net, const char *ibname, u8 port,
			    char pnetid[ASMC_PNETID_LEN + 1]);
bool asmc_pnet_same(struct net *net, const struct net_device *ndev,
		    const char *ibname, u8 port);
/* Called by the IB layer when an RDMA device goes away: drops its entries
 * in every namespace.
 */
void asmc_pnet_ib_removed(const char *ibname);

/* For SMC_PNETID. ibport < 0: not given (port 1). */
int asmc_pnetid_normalize(const char *in, char out[ASMC_PNETID_LEN + 1]);
int asmc_pnet_add(struct net *net, const char *pnetid, const char *ethname,
		  const char *ibname, int ibport,
		  struct netlink_ext_ack *extack);
int asmc_pnet_del(struct net *net, const char *pnetid);
void asmc_pnet_flush(struct net *net);
int asmc_pnet_get(struct net *net, const char *pnetid, int idx,
		  struct asmc_pnet_info *out);

#endif /* ASMC_PNET_H */
