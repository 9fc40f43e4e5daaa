// SPDX-License-Identifier: GPL-2.0
/* Writes the fuzz seed corpus: one file per valid CLC, LLC and CDC message
 * kind, encoded with the module's own builders (plus SMC-D CLC by hand).
 */
#include <stdio.h>
#include <stdlib.h>
#include "clc_wire.h"
#include "llc_wire.h"
#include "cdc_wire.h"

static const char *dir;

/* each seed must be valid: parse it with the decoder of its kind */
static int parses(const char *sub, const u8 *b, int len)
{
	struct asmc_clc_proposal p;
	struct asmc_clc_accept a;
	struct asmc_clc_decline d;
	struct asmc_llc_msg m;
	struct asmc_cdc_msg c;

	if (!strcmp(sub, "llc"))
		return asmc_llc_parse(b, len, &m);
	if (!strcmp(sub, "cdc"))
		return asmc_cdc_parse(b, len, &c);
	switch (b[4]) {
	case ASMC_CLC_PROPOSAL:
		return asmc_clc_proposal_parse(b, len, &p);
	case ASMC_CLC_ACCEPT:
	case ASMC_CLC_CONFIRM:
		return asmc_clc_accept_parse(b, len, &a);
	}
	return asmc_clc_decline_parse(b, len, &d);
}

static void put(const char *sub, const char *name, const u8 *b, int len)
{
	char path[512];
	FILE *f;

	if (len <= 0 || parses(sub, b, len)) {
		fprintf(stderr, "gen_corpus: %s/%s: build or parse failed (%d)\n", sub,
			name, len);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != (size_t)len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static const u8 gid_v2[16] = { [10] = 0xff, [11] = 0xff, [12] = 192,
			       [13] = 0, [14] = 2, [15] = 1 };
static const u8 gid_v1[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe,
			       [15] = 1 };
static const u8 mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const u8 eid[32] = "SMC-EID-FUZZ                    ";

static void gen_clc(void)
{
	static u8 ipv6[8 * 17], ueids[8 * 32], smcd[48 + 80];
	struct asmc_clc_proposal p;
	struct asmc_clc_accept a;
	u8 b[1024];
	int i;

	for (i = 0; i < 8 * 32; i++)
		ueids[i] = i % 32 < 12 ? "SMC-EID-FUZZ"[i % 32] : ' ';
	for (i = 0; i < 8 * 17; i++)
		ipv6[i] = i % 17 == 16 ? 64 : 0x20 + i % 17;
	for (i = 0; i < 48 + 80; i++)
		smcd[i] = i;

	memset(&p, 0, sizeof(p));
	p.version = 2;
	memcpy(p.peer_id, "\x12\x34\x02\0\0\0\0\x01", 8);
	memcpy(p.gid, gid_v1, 16);
	memcpy(p.mac, mac, 6);
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	p.ipv4_subnet = 0xC0000200;
	p.ipv4_prefix_len = 24;
	put("clc", "proposal_v1_only", b, asmc_clc_proposal_build(b, sizeof(b), &p));
	p.v2_path = ASMC_PATH_R;
	p.n_ueid = 1;
	p.ueids = ueids;
	memcpy(p.roce_v2_gid, gid_v2, 16);
	put("clc", "proposal_v1_v2", b, asmc_clc_proposal_build(b, sizeof(b), &p));
	p.v1_path = ASMC_PATH_NONE;
	memset(p.peer_id, 0, 8);
	memset(p.gid, 0, 16);
	memset(p.mac, 0, 6);
	put("clc", "proposal_v2_only", b, asmc_clc_proposal_build(b, sizeof(b), &p));
	p.v1_path = ASMC_PATH_BOTH;
	p.v2_path = ASMC_PATH_BOTH;
	p.ism_gid = 0x1122334455667788ull;
	p.ism_chid = 0x0102;
	p.n_ipv6 = 8;
	p.ipv6 = ipv6;
	p.n_ueid = 8;
	p.n_ism = 8;
	p.smcd_v2_ext = smcd;
	p.seid = true;
	put("clc", "proposal_max", b, asmc_clc_proposal_build(b, sizeof(b), &p));
	p.n_ipv6 = 2;
	p.n_ueid = 2;
	p.n_ism = 1;
	p.v1_path = ASMC_PATH_D;
	p.v2_path = ASMC_PATH_D;
	put("clc", "proposal_smcd", b, asmc_clc_proposal_build(b, sizeof(b), &p));
	memset(&p, 0, sizeof(p));
	p.version = 1;
	p.v1_path = ASMC_PATH_R;
	p.v2_path = ASMC_PATH_NONE;
	p.n_ipv6 = 1;
	p.ipv6 = ipv6;
	put("clc", "proposal_version1", b, asmc_clc_proposal_build(b, sizeof(b), &p));

	memset(&a, 0, sizeof(a));
	a.type = ASMC_CLC_ACCEPT;
	a.version = 1;
	a.first_contact = true;
	memcpy(a.peer_id, "\x56\x78\x02\0\0\0\0\x02", 8);
	memcpy(a.gid, gid_v1, 16);
	memcpy(a.mac, mac, 6);
	a.qpn = 0x11;
	a.rkey = 0x1234;
	a.rmbe_idx = 1;
	a.token = 1;
	a.rmbe_size = 2;
	a.mtu = ASMC_MTU_1024;
	a.rmb_addr = 0xffff888012340000ull;
	a.psn = 0xabcdef;
	put("clc", "accept_v1_fc", b, asmc_clc_accept_build(b, sizeof(b), &a));
	a.type = ASMC_CLC_CONFIRM;
	a.first_contact = false;
	put("clc", "confirm_v1", b, asmc_clc_accept_build(b, sizeof(b), &a));
	a.version = 2;
	memcpy(a.gid, gid_v2, 16);
	memcpy(a.eid, eid, 32);
	put("clc", "confirm_v2", b, asmc_clc_accept_build(b, sizeof(b), &a));
	a.type = ASMC_CLC_ACCEPT;
	a.first_contact = true;
	a.v2_direct = true;
	a.os_type = ASMC_OS_LINUX;
	memcpy(a.hostname, "fuzzhost                        ", 32);
	put("clc", "accept_v2_fc", b, asmc_clc_accept_build(b, sizeof(b), &a));
	a.type = ASMC_CLC_CONFIRM;
	a.n_gids = 2;
	memcpy(a.gids[0], gid_v2, 16);
	memcpy(a.gids[1], gid_v2, 16);
	a.gids[1][15] = 2;
	put("clc", "confirm_v2_fc_2gids", b, asmc_clc_accept_build(b, sizeof(b), &a));

	/* SMC-D Accept/Confirm, recognised only: v1 48, v2 78, v2 f.c. 114 */
	memset(b, 0, sizeof(b));
	memcpy(b, "\xE2\xD4\xC3\xC4\x02\x00\x30\x11", 8);
	memcpy(b + 44, "\xE2\xD4\xC3\xC4", 4);
	put("clc", "accept_smcd_v1", b, 48);
	memset(b, 0, sizeof(b));
	memcpy(b, "\xE2\xD4\xC3\xC4\x03\x00\x4E\x21", 8);
	memcpy(b + 74, "\xE2\xD4\xC3\xC4", 4);
	put("clc", "confirm_smcd_v2", b, 78);
	memset(b, 0, sizeof(b));
	memcpy(b, "\xE2\xD4\xC3\xC4\x02\x00\x72\x29", 8);
	memcpy(b + 110, "\xE2\xD4\xC3\xC4", 4);
	put("clc", "accept_smcd_v2_fc", b, 114);

	put("clc", "decline_v1", b,
	    (int)asmc_clc_decline_build(b, sizeof(b), a.peer_id,
					ASMC_DECL_NOSMCDEV, 1, false));
	put("clc", "decline_v2_sync", b,
	    (int)asmc_clc_decline_build(b, sizeof(b), a.peer_id,
					ASMC_DECL_SYNCERR, 2, true));
}

static void gen_llc(void)
{
	static const struct asmc_llc_rkey rk[3] = {
		{ 1, 2, 0x1000 }, { 3, 4, 0x2000 }, { 5, 6, 0x3000 },
	};
	struct asmc_llc_msg m;
	u8 b[ASMC_LLC_MAX_LEN];
	int v;

	for (v = 0; v <= 2; v += 2) {
		char name[64];
		const char *sfx = v ? "v2" : "v1";

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_CONFIRM_LINK;
		m.flags = ASMC_LLC_FLAG_NO_RMBE_EYEC;
		memcpy(m.confirm_link.mac, mac, 6);
		memcpy(m.confirm_link.gid, v ? gid_v2 : gid_v1, 16);
		m.confirm_link.qpn = 0x11;
		m.confirm_link.link_id = 1;
		m.confirm_link.link_uid = 0x100;
		m.confirm_link.max_links = 2;
		snprintf(name, sizeof(name), "confirm_link_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_ADD_LINK;
		memcpy(m.add_link.mac, mac, 6);
		memcpy(m.add_link.gid, v ? gid_v2 : gid_v1, 16);
		m.add_link.qpn = 0x12;
		m.add_link.link_id = 2;
		m.add_link.mtu = v ? 4 : 3;
		m.add_link.psn = 0x654321;
		if (v) {
			m.add_link.has_ext = true;
			m.add_link.v2_direct = true;
			memcpy(m.add_link.target_gid, gid_v2, 16);
			m.add_link.n_rkeys = 3;
			m.add_link.rkeys = rk;
		}
		snprintf(name, sizeof(name), "add_link_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));
		m.flags = ASMC_LLC_FLAG_RESP | ASMC_LLC_FLAG_ADD_LNK_REJ;
		m.add_link.has_ext = false;
		m.add_link.reject_reason = v ? 0 : ASMC_LLC_REJ_NO_ALT_PATH;
		snprintf(name, sizeof(name), "add_link_reject_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_DELETE_LINK;
		m.flags = ASMC_LLC_FLAG_DEL_LINK_ALL |
			  ASMC_LLC_FLAG_DEL_LINK_ORDERLY;
		m.delete_link.reason = ASMC_LLC_DEL_PROG_INIT_TERM;
		snprintf(name, sizeof(name), "delete_link_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_CONFIRM_RKEY;
		m.confirm_rkey.n_other = 1;
		m.confirm_rkey.rkey = 0x77;
		m.confirm_rkey.addr = 0x10000;
		m.confirm_rkey.other[0].link_id = 2;
		m.confirm_rkey.other[0].rkey = 0x78;
		m.confirm_rkey.other[0].addr = 0x20000;
		snprintf(name, sizeof(name), "confirm_rkey_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_DELETE_RKEY;
		m.delete_rkey.n_rkeys = 1;
		m.delete_rkey.rkeys[0] = 0x77;
		snprintf(name, sizeof(name), "delete_rkey_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));

		memset(&m, 0, sizeof(m));
		m.version = v;
		m.type = ASMC_LLC_TEST_LINK;
		snprintf(name, sizeof(name), "test_link_%s", sfx);
		put("llc", name, b, asmc_llc_build(b, sizeof(b), &m));
	}

	memset(&m, 0, sizeof(m));
	m.type = ASMC_LLC_ADD_LINK_CONT;
	m.add_link_cont.link_id = 2;
	m.add_link_cont.n_rkeys = 2;
	m.add_link_cont.rkeys[0] = rk[0];
	m.add_link_cont.rkeys[1] = rk[1];
	put("llc", "add_link_cont_v1", b, asmc_llc_build(b, sizeof(b), &m));

	memset(&m, 0, sizeof(m));
	m.version = ASMC_LLC_V2;
	m.type = ASMC_LLC_REQ_ADD_LINK;
	m.req_add_link.n_gids = 2;
	memcpy(b + 4096, gid_v2, 16);
	memcpy(b + 4112, gid_v2, 16);
	b[4127] = 2;
	m.req_add_link.gids = b + 4096;
	{
		u8 o[64];

		put("llc", "req_add_link_v2", o, asmc_llc_build(o, sizeof(o), &m));
	}

	memset(b, 0, 44);
	b[0] = 0x08;
	b[1] = 44;
	put("llc", "confirm_rkey_cont_v1", b, 44);
}

static void gen_cdc(void)
{
	struct asmc_cdc_msg m;
	u8 b[ASMC_CDC_LEN];

	memset(&m, 0, sizeof(m));
	m.seqno = 1;
	m.token = 1;
	m.prod.count = 4096;
	put("cdc", "data", b, asmc_cdc_build(b, sizeof(b), &m));
	m.seqno = 0xffff;
	m.prod.wrap = 0xffff;
	m.prod.count = 65535;
	m.cons.wrap = 0xfffe;
	m.cons.count = 100;
	m.prod_flags = ASMC_CDC_WRITE_BLOCKED | ASMC_CDC_URG_PRESENT;
	put("cdc", "wrap", b, asmc_cdc_build(b, sizeof(b), &m));
	m.prod_flags = ASMC_CDC_FAILOVER;
	m.conn_flags = ASMC_CDC_PEER_CONN_CLOSED | ASMC_CDC_PEER_DONE_WRITING;
	put("cdc", "close", b, asmc_cdc_build(b, sizeof(b), &m));
	/* a producer cursor rings ahead of the consumer: an overrun */
	memset(&m, 0, sizeof(m));
	m.seqno = 2;
	m.token = 1;
	m.prod.wrap = 0x400;
	m.prod.count = 4096;
	m.cons.count = 128;
	put("cdc", "overrun", b, asmc_cdc_build(b, sizeof(b), &m));
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "corpus";
	gen_clc();
	gen_llc();
	gen_cdc();
	return 0;
}
