/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the smc module (system "smc"): fallback decisions, links
 * going up and down, and every send and receive call in SMC-R mode.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smc

#if !defined(ASMC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define ASMC_TRACE_H

#include <linux/tracepoint.h>
#include <net/sock.h>
#include "lgr.h"
#include "socket.h"

TRACE_EVENT(smc_switch_to_fallback,
	TP_PROTO(const struct asmc_sock *smc, u32 reason, u32 peer_diag),
	TP_ARGS(smc, reason, peer_diag),
	TP_STRUCT__entry(
		__field(const void *, sk)
		__field(const void *, clcsk)
		__field(u32, reason)
		__field(u32, peer_diag)
		__field(u32, netns_ino)
		__field(bool, server)
	),
	TP_fast_assign(
		__entry->sk = &smc->sk;
		__entry->clcsk = smc->clcsock ? smc->clcsock->sk : NULL;
		__entry->reason = reason;
		__entry->peer_diag = peer_diag;
		__entry->netns_ino = sock_net(&smc->sk)->ns.inum;
		__entry->server = smc->role == ASMC_ROLE_SERVER;
	),
	TP_printk("sk=%p clcsk=%p role=%s reason=0x%08x peer_diag=0x%08x netns=%u",
		  __entry->sk, __entry->clcsk,
		  __entry->server ? "server" : "client", __entry->reason,
		  __entry->peer_diag, __entry->netns_ino)
);

DECLARE_EVENT_CLASS(smcr_link_class,
	TP_PROTO(const struct asmc_link *lnk),
	TP_ARGS(lnk),
	TP_STRUCT__entry(
		__field(const void *, lnk)
		__field(u32, lgr_id)
		__field(u8, link_id)
		__field(u8, port)
		__field(u32, qpn)
		__field(u32, peer_qpn)
		__field(int, conns)
		__field(bool, server)
		__string(ibname, dev_name(&lnk->sel.dev->ibdev->dev))
	),
	TP_fast_assign(
		__entry->lnk = lnk;
		__entry->lgr_id = lnk->lgr ? lnk->lgr->id : 0;
		__entry->link_id = lnk->link_id;
		__entry->port = lnk->sel.port;
		__entry->qpn = lnk->qp ? lnk->qp->qp_num : 0;
		__entry->peer_qpn = lnk->peer_qpn;
		__entry->conns = lnk->lgr ? READ_ONCE(lnk->lgr->conns_num) : 0;
		__entry->server = lnk->lgr && lnk->lgr->role == ASMC_ROLE_SERVER;
		asmc_assign_str(ibname, dev_name(&lnk->sel.dev->ibdev->dev));
	),
	TP_printk("lnk=%p lgr=%u link_id=%u dev=%s port=%u qp=%u peer_qp=%u role=%s conns=%d",
		  __entry->lnk, __entry->lgr_id, __entry->link_id,
		  __get_str(ibname), __entry->port, __entry->qpn,
		  __entry->peer_qpn, __entry->server ? "server" : "client",
		  __entry->conns)
);

DEFINE_EVENT(smcr_link_class, smcr_link_up,
	TP_PROTO(const struct asmc_link *lnk),
	TP_ARGS(lnk)
);

DEFINE_EVENT(smcr_link_class, smcr_link_down,
	TP_PROTO(const struct asmc_link *lnk),
	TP_ARGS(lnk)
);

DECLARE_EVENT_CLASS(smc_msg_class,
	TP_PROTO(const struct asmc_sock *smc, size_t len, int rc),
	TP_ARGS(smc, len, rc),
	TP_STRUCT__entry(
		__field(const void *, sk)
		__field(size_t, len)
		__field(int, rc)
		__field(u32, token)
		__field(u32, sndbuf)
		__field(u32, rmb)
		__field(u64, sent)
		__field(u64, received)
	),
	TP_fast_assign(
		__entry->sk = &smc->sk;
		__entry->len = len;
		__entry->rc = rc;
		__entry->token = smc->conn.token;
		__entry->sndbuf = smc->conn.sndbuf_size;
		__entry->rmb = smc->conn.rmbe_size;
		__entry->sent = READ_ONCE(smc->conn.tx_prod);
		__entry->received = READ_ONCE(smc->conn.rx_prod);
	),
	TP_printk("sk=%p token=%#x len=%zu rc=%d sndbuf=%u rmb=%u sent=%llu received=%llu",
		  __entry->sk, __entry->token, __entry->len, __entry->rc,
		  __entry->sndbuf, __entry->rmb, __entry->sent,
		  __entry->received)
);

DEFINE_EVENT(smc_msg_class, smc_tx_sendmsg,
	TP_PROTO(const struct asmc_sock *smc, size_t len, int rc),
	TP_ARGS(smc, len, rc)
);

DEFINE_EVENT(smc_msg_class, smc_rx_recvmsg,
	TP_PROTO(const struct asmc_sock *smc, size_t len, int rc),
	TP_ARGS(smc, len, rc)
);

#endif /* ASMC_TRACE_H */

/* out of tree: the header is found next to trace.c (-I$(src)) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
