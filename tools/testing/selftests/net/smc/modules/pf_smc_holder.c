// SPDX-License-Identifier: GPL-2.0
/* Test helper module: holds address family AF_SMC (43) so a test can check
 * how smc.ko reacts when another module already registered the family.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>

static int pf_smc_holder_create(struct net *net, struct socket *sock,
				int protocol, int kern)
{
	return -EAFNOSUPPORT;
}

static const struct net_proto_family pf_smc_holder_ops = {
	.family	= PF_SMC,
	.owner	= THIS_MODULE,
	.create	= pf_smc_holder_create,
};

static int __init pf_smc_holder_init(void)
{
	return sock_register(&pf_smc_holder_ops);
}

static void __exit pf_smc_holder_exit(void)
{
	sock_unregister(PF_SMC);
}

module_init(pf_smc_holder_init);
module_exit(pf_smc_holder_exit);
MODULE_DESCRIPTION("test helper: occupies AF_SMC");
MODULE_LICENSE("GPL");
