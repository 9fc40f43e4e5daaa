// SPDX-License-Identifier: GPL-2.0
/* SMC-R receive path: recvmsg copies from the RMB ring (MSG_PEEK, WAITALL,
 * urgent data with TCP's semantics) and tells the peer about consumed room
 * when it matters, not for every read.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/sched/signal.h>
#include <linux/pipe_fs_i.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include <net/sock.h>
#include "cdc.h"
#include "lgr.h"
#include "netns.h"
#include "rx.h"
#include "socket.h"
#include "tx.h"

/* Bytes readable as normal data now (the urgent byte, unless inline, is
 * not part of the stream).
 */
u64 asmc_rx_inq(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;
	u64 avail = asmc_conn_rx_avail(conn);
	u64 cons = READ_ONCE(conn->rx_cons);

	if (!conn->rx_urg_seen || conn->rx_urg_mark <= cons)
		return avail;
	/* as TCP: count up to the urgent mark only */
	if (conn->rx_urg_mark - 1 > cons)
		return min_t(u64, avail, conn->rx_urg_mark - 1 - cons);
	/* at the mark: the urgent byte is not data unless inline */
	return sock_flag(&smc->sk, SOCK_URGINLINE) || !avail ? avail :
							       avail - 1;
}

bool asmc_rx_atmark(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	return conn->rx_urg_seen && conn->rx_cons + 1 == conn->rx_urg_mark;
}

static void asmc_rx_consumed(struct asmc_sock *smc, u64 n, bool urgent)
{
	struct asmc_conn *conn = &smc->conn;
	bool due;

	spin_lock_bh(&conn->lock);
	conn->rx_cons += n;
	due = urgent || asmc_conn_update_due(conn);
	if (due)
		conn->tx_need_update = true;
	spin_unlock_bh(&conn->lock);
	if (due)
		asmc_tx_push(smc, true);
}

/* Copy up to @n bytes from RMB total @pos; returns how many went (a pipe
 * may take fewer), or -EFAULT when nothing could be copied.
 */
static int asmc_rx_copy(struct asmc_conn *conn, struct msghdr *msg, u64 pos,
			u32 n)
{
	u32 off = pos % conn->rmbe_size;
	u32 first = min_t(u32, n, conn->rmbe_size - off);
	const u8 *base = conn->rmb->cpu;
	size_t done;

	done = copy_to_iter(base + off, first, &msg->msg_iter);
	if (done == first && first < n)
		done += copy_to_iter(base, n - first, &msg->msg_iter);
	return done ? done : -EFAULT;
}

static int asmc_rx_oob(struct asmc_sock *smc, struct msghdr *msg, int flags)
{
	struct asmc_conn *conn = &smc->conn;
	u8 byte;
	int rc;

	if (sock_flag(&smc->sk, SOCK_URGINLINE))
		return -EINVAL;
	spin_lock_bh(&conn->lock);
	if (!conn->rx_urg_valid) {
		spin_unlock_bh(&conn->lock);
		/* none announced (yet): as TCP, EINVAL, or EAGAIN if coming */
		return conn->peer_prod_flags & ASMC_CDC_URG_PENDING ?
		       -EAGAIN : -EINVAL;
	}
	byte = conn->rx_urg_byte;
	if (!(flags & MSG_PEEK))
		conn->rx_urg_valid = false;
	spin_unlock_bh(&conn->lock);
	rc = copy_to_iter(&byte, 1, &msg->msg_iter) == 1 ? 1 : -EFAULT;
	msg->msg_flags |= MSG_OOB;
	return rc;
}

static bool asmc_rx_done(struct asmc_sock *smc)
{
	struct asmc_conn *conn = &smc->conn;

	return smc->sk.sk_err || smc->sk.sk_shutdown & RCV_SHUTDOWN ||
	       READ_ONCE(conn->peer_conn_flags);
}

/* Did data past @pos arrive? Asked once the stream has ended: CDCs are
 * applied in softirq while we read, so the peer's last bytes and its close
 * can land between our look at rx_prod and our look at the close flags.
 * Under the lock that applies them, a close is never seen without its data.
 */
static bool asmc_rx_arrived(struct asmc_conn *conn, u64 pos)
{
	bool more;

	spin_lock_bh(&conn->lock);
	more = conn->rx_prod != pos;
	spin_unlock_bh(&conn->lock);
	return more;
}

int asmc_rx_recvmsg(struct asmc_sock *smc, struct msghdr *msg, size_t len,
		    int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct asmc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool inline_urg = sock_flag(sk, SOCK_URGINLINE);
	bool peek = flags & MSG_PEEK;
	size_t copied = 0;
	u64 pos, avail, lim, peek_skip = 0;
	int target, rc = 0;
	long timeo;
	u32 n;

	if (flags & MSG_OOB)
		return asmc_rx_oob(smc, msg, flags);

	lock_sock(sk);
	/* buffer events: a read larger than the RMB, a full RMB */
	if (len > conn->rmbe_size)
		asmc_stats_rmb(sock_net(sk), false, ASMC_STAT_RMB_SIZE_SM);
	if (asmc_conn_rx_avail(conn) >= conn->rmbe_size)
		asmc_stats_rmb(sock_net(sk), false, ASMC_STAT_RMB_FULL);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	add_wait_queue(sk_sleep(sk), &wait);
	while (copied < len) {
		pos = conn->rx_cons + (peek ? copied + peek_skip : 0);
		avail = READ_ONCE(conn->rx_prod) - pos;
		if (conn->rx_urg_seen && !inline_urg &&
		    conn->rx_urg_mark == pos + 1 && avail) {
			/* the urgent byte is not in the stream: TCP stops a
			 * read at the mark, the next one skips the byte
			 */
			if (copied)
				break;
			if (peek)
				peek_skip++;
			else
				asmc_rx_consumed(smc, 1, true);
			continue;
		}
		if (avail) {
			lim = len - copied;
			if (conn->rx_urg_seen && !inline_urg &&
			    conn->rx_urg_mark > pos + 1)
				lim = min_t(u64, lim, conn->rx_urg_mark - 1 - pos);
			n = min_t(u64, avail, lim);
			if (flags & MSG_TRUNC)	/* as TCP: dropped, not copied */
				rc = n;
			else
				rc = asmc_rx_copy(conn, msg, pos, n);
			if (rc < 0)
				break;
			copied += rc;
			if (!peek)
				asmc_rx_consumed(smc, rc, false);
			if (copied >= target || rc < n)
				break;	/* enough, or the target is full */
			continue;
		}
		if (copied >= target)
			break;
		if (sk->sk_err) {
			rc = sock_error(sk);
			break;
		}
		if (asmc_rx_done(smc)) {
			if (asmc_rx_arrived(conn, pos))
				continue;	/* it came with the close */
			break;		/* EOF */
		}
		rc = asmc_wait_allowed(timeo);
		if (rc)
			break;
		sk_wait_event(sk, &timeo, READ_ONCE(conn->rx_prod) != pos ||
			      asmc_rx_done(smc), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	if (copied && !peek)
		asmc_stats_rx(sock_net(sk), copied);
	return copied ? copied : rc;
}

/* splice() from the socket: the same copy, into the pipe's pages. */
ssize_t asmc_rx_splice_read(struct asmc_sock *smc, struct file *file,
			    struct pipe_inode_info *pipe, size_t len,
			    unsigned int flags)
{
	struct msghdr msg = {};
	int rflags = 0;

	if ((flags & SPLICE_F_NONBLOCK) || (file->f_flags & O_NONBLOCK))
		rflags = MSG_DONTWAIT;
	if (asmc_iov_iter_pipe(&msg.msg_iter, pipe, len))
		return asmc_rx_recvmsg(smc, &msg, len, rflags);
	/* no pipe iterator: the kernel's copy calls our recvmsg, which only
	 * knows the file's O_NONBLOCK; SPLICE_F_NONBLOCK is answered here
	 */
	if ((flags & SPLICE_F_NONBLOCK) && !asmc_rx_inq(smc) &&
	    !asmc_rx_done(smc))
		return -EAGAIN;
	return asmc_copy_splice_read(file, pipe, len, flags);
}
