/*
 * rcmpi_info.c - what rcmpi is and what it can use here, like ompi_info
 * and ucx_info -d: version and build, transports and why one is not
 * usable (with the fix), RDMA devices and ports, every RCMPI_* parameter.
 *
 *   rcmpi_info [--parsable] [--build] [--transports] [--devices]
 *              [--param [NAME...]]
 *
 * With no section named, all of them. Exit status 0; 1 for a bad option or
 * a parameter name that does not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcinfo.h"
#include "param.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rcmpi_info [--parsable] [--build] [--transports] "
		"[--devices]\n"
		"                  [--param [NAME...]]\n"
		"What rcmpi %s is and what it can use on this host.\n"
		"\n"
		"  --build         version and build configuration: configure "
		"options,\n"
		"                  compiler, PMIx, libibverbs and librdmacm "
		"versions,\n"
		"                  sanitizers\n"
		"  --transports    the transports compiled in, and whether "
		"each is usable\n"
		"                  here; if not, why and how to fix it (no "
		"RDMA device,\n"
		"                  locked-memory limit, ptrace_scope blocking "
		"CMA, no\n"
		"                  /dev/shm)\n"
		"  --devices       every RDMA device and port: state, link "
		"layer, LID or\n"
		"                  GIDs with their types and the one rcmpi "
		"picks, MTU,\n"
		"                  speed, atomics, max inline\n"
		"  --param [NAME...]\n"
		"                  every RCMPI_* parameter (or those named, "
		"with or\n"
		"                  without the RCMPI_ prefix): value now, "
		"default, type,\n"
		"                  range, reader, description; and RCMPI_ "
		"variables in the\n"
		"                  environment that are not parameters\n"
		"  --parsable      one \"key:value\" line per fact (keys are "
		"fixed words\n"
		"                  and names separated by ':'; the value is "
		"the rest)\n"
		"  -h, --help      this help;  -V, --version  the version\n"
		"\n"
		"With no section given, all of them.\n",
		PACKAGE_VERSION);
}

int main(int argc, char **argv)
{
	const char *root = rc_param_str(RC_P_TEST_ROOT);
	unsigned sections = 0;
	bool parsable = false;
	char **names = NULL;
	int i, nnames = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--parsable") || !strcmp(a, "-p")) {
			parsable = true;
		} else if (!strcmp(a, "--build")) {
			sections |= RC_INFO_BUILD;
		} else if (!strcmp(a, "--transports")) {
			sections |= RC_INFO_TRANSPORTS;
		} else if (!strcmp(a, "--devices") || !strcmp(a, "-d")) {
			sections |= RC_INFO_DEVICES;
		} else if (!strcmp(a, "--param") || !strcmp(a, "--params")) {
			sections |= RC_INFO_PARAMS;
			names = argv + i + 1;
			while (i + 1 < argc && argv[i + 1][0] != '-') {
				i++;
				nnames++;
			}
		} else if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
			sections = RC_INFO_ALL;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("rcmpi_info (rcmpi) %s\n", PACKAGE_VERSION);
			return 0;
		} else {
			fprintf(stderr, "rcmpi_info: unknown option '%s'\n", a);
			usage(stderr);
			return 1;
		}
	}
	if (!sections)
		sections = RC_INFO_ALL;
	return rc_info_report(stdout, root ? root : "", sections, parsable,
			      nnames ? names : NULL, nnames);
}
