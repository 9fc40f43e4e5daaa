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

/* The unaligned accessors moved from <asm/unaligned.h> to
 * <linux/unaligned.h> in 6.12 (wire.h relies on this include).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/* proto_ops::sendpage went away in 6.5 (MSG_SPLICE_PAGES replaced it):
 * there the op is not plugged in, and passing a page to a socket below
 * (never reached then) is a sendmsg of it.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define ASMC_SENDPAGE_OP(fn)	.sendpage = (fn),
#define asmc_ops_sendpage(sock, page, offset, size, flags) ({		\
	struct socket *__sock = (sock);					\
									\
	__sock->ops->sendpage(__sock, (page), (offset), (size), (flags)); \
})
#else
#define ASMC_SENDPAGE_OP(fn)
#define asmc_ops_sendpage(sock, page, offset, size, flags) ({		\
	struct msghdr __msg = { .msg_flags = (flags) | MSG_SPLICE_PAGES }; \
	struct socket *__sock = (sock);					\
	size_t __size = (size);						\
	struct bio_vec __bv;						\
									\
	bvec_set_page(&__bv, (page), __size, (offset));			\
	iov_iter_bvec(&__msg.msg_iter, ITER_SOURCE, &__bv, 1, __size);	\
	__sock->ops->sendmsg(__sock, &__msg, __size);			\
})
#endif

/* splice() from the socket. Before 6.5, an iov_iter that fills the pipe
 * (ITER_PIPE; asmc_iov_iter_pipe() is true); since then there is no such
 * iterator (false), and copy_splice_read() reads through the file's
 * read_iter, i.e. our recvmsg.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define asmc_iov_iter_pipe(iter, pipe, len) \
	({ iov_iter_pipe((iter), ITER_DEST, (pipe), (len)); true; })
#define asmc_copy_splice_read(file, pipe, len, flags) ((ssize_t)-EOPNOTSUPP)
#else
#define asmc_iov_iter_pipe(iter, pipe, len) false
#define asmc_copy_splice_read(file, pipe, len, flags) \
	({ loff_t __pos = 0; copy_splice_read((file), &__pos, (pipe), (len), \
					       (flags)); })
#endif

/* proto_ops::accept takes its flags in struct proto_accept_arg since
 * 6.10. ASMC_ACCEPT_SHIM(fn) defines what ASMC_ACCEPT_OP(fn) plugs in, a
 * wrapper there that calls fn(sock, newsock, flags, kern).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define ASMC_ACCEPT_SHIM(fn)
#define ASMC_ACCEPT_OP(fn)	.accept = (fn),
#else
#define ASMC_ACCEPT_SHIM(fn)						\
static int fn##_arg(struct socket *sock, struct socket *newsock,	\
		    struct proto_accept_arg *arg)			\
{									\
	return fn(sock, newsock, arg->flags, arg->kern);		\
}

#define ASMC_ACCEPT_OP(fn)	.accept = fn##_arg,
#endif

/* A tracepoint's __assign_str() takes the source again from __string()
 * since 6.10 (one argument).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define asmc_assign_str(dst, src)	__assign_str(dst, src)
#else
#define asmc_assign_str(dst, src)	__assign_str(dst)
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
