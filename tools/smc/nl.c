// SPDX-License-Identifier: GPL-2.0
/* smc(8): netlink plumbing over libmnl: generic netlink family lookup,
 * requests and dumps, extended-ack error reporting, attribute parsing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include "smc.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK	11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK	10
#endif

char smc_nl_extack[256];

/* Big enough for whatever a dump puts in one read (the kernel fills at
 * most 32 KiB unless a single message needs more).
 */
static char rxbuf[1 << 16];
static char txbuf[4096];

/* The NLMSGERR_ATTR_MSG of the extended ack attributes at @p */
static void extack_find(const void *p, size_t len)
{
	const struct nlattr *attr = p;

	while (mnl_attr_ok(attr, len)) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
			nla_str(attr, smc_nl_extack, sizeof(smc_nl_extack));
		if ((size_t)MNL_ALIGN(attr->nla_len) >= len)
			break;
		len -= MNL_ALIGN(attr->nla_len);
		attr = mnl_attr_next(attr);
	}
}

static void extack_parse(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* without NLM_F_CAPPED the whole request is echoed */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	off = MNL_ALIGN(off);
	if (mnl_nlmsg_get_payload_len(nlh) > off)
		extack_find((const char *)e + off,
			    mnl_nlmsg_get_payload_len(nlh) - off);
}

static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;	/* the ack */
	extack_parse(nlh);
	errno = -e->error;
	return MNL_CB_ERROR;
}

/* A dump ends with NLMSG_DONE, carrying the dump's error if it failed. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	size_t len = mnl_nlmsg_get_payload_len(nlh);
	const char *p = mnl_nlmsg_get_payload(nlh);
	int err = 0;

	(void)data;
	if (len >= sizeof(int))
		memcpy(&err, p, sizeof(int));
	if (err >= 0)
		return MNL_CB_STOP;
	/* extended ack attributes follow the error */
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && len > MNL_ALIGN(sizeof(int)))
		extack_find(p + MNL_ALIGN(sizeof(int)),
			    len - MNL_ALIGN(sizeof(int)));
	errno = -err;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = err_cb,
	[NLMSG_DONE] = done_cb,
};

static int nl_open(struct smc_nl *nl, int bus)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sk = mnl_socket_open(bus);
	if (!nl->sk)
		return -errno;
	/* best effort: older kernels lack them */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(nl->sk);
		nl->sk = NULL;
		return err;
	}
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = time(NULL);
	return 0;
}

void smc_nl_close(struct smc_nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	nl->sk = NULL;
}

struct nlmsghdr *smc_nl_msg(struct smc_nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(txbuf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/* Sends @nlh, hands every reply to @cb until the ack, the end of the dump
 * or an error. 0 or -errno.
 */
int smc_nl_talk(struct smc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data)
{
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t n;
	int rc;

	smc_nl_extack[0] = '\0';
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sk, rxbuf, sizeof(rxbuf));
		if (n < 0)
			return -errno;
		rc = mnl_cb_run2(rxbuf, n, seq, nl->portid, cb, data,
				 ctl_cbs, ARRAY_SIZE(ctl_cbs));
	} while (rc > MNL_CB_STOP);
	if (rc < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- generic netlink ---- */

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SMC_NL_TB_MAX] = { NULL };

	smc_nl_parse_genl(nlh, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		*(uint16_t *)data = nla_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return MNL_CB_OK;
}

int smc_genl_open(struct smc_nl *nl, const char *family)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	uint16_t id = 0;
	int rc;

	rc = nl_open(nl, NETLINK_GENERIC);
	if (rc)
		return rc;
	nlh = smc_nl_msg(nl, GENL_ID_CTRL, NLM_F_ACK);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	rc = smc_nl_talk(nl, nlh, family_cb, &id);
	if (!rc && !id)
		rc = -ENOENT;
	if (rc) {
		smc_nl_close(nl);
		return rc;
	}
	nl->family = id;
	return 0;
}

int smc_genl_call(struct smc_nl *nl, uint8_t cmd, bool dump,
		  smc_nl_build_t build, void *bdata, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	nlh = smc_nl_msg(nl, nl->family, dump ? NLM_F_DUMP : NLM_F_ACK);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	if (build)
		build(nlh, bdata);
	return smc_nl_talk(nl, nlh, cb, data);
}

int smc_nl_error(const char *what, int err)
{
	const char *name;

	if (err < 0)
		err = -err;
	name = strerrorname_np(err);
	fprintf(stderr, "smc: %s: %s (%s)%s%s\n", what, strerror(err),
		name ? name : "?", smc_nl_extack[0] ? ": " : "",
		smc_nl_extack);
	if (err == EPERM)
		fprintf(stderr, "smc: changes need CAP_NET_ADMIN (run as root)\n");
	return SMC_EXIT_ERR;
}

static int genl_family_error(const char *family, int err)
{
	if (err == -ENOENT) {
		fprintf(stderr,
			"smc: generic netlink family %s not found: is the smc module loaded? (insmod smc.ko)\n",
			family);
		return SMC_EXIT_ERR;
	}
	smc_nl_extack[0] = '\0';
	return smc_nl_error("netlink", err);
}

int smc_gen_req(const char *family, uint8_t cmd, bool dump,
		smc_nl_build_t build, void *bdata, mnl_cb_t cb, void *data,
		const char *what)
{
	struct smc_nl nl;
	int rc;

	rc = smc_genl_open(&nl, family);
	if (rc)
		return genl_family_error(family, rc);
	rc = smc_genl_call(&nl, cmd, dump, build, bdata, cb, data);
	smc_nl_close(&nl);
	return rc ? smc_nl_error(what, rc) : 0;
}

int smc_gen_dump(uint8_t cmd, mnl_cb_t cb, void *data, const char *what)
{
	return smc_gen_req(SMC_GENL_FAMILY_NAME, cmd, true, NULL, NULL, cb,
			   data, what);
}

int smc_gen_do(uint8_t cmd, smc_nl_build_t build, void *bdata,
	       const char *what)
{
	return smc_gen_req(SMC_GENL_FAMILY_NAME, cmd, false, build, bdata,
			   NULL, NULL, what);
}

/* ---- attributes ---- */

struct parse_ctx {
	const struct nlattr **tb;
};

static int parse_cb(const struct nlattr *a, void *data)
{
	struct parse_ctx *p = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < SMC_NL_TB_MAX)
		p->tb[type] = a;
	return MNL_CB_OK;
}

int smc_nl_parse(const void *payload, size_t len, const struct nlattr **tb)
{
	struct parse_ctx p = { tb };

	memset(tb, 0, SMC_NL_TB_MAX * sizeof(*tb));
	return mnl_attr_parse_payload(payload, len, parse_cb, &p);
}

int smc_nl_parse_nest(const struct nlattr *nest, const struct nlattr **tb)
{
	return smc_nl_parse(mnl_attr_get_payload(nest),
			    mnl_attr_get_payload_len(nest), tb);
}

int smc_nl_parse_genl(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	size_t hdr = MNL_ALIGN(sizeof(struct genlmsghdr));

	if (mnl_nlmsg_get_payload_len(nlh) < hdr) {
		memset(tb, 0, SMC_NL_TB_MAX * sizeof(*tb));
		return MNL_CB_ERROR;
	}
	return smc_nl_parse((const char *)mnl_nlmsg_get_payload(nlh) + hdr,
			    mnl_nlmsg_get_payload_len(nlh) - hdr, tb);
}

/* Short payloads read as zero rather than past the attribute. */
static uint64_t nla_uint(const struct nlattr *a, size_t size)
{
	uint64_t v8 = 0;
	uint32_t v4 = 0;
	uint16_t v2 = 0;
	uint8_t v1 = 0;

	if (!a || mnl_attr_get_payload_len(a) < size)
		return 0;
	switch (size) {
	case 1:
		memcpy(&v1, mnl_attr_get_payload(a), 1);
		return v1;
	case 2:
		memcpy(&v2, mnl_attr_get_payload(a), 2);
		return v2;
	case 4:
		memcpy(&v4, mnl_attr_get_payload(a), 4);
		return v4;
	default:
		memcpy(&v8, mnl_attr_get_payload(a), 8);
		return v8;
	}
}

uint8_t nla_u8(const struct nlattr *a)
{
	return nla_uint(a, 1);
}

uint16_t nla_u16(const struct nlattr *a)
{
	return nla_uint(a, 2);
}

uint32_t nla_u32(const struct nlattr *a)
{
	return nla_uint(a, 4);
}

uint64_t nla_u64(const struct nlattr *a)
{
	return nla_uint(a, 8);
}

const char *nla_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t len;

	buf[0] = '\0';
	if (!a || !size)
		return buf;
	len = mnl_attr_get_payload_len(a);
	if (len > size - 1)
		len = size - 1;
	memcpy(buf, mnl_attr_get_payload(a), len);
	buf[len] = '\0';
	return buf;
}
