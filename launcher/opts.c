/*
 * opts.c - mpirun's command line.
 *
 * Options come first, the program and its arguments after: the first word
 * that is not an option (or the word after "--") is the program, and every
 * word after it belongs to the program. Long options take their value as
 * "--opt value" or "--opt=value"; Open MPI's single-dash spellings (-np,
 * -x) are accepted. Every mistake is one line on stderr
 * ("mpirun: error: ...") and a non-zero exit before anything is started.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "param.h"

const char *rc_progname = "mpirun";
char rc_last_err[1024];
bool rc_lerr_quiet;

void rc_lerr(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	snprintf(rc_last_err, sizeof(rc_last_err), "%.1000s", line);
	if (rc_lerr_quiet)
		return;
	fprintf(stderr, "%s: error: %s\n", rc_progname, line);
	fflush(stderr);
}

void rc_lmsg(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fprintf(stderr, "%s: %s\n", rc_progname, line);
	fflush(stderr);
}

/* clang-format off */
static void opts_help(void)
{
	const char *p = rc_progname;

	printf(
"Usage: %s [options] program [arguments...]\n"
"Start `program` as an MPI job of N ranks on this host or on the hosts\n"
"given. %s is the PMIx server of the job: it forks the ranks on this\n"
"host, starts a daemon (rcmpid) on every other host, forwards the ranks'\n"
"output and stdin, and ends the whole job when one rank fails.\n"
"\n"
"Where:\n"
"  -n, -np, --np, --n N   number of ranks (default: the number of usable\n"
"                         cores, the slots of the hosts, or ranks per\n"
"                         node times hosts)\n"
"  -H, --host HOST[:SLOTS][,HOST[:SLOTS]...]\n"
"                         run on these hosts (SLOTS default to 1)\n"
"  --hostfile, --machinefile FILE\n"
"                         hosts from FILE: lines \"host [slots=N]\",\n"
"                         '#' comments, blank lines allowed\n"
"                         Without -H or --hostfile: RCMPI_HOSTFILE, else\n"
"                         the batch allocation %s runs in (Slurm:\n"
"                         SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE; PBS:\n"
"                         PBS_NODEFILE; LSF: LSB_MCPU_HOSTS), else this\n"
"                         host with as many slots as usable cores\n"
"  --map-by slot|node|ppr:N:node\n"
"                         slot (default): fill each host's slots in\n"
"                         order; node: one rank per host, round-robin;\n"
"                         ppr:N:node: N ranks on each host\n"
"  -N, --npernode N       N ranks on each host (= --map-by ppr:N:node)\n"
"  --oversubscribe        allow more ranks than usable cores (or slots)\n"
"  --display-map          print where every rank runs before starting\n"
"\n"
"Binding (decided on each host, over its usable cores):\n"
"  --bind-to core|socket|numa|none\n"
"                         core: local rank i to the i-th core (its\n"
"                         hardware threads); socket, numa: to every CPU\n"
"                         of that core's socket or NUMA node; none: no\n"
"                         binding. Default: core when the ranks fit the\n"
"                         cores, else none\n"
"  --report-bindings      print each rank's binding as it starts\n"
"\n"
"Starting the daemons:\n"
"  --launch-agent CMD     start them with CMD HOST COMMAND (default:\n"
"                         $RCMPI_LAUNCH_AGENT, else one srun inside a\n"
"                         Slurm allocation, else\n"
"                         \"%s\")\n"
"  --auth secret|munge    how the daemons and %s prove they belong to\n"
"                         the job: secret (default; HMAC-SHA-256 under a\n"
"                         per-job secret handed over on the launch\n"
"                         channel) or munge (MUNGE credentials; needs\n"
"                         munged; no secret at all); also RCMPI_AUTH\n"
"  --local-daemon         run this host's ranks under a daemon too,\n"
"                         started like the other hosts' (srun or the\n"
"                         launch agent)\n"
"\n"
"The ranks:\n"
"  --wdir DIR             the ranks' working directory on every host\n"
"                         (default: this one's)\n"
"  -x VAR[=value]         export VAR to the ranks, with `value` or with\n"
"                         its value in this environment (repeatable)\n"
"  --tag-output           prefix each output line with \"[rank] \"\n"
"  --timeout SECONDS      end the job after SECONDS (exit status 124)\n"
"  -h, --help             print this help and exit\n"
"  -V, --version          print the version and exit\n"
"\n"
"Usable cores are the CPUs of %s's affinity mask (sched_getaffinity).\n"
"stdin goes to rank 0 (wherever it runs); the other ranks read /dev/null.\n"
"Output is forwarded line by line, so lines of different ranks never mix.\n"
"A host that names this one (its name, localhost, one of its addresses)\n"
"runs its ranks under %s itself; every other host gets a daemon that\n"
"connects back over TCP and proves it belongs to the job.\n"
"\n"
"Exit status: 0 when every rank exits 0; otherwise that of the first rank\n"
"to fail (its exit status, 128+N when killed by signal N, the code given\n"
"to MPI_Abort, or 1 when a rank that called MPI_Init exits without\n"
"MPI_Finalize), after the other ranks were sent SIGTERM and, 2 seconds\n"
"later, SIGKILL. SIGINT, SIGTERM and SIGHUP are forwarded to the ranks and\n"
"give 128+signal; 124 after --timeout; 1 for errors of %s itself and\n"
"for a host lost (daemon gone, heartbeat missed, launch agent failed).\n"
"\n"
"Environment: PMIX_MCA_* settings reach the PMIx server library; TMPDIR\n"
"says where the job's private PMIx directory goes (default /tmp);\n"
"RCMPI_LAUNCHER_VERBOSE=1 narrates the job (starts, PMIx events, ends);\n"
"RCMPI_DAEMON is the path of rcmpid on the other hosts (default: next to\n"
"%s); RCMPI_LAUNCH_TIMEOUT (s, default 30) bounds a daemon's start;\n"
"RCMPI_HEARTBEAT_TIMEOUT (s, default 10) declares a silent host lost.\n"
"rcmpi_info --param lists every RCMPI_* parameter.\n",
	       p, p, p, rc_params[RC_P_LAUNCH_AGENT].def, p, p, p, p, p);
}
/* clang-format on */

/* a whole decimal number > 0 that fits an int */
static int opts_count(const char *opt, const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno) {
		rc_lerr("%s: '%s' is not a number", opt, s);
		return -1;
	}
	if (v <= 0) {
		rc_lerr("%s: the number of ranks must be at least 1 (got %s)",
			opt, s);
		return -1;
	}
	if (v > 1 << 20) {
		rc_lerr("%s: %s ranks is too many", opt, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* ranks per node (-N N, --map-by ppr:N:node) */
static int opts_ppr(struct rc_opts *o, const char *opt, const char *s)
{
	char *end;
	long v;

	if (o->mapby != RC_MAP_SLOT || o->ppr) {
		rc_lerr("%s: give one of --map-by and -N/--npernode", opt);
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 1 || v > 1 << 20) {
		rc_lerr("%s: '%s' is not a number of ranks per node (1 or "
			"more)",
			opt, s);
		return -1;
	}
	o->ppr = (int)v;
	o->mapby = RC_MAP_PPR;
	return 0;
}

static int opts_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v)) {
		rc_lerr("%s: '%s' is not a number of seconds", opt, s);
		return -1;
	}
	if (v <= 0) {
		rc_lerr("%s: must be more than 0 seconds (got %s)", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int opts_xvar(struct rc_opts *o, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t namelen = eq ? (size_t)(eq - s) : strlen(s);
	char **nx;

	if (namelen == 0) {
		rc_lerr("-x: '%s' has no variable name", s);
		return -1;
	}
	nx = realloc(o->xvars, (o->nx + 1) * sizeof(*nx));
	if (!nx)
		goto err_nomem;
	o->xvars = nx;
	o->xvars[o->nx] = strdup(s);
	if (!o->xvars[o->nx])
		goto err_nomem;
	o->nx++;
	return 0;

err_nomem:
	rc_lerr("out of memory");
	return -1;
}

static int opts_str(char **dst, const char *val)
{
	free(*dst);
	*dst = strdup(val);
	if (!*dst) {
		rc_lerr("out of memory");
		return -1;
	}
	return 0;
}

enum {
	O_NP,
	O_X,
	O_TAG,
	O_OVER,
	O_BIND,
	O_TIMEOUT,
	O_HELP,
	O_VERSION,
	O_HOST,
	O_HOSTFILE,
	O_MAPBY,
	O_WDIR,
	O_AGENT,
	O_AUTH,
	O_LOCALD,
	O_NPERNODE,
	O_REPORT,
	O_DISPLAY,
};

static const struct opts_def {
	const char *name;
	int id;
	bool arg;
} opts_defs[] = {
	{"-n", O_NP, true},
	{"-np", O_NP, true},
	{"--np", O_NP, true},
	{"--n", O_NP, true},
	{"-c", O_NP, true},
	{"-x", O_X, true},
	{"--tag-output", O_TAG, false},
	{"-tag-output", O_TAG, false},
	{"--oversubscribe", O_OVER, false},
	{"-oversubscribe", O_OVER, false},
	{"--bind-to", O_BIND, true},
	{"-bind-to", O_BIND, true},
	{"--timeout", O_TIMEOUT, true},
	{"-timeout", O_TIMEOUT, true},
	{"-H", O_HOST, true},
	{"--host", O_HOST, true},
	{"-host", O_HOST, true},
	{"--hostfile", O_HOSTFILE, true},
	{"-hostfile", O_HOSTFILE, true},
	{"--machinefile", O_HOSTFILE, true},
	{"-machinefile", O_HOSTFILE, true},
	{"--map-by", O_MAPBY, true},
	{"-map-by", O_MAPBY, true},
	{"--wdir", O_WDIR, true},
	{"-wdir", O_WDIR, true},
	{"--launch-agent", O_AGENT, true},
	{"-launch-agent", O_AGENT, true},
	{"--auth", O_AUTH, true},
	{"--local-daemon", O_LOCALD, false},
	{"-N", O_NPERNODE, true},
	{"--npernode", O_NPERNODE, true},
	{"-npernode", O_NPERNODE, true},
	{"--report-bindings", O_REPORT, false},
	{"-report-bindings", O_REPORT, false},
	{"--display-map", O_DISPLAY, false},
	{"-display-map", O_DISPLAY, false},
	{"-h", O_HELP, false},
	{"--help", O_HELP, false},
	{"-help", O_HELP, false},
	{"-V", O_VERSION, false},
	{"--version", O_VERSION, false},
};

static const struct opts_def *opts_find(const char *word, const char **val)
{
	size_t i, n;

	*val = NULL;
	for (i = 0; i < sizeof(opts_defs) / sizeof(opts_defs[0]); i++) {
		n = strlen(opts_defs[i].name);
		if (!strcmp(word, opts_defs[i].name))
			return &opts_defs[i];
		/* --opt=value */
		if (opts_defs[i].arg && !strncmp(word, opts_defs[i].name, n) &&
		    word[n] == '=' && word[1] == '-') {
			*val = word + n + 1;
			return &opts_defs[i];
		}
	}
	return NULL;
}

int rc_opts_parse(int argc, char **argv, struct rc_opts *o)
{
	const struct opts_def *d;
	const char *val;
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--")) {
			i++;
			break;
		}
		if (w[0] != '-' || !w[1])
			break;
		d = opts_find(w, &val);
		if (!d) {
			rc_lerr("unknown option '%s' (see %s --help)", w,
				rc_progname);
			goto err;
		}
		if (d->arg && !val) {
			if (i + 1 >= argc) {
				rc_lerr("%s needs a value", w);
				goto err;
			}
			val = argv[++i];
		}
		switch (d->id) {
		case O_NP:
			if (opts_count(d->name, val, &o->np))
				goto err;
			break;
		case O_X:
			if (opts_xvar(o, val))
				goto err;
			break;
		case O_TAG:
			o->tag_output = true;
			break;
		case O_OVER:
			o->oversubscribe = true;
			break;
		case O_BIND:
			if (!strcmp(val, "core")) {
				o->bind = RC_BIND_CORE;
			} else if (!strcmp(val, "none")) {
				o->bind = RC_BIND_NONE;
			} else if (!strcmp(val, "socket") ||
				   !strcmp(val, "package")) {
				o->bind = RC_BIND_SOCKET;
			} else if (!strcmp(val, "numa")) {
				o->bind = RC_BIND_NUMA;
			} else {
				rc_lerr("--bind-to: '%s' is not core, socket, "
					"numa or none",
					val);
				goto err;
			}
			break;
		case O_NPERNODE:
			if (opts_ppr(o, d->name, val))
				goto err;
			break;
		case O_REPORT:
			o->report_bindings = true;
			break;
		case O_DISPLAY:
			o->display_map = true;
			break;
		case O_TIMEOUT:
			if (opts_seconds(d->name, val, &o->timeout))
				goto err;
			break;
		case O_HOST:
		case O_HOSTFILE:
			if (o->hosts || o->hostfile) {
				rc_lerr("%s: give one host list (-H or "
					"--hostfile), once", w);
				goto err;
			}
			if (opts_str(d->id == O_HOST ? &o->hosts :
				     &o->hostfile, val))
				goto err;
			break;
		case O_MAPBY:
			if (o->ppr) {
				rc_lerr("--map-by %s: ranks per node are "
					"given already (-N or ppr)",
					val);
				goto err;
			}
			if (!strcmp(val, "slot") || !strcmp(val, "core")) {
				o->mapby = RC_MAP_SLOT;
			} else if (!strcmp(val, "node")) {
				o->mapby = RC_MAP_NODE;
			} else if (!strncmp(val, "ppr:", 4)) {
				const char *obj = strchr(val + 4, ':');
				char n[32];

				if (!obj || strcmp(obj, ":node") ||
				    (size_t)(obj - val - 4) >= sizeof(n)) {
					rc_lerr("--map-by: '%s' is not "
						"ppr:N:node",
						val);
					goto err;
				}
				snprintf(n, sizeof(n), "%.*s",
					 (int)(obj - val - 4), val + 4);
				if (opts_ppr(o, "--map-by ppr", n))
					goto err;
			} else {
				rc_lerr("--map-by: '%s' is not slot, node or "
					"ppr:N:node",
					val);
				goto err;
			}
			break;
		case O_WDIR:
			if (!*val) {
				rc_lerr("--wdir: empty directory name");
				goto err;
			}
			if (opts_str(&o->wdir, val))
				goto err;
			break;
		case O_AGENT:
			if (!val[strspn(val, " \t")]) {
				rc_lerr("--launch-agent: empty command");
				goto err;
			}
			if (opts_str(&o->agent, val))
				goto err;
			break;
		case O_AUTH:
			if (rc_auth_parse(val) < 0) {
				rc_lerr("--auth: '%s' is not secret or munge",
					val);
				goto err;
			}
			if (opts_str(&o->auth, val))
				goto err;
			break;
		case O_LOCALD:
			o->local_daemon = true;
			break;
		case O_HELP:
			opts_help();
			rc_opts_free(o);
			return 2;
		case O_VERSION:
			printf("%s (rcmpi) %s\n", rc_progname, PACKAGE_VERSION);
			rc_opts_free(o);
			return 2;
		}
	}
	if (i >= argc) {
		rc_lerr("no program to run (see %s --help)", rc_progname);
		goto err;
	}
	o->argv = argv + i;
	o->argc = argc - i;
	return 0;

err:
	rc_opts_free(o);
	return 1;
}

void rc_opts_free(struct rc_opts *o)
{
	int i;

	for (i = 0; i < o->nx; i++)
		free(o->xvars[i]);
	free(o->xvars);
	o->xvars = NULL;
	o->nx = 0;
	free(o->hosts);
	free(o->hostfile);
	free(o->wdir);
	free(o->agent);
	free(o->auth);
	o->hosts = o->hostfile = o->wdir = o->agent = o->auth = NULL;
}
