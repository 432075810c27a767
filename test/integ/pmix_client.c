/*
 * pmix_client.c - a raw PMIx client that plays the rank for launcher tests.
 *
 * Each argument is one step, run in order; "@R:step" runs only on rank R
 * (the rank comes from PMIx after "init", else from $PMIX_RANK).
 *
 *   init            PMIx_Init
 *   fin             PMIx_Finalize
 *   fence[:N]       put a blob of rank-dependent size and content, commit,
 *                   collecting fence, get and verify every peer's blob;
 *                   N rounds (default 1); prints "fence ok rank R"
 *   barrier         fence without data
 *   keys            print job keys: "keys rank R size S local_size L
 *                   local_rank LR node_rank NR peers P host H univ U"
 *   exit:N          _exit(N)          kill:S      raise(S)
 *   abort:N         PMIx_Abort(N, "test abort", NULL, 0)
 *   sleep:S         sleep S seconds (fractions allowed)
 *   spam:L:W        write L lines of W bytes to stdout and stderr, each
 *                   line in several write() calls
 *   stdin           copy stdin to stdout prefixed "stdin: ", then print
 *                   "stdin bytes N"
 *   env:VAR         print "env rank R VAR=value" or "VAR unset"
 *   cpus            print "cpus rank R <Cpus_allowed_list>"
 *   shm             create /dev/shm/rcmpi.<nspace>.<rank> and leave it
 *   ignterm         ignore SIGTERM
 *   say:TEXT        print "TEXT rank R"
 *   --mark=X        ignored (a marker for pgrep)
 *
 * Any failure prints "FAIL ..." on stderr and exits 99.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int rank = -1, size = -1;
static bool inited;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL rank %d: ", rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	_exit(99);
}

static unsigned long get_uint(const char *key, pmix_rank_t r)
{
	pmix_proc_t p;
	pmix_value_t *v;
	unsigned long x = 0;
	pmix_status_t rc;

	PMIX_LOAD_PROCID(&p, me.nspace, r);
	rc = PMIx_Get(&p, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS)
		fail("PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
	switch (v->type) {
	case PMIX_UINT32: x = v->data.uint32; break;
	case PMIX_UINT16: x = v->data.uint16; break;
	case PMIX_UINT64: x = v->data.uint64; break;
	case PMIX_INT: x = (unsigned long)v->data.integer; break;
	case PMIX_PROC_RANK: x = v->data.rank; break;
	default: fail("%s: unexpected type %d", key, v->type);
	}
	PMIX_VALUE_RELEASE(v);
	return x;
}

static char *get_str(const char *key, pmix_rank_t r)
{
	pmix_proc_t p;
	pmix_value_t *v;
	pmix_status_t rc;
	char *s;

	PMIX_LOAD_PROCID(&p, me.nspace, r);
	rc = PMIx_Get(&p, key, NULL, 0, &v);
	if (rc != PMIX_SUCCESS)
		fail("PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
	if (v->type != PMIX_STRING)
		fail("%s: type %d is not a string", key, v->type);
	s = strdup(v->data.string);
	PMIX_VALUE_RELEASE(v);
	return s;
}

static void do_init(void)
{
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS)
		fail("PMIx_Init: %s", PMIx_Error_string(rc));
	inited = true;
	rank = (int)me.rank;
	size = (int)get_uint(PMIX_JOB_SIZE, PMIX_RANK_WILDCARD);
}

/* rank r's blob: 100 + 37 * r bytes of a pattern only r produces */
static size_t blob_len(int r, int round)
{
	return 100 + 37 * (size_t)r + round;
}

static unsigned char blob_byte(int r, int round, size_t i)
{
	return (unsigned char)(r * 131 + round * 7 + i * 13);
}

static void do_fence(int rounds)
{
	pmix_info_t info;
	pmix_value_t val, *got;
	pmix_byte_object_t bo;
	pmix_proc_t peer;
	pmix_status_t rc;
	bool collect = true;
	char key[64];
	int round, r;
	size_t i;

	for (round = 0; round < rounds; round++) {
		snprintf(key, sizeof(key), "rcmpi.test.blob.%d", round);
		bo.size = blob_len(rank, round);
		bo.bytes = malloc(bo.size);
		for (i = 0; i < bo.size; i++)
			bo.bytes[i] = (char)blob_byte(rank, round, i);
		val.type = PMIX_BYTE_OBJECT;
		val.data.bo = bo;
		rc = PMIx_Put(PMIX_GLOBAL, key, &val);
		if (rc != PMIX_SUCCESS)
			fail("PMIx_Put: %s", PMIx_Error_string(rc));
		free(bo.bytes);
		rc = PMIx_Commit();
		if (rc != PMIX_SUCCESS)
			fail("PMIx_Commit: %s", PMIx_Error_string(rc));
		PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
		PMIX_LOAD_PROCID(&peer, me.nspace, PMIX_RANK_WILDCARD);
		rc = PMIx_Fence(&peer, 1, &info, 1);
		PMIX_INFO_DESTRUCT(&info);
		if (rc != PMIX_SUCCESS)
			fail("PMIx_Fence: %s", PMIx_Error_string(rc));
		for (r = 0; r < size; r++) {
			PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)r);
			rc = PMIx_Get(&peer, key, NULL, 0, &got);
			if (rc != PMIX_SUCCESS)
				fail("PMIx_Get(rank %d, %s): %s", r, key,
				     PMIx_Error_string(rc));
			if (got->type != PMIX_BYTE_OBJECT ||
			    got->data.bo.size != blob_len(r, round))
				fail("rank %d's blob: type %d size %zu", r,
				     got->type, got->data.bo.size);
			for (i = 0; i < got->data.bo.size; i++)
				if ((unsigned char)got->data.bo.bytes[i] !=
				    blob_byte(r, round, i))
					fail("rank %d's blob differs at %zu",
					     r, i);
			PMIX_VALUE_RELEASE(got);
		}
	}
	printf("fence ok rank %d\n", rank);
	fflush(stdout);
}

static void do_barrier(void)
{
	pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);

	if (rc != PMIX_SUCCESS)
		fail("PMIx_Fence: %s", PMIx_Error_string(rc));
}

static void do_keys(void)
{
	char *peers = get_str(PMIX_LOCAL_PEERS, PMIX_RANK_WILDCARD);
	char *host = get_str(PMIX_HOSTNAME, me.rank);

	printf("keys rank %d size %d local_size %lu local_rank %lu "
	       "node_rank %lu peers %s host %s univ %lu\n", rank, size,
	       get_uint(PMIX_LOCAL_SIZE, PMIX_RANK_WILDCARD),
	       get_uint(PMIX_LOCAL_RANK, me.rank),
	       get_uint(PMIX_NODE_RANK, me.rank), peers, host,
	       get_uint(PMIX_UNIV_SIZE, PMIX_RANK_WILDCARD));
	fflush(stdout);
	free(peers);
	free(host);
}

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			fail("write: %s", strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
}

/* "r<rank> <stream> <line> " then 'a'+line%26 up to w bytes, in 3 pieces */
static void do_spam(int lines, int width)
{
	char *buf = malloc((size_t)width + 64);
	int l, s, fd, len, head;
	size_t cut1, cut2;

	for (l = 0; l < lines; l++) {
		for (s = 0; s < 2; s++) {
			fd = s ? 2 : 1;
			head = snprintf(buf, 64, "r%d %s %d ", rank,
					s ? "err" : "out", l);
			len = width > head ? width : head;
			memset(buf + head, 'a' + l % 26, (size_t)(len - head));
			buf[len] = '\n';
			cut1 = (size_t)len / 3;
			cut2 = 2 * (size_t)len / 3;
			write_all(fd, buf, cut1);
			write_all(fd, buf + cut1, cut2 - cut1);
			write_all(fd, buf + cut2, (size_t)len + 1 - cut2);
		}
	}
	free(buf);
}

static void do_stdin(void)
{
	char line[4096];
	size_t total = 0;

	while (fgets(line, sizeof(line), stdin)) {
		total += strlen(line);
		printf("stdin: %s", line);
	}
	printf("stdin bytes %zu\n", total);
	fflush(stdout);
}

static void do_cpus(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		fail("/proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *v = line + 18;

			v += strspn(v, " \t");
			printf("cpus rank %d %s", rank, v);
		}
	}
	fclose(f);
	fflush(stdout);
}

static void do_shm(void)
{
	char name[512];
	int fd;

	snprintf(name, sizeof(name), "/rcmpi.%s.%d", me.nspace, rank);
	fd = shm_open(name, O_CREAT | O_RDWR, 0600);
	if (fd < 0)
		fail("shm_open(%s): %s", name, strerror(errno));
	close(fd);
}

static void do_sleep(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void step(const char *s)
{
	if (!strcmp(s, "init")) {
		do_init();
	} else if (!strcmp(s, "fin")) {
		pmix_status_t rc = PMIx_Finalize(NULL, 0);

		if (rc != PMIX_SUCCESS)
			fail("PMIx_Finalize: %s", PMIx_Error_string(rc));
	} else if (!strncmp(s, "fence", 5)) {
		do_fence(s[5] == ':' ? atoi(s + 6) : 1);
	} else if (!strcmp(s, "barrier")) {
		do_barrier();
	} else if (!strcmp(s, "keys")) {
		do_keys();
	} else if (!strncmp(s, "exit:", 5)) {
		fflush(NULL);
		_exit(atoi(s + 5));
	} else if (!strncmp(s, "kill:", 5)) {
		fflush(NULL);
		raise(atoi(s + 5));
	} else if (!strncmp(s, "abort:", 6)) {
		PMIx_Abort(atoi(s + 6), "test abort", NULL, 0);
		/* like MPI_Abort: do not come back */
		do_sleep(60);
		_exit(98);
	} else if (!strncmp(s, "sleep:", 6)) {
		do_sleep(atof(s + 6));
	} else if (!strncmp(s, "spam:", 5)) {
		int l = atoi(s + 5), w = 80;
		const char *c = strchr(s + 5, ':');

		if (c)
			w = atoi(c + 1);
		do_spam(l, w);
	} else if (!strcmp(s, "stdin")) {
		do_stdin();
	} else if (!strncmp(s, "env:", 4)) {
		const char *v = getenv(s + 4);

		if (v)
			printf("env rank %d %s=%s\n", rank, s + 4, v);
		else
			printf("env rank %d %s unset\n", rank, s + 4);
		fflush(stdout);
	} else if (!strcmp(s, "cpus")) {
		do_cpus();
	} else if (!strcmp(s, "shm")) {
		do_shm();
	} else if (!strcmp(s, "ignterm")) {
		signal(SIGTERM, SIG_IGN);
	} else if (!strncmp(s, "say:", 4)) {
		printf("%s rank %d\n", s + 4, rank);
		fflush(stdout);
	} else if (!strncmp(s, "--mark=", 7)) {
		/* for pgrep only */
	} else {
		fail("unknown step '%s'", s);
	}
}

int main(int argc, char **argv)
{
	const char *env = getenv("PMIX_RANK");
	int i;

	if (env)
		rank = atoi(env);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (s[0] == '@') {
			char *colon;
			int only = (int)strtol(s + 1, &colon, 10);

			if (*colon != ':')
				fail("bad step '%s'", s);
			if (only != rank)
				continue;
			s = colon + 1;
		}
		step(s);
	}
	fflush(NULL);
	return 0;
}
