/* SPDX-License-Identifier: GPL-2.0 */
/* The net.smc sysctls: values kept per network namespace, with the
 * defaults and limits users see in /proc/sys/net/smc.
 */
#ifndef ASMC_SYSCTL_H
#define ASMC_SYSCTL_H

struct ctl_table_header;
struct net;

#define ASMC_SYSCTL_BUF_MIN	16384		/* smallest SMC-R buffer */
/* 512 KiB, the largest SMC-R buffer: one stream needs that much in
 * flight (measured in Documentation/bench/targets.md); an idle connection
 * holds the RMB but not the send buffer (it grows on the first large
 * write), and past the buffers' budget new connections get 64 KiB
 * (ASMC_BUF_TIGHT, lgr.h)
 */
#define ASMC_SYSCTL_WMEM	(512 * 1024)
#define ASMC_SYSCTL_RMEM	(512 * 1024)
#define ASMC_SYSCTL_LINKS	2		/* links a group builds */

/* Each value is written by proc handlers and read with READ_ONCE where it
 * takes effect; see Documentation/networking/smc-sysctl.rst.
 */
struct asmc_sysctl {
	struct ctl_table_header	*hdr;
	struct ctl_table_header	*host_hdr;	/* init_net: buf_limit */
	unsigned int		autocorking_size;	/* bytes, 0: off */
	int			smcr_buf_type;		/* 0, 1 or 2 */
	int			smcr_testlink_time;	/* seconds, 0: off */
	int			wmem;			/* bytes */
	int			rmem;			/* bytes */
	int			smcr_max_links_per_lgr;
	int			smcr_max_conns_per_lgr;
	int			smcr_max_send_wr;
	int			smcr_max_recv_wr;
	int			smcr_v1;		/* ASMC_V1_* */
	int			smcr_v2;		/* 0 or 1 */
};

/* net.smc.smcr_v1: which GIDs may carry an SMC-R v1 link. Linux's smc
 * uses RoCE v1 GIDs only; RoCE v2 GIDs (Soft-RoCE has nothing else) work
 * between hosts that both allow them.
 */
#define ASMC_V1_OFF		0
#define ASMC_V1_ROCE1		1	/* default */
#define ASMC_V1_ANY_GID		2

int asmc_sysctl_net_init(struct net *net);
void asmc_sysctl_net_exit(struct net *net);

#endif /* ASMC_SYSCTL_H */
