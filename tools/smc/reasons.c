// SPDX-License-Identifier: GPL-2.0
/* smc(8): the CLC decline / fallback reason codes in words, with the likely
 * cause and a fix for each, and the "smc fallback" command that shows them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smc.h"

#define RDMA_FIX "configure a pnet entry (smc pnet add NAME dev eth0 ibdev rxe0) or create an RDMA device for the interface (rdma link add rxe0 type rxe netdev eth0)"
#define UEID_FIX "add the same user EID on both hosts (smc ueid add SMC-EID-1)"

static const struct smc_reason reasons[] = {
	{ 0x01010000, "MEM", "out of memory during the handshake",
	  "the host could not allocate buffers or handshake state",
	  "free memory or lower net.smc.rmem/wmem; retry" },
	{ 0x02010000, "TIMEOUT_CL", "timeout waiting for CONFIRM_LINK",
	  "the first RDMA link did not come up: RoCE traffic (UDP 4791) lost or blocked",
	  "check that RoCE packets pass between the hosts (firewall, MTU, rdma link state)" },
	{ 0x02020000, "TIMEOUT_AL", "timeout waiting for ADD_LINK",
	  "a second link was not confirmed in time",
	  "check the alternate RDMA path between the hosts" },
	{ 0x03000000, "CNFERR", "configuration error",
	  "no common IP prefix and SMC v2 not possible",
	  "put both hosts in one subnet or enable SMC-R v2 (smc ueid add ...)" },
	{ 0x03010000, "PEERNOSMC", "peer did not offer SMC",
	  "the other side is a plain TCP program or has SMC disabled (no SMC option in its SYN/SYN-ACK)",
	  "run the peer with AF_SMC (e.g. through smc_run) and load the smc module there" },
	{ 0x03020000, "IPSEC", "IPsec policy on the connection",
	  "SMC cannot carry traffic an IPsec policy must protect",
	  "exempt the connection from IPsec or accept TCP" },
	{ 0x03030000, "NOSMCDEV", "no usable SMC device",
	  "no RDMA (RoCE) device for the interface of the route, or an IPv6 connection (SMC-R v2 is IPv4 only)",
	  RDMA_FIX "; use IPv4" },
	{ 0x03030001, "NOSMCDDEV", "no SMC-D (ISM) device",
	  "SMC-D needs an ISM device, which this host does not have",
	  "use SMC-R: " RDMA_FIX },
	{ 0x03030002, "NOSMCRDEV", "no SMC-R device",
	  "no RDMA device with an active port for the interface of the route",
	  RDMA_FIX },
	{ 0x03030003, "NOISM2SUPP", "no ISM v2 support",
	  "SMC-D v2 was asked for but no ISM v2 device exists",
	  "use SMC-R" },
	{ 0x03030004, "NOV2EXT", "proposal without the v2 extension",
	  "the peer proposed SMC v1 only",
	  "enable SMC v2 on the peer (a user EID on both hosts)" },
	{ 0x03030005, "NOV2DEXT", "proposal without the SMC-D v2 extension",
	  "the peer did not propose SMC-D v2",
	  "use SMC-R" },
	{ 0x03030006, "NOSEID", "no system EID",
	  "SMC-D v2 needs a system EID",
	  "use SMC-R v2 with a user EID (smc ueid add ...)" },
	{ 0x03030007, "NOSMCD2DEV", "no SMC-D v2 device",
	  "no ISM v2 device for the proposal",
	  "use SMC-R" },
	{ 0x03030008, "NOUEID", "no user EID (SMC-R v2 needs one)",
	  "SMC-R v2 is proposed and accepted only with a user EID, and both hosts must share one",
	  UEID_FIX },
	{ 0x03030009, "RELEASEERR", "SMC v2 release negotiation failed",
	  "the Accept named a later release than proposed, or the Confirm another than accepted",
	  "a peer bug: report it with a capture of the CLC handshake" },
	{ 0x0303000a, "MAXCONNERR", "connections per link group not agreed",
	  "SMC v2.1: a peer allows fewer than 16 connections per link group, or the Accept/Confirm broke the agreement",
	  "raise net.smc.smcr_max_conns_per_lgr on the peer (16..255)" },
	{ 0x0303000b, "MAXLINKERR", "links per link group not agreed",
	  "SMC v2.1: a peer allows no link per link group, or the Accept/Confirm broke the agreement",
	  "check net.smc.smcr_max_links_per_lgr on both hosts (1..2)" },
	{ 0x03040000, "MODEUNSUPP", "modes do not match",
	  "the accept named a type or version that was not proposed",
	  "check that both hosts run compatible SMC implementations" },
	{ 0x03050000, "RMBE_EC", "CONFIRM_LINK without the no-eyecatcher flag",
	  "the peer's RMB layout is not supported",
	  "update the peer's SMC implementation" },
	{ 0x03060000, "OPTUNSUPP", "socket option not supported with SMC",
	  "an option such as TCP Fast Open was set on the socket",
	  "do not set that option on AF_SMC sockets" },
	{ 0x03070000, "DIFFPREFIX", "IP prefix / subnet mismatch",
	  "SMC-R v1 needs both hosts in one IP subnet",
	  "put both hosts in one subnet or use SMC-R v2 (smc ueid add ...)" },
	{ 0x03080000, "GETVLANERR", "VLAN lookup failed",
	  "the VLAN of the route's interface could not be resolved",
	  "check the VLAN configuration of the interface" },
	{ 0x03090000, "ISMVLANERR", "ISM VLAN registration failed",
	  "an SMC-D VLAN could not be registered",
	  "use SMC-R" },
	{ 0x030a0000, "NOACTLINK", "no active link in the link group",
	  "the link group to this peer has no usable link",
	  "check rdma link state; the next connection builds a new link group" },
	{ 0x030b0000, "NOSRVLINK", "server-selected link not found",
	  "the client has no link matching the server's choice",
	  "retry; if it persists, restart SMC on the peer (link groups out of step)" },
	{ 0x030c0000, "VERSMISMAT", "SMC version mismatch",
	  "the hosts share no SMC version",
	  "update one side" },
	{ 0x030d0000, "MAX_DMB", "SMC-D DMB limit reached",
	  "too many SMC-D buffers",
	  "close connections or use SMC-R" },
	{ 0x030e0000, "NOROUTE", "SMC-R v2: no route to the peer's GID",
	  "the peer's RoCE address is not reachable by IP routing",
	  "add a route to the peer's address on the RDMA interface" },
	{ 0x030f0000, "NOINDIRECT", "SMC-R v2: peer says indirect but the route is direct",
	  "the two hosts disagree about a gateway between them",
	  "check the routing tables of both hosts" },
	{ 0x04000000, "SYNCERR", "link groups out of synchronisation",
	  "the server reused a link group the client does not know",
	  "retry; the link group is torn down and rebuilt" },
	{ 0x05000000, "PEERDECL", "the peer declined",
	  "the other side sent a CLC Decline: its reason is the peer diagnosis",
	  "look up the peer diagnosis code (smc fallback explain CODE) and fix it on the peer" },
	{ 0x09990000, "INTERR", "internal error",
	  "the SMC implementation failed during the handshake",
	  "see the kernel log (dmesg)" },
	{ 0x09990001, "ERR_RTOK", "remote buffer token bookkeeping failed",
	  "an rkey of the peer could not be recorded",
	  "see the kernel log (dmesg)" },
	{ 0x09990002, "ERR_RDYLNK", "bringing the link's QP up failed",
	  "the RDMA queue pair could not be moved to ready state",
	  "check the RDMA device (rdma link, dmesg)" },
	{ 0x09990003, "ERR_REGBUF", "RDMA buffer registration failed",
	  "a buffer could not be registered with the RDMA device",
	  "check memory limits and the RDMA device (dmesg)" },
};

const struct smc_reason *smc_reason_find(uint32_t code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reasons); i++)
		if (reasons[i].code == code)
			return &reasons[i];
	return NULL;
}

const char *smc_reason_text(uint32_t code)
{
	const struct smc_reason *r = smc_reason_find(code);

	if (!code)
		return "none";
	return r ? r->text : "unknown reason";
}

static void reason_json(const struct smc_reason *r)
{
	char hex[16];

	snprintf(hex, sizeof(hex), "0x%08x", r->code);
	jw_obj_open(NULL);
	jw_u64("code", r->code);
	jw_str("code_hex", hex);
	jw_str("name", r->name);
	jw_str("reason", r->text);
	jw_str("cause", r->cause);
	jw_str("fix", r->fix);
	jw_obj_close();
}

static void reason_text(const struct smc_reason *r)
{
	printf("0x%08x %s: %s\n", r->code, r->name, r->text);
	printf("    cause: %s\n", r->cause);
	printf("    fix:   %s\n", r->fix);
}

/* A reason given as 0x03030000, 50528256 or a name (NOSMCDEV) */
static const struct smc_reason *reason_parse(const char *arg)
{
	char *end;
	unsigned long v;
	size_t i;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (!errno && *arg && !*end)
		return smc_reason_find(v);
	for (i = 0; i < ARRAY_SIZE(reasons); i++)
		if (!strcasecmp(arg, reasons[i].name))
			return &reasons[i];
	return NULL;
}

static int fallback_explain(int argc, char **argv)
{
	const struct smc_reason *r;
	size_t i;

	if (argc > 1)
		return usage_error("fallback explain: one reason at most");
	if (argc == 1) {
		r = reason_parse(argv[0]);
		if (!r) {
			return usage_error("unknown reason code \"%s\"",
					   argv[0]);
		}
		if (opts.json) {
			jw_begin();
			reason_json(r);
			jw_end();
		} else {
			reason_text(r);
		}
		return 0;
	}
	if (opts.json) {
		jw_begin();
		jw_arr_open(NULL);
	}
	for (i = 0; i < ARRAY_SIZE(reasons); i++) {
		if (opts.json)
			reason_json(&reasons[i]);
		else
			reason_text(&reasons[i]);
	}
	if (opts.json) {
		jw_arr_close();
		jw_end();
	}
	return 0;
}

static void fallback_usage(FILE *f)
{
	fprintf(f,
		"Usage: smc fallback [ show ]\n"
		"       smc fallback explain [ CODE | NAME ]\n"
		"show: fallbacks counted per reason and role, with cause and fix\n"
		"explain: the reason table (all, or one code such as 0x03030000)\n");
}

int do_fallback(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list")) {
		if (argc > 1)
			return usage_error("fallback show takes no argument");
		return smc_fallback_show(true);
	}
	if (matches(argv[0], "explain"))
		return fallback_explain(argc - 1, argv + 1);
	if (is_help(argv[0])) {
		fallback_usage(stdout);
		return 0;
	}
	fallback_usage(stderr);
	return usage_error("unknown fallback command \"%s\"", argv[0]);
}
