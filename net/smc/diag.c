// SPDX-License-Identifier: GPL-2.0
/* smc_diag: answers sock_diag (NETLINK_SOCK_DIAG) dumps for AF_SMC with one
 * smc_diag_msg per socket of the requester's namespace, as smcss reads them.
 */
#define pr_fmt(fmt) "smc_diag: " fmt

#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/smc_diag.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <smc/version.h>
#include "diag_export.h"

/* Sockets referenced at once while a batch is written out. */
#define ASMC_DIAG_BATCH		32

#define ASMC_DIAG_EXT(x)	(1U << ((x) - 1))

/* Where a dump stands between two calls, in cb->ctx: the last socket
 * written (a reference held; NULL before the first) and whether the end
 * of the list was reached.
 */
struct asmc_diag_pos {
	struct sock	*last;
	bool		finished;
};

static_assert(sizeof(struct asmc_diag_pos) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct asmc_diag_pos *asmc_diag_pos(struct netlink_callback *cb)
{
	return (struct asmc_diag_pos *)cb->ctx;
}

/* One socket as an NLM_F_MULTI message; -EMSGSIZE when it does not fit
 * (the skb is then as before).
 */
static int asmc_diag_put(struct sk_buff *skb, struct netlink_callback *cb,
			 u8 ext, const struct asmc_diag_snap *s)
{
	struct user_namespace *uns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct smc_diag_msg *msg;
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			SOCK_DIAG_BY_FAMILY, sizeof(*msg), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	msg = nlmsg_data(nlh);
	*msg = s->msg;
	msg->diag_uid = from_kuid_munged(uns, s->uid);

	/* as inet_diag does, the shutdown bits come unasked */
	if (nla_put_u8(skb, SMC_DIAG_SHUTDOWN, s->msg.diag_shutdown))
		goto cancel;
	if ((s->fell_back || (ext & ASMC_DIAG_EXT(SMC_DIAG_FALLBACK))) &&
	    nla_put(skb, SMC_DIAG_FALLBACK, sizeof(s->fallback), &s->fallback))
		goto cancel;
	if (s->has_conn && (ext & ASMC_DIAG_EXT(SMC_DIAG_CONNINFO)) &&
	    nla_put(skb, SMC_DIAG_CONNINFO, sizeof(s->conn), &s->conn))
		goto cancel;
	if (s->has_lgr && (ext & ASMC_DIAG_EXT(SMC_DIAG_LGRINFO)) &&
	    nla_put(skb, SMC_DIAG_LGRINFO, sizeof(s->lgr), &s->lgr))
		goto cancel;
	/* SMC_DIAG_DMBINFO: SMC-D is not implemented, never sent */
	nlmsg_end(skb, nlh);
	return 0;

cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

static void asmc_diag_advance(struct asmc_diag_pos *pos, struct sock *sk)
{
	if (pos->last)
		sock_put(pos->last);
	pos->last = sk;		/* the batch's reference moves here */
}

static int asmc_diag_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct smc_diag_req *req = nlmsg_data(cb->nlh);
	struct asmc_diag_pos *pos = asmc_diag_pos(cb);
	struct sock *batch[ASMC_DIAG_BATCH];
	struct asmc_diag_snap snap;
	int n, i, rc = 0;

	while (!pos->finished) {
		n = asmc_diag_collect(sock_net(skb->sk), pos->last, batch,
				      ARRAY_SIZE(batch));
		for (i = 0; i < n; i++) {
			asmc_diag_snapshot(batch[i], &snap);
			rc = asmc_diag_put(skb, cb, req->diag_ext, &snap);
			if (rc)
				break;
			asmc_diag_advance(pos, batch[i]);
		}
		/* the rest of the batch comes again with the next skb */
		for (; i < n; i++)
			sock_put(batch[i]);
		if (rc)
			break;
		if (n < ARRAY_SIZE(batch)) {
			pos->finished = true;
			asmc_diag_advance(pos, NULL);
		}
	}
	/* 0 would end the dump: a message that never fits is an error */
	if (rc && !skb->len)
		return rc;
	return skb->len;
}

/* End of the dump, or the requester closed its socket in the middle. */
static int asmc_diag_done(struct netlink_callback *cb)
{
	asmc_diag_advance(asmc_diag_pos(cb), NULL);
	return 0;
}

static int asmc_diag_request(struct sk_buff *skb, struct nlmsghdr *h)
{
	struct netlink_dump_control c = {
		.dump = asmc_diag_dump,
		.done = asmc_diag_done,
	};
	struct net *net = sock_net(skb->sk);

	if (nlmsg_len(h) < (int)sizeof(struct smc_diag_req))
		return -EINVAL;
	/* only dumps; smcss sets NLM_F_ROOT alone, so either bit will do */
	if (!(h->nlmsg_flags & NLM_F_DUMP))
		return -EOPNOTSUPP;
	/* the dump pins this module (netlink_dump_start() takes it) */
	return netlink_dump_start(net->diag_nlsk, skb, h, &c);
}

static const struct sock_diag_handler asmc_diag_handler = {
	ASMC_SOCK_DIAG_OWNER
	.family	= AF_SMC,
	.dump	= asmc_diag_request,
};

static int __init asmc_diag_init(void)
{
	return sock_diag_register(&asmc_diag_handler);
}

static void __exit asmc_diag_exit(void)
{
	sock_diag_unregister(&asmc_diag_handler);
}

module_init(asmc_diag_init);
module_exit(asmc_diag_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_SMC socket monitoring through sock_diag");
MODULE_VERSION(SMC_MODULE_VERSION);
/* sock_diag loads a family's handler as net-pf-16-proto-4-type-<family> */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_NETLINK, NETLINK_SOCK_DIAG, 43 /* AF_SMC */);
