/* SPDX-License-Identifier: GPL-2.0 */
/* smc(8): what the source files of the command share: global options, exit
 * codes, netlink helpers, table and JSON output, the decline reason table.
 */
#ifndef SMC_TOOL_H
#define SMC_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Exit codes (documented in smc.8) */
#define SMC_EXIT_OK	0
#define SMC_EXIT_ERR	1	/* the kernel refused or failed a request */
#define SMC_EXIT_USAGE	2	/* bad command line */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct smc_opts {
	bool json;		/* -j */
	bool pretty;		/* -p (implies -j) */
	bool details;		/* -d */
	const char *netns;	/* -n NAME */
};
extern struct smc_opts opts;

/* ---- main.c ---- */
bool matches(const char *arg, const char *word);
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool is_help(const char *arg);

/* ---- nl.c: generic netlink and sock_diag requests ---- */
struct smc_nl {
	struct mnl_socket *sk;
	uint16_t family;	/* generic netlink family id (0: not genl) */
	unsigned int portid;
	unsigned int seq;
};

/* Fills in the attributes of a request (may be NULL) */
typedef void (*smc_nl_build_t)(struct nlmsghdr *nlh, void *data);

int smc_genl_open(struct smc_nl *nl, const char *family);
void smc_nl_close(struct smc_nl *nl);
/* Sends a request (a dump with @dump) and runs @cb on each reply message.
 * Returns 0 or a negative errno; the error text is then in smc_nl_extack.
 */
int smc_genl_call(struct smc_nl *nl, uint8_t cmd, bool dump,
		  smc_nl_build_t build, void *bdata, mnl_cb_t cb, void *data);
int smc_nl_talk(struct smc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data);
struct nlmsghdr *smc_nl_msg(struct smc_nl *nl, uint16_t type, uint16_t flags);
extern char smc_nl_extack[256];
/* Prints "smc: WHAT: strerror (ENAME): kernel message", returns exit code */
int smc_nl_error(const char *what, int err);

/* Attribute tables: tb[type] of a nest or message payload */
#define SMC_NL_TB_MAX	32
int smc_nl_parse(const void *payload, size_t len, const struct nlattr **tb);
int smc_nl_parse_nest(const struct nlattr *nest, const struct nlattr **tb);
int smc_nl_parse_genl(const struct nlmsghdr *nlh, const struct nlattr **tb);
uint8_t nla_u8(const struct nlattr *a);
uint16_t nla_u16(const struct nlattr *a);
uint32_t nla_u32(const struct nlattr *a);
uint64_t nla_u64(const struct nlattr *a);
/* the string of @a cut at its NUL, into @buf of @size; "" when absent */
const char *nla_str(const struct nlattr *a, char *buf, size_t size);

/* One request on its own socket; errors printed, exit code returned */
int smc_gen_req(const char *family, uint8_t cmd, bool dump,
		smc_nl_build_t build, void *bdata, mnl_cb_t cb, void *data,
		const char *what);
/* The same for SMC_GEN_NETLINK */
int smc_gen_dump(uint8_t cmd, mnl_cb_t cb, void *data, const char *what);
int smc_gen_do(uint8_t cmd, smc_nl_build_t build, void *bdata,
	       const char *what);

/* ---- output.c: tables for people, JSON for programs ---- */
struct table;
struct table *tbl_new(int ncols, ...);	/* header names, NULL: no header */
void tbl_row(struct table *t);
void tbl_cell(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tbl_print(struct table *t);	/* prints and frees */

void jw_begin(void);
void jw_end(void);
void jw_obj_open(const char *key);
void jw_obj_close(void);
void jw_arr_open(const char *key);
void jw_arr_close(void);
void jw_str(const char *key, const char *val);
void jw_str_or_null(const char *key, const char *val);
void jw_u64(const char *key, uint64_t val);
void jw_bool(const char *key, bool val);
void jw_null(const char *key);

/* ---- reasons.c: CLC decline / fallback reason codes ---- */
struct smc_reason {
	uint32_t code;
	const char *name;	/* short identifier */
	const char *text;	/* what it means */
	const char *cause;	/* likely cause on this setup */
	const char *fix;	/* what to do about it */
};
const struct smc_reason *smc_reason_find(uint32_t code);
const char *smc_reason_text(uint32_t code);
int do_fallback(int argc, char **argv);

/* ---- the objects ---- */
int do_info(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_ueid(int argc, char **argv);
int do_seid(int argc, char **argv);
int do_hslimit(int argc, char **argv);
int do_linkgroup(int argc, char **argv);
int do_link(int argc, char **argv);
int do_device(int argc, char **argv);
int do_pnet(int argc, char **argv);
int do_socket(int argc, char **argv);

/* stats.c: the fallback part of the statistics, shared with reasons.c */
int smc_fallback_show(bool explain);

#endif /* SMC_TOOL_H */
