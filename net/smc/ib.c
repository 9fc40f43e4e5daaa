// SPDX-License-Identifier: GPL-2.0
/* RDMA device layer: an ib_client keeps the list of devices with a PD and
 * port state each; connections pick device, port and RoCE GID from the
 * route of their TCP connection (the GID's net_device, as rxe has no
 * get_netdev), and device removal tears down everything that uses it.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/sock.h>
#include <rdma/ib_cache.h>
#include "clc_wire.h"
#include "debug.h"
#include "ib.h"
#include "lgr.h"
#include "pnet.h"

static LIST_HEAD(asmc_ibdevs);
static DEFINE_MUTEX(asmc_ibdevs_mutex);	/* writers of asmc_ibdevs */
static struct ib_client asmc_ib_client;

/* Drop a reference taken by asmc_ibdev_get(); the device's own base
 * reference is dropped only by asmc_ib_remove().
 */
void asmc_ibdev_put(struct asmc_ibdev *dev)
{
	asmc_obj_destroyed(ASMC_OBJ_DEVREF, dev);
	if (refcount_dec_and_test(&dev->ref))
		complete(&dev->unused);
}

bool asmc_ib_any_device(void)
{
	return !list_empty_careful(&asmc_ibdevs);
}

/* Read the ports' state; a bit in the result for each port that was
 * active and is no longer, in @went_up for each that became active.
 */
static unsigned long asmc_ib_port_refresh(struct asmc_ibdev *dev,
					  unsigned long *went_up)
{
	unsigned long went_down = 0, up = 0;
	struct ib_port_attr attr;
	u8 i;

	for (i = 0; i < dev->nports; i++) {
		if (ib_query_port(dev->ibdev, i + 1, &attr)) {
			memset(&attr, 0, sizeof(attr));
			attr.state = IB_PORT_DOWN;
		}
		spin_lock_bh(&dev->lock);
		if (dev->ports[i].active && attr.state != IB_PORT_ACTIVE)
			went_down |= BIT(i);
		if (!dev->ports[i].active && attr.state == IB_PORT_ACTIVE)
			up |= BIT(i);
		dev->ports[i].active = attr.state == IB_PORT_ACTIVE;
		dev->ports[i].mtu = attr.active_mtu;
		dev->ports[i].gid_tbl_len = attr.gid_tbl_len;
		spin_unlock_bh(&dev->lock);
	}
	if (went_up)
		*went_up = up;
	return went_down;
}

static void asmc_ib_port_work(struct work_struct *work)
{
	struct asmc_ibdev *dev = container_of(work, struct asmc_ibdev,
					      port_work);
	bool gids = test_and_clear_bit(ASMC_IBDEV_GIDS_CHANGED, &dev->events);
	unsigned long up, down = asmc_ib_port_refresh(dev, &up);
	u8 i;

	for (i = 0; i < dev->nports; i++)
		if (down & BIT(i))
			asmc_lgr_port_down(dev, i + 1);
	/* a port that came up, or a new address on one, may carry a second
	 * link for groups that have one
	 */
	if (up || gids)
		asmc_lgr_ports_up();
}

/* Port events come in atomic context: refresh from a work item. */
static void asmc_ib_event(struct ib_event_handler *handler,
			  struct ib_event *ev)
{
	struct asmc_ibdev *dev = container_of(handler, struct asmc_ibdev,
					      event_handler);

	switch (ev->event) {
	case IB_EVENT_GID_CHANGE:
		set_bit(ASMC_IBDEV_GIDS_CHANGED, &dev->events);
		fallthrough;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_DEVICE_FATAL:
		schedule_work(&dev->port_work);
		break;
	default:
		break;
	}
}

static int asmc_ib_add(struct ib_device *ibdev)
{
	struct asmc_ibdev *dev;
	u32 port;
	int rc;

	/* SMC-R runs over RoCE only (v1 or v2 GIDs on Ethernet ports) */
	rdma_for_each_port(ibdev, port)
		if (!rdma_protocol_roce(ibdev, port))
			return -EOPNOTSUPP;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	dev->nports = min_t(u32, rdma_end_port(ibdev), ASMC_IB_MAX_PORTS);
	refcount_set(&dev->ref, 1);
	init_completion(&dev->unused);
	spin_lock_init(&dev->lock);
	INIT_WORK(&dev->port_work, asmc_ib_port_work);
	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		rc = PTR_ERR(dev->pd);
		kfree(dev);
		return rc;
	}
	asmc_ib_port_refresh(dev, NULL);
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ibdev, asmc_ib_event);
	ib_register_event_handler(&dev->event_handler);
	ib_set_client_data(ibdev, &asmc_ib_client, dev);

	mutex_lock(&asmc_ibdevs_mutex);
	list_add_tail_rcu(&dev->node, &asmc_ibdevs);
	mutex_unlock(&asmc_ibdevs_mutex);
	asmc_obj_created(ASMC_OBJ_IBDEV, dev);
	pr_info("using RDMA device %s (%u port%s)\n", dev_name(&ibdev->dev),
		dev->nports, dev->nports > 1 ? "s" : "");
	asmc_lgr_ports_up();	/* groups may take a link on it */
	return 0;
}

static void asmc_ib_remove(struct ib_device *ibdev, void *data)
{
	struct asmc_ibdev *dev = data;
	int i;

	mutex_lock(&asmc_ibdevs_mutex);
	list_del_rcu(&dev->node);
	mutex_unlock(&asmc_ibdevs_mutex);
	WRITE_ONCE(dev->removing, true);
	synchronize_rcu();	/* no new user can find it now */

	/* every link on the device goes; connections on them are aborted */
	asmc_lgr_ibdev_gone(dev);
	if (refcount_dec_and_test(&dev->ref))	/* the base reference */
		complete(&dev->unused);
	for (i = 1; !wait_for_completion_timeout(&dev->unused, HZ); i++) {
		/* a handshake that had picked the device may have set up a
		 * group on it meanwhile; others end within their timeouts
		 */
		asmc_lgr_ibdev_gone(dev);
		if (!(i % 10))
			pr_warn("RDMA device %s: still in use after %d s\n",
				dev_name(&ibdev->dev), i);
	}

	ib_unregister_event_handler(&dev->event_handler);
	cancel_work_sync(&dev->port_work);
	ib_dealloc_pd(dev->pd);
	asmc_pnet_ib_removed(dev_name(&ibdev->dev));
	pr_info("RDMA device %s removed\n", dev_name(&ibdev->dev));
	asmc_obj_destroyed(ASMC_OBJ_IBDEV, dev);
	kfree_rcu(dev, rcu);
}

static struct ib_client asmc_ib_client = {
	.name	= "smc_ib",
	.add	= asmc_ib_add,
	.remove	= asmc_ib_remove,
};

/* The net_device that carries the connection's traffic. */
static struct net_device *asmc_ib_egress_dev(struct sock *clcsk)
{
	struct dst_entry *dst = sk_dst_get(clcsk);
	struct net_device *ndev = NULL;

	if (dst) {
		ndev = dst->dev;
		if (ndev)
			dev_hold(ndev);
		dst_release(dst);
	}
	return ndev;
}

/* What a connection needs of a GID: its version, and the TCP source
 * address (IPv4 as v4-mapped IPv6, the form of an IP-based GID).
 */
struct asmc_ib_want {
	u8		version;	/* 1 or 2 */
	bool		any_gid;	/* v1 on a RoCE v2 GID allowed */
	struct in6_addr	src;
};

static int asmc_ib_gid_fits(const struct ib_gid_attr *attr,
			    const struct asmc_ib_want *want)
{
	u8 type;

	switch (attr->gid_type) {
	case IB_GID_TYPE_ROCE:
		type = ASMC_GID_ROCE_V1;
		break;
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		type = ASMC_GID_ROCE_V2;
		break;
	default:
		return ASMC_GID_FIT_NONE;
	}
	return asmc_gid_fit(type, attr->gid.raw, want->version, want->any_gid,
			    want->src.s6_addr);
}

/* Take GID @attr, found on @ndev, into @sel. */
static void asmc_ib_sel_gid(struct asmc_ibsel *sel,
			    const struct ib_gid_attr *attr,
			    const struct net_device *ndev)
{
	sel->gid_index = attr->index;
	sel->roce_v2 = attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
	memcpy(sel->gid, attr->gid.raw, 16);
	memcpy(sel->mac, ndev->dev_addr, ETH_ALEN);
}

/* The GID of @want's source address itself, of @type on @ndev: one
 * search of ib_core's table under its lock; true with @sel filled.
 */
static bool asmc_ib_own_gid(struct asmc_ibdev *dev, u8 port,
			    struct net_device *ndev, enum ib_gid_type type,
			    const struct asmc_ib_want *want,
			    struct asmc_ibsel *sel)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(dev->ibdev,
				     (const union ib_gid *)want->src.s6_addr,
				     type, port, ndev);
	if (IS_ERR(attr))
		return false;
	asmc_ib_sel_gid(sel, attr, ndev);
	rdma_put_gid_attr(attr);
	return true;
}

/* v1 on any RoCE v1 GID of @ndev (L2: the address need not match): a walk
 * of the whole table, which is long (rxe has 1024 entries); only for
 * ports that speak RoCE v1 at all.
 */
static bool asmc_ib_any_gid(struct asmc_ibdev *dev, u8 port,
			    struct net_device *ndev,
			    const struct asmc_ib_want *want,
			    struct asmc_ibsel *sel)
{
	const struct ib_gid_attr *attr;
	struct net_device *gid_ndev;
	int i, tbl_len;
	bool found = false;

	tbl_len = READ_ONCE(dev->ports[port - 1].gid_tbl_len);
	for (i = 0; i < tbl_len && !found; i++) {
		attr = rdma_get_gid_attr(dev->ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		if (asmc_ib_gid_fits(attr, want) > ASMC_GID_FIT_NONE) {
			rcu_read_lock();
			gid_ndev = rdma_read_gid_attr_ndev_rcu(attr);
			if (!IS_ERR(gid_ndev) && gid_ndev == ndev) {
				asmc_ib_sel_gid(sel, attr, ndev);
				found = true;
			}
			rcu_read_unlock();
		}
		rdma_put_gid_attr(attr);
	}
	return found;
}

/* A GID on @ndev for @want on an active port. When the administrator gave
 * @ndev a PNET ID, only IB ports with the same PNET ID qualify. Best is
 * the GID of the source address (for v1 its RoCE v1 GID before, with
 * any_gid, its RoCE v2 one), then for v1 any RoCE v1 GID of the device.
 * This runs for every connection: the exact GIDs are looked up, the
 * table is walked only for the last resort.
 */
static bool asmc_ib_try_port(struct net *net, struct asmc_ibdev *dev,
			     u8 port, struct net_device *ndev,
			     const struct asmc_ib_want *want,
			     struct asmc_ibsel *sel)
{
	bool v1 = want->version == 1 &&
		  rdma_protocol_roce_eth_encap(dev->ibdev, port);
	char pnetid[17];

	if (!asmc_pnet_get_ndev_pnetid(net, ndev, pnetid) &&
	    !asmc_pnet_same(net, ndev, dev_name(&dev->ibdev->dev), port))
		return false;
	if (v1 && asmc_ib_own_gid(dev, port, ndev, IB_GID_TYPE_ROCE, want,
				  sel))
		return true;
	if ((want->version >= 2 || want->any_gid) &&
	    asmc_ib_own_gid(dev, port, ndev, IB_GID_TYPE_ROCE_UDP_ENCAP, want,
			    sel))
		return true;
	return v1 && asmc_ib_any_gid(dev, port, ndev, want, sel);
}

/* Choose device, port and GID for the TCP connection of @clcsk. On
 * success @sel holds a device reference; release it with
 * asmc_ibsel_put().
 */
static int asmc_ib_select(struct sock *clcsk, struct asmc_ib_want *want,
			  struct asmc_ibsel *sel)
{
	__be32 saddr = inet_sk(clcsk)->inet_saddr;
	struct net_device *ndev;
	struct asmc_ibdev *dev;
	bool v4 = true;
	int rc = -ENODEV;
	u8 p;

	memset(sel, 0, sizeof(*sel));
	if (clcsk->sk_family != AF_INET && clcsk->sk_family != AF_INET6)
		return -EAFNOSUPPORT;
	/* an IPv6 socket talking IPv4 (a dual-stack listener's child, or a
	 * connect to ::ffff:a.b.c.d) has its IPv4 addresses in inet_sk
	 */
	if (clcsk->sk_family == AF_INET6 &&
	    !(ipv6_addr_v4mapped(&clcsk->sk_v6_rcv_saddr) &&
	      ipv6_addr_v4mapped(&clcsk->sk_v6_daddr)))
		v4 = false;
	if (!v4 && want->version == 2)
		return -EAFNOSUPPORT;	/* SMC-R v2 is IPv4 only */
	if (v4)
		ipv6_addr_set_v4mapped(saddr, &want->src);
	else
		want->src = clcsk->sk_v6_rcv_saddr;
	ndev = asmc_ib_egress_dev(clcsk);
	if (!ndev)
		return -ENODEV;
	if (ndev->flags & IFF_LOOPBACK) {
		/* a connection to one of our own addresses: SMC-R through the
		 * RoCE device of the interface that owns the source address
		 * (the device loops it back)
		 */
		struct net_device *own;

		if (v4) {
			own = ip_dev_find(sock_net(clcsk), saddr);
		} else {
			rcu_read_lock();
			own = ipv6_dev_find(sock_net(clcsk), &want->src, NULL);
			dev_hold(own);
			rcu_read_unlock();
		}
		dev_put(ndev);
		if (!own)
			return -ENODEV;
		ndev = own;
	}
	rcu_read_lock();
	list_for_each_entry_rcu(dev, &asmc_ibdevs, node) {
		if (READ_ONCE(dev->removing))
			continue;
		for (p = 1; p <= dev->nports; p++) {
			if (!READ_ONCE(dev->ports[p - 1].active))
				continue;
			if (!asmc_ib_try_port(sock_net(clcsk), dev, p, ndev,
					      want, sel))
				continue;
			asmc_ibdev_get(dev);
			sel->dev = dev;
			sel->port = p;
			sel->mtu = READ_ONCE(dev->ports[p - 1].mtu);
			sel->saddr = v4 ? (__force u32)saddr : 0;
			sel->ifindex = ndev->ifindex;
			rc = 0;
			goto out;
		}
	}
out:
	rcu_read_unlock();
	dev_put(ndev);
	return rc;
}

/* SMC-R v2: the RoCE v2 GID of the connection's IPv4 source address. */
int asmc_ib_select_v2(struct sock *clcsk, struct asmc_ibsel *sel)
{
	struct asmc_ib_want want = { .version = 2 };

	return asmc_ib_select(clcsk, &want, sel);
}

/* SMC-R v1: a RoCE v1 GID on the connection's network device (IPv4 or
 * IPv6), or with @any_gid also the RoCE v2 GID of its source address.
 */
int asmc_ib_select_v1(struct sock *clcsk, bool any_gid,
		      struct asmc_ibsel *sel)
{
	struct asmc_ib_want want = { .version = 1, .any_gid = any_gid };

	return asmc_ib_select(clcsk, &want, sel);
}

/* Is port @p of @dev one of @n already in use? */
static bool asmc_ib_port_used(const struct asmc_ibdev *dev, u8 p,
			      const struct asmc_ibsel *const *used, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (used[i]->dev == dev && used[i]->port == p)
			return true;
	return false;
}

/* The net_device of an IPv4 RoCE v2 GID of @dev's port @p that is up in
 * @net, with the GID (its IPv4 address) in @gid; a reference is held.
 */
static struct net_device *asmc_ib_port_v4_ndev(struct net *net,
					       struct asmc_ibdev *dev, u8 p,
					       struct in6_addr *gid)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev, *found = NULL;
	int i, tbl_len;

	tbl_len = READ_ONCE(dev->ports[p - 1].gid_tbl_len);
	for (i = 0; i < tbl_len && !found; i++) {
		attr = rdma_get_gid_attr(dev->ibdev, p, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw)) {
			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(attr);
			if (!IS_ERR_OR_NULL(ndev) && net_eq(dev_net(ndev), net) &&
			    netif_running(ndev) && netif_carrier_ok(ndev)) {
				dev_hold(ndev);
				found = ndev;
				memcpy(gid->s6_addr, attr->gid.raw, 16);
			}
			rcu_read_unlock();
		}
		rdma_put_gid_attr(attr);
	}
	return found;
}

/* Can @ndev reach IPv4 @daddr: on a subnet of its own, or as the kernel's
 * route to it? rxe sends out of the GID's device and takes for on-link
 * what it has no route for there, so the packets of a link whose device
 * does not reach the peer land on another of the peer's devices. The
 * source address to use goes to @saddr.
 */
static bool asmc_ib_ndev_reaches(struct net *net, struct net_device *ndev,
				 __be32 daddr, __be32 *saddr)
{
	struct flowi4 fl4 = { .daddr = daddr };
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	struct rtable *rt;
	bool ok = false;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (!inet_ifa_match(daddr, ifa))
				continue;
			*saddr = ifa->ifa_local;
			ok = true;
			break;
		}
	}
	rcu_read_unlock();
	if (ok)
		return true;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return false;
	ok = rt->dst.dev == ndev;
	*saddr = fl4.saddr;
	ip_rt_put(rt);
	return ok;
}

/* The IPv4 address of an IP-based GID (v4-mapped IPv6): true with @addr set */
static bool asmc_ib_gid_v4(const u8 *gid, __be32 *addr)
{
	if (!ipv6_addr_v4mapped((const struct in6_addr *)gid))
		return false;
	memcpy(addr, gid + 12, 4);
	return true;
}

/* Is the IPv4 address of @gid one of ours (a group with ourselves)? */
bool asmc_ib_peer_local(struct net *net, const u8 *gid)
{
	__be32 addr;

	return asmc_ib_gid_v4(gid, &addr) &&
	       inet_addr_type(net, addr) == RTN_LOCAL;
}

/* Does the device of @sel reach the IPv4 RoCE v2 GID @gid? */
bool asmc_ib_sel_reaches(struct net *net, const struct asmc_ibsel *sel,
			 const u8 *gid)
{
	struct net_device *ndev;
	__be32 daddr, saddr;
	bool ok;

	if (!asmc_ib_gid_v4(gid, &daddr))
		return false;
	ndev = dev_get_by_index(net, sel->ifindex);
	if (!ndev)
		return false;
	ok = asmc_ib_ndev_reaches(net, ndev, daddr, &saddr);
	dev_put(ndev);
	return ok;
}

/* Port @p of @dev for a link to IPv4 @daddr (0: anywhere), on the GID of
 * the source address that reaches it; true with @sel filled.
 */
static bool asmc_ib_alt_port(struct net *net, struct asmc_ibdev *dev, u8 p,
			     __be32 daddr, const struct asmc_ib_want *like,
			     struct asmc_ibsel *sel)
{
	struct asmc_ib_want want = *like;
	struct net_device *ndev;
	__be32 saddr;
	bool ok;

	ndev = asmc_ib_port_v4_ndev(net, dev, p, &want.src);
	if (!ndev)
		return false;
	ok = !daddr || asmc_ib_ndev_reaches(net, ndev, daddr, &saddr);
	if (ok && daddr)
		ipv6_addr_set_v4mapped(saddr, &want.src);
	ok = ok && asmc_ib_try_port(net, dev, p, ndev, &want, sel);
	if (ok) {
		sel->ifindex = ndev->ifindex;
		memcpy(&sel->saddr, want.src.s6_addr + 12, 4);
	}
	dev_put(ndev);
	return ok;
}

/* Another link for a group: an active RoCE port other than the
 * @nused ones the group's links use, with an IPv4 RoCE v2 GID whose
 * device reaches the peer's @peer_gid (on a shared subnet, preferred, or
 * by route). With @must_reach (the client answering the server's offer)
 * only such a port will do; without (the server making an offer, the
 * client may have a port of its own on our other subnet) any other port
 * is the fallback. A v1 group (@version 1) takes such a GID with
 * @v1_any_gid only, as for its first link. On success @sel holds a device
 * reference (asmc_ibsel_put()).
 */
int asmc_ib_select_alt(struct net *net, const struct asmc_ibsel *const *used,
		       int nused, const u8 *peer_gid, bool must_reach,
		       u8 version, bool v1_any_gid, struct asmc_ibsel *sel)
{
	struct asmc_ib_want want = { .version = version,
				     .any_gid = v1_any_gid };
	struct asmc_ibdev *dev, *found = NULL;
	__be32 daddr = 0;
	int pass;
	u8 p;

	memset(sel, 0, sizeof(*sel));
	if (!asmc_ib_gid_v4(peer_gid, &daddr) && must_reach)
		return -EAFNOSUPPORT;
	if (daddr && inet_addr_type(net, daddr) == RTN_LOCAL) {
		/* a group with ourselves: its link loops back through its
		 * device, another one would add nothing
		 */
		if (must_reach)
			return -ENODEV;
		daddr = 0;
	}
	rcu_read_lock();
	for (pass = daddr ? 0 : 1; pass < (must_reach ? 1 : 2) && !found;
	     pass++) {
		list_for_each_entry_rcu(dev, &asmc_ibdevs, node) {
			if (READ_ONCE(dev->removing))
				continue;
			for (p = 1; p <= dev->nports; p++) {
				if (!READ_ONCE(dev->ports[p - 1].active) ||
				    asmc_ib_port_used(dev, p, used, nused))
					continue;
				if (asmc_ib_alt_port(net, dev, p,
						     pass ? 0 : daddr, &want,
						     sel)) {
					found = dev;
					break;
				}
			}
			if (found)
				break;
		}
	}
	if (found) {
		asmc_ibdev_get(found);
		sel->dev = found;
		sel->port = p;
		sel->mtu = READ_ONCE(found->ports[p - 1].mtu);
	}
	rcu_read_unlock();
	return found ? 0 : -ENODEV;
}

/* A second link on the port a group uses already (@in_use), towards
 * another port of the peer's (an "asymmetric" link: one side has a single
 * port): the same GID, if the port is still active and its network device
 * reaches @peer_gid. On success @sel holds a device reference.
 */
int asmc_ib_select_same(struct net *net, const struct asmc_ibsel *in_use,
			const u8 *peer_gid, struct asmc_ibsel *sel)
{
	struct asmc_ibdev *dev = in_use->dev;

	memset(sel, 0, sizeof(*sel));
	/* not to ourselves: the peer's "other port" is our own address */
	if (asmc_ib_peer_local(net, peer_gid) ||
	    !asmc_ib_sel_reaches(net, in_use, peer_gid))
		return -EHOSTUNREACH;
	rcu_read_lock();
	if (READ_ONCE(dev->removing) ||
	    !READ_ONCE(dev->ports[in_use->port - 1].active)) {
		rcu_read_unlock();
		return -ENODEV;
	}
	*sel = *in_use;
	sel->mtu = READ_ONCE(dev->ports[in_use->port - 1].mtu);
	asmc_ibdev_get(dev);
	rcu_read_unlock();
	return 0;
}

/* For dumps: a reference to the @n-th (from 0) device in use, or NULL past
 * the last. Release it with asmc_ibdev_put().
 */
struct asmc_ibdev *asmc_ibdev_get_nth(unsigned long n)
{
	struct asmc_ibdev *dev, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(dev, &asmc_ibdevs, node) {
		if (READ_ONCE(dev->removing) || n--)
			continue;
		if (refcount_inc_not_zero(&dev->ref)) {
			asmc_obj_created(ASMC_OBJ_DEVREF, dev);
			found = dev;
		}
		break;
	}
	rcu_read_unlock();
	return found;
}

/* Can @sel's port carry packets now? Active at the last port event and,
 * as that event may still be queued (a link can fail on a port that
 * went down before we heard of it), the net_device behind its GID up.
 */
bool asmc_ibsel_port_active(const struct asmc_ibsel *sel)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	bool up = true;

	if (!READ_ONCE(sel->dev->ports[sel->port - 1].active))
		return false;
	attr = rdma_get_gid_attr(sel->dev->ibdev, sel->port, sel->gid_index);
	if (IS_ERR(attr))
		return true;	/* the GID went: the port event tells */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR_OR_NULL(ndev))
		up = netif_running(ndev) && netif_carrier_ok(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return up;
}

/* ifindex of the net_device behind the GIDs of port @port, 0 if none
 * (rxe has no get_netdev: the GID attributes know the device).
 */
int asmc_ib_port_ifindex(struct asmc_ibdev *dev, u8 port)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int i, tbl_len, ifindex = 0;

	tbl_len = READ_ONCE(dev->ports[port - 1].gid_tbl_len);
	for (i = 0; i < tbl_len && !ifindex; i++) {
		attr = rdma_get_gid_attr(dev->ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (!IS_ERR_OR_NULL(ndev))
			ifindex = ndev->ifindex;
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
	}
	return ifindex;
}

void asmc_ibsel_put(struct asmc_ibsel *sel)
{
	if (sel->dev)
		asmc_ibdev_put(sel->dev);
	sel->dev = NULL;
}

int asmc_ib_init(void)
{
	return ib_register_client(&asmc_ib_client);
}

void asmc_ib_exit(void)
{
	ib_unregister_client(&asmc_ib_client);
}
