// SPDX-License-Identifier: GPL-2.0
/* Module entry points for AF_SMC: registers the protocol family, enables
 * the SMC TCP option in the TCP stack, and undoes it all on unload.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <smc/version.h>
#include "clc.h"
#include "debug.h"
#include "ib.h"
#include "lgr.h"
#include "netlink.h"
#include "netns.h"
#include "socket.h"

static int __init asmc_init(void)
{
	int rc;

	asmc_clc_init();
	asmc_lgr_init();	/* before net.smc.buf_limit shows */
	rc = proto_register(&asmc_proto, 1);
	if (rc)
		return rc;
	rc = asmc_netns_init();
	if (rc)
		goto err_proto;
	rc = asmc_nl_init();
	if (rc)
		goto err_netns;
	rc = asmc_socket_init();
	if (rc)
		goto err_nl;
	rc = asmc_ib_init();
	if (rc)
		goto err_socket;
	asmc_debugfs_init();
	/* TCP adds the SMC option to SYNs of sockets we mark syn_smc */
	static_branch_inc(&tcp_have_smc);

	rc = sock_register(&asmc_family_ops);
	if (rc) {
		if (rc == -EEXIST)
			pr_err("address family AF_SMC (%d) is already registered, most likely by the kernel's own smc module: unload it (rmmod smc_diag smc) before loading this one\n",
			       PF_SMC);
		else
			pr_err("cannot register AF_SMC: %d\n", rc);
		goto err_key;
	}
	pr_info("AF_SMC %s loaded\n", SMC_MODULE_VERSION);
	return 0;

err_key:
	static_branch_dec(&tcp_have_smc);
	asmc_debugfs_exit();
	asmc_ib_exit();
err_socket:
	asmc_socket_exit();
err_nl:
	asmc_nl_exit();
err_netns:
	asmc_netns_exit();
err_proto:
	proto_unregister(&asmc_proto);
	return rc;
}

static void __exit asmc_exit(void)
{
	sock_unregister(PF_SMC);
	/* no socket is left (each holds the module); idle link groups say
	 * goodbye to their peers, then the RDMA devices are let go
	 */
	asmc_lgr_exit();
	asmc_ib_exit();
	static_branch_dec(&tcp_have_smc);
	asmc_debugfs_exit();
	/* waits for handshakes of children whose listener is gone */
	asmc_socket_exit();
	asmc_nl_exit();
	asmc_netns_exit();
	proto_unregister(&asmc_proto);
	pr_info("AF_SMC unloaded\n");
}

module_init(asmc_init);
module_exit(asmc_exit);

MODULE_DESCRIPTION("AF_SMC: Shared Memory Communications over RDMA (SMC-R)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMC_MODULE_VERSION);
MODULE_ALIAS_NETPROTO(PF_SMC);
