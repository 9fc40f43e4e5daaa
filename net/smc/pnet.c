// SPDX-License-Identifier: GPL-2.0
/* Pnet table: PNET ID -> net devices and RDMA device ports, per namespace;
 * kept in step with net device unregister/rename and RDMA device removal.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include "netns.h"
#include "pnet.h"

/* Errors of asmc_pnet_add (SMC_PNETID_ADD), following smc_pnet(8):
 * - PNET ID empty, longer than 16 or not alphanumeric: -EINVAL (lower case
 *   is accepted and stored upper case);
 * - neither a net device nor an RDMA device given: -EINVAL;
 * - net device unknown in the caller's namespace, RDMA device unknown or
 *   not visible from it: -ENODEV;
 * - RDMA port outside 1..number of ports: -EINVAL;
 * - the net device or the RDMA port already has a PNET ID (the same or
 *   another one; "only one pnetid can be defined for a certain interface"):
 *   -EEXIST. Nothing is added when any part fails.
 */

struct asmc_pnet_entry {
	struct list_head list;		/* asmc_pnet_table.entries */
	char pnetid[ASMC_PNETID_LEN + 1];
	bool is_eth;
	int ifindex;			/* is_eth: the device in this netns */
	char ethname[IFNAMSIZ];		/* is_eth: its current name */
	char ibname[ASMC_IBNAME_LEN];	/* !is_eth */
	u8 ibport;			/* !is_eth: 1-based */
};

/* Protects every table's entries and asmc_pnet_tables. */
static DEFINE_SPINLOCK(asmc_pnet_lock);
static LIST_HEAD(asmc_pnet_tables);

static struct asmc_pnet_table *asmc_pnet_table(struct net *net)
{
	return &asmc_net(net)->pnet;
}

/* Upper-cases in into out; -EINVAL unless 1..16 alphanumeric characters. */
int asmc_pnetid_normalize(const char *in, char out[ASMC_PNETID_LEN + 1])
{
	size_t len = strnlen(in, ASMC_PNETID_LEN + 1);
	size_t i;

	if (!len || len > ASMC_PNETID_LEN)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = in[i];

		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		else if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9'))
			return -EINVAL;	/* ASCII only: no Latin-1 letters */
		out[i] = c;
	}
	out[len] = '\0';
	return 0;
}

static bool asmc_pnet_ib_match(const struct asmc_pnet_entry *e,
			       const char *ibname, u8 port)
{
	return !e->is_eth && e->ibport == port && !strcmp(e->ibname, ibname);
}

/* An entry that already gives the same device (port) a PNET ID. */
static bool asmc_pnet_taken(struct asmc_pnet_table *t,
			    const struct asmc_pnet_entry *n)
{
	struct asmc_pnet_entry *e;

	lockdep_assert_held(&asmc_pnet_lock);
	list_for_each_entry(e, &t->entries, list) {
		if (n->is_eth && e->is_eth && e->ifindex == n->ifindex)
			return true;
		if (!n->is_eth && asmc_pnet_ib_match(e, n->ibname, n->ibport))
			return true;
	}
	return false;
}

static int asmc_pnet_ib_check(struct net *net, const char *ibname, int port,
			      struct netlink_ext_ack *extack)
{
	struct ib_device *ibdev;
	int rc = 0;

	ibdev = ib_device_get_by_name(ibname, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		NL_SET_ERR_MSG(extack, "no such RDMA device");
		return -ENODEV;
	}
	if (!rdma_dev_access_netns(ibdev, net)) {
		NL_SET_ERR_MSG(extack, "RDMA device not visible in this namespace");
		rc = -ENODEV;
	} else if (!rdma_is_port_valid(ibdev, port)) {
		NL_SET_ERR_MSG(extack, "RDMA device has no such port");
		rc = -EINVAL;
	}
	ib_device_put(ibdev);
	return rc;
}

int asmc_pnet_add(struct net *net, const char *name, const char *ethname,
		  const char *ibname, int ibport,
		  struct netlink_ext_ack *extack)
{
	struct asmc_pnet_table *t = asmc_pnet_table(net);
	struct asmc_pnet_entry *eth = NULL, *ib = NULL;
	char pnetid[ASMC_PNETID_LEN + 1];
	struct net_device *ndev;
	int rc;

	BUILD_BUG_ON(ASMC_IBNAME_LEN != IB_DEVICE_NAME_MAX);
	if (asmc_pnetid_normalize(name, pnetid)) {
		NL_SET_ERR_MSG(extack, "PNET ID must be 1-16 alphanumeric characters");
		return -EINVAL;
	}
	if (!ethname && !ibname) {
		NL_SET_ERR_MSG(extack, "need a net device or an RDMA device");
		return -EINVAL;
	}
	if (ibname) {
		if (ibport < 0)
			ibport = 1;	/* smc_pnet(8): the default port */
		rc = asmc_pnet_ib_check(net, ibname, ibport, extack);
		if (rc)
			return rc;
		ib = kzalloc(sizeof(*ib), GFP_KERNEL);
		if (!ib)
			return -ENOMEM;
		strscpy(ib->pnetid, pnetid, sizeof(ib->pnetid));
		strscpy(ib->ibname, ibname, sizeof(ib->ibname));
		ib->ibport = ibport;
	}
	if (ethname) {
		eth = kzalloc(sizeof(*eth), GFP_KERNEL);
		if (!eth) {
			rc = -ENOMEM;
			goto out_free;
		}
		strscpy(eth->pnetid, pnetid, sizeof(eth->pnetid));
		eth->is_eth = true;
	}

	rtnl_lock();
	if (eth) {
		ndev = __dev_get_by_name(net, ethname);
		if (!ndev) {
			NL_SET_ERR_MSG(extack, "no such net device");
			rc = -ENODEV;
			goto out_unlock;
		}
		eth->ifindex = ndev->ifindex;
		strscpy(eth->ethname, ndev->name, sizeof(eth->ethname));
	}
	spin_lock_bh(&asmc_pnet_lock);
	if ((eth && asmc_pnet_taken(t, eth)) || (ib && asmc_pnet_taken(t, ib))) {
		spin_unlock_bh(&asmc_pnet_lock);
		NL_SET_ERR_MSG(extack, "device already has a PNET ID");
		rc = -EEXIST;
		goto out_unlock;
	}
	if (eth)
		list_add_tail(&eth->list, &t->entries);
	if (ib)
		list_add_tail(&ib->list, &t->entries);
	spin_unlock_bh(&asmc_pnet_lock);
	rtnl_unlock();
	return 0;

out_unlock:
	rtnl_unlock();
out_free:
	kfree(eth);
	kfree(ib);
	return rc;
}

/* Moves the entries for which match() is true to a private list. */
static int asmc_pnet_cut(struct asmc_pnet_table *t, struct list_head *out,
			 bool (*match)(const struct asmc_pnet_entry *e,
				       const void *arg),
			 const void *arg)
{
	struct asmc_pnet_entry *e, *tmp;
	int n = 0;

	lockdep_assert_held(&asmc_pnet_lock);
	list_for_each_entry_safe(e, tmp, &t->entries, list) {
		if (match(e, arg)) {
			list_move_tail(&e->list, out);
			n++;
		}
	}
	return n;
}

static void asmc_pnet_free_list(struct list_head *head)
{
	struct asmc_pnet_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, head, list) {
		list_del(&e->list);
		kfree(e);
	}
}

static bool asmc_pnet_match_id(const struct asmc_pnet_entry *e,
			       const void *pnetid)
{
	return !strcmp(e->pnetid, pnetid);
}

static bool asmc_pnet_match_all(const struct asmc_pnet_entry *e,
				const void *unused)
{
	return true;
}

static bool asmc_pnet_match_ifindex(const struct asmc_pnet_entry *e,
				    const void *ifindex)
{
	return e->is_eth && e->ifindex == *(const int *)ifindex;
}

static bool asmc_pnet_match_ibname(const struct asmc_pnet_entry *e,
				   const void *ibname)
{
	return !e->is_eth && !strcmp(e->ibname, ibname);
}

/* Removes every entry of a PNET ID; -ENOENT if there was none. */
int asmc_pnet_del(struct net *net, const char *name)
{
	char pnetid[ASMC_PNETID_LEN + 1];
	LIST_HEAD(gone);
	int n;

	if (asmc_pnetid_normalize(name, pnetid))
		return -EINVAL;
	spin_lock_bh(&asmc_pnet_lock);
	n = asmc_pnet_cut(asmc_pnet_table(net), &gone, asmc_pnet_match_id,
			  pnetid);
	spin_unlock_bh(&asmc_pnet_lock);
	asmc_pnet_free_list(&gone);
	return n ? 0 : -ENOENT;
}

/* Empties the table; an empty table is no error (smc-tools rely on it). */
void asmc_pnet_flush(struct net *net)
{
	LIST_HEAD(gone);

	spin_lock_bh(&asmc_pnet_lock);
	asmc_pnet_cut(asmc_pnet_table(net), &gone, asmc_pnet_match_all, NULL);
	spin_unlock_bh(&asmc_pnet_lock);
	asmc_pnet_free_list(&gone);
}

/* Copies the idx-th entry (counting only those of pnetid, if given). */
int asmc_pnet_get(struct net *net, const char *pnetid, int idx,
		  struct asmc_pnet_info *out)
{
	struct asmc_pnet_table *t = asmc_pnet_table(net);
	struct asmc_pnet_entry *e;
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	spin_lock_bh(&asmc_pnet_lock);
	list_for_each_entry(e, &t->entries, list) {
		if (pnetid && strcmp(e->pnetid, pnetid))
			continue;
		if (idx--)
			continue;
		strscpy(out->pnetid, e->pnetid, sizeof(out->pnetid));
		if (e->is_eth) {
			strscpy(out->ethname, e->ethname, sizeof(out->ethname));
			out->ibport = ASMC_PNET_NO_PORT;
		} else {
			strscpy(out->ibname, e->ibname, sizeof(out->ibname));
			out->ibport = e->ibport;
		}
		rc = 0;
		break;
	}
	spin_unlock_bh(&asmc_pnet_lock);
	return rc;
}

int asmc_pnet_get_ndev_pnetid(struct net *net, const struct net_device *ndev,
			      char pnetid[ASMC_PNETID_LEN + 1])
{
	struct asmc_pnet_table *t = asmc_pnet_table(net);
	struct asmc_pnet_entry *e;
	int rc = -ENOENT;

	spin_lock_bh(&asmc_pnet_lock);
	list_for_each_entry(e, &t->entries, list) {
		if (e->is_eth && e->ifindex == ndev->ifindex) {
			strscpy(pnetid, e->pnetid, ASMC_PNETID_LEN + 1);
			rc = 0;
			break;
		}
	}
	spin_unlock_bh(&asmc_pnet_lock);
	return rc;
}

int asmc_pnet_get_ib_pnetid(struct net *net, const char *ibname, u8 port,
			    char pnetid[ASMC_PNETID_LEN + 1])
{
	struct asmc_pnet_table *t = asmc_pnet_table(net);
	struct asmc_pnet_entry *e;
	int rc = -ENOENT;

	spin_lock_bh(&asmc_pnet_lock);
	list_for_each_entry(e, &t->entries, list) {
		if (asmc_pnet_ib_match(e, ibname, port)) {
			strscpy(pnetid, e->pnetid, ASMC_PNETID_LEN + 1);
			rc = 0;
			break;
		}
	}
	spin_unlock_bh(&asmc_pnet_lock);
	return rc;
}

bool asmc_pnet_same(struct net *net, const struct net_device *ndev,
		    const char *ibname, u8 port)
{
	char a[ASMC_PNETID_LEN + 1], b[ASMC_PNETID_LEN + 1];

	return !asmc_pnet_get_ndev_pnetid(net, ndev, a) &&
	       !asmc_pnet_get_ib_pnetid(net, ibname, port, b) &&
	       !strcmp(a, b);
}

void asmc_pnet_ib_removed(const char *ibname)
{
	struct asmc_pnet_table *t;
	LIST_HEAD(gone);

	spin_lock_bh(&asmc_pnet_lock);
	list_for_each_entry(t, &asmc_pnet_tables, node)
		asmc_pnet_cut(t, &gone, asmc_pnet_match_ibname, ibname);
	spin_unlock_bh(&asmc_pnet_lock);
	asmc_pnet_free_list(&gone);
}

static int asmc_pnet_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct asmc_pnet_table *t;
	struct asmc_pnet_entry *e;
	LIST_HEAD(gone);

	ASSERT_RTNL();
	switch (event) {
	case NETDEV_UNREGISTER:	/* also when it moves to another netns */
		t = asmc_pnet_table(dev_net(dev));
		spin_lock_bh(&asmc_pnet_lock);
		asmc_pnet_cut(t, &gone, asmc_pnet_match_ifindex,
			      &dev->ifindex);
		spin_unlock_bh(&asmc_pnet_lock);
		asmc_pnet_free_list(&gone);
		break;
	case NETDEV_CHANGENAME:
		t = asmc_pnet_table(dev_net(dev));
		spin_lock_bh(&asmc_pnet_lock);
		list_for_each_entry(e, &t->entries, list)
			if (e->is_eth && e->ifindex == dev->ifindex)
				strscpy(e->ethname, dev->name,
					sizeof(e->ethname));
		spin_unlock_bh(&asmc_pnet_lock);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block asmc_pnet_netdev_nb = {
	.notifier_call = asmc_pnet_netdev_event,
};

void asmc_pnet_net_init(struct asmc_pnet_table *t)
{
	INIT_LIST_HEAD(&t->entries);
	spin_lock_bh(&asmc_pnet_lock);
	list_add_tail(&t->node, &asmc_pnet_tables);
	spin_unlock_bh(&asmc_pnet_lock);
}

/* Namespace exit: its net devices are gone already (device pernet ops run
 * before subsystem ones), so only RDMA entries can be left.
 */
void asmc_pnet_net_exit(struct asmc_pnet_table *t)
{
	LIST_HEAD(gone);

	spin_lock_bh(&asmc_pnet_lock);
	list_del(&t->node);
	list_splice_init(&t->entries, &gone);
	spin_unlock_bh(&asmc_pnet_lock);
	asmc_pnet_free_list(&gone);
}

int asmc_pnet_init(void)
{
	return register_netdevice_notifier(&asmc_pnet_netdev_nb);
}

void asmc_pnet_exit(void)
{
	unregister_netdevice_notifier(&asmc_pnet_netdev_nb);
}
