// SPDX-License-Identifier: GPL-2.0
/* TCP fallback. A fallback socket keeps its AF_SMC identity but every call
 * goes to the internal TCP socket, which then sleeps and wakes on our wait
 * queue, so poll, epoll and blocking calls see TCP's events directly.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/net.h>
#include <linux/poll.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "fallback.h"
#include "netns.h"
#include "trace.h"

/* Errors: TCP sets clcsk->sk_err, but getsockopt(SO_ERROR) reads our sock.
 * We mirror the error into our sock and remember it in mirrored_err; when
 * either copy is consumed (SO_ERROR on ours, or a TCP call returning it)
 * the other is cleared too, so the error is reported once, as TCP does.
 */
void asmc_fb_mirror_err(struct asmc_sock *smc)
{
	int err = READ_ONCE(smc->clcsock->sk->sk_err);

	if (err && err != READ_ONCE(smc->mirrored_err)) {
		WRITE_ONCE(smc->mirrored_err, err);
		WRITE_ONCE(smc->sk.sk_err, err);
	}
}

/* Before a call: an error the application took with SO_ERROR is gone. */
static void asmc_fb_err_sync(struct asmc_sock *smc)
{
	int m = READ_ONCE(smc->mirrored_err);

	if (likely(!m) || READ_ONCE(smc->sk.sk_err))
		return;
	cmpxchg(&smc->clcsock->sk->sk_err, m, 0);
	cmpxchg(&smc->mirrored_err, m, 0);
}

/* After a call: TCP returned (and so consumed) the mirrored error. */
int asmc_fb_consume_err(struct asmc_sock *smc, int rc)
{
	int m = READ_ONCE(smc->mirrored_err);

	if (unlikely(m) && rc == -m && !READ_ONCE(smc->clcsock->sk->sk_err)) {
		cmpxchg(&smc->sk.sk_err, m, 0);
		cmpxchg(&smc->mirrored_err, m, 0);
	}
	return rc;
}

static int asmc_fb_err_wake(struct wait_queue_entry *wait, unsigned int mode,
			    int sync, void *key)
{
	struct asmc_sock *smc = container_of(wait, struct asmc_sock, err_wait);

	asmc_fb_mirror_err(smc);
	return 0;
}

/* Make TCP sleep and wake on our socket's wait queue, and let TCP reach
 * our file (splice reads its flags, SIGURG its owner). Needs a user socket.
 */
void asmc_fallback_attach(struct asmc_sock *smc)
{
	struct socket *sock = smc->sk.sk_socket;
	struct sock *clcsk = smc->clcsock->sk;

	sock_owned_by_me(&smc->sk);
	if (WARN_ON_ONCE(!sock) || smc->err_wait_head)
		return;
	write_lock_bh(&clcsk->sk_callback_lock);
	rcu_assign_pointer(clcsk->sk_wq, &sock->wq);
	smc->clcsock->file = sock->file;
	write_unlock_bh(&clcsk->sk_callback_lock);

	init_waitqueue_func_entry(&smc->err_wait, asmc_fb_err_wake);
	smc->err_wait_head = &sock->wq.wait;
	add_wait_queue(smc->err_wait_head, &smc->err_wait);
	asmc_fb_mirror_err(smc);
	/* whoever polled before the switch must look again */
	wake_up_interruptible_all(&sock->wq.wait);
}

/* Undo attach before our socket goes away (release). */
void asmc_fallback_detach(struct asmc_sock *smc)
{
	struct sock *clcsk;

	if (smc->err_wait_head) {
		remove_wait_queue(smc->err_wait_head, &smc->err_wait);
		smc->err_wait_head = NULL;
	}
	if (!smc->clcsock)
		return;
	clcsk = smc->clcsock->sk;
	write_lock_bh(&clcsk->sk_callback_lock);
	if (clcsk->sk_socket == smc->clcsock)
		rcu_assign_pointer(clcsk->sk_wq, &smc->clcsock->wq);
	smc->clcsock->file = NULL;
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/* Hand the connection to TCP for good, recording why (a CLC decline code)
 * on the socket and in the namespace's counters.
 */
void asmc_fallback_switch(struct asmc_sock *smc, u32 reason, u32 peer_diag)
{
	struct sock *sk = &smc->sk;

	sock_owned_by_me(sk);
	if (smc->use_fallback)
		return;
	smc->fallback_rsn = reason;
	smc->peer_diag = peer_diag;
	asmc_stats_fallback(&asmc_net(sock_net(sk))->stats,
			    smc->role == ASMC_ROLE_SERVER, reason);
	pr_debug("sock %p falls back to TCP: reason 0x%08x peer 0x%08x\n",
		 smc, reason, peer_diag);
	trace_smc_switch_to_fallback(smc, reason, peer_diag);
	/* out of the interactive mode set for the handshake: TCP acks as on
	 * a fresh connection, and an ACK it holds back goes out now
	 */
	tcp_sock_set_quickack(smc->clcsock->sk, 1);
	if (sk->sk_socket)
		asmc_fallback_attach(smc);
	smp_store_release(&smc->use_fallback, true);
}

__poll_t asmc_fb_poll(struct asmc_sock *smc, struct file *file)
{
	struct socket *clcsock = smc->clcsock;
	__poll_t mask;

	asmc_fb_err_sync(smc);
	/* a NULL poll table: we already queued on our own wait queue */
	mask = clcsock->ops->poll(file, clcsock, NULL);
	if (READ_ONCE(smc->sk.sk_err))
		mask |= EPOLLERR;
	return mask;
}

int asmc_fb_connect(struct asmc_sock *smc, struct sockaddr *addr, int alen,
		    int flags)
{
	struct socket *clcsock = smc->clcsock;

	asmc_fb_err_sync(smc);
	return asmc_fb_consume_err(smc, clcsock->ops->connect(clcsock, addr,
							      alen, flags));
}

int asmc_fb_ioctl(struct asmc_sock *smc, unsigned int cmd, unsigned long arg)
{
	return smc->clcsock->ops->ioctl(smc->clcsock, cmd, arg);
}

int asmc_fb_shutdown(struct asmc_sock *smc, int how)
{
	return smc->clcsock->ops->shutdown(smc->clcsock, how);
}

int asmc_fb_sendmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len)
{
	struct socket *clcsock = smc->clcsock;

	asmc_sock_opts_sync_if_changed(smc);
	asmc_fb_err_sync(smc);
	return asmc_fb_consume_err(smc, clcsock->ops->sendmsg(clcsock, msg,
							      len));
}

int asmc_fb_recvmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len,
		    int flags)
{
	struct socket *clcsock = smc->clcsock;

	asmc_sock_opts_sync_if_changed(smc);
	asmc_fb_err_sync(smc);
	return asmc_fb_consume_err(smc, clcsock->ops->recvmsg(clcsock, msg,
							      len, flags));
}

ssize_t asmc_fb_sendpage(struct asmc_sock *smc, struct page *page,
			 int offset, size_t size, int flags)
{
	struct socket *clcsock = smc->clcsock;

	asmc_sock_opts_sync_if_changed(smc);
	asmc_fb_err_sync(smc);
	return asmc_fb_consume_err(smc, asmc_ops_sendpage(clcsock, page,
							  offset, size,
							  flags));
}

ssize_t asmc_fb_splice_read(struct asmc_sock *smc, struct file *file,
			    loff_t *ppos, struct pipe_inode_info *pipe,
			    size_t len, unsigned int flags)
{
	struct socket *clcsock = smc->clcsock;

	/* TCP's splice reads O_NONBLOCK from the socket's file */
	if (unlikely(!clcsock->file)) {
		lock_sock(&smc->sk);
		if (!clcsock->file)
			clcsock->file = file;
		release_sock(&smc->sk);
	}
	asmc_sock_opts_sync_if_changed(smc);
	asmc_fb_err_sync(smc);
	return asmc_fb_consume_err(smc, clcsock->ops->splice_read(clcsock,
								  ppos, pipe,
								  len, flags));
}

void asmc_fb_splice_eof(struct asmc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	if (clcsock->ops->splice_eof)
		clcsock->ops->splice_eof(clcsock);
}
