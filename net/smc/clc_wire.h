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

/* 2-bit path codes of the header's byte 7 */
#define ASMC_PATH_R		0
#define ASMC_PATH_D		1
#define ASMC_PATH_NONE		2
#define ASMC_PATH_BOTH		3

#define ASMC_CLC_MAX_PREFIX	8
#define ASMC_CLC_MAX_UEID_RX	8
#define ASMC_CLC_MAX_ISM	8
#define ASMC_EID_LEN		32

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

struct asmc_clc_proposal {
	u8 version;
	u8 v1_path;		/* ASMC_PATH_*, NONE if version 1 lacks it */
	u8 v2_path;		/* ASMC_PATH_NONE for a version 1 proposal */
	u8 peer_id[8];
	u8 gid[16];
	u8 mac[6];
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
	const u8 *ueids;	/* n_ueid * 32 bytes inside the message */
	const u8 *smcd_v2_ext;	/* NULL unless the v2 path offers SMC-D */
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

#endif /* ASMC_CLC_WIRE_H */
