// SPDX-License-Identifier: GPL-2.0
/* smc(8): command line of the AF_SMC configuration and monitoring tool:
 * global options, network namespace switch, objects and their dispatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "smc.h"

#define SMC_TOOL_VERSION "1.0"

struct smc_opts opts;

/* iproute2 style: @arg is a non-empty prefix of @word */
bool matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}

bool is_help(const char *arg)
{
	return matches(arg, "help") || !strcmp(arg, "--help") ||
	       !strcmp(arg, "-h");
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("smc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry \"smc help\".\n", stderr);
	return SMC_EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smc [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       smc help | --help | -V\n"
		"OBJECT := { info | stats | fallback | linkgroup | link | device |\n"
		"            ueid | seid | hslimit | pnet | socket }\n"
		"OPTIONS := { -j[son] | -p[retty] | -d[etails] | -n[etns] NAME |\n"
		"             -V[ersion] | -h[elp] }\n"
		"\n"
		"  info                                system information and EID state\n"
		"  stats [ show | json ]               SMC statistics and fallbacks\n"
		"  fallback [ show ]                   fallbacks per reason, with cause and fix\n"
		"  fallback explain [ CODE ]           what a decline/fallback code means\n"
		"  linkgroup show [ smcr | smcd ]      link groups\n"
		"  link show                           SMC-R links\n"
		"  device show [ smcr | smcd ]         RDMA / ISM devices\n"
		"  ueid { show | add EID | del EID | flush }\n"
		"  seid { show | enable | disable }\n"
		"  hslimit { show | enable | disable }   handshake limitation\n"
		"  pnet { show [ PNETID ] | flush | del PNETID |\n"
		"         add PNETID [ dev ETH ] [ ibdev IBDEV [ port N ] ] }\n"
		"  socket show                         AF_SMC sockets (needs smc_diag)\n"
		"\n"
		"Exit status: 0 success, 1 error reported by the kernel or the\n"
		"system, 2 usage error.\n");
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	/* first match of a prefix wins, as in ip(8) */
	{ "info",	do_info },
	{ "stats",	do_stats },
	{ "socket",	do_socket },
	{ "seid",	do_seid },
	{ "ueid",	do_ueid },
	{ "pnet",	do_pnet },
	{ "link",	do_link },
	{ "linkgroup",	do_linkgroup },
	{ "lgr",	do_linkgroup },
	{ "device",	do_device },
	{ "hslimit",	do_hslimit },
	{ "fallback",	do_fallback },
	{ "help",	do_help },
};

static int netns_switch(const char *name)
{
	char path[4096];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "smc: network namespace \"%s\": %s (%s)\n",
			name, strerror(errno), strerrorname_np(errno));
		return SMC_EXIT_ERR;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "smc: switching to network namespace \"%s\": %s (%s)\n",
			name, strerror(errno), strerrorname_np(errno));
		close(fd);
		return SMC_EXIT_ERR;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *opt;
	size_t i;
	int rc;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		opt = argv[0] + 1;
		if (*opt == '-')	/* --json as -json */
			opt++;
		if (!*opt) {		/* "-" or "--": end of options */
			argc--;
			argv++;
			break;
		}
		if (matches(opt, "json")) {
			opts.json = true;
		} else if (matches(opt, "pretty")) {
			opts.pretty = true;
			opts.json = true;
		} else if (matches(opt, "details")) {
			opts.details = true;
		} else if (matches(opt, "netns")) {
			if (argc < 2)
				return usage_error("option \"%s\" needs a namespace name",
						   argv[0]);
			opts.netns = argv[1];
			argc--;
			argv++;
		} else if (matches(opt, "Version")) {
			printf("smc utility, version %s\n", SMC_TOOL_VERSION);
			return 0;
		} else if (matches(opt, "help")) {
			usage(stdout);
			return 0;
		} else {
			return usage_error("unknown option \"%s\"", argv[0]);
		}
		argc--;
		argv++;
	}
	if (argc < 1) {
		usage(stderr);
		return SMC_EXIT_USAGE;
	}
	if (opts.netns) {
		rc = netns_switch(opts.netns);
		if (rc)
			return rc;
	}
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(argv[0], objects[i].name)) {
			rc = objects[i].fn(argc - 1, argv + 1);
			if (fflush(stdout) && !rc)
				rc = SMC_EXIT_ERR;
			return rc;
		}
	return usage_error("unknown object \"%s\"", argv[0]);
}
