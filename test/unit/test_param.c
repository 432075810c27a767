/*
 * test_param.c - unit tests of the parameter table (runtime/param_list.h)
 * and its readers: every entry is well-formed and parses its own default;
 * values are parsed, bounded and rejected with the messages users see;
 * unknown RCMPI_ names are caught with the closest known one; and the
 * READMEs document exactly the table's parameters.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "param.h"

#define TMO 30

/* ---- capturing what the readers log on stderr ---- */

static char errbuf[8192];
static int saved_fd2 = -1;
static FILE *errf;

static void err_begin(void)
{
	errf = tmpfile();
	ck_assert_ptr_nonnull(errf);
	fflush(stderr);
	saved_fd2 = dup(2);
	dup2(fileno(errf), 2);
}

static const char *err_end(void)
{
	size_t n;

	dup2(saved_fd2, 2);
	close(saved_fd2);
	rewind(errf);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, errf);
	errbuf[n] = 0;
	fclose(errf);
	return errbuf;
}

/* ---- the table itself ---- */

START_TEST(every_entry_is_well_formed)
{
	char why[256];
	int i, j;

	ck_assert_int_gt(RC_P_COUNT, 60);
	for (i = 0; i < RC_P_COUNT; i++) {
		const struct rc_param_def *d = &rc_params[i];
		const char *c;

		for (c = d->name; *c; c++)
			ck_assert_msg(isupper((unsigned char)*c) ||
					      isdigit((unsigned char)*c) ||
					      *c == '_',
				      "%s: bad character in the name", d->name);
		ck_assert_msg(d->desc && strlen(d->desc) > 10,
			      "%s: no description", d->name);
		ck_assert_msg(!strchr(d->desc, '\n'),
			      "%s: description is "
			      "more than one line",
			      d->name);
		ck_assert_msg(d->who && *d->who, "%s: no reader", d->name);
		ck_assert_msg(d->min <= d->max, "%s: min > max", d->name);
		ck_assert_int_eq(rc_param_find(d->name), i);
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(d->name, rc_params[j].name),
				      "%s twice", d->name);
		/* the default parses as the entry's own type */
		if (!d->def[0]) {
			ck_assert_msg(d->type == RC_PT_STR ||
					      d->type == RC_PT_LIST,
				      "%s: a %s needs a default", d->name,
				      rc_param_type_name(d->type));
			continue;
		}
		ck_assert_msg(rc_param_valid(d, d->def, why, sizeof(why)),
			      "%s: default '%s' is invalid: %s", d->name,
			      d->def, why);
	}
}
END_TEST

START_TEST(defaults_come_from_the_table)
{
	unsetenv("RCMPI_VERBS_SL");
	unsetenv("RCMPI_SHM_CMA_CHUNK");
	unsetenv("RCMPI_VERBS_RCACHE");
	unsetenv("RCMPI_VERBS_DEVICE");
	unsetenv("RCMPI_RNDV_MODE");
	ck_assert_int_eq(rc_param_int(RC_P_VERBS_SL), 0);
	ck_assert_int_eq(rc_param_int(RC_P_SHM_CMA_CHUNK), 4L << 20);
	ck_assert_int_eq(rc_param_int(RC_P_COLL_TMP_CACHE), 16L << 20);
	ck_assert(rc_param_bool(RC_P_VERBS_RCACHE));
	ck_assert(!rc_param_bool(RC_P_YIELD));
	ck_assert_ptr_null(rc_param_str(RC_P_VERBS_DEVICE));
	ck_assert_str_eq(rc_param_str(RC_P_RNDV_MODE), "get");
	ck_assert_str_eq(rc_param_str(RC_P_TRANSPORTS), "shm,verbs,tcp");
	/* an empty value is no value */
	setenv("RCMPI_RNDV_MODE", "", 1);
	ck_assert_str_eq(rc_param_str(RC_P_RNDV_MODE), "get");
	ck_assert_ptr_null(rc_param_raw(RC_P_RNDV_MODE));
	setenv("RCMPI_RNDV_MODE", "put", 1);
	ck_assert_str_eq(rc_param_str(RC_P_RNDV_MODE), "put");
}
END_TEST

START_TEST(find_by_name)
{
	ck_assert_int_eq(rc_param_find("VERBS_GID_INDEX"),
			 RC_P_VERBS_GID_INDEX);
	ck_assert_int_eq(rc_param_find("RCMPI_VERBS_GID_INDEX"),
			 RC_P_VERBS_GID_INDEX);
	ck_assert_int_eq(rc_param_find("COLL_REDUCE_SCATTER_BLOCK"),
			 RC_P_COLL_REDUCE_SCATTER_BLOCK);
	ck_assert_int_eq(rc_param_find("VERBS_GID"), -1);
	ck_assert_int_eq(rc_param_find("RCMPI_"), -1);
	ck_assert_int_eq(rc_param_find(""), -1);
}
END_TEST

/* ---- values ---- */

START_TEST(numbers_and_suffixes)
{
	long v = -1;

	ck_assert(rc_param_parse_long("4k", 0, 1L << 40, &v));
	ck_assert_int_eq(v, 4096);
	ck_assert(rc_param_parse_long("3M", 0, 1L << 40, &v));
	ck_assert_int_eq(v, 3L << 20);
	ck_assert(rc_param_parse_long("2g", 0, 1L << 40, &v));
	ck_assert_int_eq(v, 2L << 30);
	ck_assert(rc_param_parse_long("0x10", 0, 100, &v));
	ck_assert_int_eq(v, 16);
	v = 7;
	ck_assert(!rc_param_parse_long("", 0, 100, &v));
	ck_assert(!rc_param_parse_long("abc", 0, 100, &v));
	ck_assert(!rc_param_parse_long("12x", 0, 100, &v));
	ck_assert(!rc_param_parse_long("4kb", 0, 1L << 40, &v));
	ck_assert(!rc_param_parse_long("101", 0, 100, &v));
	ck_assert(!rc_param_parse_long("-1", 0, 100, &v));
	/* overflow, whether by digits or by suffix */
	ck_assert(
		!rc_param_parse_long("99999999999999999999", 0, 1L << 62, &v));
	ck_assert(!rc_param_parse_long("9999999999999g", 0, 1L << 62, &v));
	ck_assert_int_eq(v, 7); /* untouched on failure */
}
END_TEST

START_TEST(booleans_and_seconds)
{
	bool b = false;
	double s = 0;

	ck_assert(rc_param_parse_bool("yes", &b) && b);
	ck_assert(rc_param_parse_bool("OFF", &b) && !b);
	ck_assert(rc_param_parse_bool("true", &b) && b);
	ck_assert(rc_param_parse_bool("0", &b) && !b);
	ck_assert(!rc_param_parse_bool("2", &b));
	ck_assert(!rc_param_parse_bool("maybe", &b));
	ck_assert(rc_param_parse_seconds("0.5", 100, &s));
	ck_assert(s == 0.5);
	ck_assert(!rc_param_parse_seconds("0", 100, &s));
	ck_assert(!rc_param_parse_seconds("-3", 100, &s));
	ck_assert(!rc_param_parse_seconds("1e9", 100, &s));
	ck_assert(!rc_param_parse_seconds("nan", 100, &s));
	ck_assert(!rc_param_parse_seconds("5s", 100, &s));
}
END_TEST

START_TEST(bad_values_are_reported_and_default_used)
{
	const char *out;

	setenv("RCMPI_VERBS_SL", "99", 1);
	setenv("RCMPI_VERBS_RCACHE", "maybe", 1);
	setenv("RCMPI_SHM_CMA_CHUNK", "lots", 1);
	err_begin();
	ck_assert_int_eq(rc_param_int(RC_P_VERBS_SL), 0);
	ck_assert(rc_param_bool(RC_P_VERBS_RCACHE));
	ck_assert_int_eq(rc_param_int(RC_P_SHM_CMA_CHUNK), 4L << 20);
	out = err_end();
	ck_assert_msg(strstr(out, "rcmpi: warning: RCMPI_VERBS_SL=99 is not "
				  "a number in [0, 15]; using 0"),
		      "%s", out);
	ck_assert_msg(strstr(out, "RCMPI_VERBS_RCACHE=maybe is not a "
				  "boolean; using 1"),
		      "%s", out);
	ck_assert_msg(strstr(out, "RCMPI_SHM_CMA_CHUNK=lots is not a number "
				  "in [4096, 1073741824]; using 4194304"),
		      "%s", out);
	/* good values pass, suffixes included */
	setenv("RCMPI_VERBS_SL", "7", 1);
	setenv("RCMPI_SHM_CMA_CHUNK", "64k", 1);
	setenv("RCMPI_VERBS_RCACHE", "off", 1);
	ck_assert_int_eq(rc_param_int(RC_P_VERBS_SL), 7);
	ck_assert_int_eq(rc_param_int(RC_P_SHM_CMA_CHUNK), 65536);
	ck_assert(!rc_param_bool(RC_P_VERBS_RCACHE));
}
END_TEST

START_TEST(run_time_default_and_bound)
{
	const char *out;

	/* "auto" in the table: the caller's default, also when asked for */
	unsetenv("RCMPI_SHM_RING_SIZE");
	ck_assert_int_eq(rc_param_int_at(RC_P_SHM_RING_SIZE, 65536, 1L << 30),
			 65536);
	setenv("RCMPI_SHM_RING_SIZE", "auto", 1);
	ck_assert_int_eq(rc_param_int_at(RC_P_SHM_RING_SIZE, 65536, 1L << 30),
			 65536);
	setenv("RCMPI_SHM_RING_SIZE", "8k", 1);
	ck_assert_int_eq(rc_param_int_at(RC_P_SHM_RING_SIZE, 65536, 1L << 30),
			 8192);
	/* "auto" is not a value of an entry whose default is a number */
	setenv("RCMPI_VERBS_SIGNAL", "auto", 1);
	err_begin();
	ck_assert_int_eq(rc_param_int_max(RC_P_VERBS_SIGNAL, 32), 32);
	/* a maximum narrowed at run time */
	setenv("RCMPI_VERBS_SIGNAL", "40", 1);
	ck_assert_int_eq(rc_param_int_max(RC_P_VERBS_SIGNAL, 32), 32);
	out = err_end();
	ck_assert_msg(strstr(out, "RCMPI_VERBS_SIGNAL=40 is not a number in "
				  "[1, 32]; using 32"),
		      "%s", out);
	setenv("RCMPI_VERBS_SIGNAL", "8", 1);
	ck_assert_int_eq(rc_param_int_max(RC_P_VERBS_SIGNAL, 32), 8);
}
END_TEST

START_TEST(validity_messages)
{
	char why[256];

	ck_assert(!rc_param_valid(&rc_params[RC_P_VERBS_TIMEOUT], "32", why,
				  sizeof(why)));
	ck_assert_str_eq(why, "not a number in [1, 31]");
	ck_assert(!rc_param_valid(&rc_params[RC_P_VERBS_EAGER_LIMIT], "2m", why,
				  sizeof(why)));
	ck_assert_str_eq(why, "not a number in [0, 1048576] (k, m, g "
			      "suffixes allowed)");
	ck_assert(
		!rc_param_valid(&rc_params[RC_P_YIELD], "2", why, sizeof(why)));
	ck_assert(!rc_param_valid(&rc_params[RC_P_LAUNCH_TIMEOUT], "-1", why,
				  sizeof(why)));
	ck_assert(strstr(why, "seconds"));
	ck_assert(rc_param_valid(&rc_params[RC_P_LAUNCH_TIMEOUT], "0.25", why,
				 sizeof(why)));
	ck_assert(rc_param_valid(&rc_params[RC_P_SHM_RING_SIZE], "auto", why,
				 sizeof(why)));
	ck_assert(!rc_param_valid(&rc_params[RC_P_VERBS_SL], "auto", why,
				  sizeof(why)));
}
END_TEST

START_TEST(lists)
{
	ck_assert(rc_param_list_has("shm,verbs", "verbs"));
	ck_assert(rc_param_list_has("verbs", "verbs"));
	ck_assert(!rc_param_list_has("shm,verbsx", "verbs"));
	ck_assert(!rc_param_list_has("xshm", "shm"));
}
END_TEST

/* ---- unknown names ---- */

START_TEST(unknown_names)
{
	char hint[128];

	ck_assert(!rc_param_unknown("RCMPI_EAGER_LIMIT=4", hint, sizeof(hint)));
	ck_assert(!rc_param_unknown("PATH=/bin", hint, sizeof(hint)));
	ck_assert(!rc_param_unknown("RCMPI", hint, sizeof(hint)));
	/* the test harness's variables are its own */
	ck_assert(!rc_param_unknown("RCMPI_TEST_MPIRUN=x", hint, sizeof(hint)));
	ck_assert(!rc_param_unknown("RCMPI_VM_CACHE=/x", hint, sizeof(hint)));
	/* slips of the finger name the parameter meant */
	ck_assert(rc_param_unknown("RCMPI_EAGER_LIMT=4", hint, sizeof(hint)));
	ck_assert_str_eq(hint, "RCMPI_EAGER_LIMIT");
	ck_assert(rc_param_unknown("RCMPI_VERBS_DEVCE=mlx5_0", hint,
				   sizeof(hint)));
	ck_assert_str_eq(hint, "RCMPI_VERBS_DEVICE");
	ck_assert(rc_param_unknown("RCMPI_RDNV_MODE", hint, sizeof(hint)));
	ck_assert_str_eq(hint, "RCMPI_RNDV_MODE");
	ck_assert(rc_param_unknown("RCMPI_COLL_ALLREDUC=ring", hint,
				   sizeof(hint)));
	ck_assert_str_eq(hint, "RCMPI_COLL_ALLREDUCE");
	/* nothing close: no guess */
	ck_assert(rc_param_unknown("RCMPI_XYZZY=1", hint, sizeof(hint)));
	ck_assert_str_eq(hint, "");
	ck_assert(rc_param_unknown("RCMPI_=1", hint, sizeof(hint)));
}
END_TEST

extern char **environ;

START_TEST(environment_checked_once)
{
	const char *out;
	char **e, name[256];

	/* only ours: whatever the caller's environment had goes */
	for (e = environ; *e;) {
		if (rc_param_unknown(*e, name, sizeof(name))) {
			snprintf(name, sizeof(name), "%.*s",
				 (int)strcspn(*e, "="), *e);
			unsetenv(name);
			e = environ;
			continue;
		}
		e++;
	}
	setenv("RCMPI_EAGER_LIMT", "4", 1);
	setenv("RCMPI_XYZZY", "1", 1);
	err_begin();
	ck_assert_int_eq(rc_param_check_env(), 2);
	ck_assert_int_eq(rc_param_check_env(), 0); /* once per process */
	out = err_end();
	ck_assert_msg(strstr(out,
			     "rcmpi: warning: RCMPI_EAGER_LIMT is not an "
			     "rcmpi parameter (did you mean RCMPI_EAGER_LIMIT?"
			     "); ignored\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "RCMPI_XYZZY is not an rcmpi parameter "
				  "(rcmpi_info --param lists them); ignored"),
		      "%s", out);
	ck_assert_msg(!strstr(strstr(out, "XYZZY") + 1, "XYZZY"),
		      "said twice: %s", out);
}
END_TEST

/* ---- the READMEs document the table, and only it ---- */

static const char *const readmes[] = {
	"README.md",	      "runtime/README.md",
	"pt2pt/README.md",    "pt2pt/verbs/README.md",
	"coll/README.md",     "launcher/README.md",
	"bench/README.md",    "tools/README.md",
	"examples/README.md",
};

static char *slurp(const char *rel)
{
	char path[4096];
	FILE *f;
	long n;
	char *s;

	snprintf(path, sizeof(path), "%s/%s", RC_TOP_SRCDIR, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/* Names in the READMEs that are preprocessor macros a program defines
 * before including mpi.h, not environment parameters. */
static const char *const macros[] = { "RCMPI_NO_MPI1_COMPAT" };

static bool is_macro(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
		if (!strcmp(name, macros[i]))
			return true;
	return false;
}

/* calls fn for every whole RCMPI_NAME in s (not patterns like
 * RCMPI_COLL_<NAME> or RCMPI_VERBS_*, which are references, nor an example
 * of the unknown-name warning) */
static void names_in(const char *s, const char *file,
		     void (*fn)(const char *name, const char *file))
{
	const char *p = s, *e;
	char name[128];

	while ((p = strstr(p, "RCMPI_"))) {
		e = p + 6;
		while (isupper((unsigned char)*e) ||
		       isdigit((unsigned char)*e) || *e == '_')
			e++;
		if (*e != '<' && *e != '*' && e[-1] != '_' &&
		    (size_t)(e - p) < sizeof(name) &&
		    strncmp(e, " is not an rcmpi parameter", 26) &&
		    (p == s || !isalnum((unsigned char)p[-1]))) {
			memcpy(name, p, (size_t)(e - p));
			name[e - p] = 0;
			if (!is_macro(name))
				fn(name, file);
		}
		p = e;
	}
}

static void documented_is_known(const char *name, const char *file)
{
	char hint[128];

	ck_assert_msg(!rc_param_unknown(name, hint, sizeof(hint)),
		      "%s documents %s, which is not in the parameter table "
		      "(runtime/param_list.h)%s%s",
		      file, name, hint[0] ? "; did you mean " : "", hint);
}

START_TEST(readmes_document_the_table)
{
	char *text[sizeof(readmes) / sizeof(readmes[0])];
	size_t k, nread = 0;
	int i;

	for (k = 0; k < sizeof(readmes) / sizeof(readmes[0]); k++) {
		text[k] = slurp(readmes[k]);
		if (!text[k])
			continue;
		nread++;
		names_in(text[k], readmes[k], documented_is_known);
	}
	ck_assert_uint_ge(nread, 6);
	for (i = 0; i < RC_P_COUNT; i++) {
		char want[128];
		bool found = false;

		snprintf(want, sizeof(want), "RCMPI_%s", rc_params[i].name);
		for (k = 0; k < sizeof(readmes) / sizeof(readmes[0]) && !found;
		     k++) {
			const char *p = text[k];
			size_t n = strlen(want);

			while (p && (p = strstr(p, want))) {
				char c = p[n];

				if (!isupper((unsigned char)c) &&
				    !isdigit((unsigned char)c) && c != '_') {
					found = true;
					break;
				}
				p += n;
			}
		}
		/* RCMPI_COLL_<NAME> documents the algorithm selectors */
		if (!found && !strncmp(rc_params[i].name, "COLL_", 5) &&
		    strstr(rc_params[i].desc, "force this algorithm"))
			for (k = 0; k < sizeof(readmes) / sizeof(readmes[0]);
			     k++)
				if (text[k] &&
				    strstr(text[k], "RCMPI_COLL_<NAME>"))
					found = true;
		ck_assert_msg(found,
			      "RCMPI_%s is in the table but no README "
			      "documents it",
			      rc_params[i].name);
	}
	for (k = 0; k < sizeof(readmes) / sizeof(readmes[0]); k++)
		free(text[k]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("param");
	TCase *tc = tcase_create("table");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, every_entry_is_well_formed);
	tcase_add_test(tc, defaults_come_from_the_table);
	tcase_add_test(tc, find_by_name);
	tcase_add_test(tc, numbers_and_suffixes);
	tcase_add_test(tc, booleans_and_seconds);
	tcase_add_test(tc, bad_values_are_reported_and_default_used);
	tcase_add_test(tc, run_time_default_and_bound);
	tcase_add_test(tc, validity_messages);
	tcase_add_test(tc, lists);
	tcase_add_test(tc, unknown_names);
	tcase_add_test(tc, environment_checked_once);
	tcase_add_test(tc, readmes_document_the_table);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
