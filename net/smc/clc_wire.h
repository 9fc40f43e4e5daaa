/* SPDX-License-Identifier: GPL-2.0 */
/* CLC (connection layer control) messages as bytes: pure encoders and
 * validating decoders, with no kernel state; also built in userspace.
 */
#ifndef ASMC_CLC_WIRE_H
#define ASMC_CLC_WIRE_H

#include "wire.h"

#define ASMC_CLC_EYE_R		0xE2D4C3D9u	/* "SMCR" in EBCDIC */
#define ASMC_CLC_EYE_D		0xE2D4C3C4u	/* "SMCD" in EBCDIC */

#define ASMC_CLC_PROPOSAL	0x01
#define ASMC_CLC_ACCEPT		0x02
#define ASMC_CLC_CONFIRM	0x03
#define ASMC_CLC_DECLINE	0x04

#define ASMC_CLC_HDR_LEN	8
#define ASMC_CLC_TRL_LEN	4
#define ASMC_CLC_DECL_LEN_V1	28
#define ASMC_CLC_DECL_LEN_V2	44
#define ASMC_CLC_PROP_MAX	652	/* 8 IPv6 prefixes, 8 UEIDs, 8 ISMs */
#define ASMC_CLC_MAX_LEN	1024	/* anything longer is hostile */
#define ASMC_CLC_ACC_LEN_V1	68	/* SMC-R v1 Accept/Confirm */
#define ASMC_CLC_ACC_LEN_V2	108	/* SMC-R v2, no first contact */
#define ASMC_CLC_ACC_LEN_V2FC	160	/* SMC-R v2 Accept, first contact */
#define ASMC_CLC_CONF_LEN_V2FC	164	/* + 16 per GID: v2 Confirm, f.c. */
#define ASMC_CLC_ACC_LEN_D_V1	48	/* SMC-D, recognised only */
#define ASMC_CLC_ACC_LEN_D_V2	78
#define ASMC_CLC_ACC_LEN_D_V2FC	114

/* 2-bit path codes of the header's byte 7 */
#define ASMC_PATH_R		0
#define ASMC_PATH_D		1
#define ASMC_PATH_NONE		2
#define ASMC_PATH_BOTH		3

#define ASMC_CLC_MAX_PREFIX	8
#define ASMC_CLC_MAX_UEID_RX	8
#define ASMC_CLC_MAX_ISM	8
#define ASMC_EID_LEN		32
#define ASMC_GID_LEN		16
#define ASMC_HOSTNAME_LEN	32
#define ASMC_CLC_MAX_GIDS	8	/* GIDs in a v2 first-contact Confirm */
#define ASMC_CLC_IPV6_ENTRY	17	/* 16-byte prefix + prefix length */
#define ASMC_CLC_SMCDV2_FIXED	48	/* SMC-D v2 extension before ISMs */
#define ASMC_CLC_ISM_ENTRY	10	/* ISMv2 GID (8) + CHID (2) */

/* byte 7 bit of Accept/Confirm (first contact) and Decline (out of sync) */
#define ASMC_CLC_FIRST_CONTACT	0x08
#define ASMC_CLC_OUT_OF_SYNC	0x08

/* Accept/Confirm v2 first-contact extension */
#define ASMC_CLC_V2_DIRECT	0x80	/* flags byte: no IP gateway */
#define ASMC_OS_ZOS		1
#define ASMC_OS_LINUX		2
#define ASMC_OS_AIX		3

/* SMC v2 releases: 0 = v2.0, 1 = v2.1 (max connections and links per link
 * group agreed in the handshake). The client proposes its latest, the
 * server answers min(proposed, its own), the client's Confirm repeats it.
 */
#define ASMC_RELEASE_0		0
#define ASMC_RELEASE_1		1
#define ASMC_RELEASE_LATEST	ASMC_RELEASE_1
#define ASMC_CONNS_MIN		16	/* v2.1: fewest conns per group */
#define ASMC_LINKS_MIN		1	/* v2.1: fewest links per group */

/* Compressed RMBE size (byte 50 high nibble): 16 KiB << code */
#define ASMC_RMBE_SIZE_MIN	16384u
#define ASMC_RMBE_CODE_MAX_R	5	/* SMC-R: 512 KiB */
#define ASMC_RMBE_CODE_MAX_D	6	/* SMC-D: 1 MiB */

/* IB QP MTU codes (CLC byte 50 low nibble, ADD_LINK byte 32) */
#define ASMC_MTU_256		1
#define ASMC_MTU_512		2
#define ASMC_MTU_1024		3
#define ASMC_MTU_2048		4
#define ASMC_MTU_4096		5

/* Decline reason codes (CLC wire values, also used as fallback reasons). */
#define ASMC_DECL_MEM		0x01010000u
#define ASMC_DECL_TIMEOUT_CL	0x02010000u
#define ASMC_DECL_TIMEOUT_AL	0x02020000u
#define ASMC_DECL_CNFERR	0x03000000u
#define ASMC_DECL_PEERNOSMC	0x03010000u
#define ASMC_DECL_IPSEC		0x03020000u
#define ASMC_DECL_NOSMCDEV	0x03030000u
#define ASMC_DECL_NOSMCDDEV	0x03030001u
#define ASMC_DECL_NOSMCRDEV	0x03030002u
#define ASMC_DECL_NOISM2SUPP	0x03030003u
#define ASMC_DECL_NOV2EXT	0x03030004u
#define ASMC_DECL_NOV2DEXT	0x03030005u
#define ASMC_DECL_NOSEID	0x03030006u
#define ASMC_DECL_NOSMCD2DEV	0x03030007u
#define ASMC_DECL_NOUEID	0x03030008u
#define ASMC_DECL_RELEASEERR	0x03030009u
#define ASMC_DECL_MAXCONNERR	0x0303000au
#define ASMC_DECL_MAXLINKERR	0x0303000bu
#define ASMC_DECL_MODEUNSUPP	0x03040000u
#define ASMC_DECL_RMBE_EC	0x03050000u
#define ASMC_DECL_OPTUNSUPP	0x03060000u
#define ASMC_DECL_DIFFPREFIX	0x03070000u
#define ASMC_DECL_GETVLANERR	0x03080000u
#define ASMC_DECL_ISMVLANERR	0x03090000u
#define ASMC_DECL_NOACTLINK	0x030a0000u
#define ASMC_DECL_NOSRVLINK	0x030b0000u
#define ASMC_DECL_VERSMISMAT	0x030c0000u
#define ASMC_DECL_MAX_DMB	0x030d0000u
#define ASMC_DECL_NOROUTE	0x030e0000u
#define ASMC_DECL_NOINDIRECT	0x030f0000u
#define ASMC_DECL_SYNCERR	0x04000000u
#define ASMC_DECL_PEERDECL	0x05000000u
#define ASMC_DECL_INTERR	0x09990000u
#define ASMC_DECL_ERR_RTOK	0x09990001u
#define ASMC_DECL_ERR_RDYLNK	0x09990002u
#define ASMC_DECL_ERR_REGBUF	0x09990003u

struct asmc_clc_hdr {
	u8 type;
	u8 version;		/* high nibble of byte 7 */
	u8 bits;		/* low nibble of byte 7 */
	u16 length;
	bool smcd_eye;
};

struct asmc_clc_decline {
	u8 version;
	bool out_of_sync;
	u8 peer_id[8];
	u32 reason;
	u8 os_type;
};

/* Parsed Proposal; also the input of asmc_clc_proposal_build(), where the
 * pointers name the caller's arrays (NULL allowed when the count is 0; a
 * NULL smcd_v2_ext builds a zeroed SMC-D v2 extension).
 */
struct asmc_clc_proposal {
	u8 version;		/* 1..15; 2 or more = v2 layout */
	u8 v1_path;		/* ASMC_PATH_*, NONE if version 1 lacks it */
	u8 v2_path;		/* ASMC_PATH_NONE for a version 1 proposal */
	u8 peer_id[8];
	u8 gid[16];
	u8 mac[6];
	/* SMC-D area (bytes 40..51), zero when the message has none */
	u64 ism_gid;
	u16 ism_chid;
	/* IP prefix area, valid when v1_path != NONE */
	u32 ipv4_subnet;
	u8 ipv4_prefix_len;
	u8 n_ipv6;
	const u8 *ipv6;		/* n_ipv6 * 17 bytes inside the message */
	/* v2 extension, valid when v2_path != NONE */
	u8 n_ueid;
	u8 n_ism;
	u8 release;
	bool seid;
	u8 roce_v2_gid[16];
	u8 max_conns;		/* release >= 1: proposed per link group */
	u8 max_links;
	u16 feature_mask;
	const u8 *ueids;	/* n_ueid * 32 bytes inside the message */
	const u8 *smcd_v2_ext;	/* NULL unless the v2 path offers SMC-D;
				 * 48 + 10 * n_ism bytes
				 */
};

/* Accept (server) and Confirm (client): same layout, told apart by type.
 * SMC-D messages are only recognised: smcd is set, type, version and
 * first_contact are filled and everything else stays zero.
 */
struct asmc_clc_accept {
	u8 type;		/* ASMC_CLC_ACCEPT or ASMC_CLC_CONFIRM */
	u8 version;		/* 1 or 2 (2..15 = v2 layout) */
	bool first_contact;
	bool smcd;
	u8 peer_id[8];
	u8 gid[16];
	u8 mac[6];
	u32 qpn;		/* 24 bit */
	u32 rkey;
	u8 rmbe_idx;
	u32 token;
	u8 rmbe_size;		/* compressed, 4 bit */
	u8 mtu;			/* IB MTU code, 4 bit */
	u64 rmb_addr;
	u32 psn;		/* 24 bit */
	/* version >= 2 */
	u8 eid[ASMC_EID_LEN];
	/* version >= 2 with first contact */
	bool v2_direct;
	u8 os_type;		/* 4 bit */
	u8 release;		/* 4 bit */
	u8 hostname[ASMC_HOSTNAME_LEN];
	u8 max_conns;		/* release >= 1: agreed per link group */
	u8 max_links;
	u16 feature_mask;
	/* Confirm only (version >= 2, first contact) */
	u8 n_gids;
	u8 gids[ASMC_CLC_MAX_GIDS][ASMC_GID_LEN];
};

static inline bool asmc_path_has_r(u8 path)
{
	return path == ASMC_PATH_R || path == ASMC_PATH_BOTH;
}

static inline bool asmc_path_has_d(u8 path)
{
	return path == ASMC_PATH_D || path == ASMC_PATH_BOTH;
}

int asmc_clc_hdr_parse(const u8 *buf, size_t n, struct asmc_clc_hdr *hdr);
bool asmc_clc_trailer_ok(const u8 *msg, size_t len);
size_t asmc_clc_min_len(u8 type, u8 version);
int asmc_clc_decline_parse(const u8 *msg, size_t len,
			   struct asmc_clc_decline *dcl);
size_t asmc_clc_decline_build(u8 *buf, size_t size, const u8 peer_id[8],
			      u32 reason, u8 version, bool out_of_sync);
int asmc_clc_proposal_parse(const u8 *msg, size_t len,
			    struct asmc_clc_proposal *prop);
int asmc_clc_proposal_len(const struct asmc_clc_proposal *prop);
int asmc_clc_proposal_build(u8 *buf, size_t size,
			    const struct asmc_clc_proposal *prop);
int asmc_clc_accept_parse(const u8 *msg, size_t len,
			  struct asmc_clc_accept *acc);
int asmc_clc_accept_len(const struct asmc_clc_accept *acc);
int asmc_clc_accept_build(u8 *buf, size_t size,
			  const struct asmc_clc_accept *acc);

/* What a v2 handshake agreed on beyond v2.0 (release 1 and later). */
struct asmc_clc_v2x {
	u8 release;
	u8 max_conns;
	u8 max_links;
};

u32 asmc_clc_v2x_server(const struct asmc_clc_proposal *p,
			const struct asmc_clc_v2x *ours,
			struct asmc_clc_v2x *agreed);
u32 asmc_clc_v2x_client(const struct asmc_clc_accept *a,
			const struct asmc_clc_v2x *proposed,
			struct asmc_clc_v2x *agreed);
u32 asmc_clc_v2x_confirm_check(const struct asmc_clc_accept *c,
			       const struct asmc_clc_v2x *agreed);

/* One IP address of a network device with its prefix length; IPv4 as
 * v4-mapped IPv6. SMC-R v1 needs the peers in a common subnet.
 */
struct asmc_clc_prefix {
	u8 addr[16];
	u8 len;			/* IPv4: 0..32, IPv6: 0..128 */
	bool v4;
};

int asmc_clc_prefix_area(struct asmc_clc_proposal *p, const u8 *src,
			 const struct asmc_clc_prefix *dev, int n,
			 u8 *ipv6_buf);
bool asmc_clc_prefix_match(const struct asmc_clc_proposal *p,
			   const struct asmc_clc_prefix *dev, int n);

/* Which local GID may carry an SMC-R link of a version (the Proposal's
 * and Accept's GID): a GID type, and how well a GID fits a connection.
 */
#define ASMC_GID_ROCE_V1	1	/* RoCE v1 (Ethernet L2) */
#define ASMC_GID_ROCE_V2	2	/* RoCE v2 (UDP/IP) */
#define ASMC_GID_FIT_NONE	0
#define ASMC_GID_FIT_SOME	1	/* usable if nothing better */
#define ASMC_GID_FIT_BEST	2

int asmc_gid_fit(u8 gid_type, const u8 *gid, u8 version, bool v1_any_gid,
		 const u8 *src);

u32 asmc_rmbe_code_to_size(u8 code);
u8 asmc_rmbe_size_to_code(u32 size, u8 max_code);
u32 asmc_mtu_code_to_bytes(u8 code);
u8 asmc_mtu_bytes_to_code(u32 bytes);

#endif /* ASMC_CLC_WIRE_H */
