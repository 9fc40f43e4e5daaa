// SPDX-License-Identifier: GPL-2.0
/* Test helper module: notifies the device behind a virtio-net interface of
 * every one of its virtqueues, as the driver does after adding buffers.
 *
 *   echo eth1 > /sys/module/virtio_kick/parameters/kick
 *
 * QEMU 7.2 under TCG sometimes stops taking a guest's transmit buffers
 * until the guest notifies the queue again, which the driver, with its
 * ring full, never does (the interface's NETDEV WATCHDOG fires every 5 s,
 * for minutes). The test guests' NIC watch (smc_lib.sh) writes the
 * interface's name here when that happens. A notification with nothing
 * new in the ring costs the device one look at it, nothing else.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/virtio.h>
#include <net/net_namespace.h>

static int virtio_kick_set(const char *val, const struct kernel_param *kp)
{
	char name[IFNAMSIZ];
	struct net_device *dev;
	struct virtio_device *vdev;
	struct virtqueue *vq;
	struct device *parent;
	int n = 0;

	strscpy(name, val, sizeof(name));
	strim(name);
	dev = dev_get_by_name(&init_net, name);
	if (!dev)
		return -ENODEV;
	/* the device's virtqueues outlive our reference to the interface
	 * (virtio_net deletes them only after unregister_netdev())
	 */
	parent = dev->dev.parent;
	if (!parent || !parent->driver ||
	    strcmp(parent->driver->name, "virtio_net")) {
		dev_put(dev);
		return -EINVAL;
	}
	vdev = dev_to_virtio(parent);
	virtio_device_for_each_vq(vdev, vq) {
		virtqueue_notify(vq);
		n++;
	}
	pr_info("virtio_kick: %s: %d virtqueues notified\n", name, n);
	dev_put(dev);
	return 0;
}

static const struct kernel_param_ops virtio_kick_ops = {
	.set	= virtio_kick_set,
};
module_param_cb(kick, &virtio_kick_ops, NULL, 0200);
MODULE_PARM_DESC(kick, "virtio-net interface whose virtqueues to notify");

MODULE_DESCRIPTION("test helper: notify a virtio-net device of its queues");
MODULE_LICENSE("GPL");
