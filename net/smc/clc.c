// SPDX-License-Identifier: GPL-2.0
/* CLC handshake I/O on the internal TCP socket. Every read has a deadline,
 * every message is validated by clc_wire before use, and only complete
 * messages are consumed from the TCP stream.
 */
#define pr_fmt(fmt) "smc: " fmt

#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>
#include "clc.h"
#include "clc_wire.h"

/* System identity in CLC: 2-byte instance number chosen at load, then the
 * MAC of the first RoCE port (none yet: zero).
 */
u8 asmc_system_peer_id[8];

void asmc_clc_init(void)
{
	get_random_bytes(asmc_system_peer_id, 2);
}

static int asmc_clc_send(struct asmc_sock *smc, const void *buf, size_t len)
{
	/* a fresh connection has room for a CLC message: never sleep */
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	int rc;

	rc = kernel_sendmsg(smc->clcsock, &msg, &vec, 1, len);
	if (rc < 0)
		return rc;
	return rc == len ? 0 : -EPIPE;
}

static int asmc_clc_send_decline(struct asmc_sock *smc, u32 reason,
				 u8 version)
{
	u8 buf[ASMC_CLC_DECL_LEN_V2];
	size_t len;

	len = asmc_clc_decline_build(buf, sizeof(buf), asmc_system_peer_id,
				     reason, version, false);
	pr_debug("sock %p sends CLC decline 0x%08x v%u\n", smc, reason,
		 version);
	return asmc_clc_send(smc, buf, len);
}

/* Read exactly @len bytes before @deadline (jiffies). */
static int asmc_clc_read(struct asmc_sock *smc, u8 *buf, size_t len,
			 unsigned long deadline)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	long left = (long)(deadline - jiffies);
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	WRITE_ONCE(clcsk->sk_rcvtimeo, left);
	rc = kernel_recvmsg(smc->clcsock, &msg, &vec, 1, len, MSG_WAITALL);
	WRITE_ONCE(clcsk->sk_rcvtimeo, smc->opts.rcvtimeo);
	if (rc == len)
		return 0;
	if (rc < 0 && rc != -EAGAIN)
		return rc;
	if (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN)
		return -ECONNRESET;	/* the peer closed mid-handshake */
	return -ETIMEDOUT;
}

/* Receive one CLC message of type @expect (or a Decline, allowed at any
 * step) into @buf of ASMC_CLC_MAX_LEN bytes. Returns the message type or
 * a negative error; -EPROTO for anything that is not a valid message.
 */
static int asmc_clc_recv(struct asmc_sock *smc, u8 *buf, u8 expect,
			 struct asmc_clc_hdr *hdr)
{
	unsigned long deadline = jiffies + ASMC_CLC_WAIT_TIME;
	int rc;

	rc = asmc_clc_read(smc, buf, ASMC_CLC_HDR_LEN, deadline);
	if (rc)
		return rc;
	if (asmc_clc_hdr_parse(buf, ASMC_CLC_HDR_LEN, hdr))
		return -EPROTO;
	if (hdr->type != expect && hdr->type != ASMC_CLC_DECLINE)
		return -EPROTO;
	rc = asmc_clc_read(smc, buf + ASMC_CLC_HDR_LEN,
			   hdr->length - ASMC_CLC_HDR_LEN, deadline);
	if (rc)
		return rc;
	if (hdr->type != ASMC_CLC_DECLINE &&
	    !asmc_clc_trailer_ok(buf, hdr->length))
		return -EPROTO;
	return hdr->type;
}

static int asmc_clc_take_decline(const u8 *buf, const struct asmc_clc_hdr *hdr,
				 struct asmc_hs_result *res)
{
	struct asmc_clc_decline dcl;

	if (asmc_clc_decline_parse(buf, hdr->length, &dcl))
		return -EPROTO;
	res->reason = ASMC_DECL_PEERDECL;
	res->peer_diag = dcl.reason;
	return 0;
}

/* Client side. Without a usable RDMA device the client declines before
 * proposing and both ends continue as TCP.
 * Returns 0 with res->reason set (fallback) or a negative error.
 */
int asmc_clc_client_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res)
{
	res->reason = ASMC_DECL_NOSMCDEV;
	res->peer_diag = 0;
	return asmc_clc_send_decline(smc, ASMC_DECL_NOSMCDEV, 1);
}

/* Server side: wait for the Proposal (or a Decline) and answer it.
 * Returns 0 with res->reason set (fallback) or a negative error.
 */
int asmc_clc_server_handshake(struct asmc_sock *smc,
			      struct asmc_hs_result *res)
{
	struct asmc_clc_proposal prop;
	struct asmc_clc_hdr hdr;
	u8 *buf;
	int rc;

	buf = kmalloc(ASMC_CLC_MAX_LEN, GFP_KERNEL);
	if (!buf) {
		res->reason = ASMC_DECL_MEM;
		return asmc_clc_send_decline(smc, ASMC_DECL_MEM, 1);
	}
	rc = asmc_clc_recv(smc, buf, ASMC_CLC_PROPOSAL, &hdr);
	if (rc < 0)
		goto out;
	if (rc == ASMC_CLC_DECLINE) {
		rc = asmc_clc_take_decline(buf, &hdr, res);
		goto out;
	}
	rc = asmc_clc_proposal_parse(buf, hdr.length, &prop);
	if (rc)
		goto out;
	/* no RDMA device support yet */
	res->reason = ASMC_DECL_NOSMCDEV;
	rc = asmc_clc_send_decline(smc, ASMC_DECL_NOSMCDEV,
				   prop.version >= 2 ? 2 : 1);
out:
	kfree(buf);
	return rc;
}
