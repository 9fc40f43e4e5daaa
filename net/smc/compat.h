/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel-version differences, all in one place (force-included by Kbuild).
 * Protocol files never test LINUX_VERSION_CODE themselves.
 */
#ifndef ASMC_COMPAT_H
#define ASMC_COMPAT_H

#ifdef __KERNEL__
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "this module needs Linux 6.1 or newer (sockptr_t setsockopt, splice_eof)"
#endif

/* 6.1 stable backported proto_ops::splice_eof; mainline added it in 6.5. */
#define ASMC_HAVE_SPLICE_EOF 1

/* proto_ops::sendpage went away in 6.5 (MSG_SPLICE_PAGES replaced it). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define ASMC_SENDPAGE_OP(fn)	.sendpage = (fn),
#else
#define ASMC_SENDPAGE_OP(fn)
#endif

/* An iov_iter that fills a pipe (splice from a socket). ITER_PIPE went
 * away in 6.5, where splice_read gets copy_splice_read() instead.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define asmc_iov_iter_pipe(iter, pipe, len) \
	iov_iter_pipe((iter), ITER_DEST, (pipe), (len))
#endif

/* register_net_sysctl() became a macro over register_net_sysctl_sz() in
 * 6.6, taking the table's size from the array type; ours is allocated per
 * namespace, so its entry count (without the terminator) is passed.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define asmc_register_net_sysctl(net, path, table, n) \
	register_net_sysctl((net), (path), (table))
#else
#define asmc_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz((net), (path), (table), (n))
#endif

/* struct sock_diag_handler got .owner (pins the module) in newer kernels
 * and 6.1 stable; Kbuild tells from the headers (ASMC_SOCK_DIAG_HAS_OWNER).
 */
#ifdef ASMC_SOCK_DIAG_HAS_OWNER
#define ASMC_SOCK_DIAG_OWNER	.owner = THIS_MODULE,
#else
#define ASMC_SOCK_DIAG_OWNER
#endif

/* Netlink attributes of SMC_NLA_LGR_R_V2 that <linux/smc.h> gained in 6.6
 * with SMC v2.1 (u8 each); the 6.1 uapi header stops at ..._DIRECT.
 */
#define ASMC_NLA_LGR_R_V2_MAX_CONNS	2
#define ASMC_NLA_LGR_R_V2_MAX_LINKS	3

#endif /* __KERNEL__ */
#endif /* ASMC_COMPAT_H */
