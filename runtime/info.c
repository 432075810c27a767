/*
 * info.c - info objects (info.h) and MPI_INFO_ENV.
 *
 * An object is a growable array of (key, value) pairs in the order keys
 * were first set; lookups are linear (hints are few). Every change that
 * can fail allocates first and changes the object last, so a failure
 * leaves it as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "env.h"
#include "info.h"
#include "inst.h"
#include "status.h"

struct rc_info rc_mpi_info_env = {.h = RC_HOBJ_INIT(RC_HK_INFO),
				  .predefined = true};

int rc_info_new(struct rc_info **out)
{
	struct rc_info *info;

	rc_handles_info_init(); /* this may be before MPI_Init */
	info = rc_hobj_new(RC_HK_INFO, sizeof(*info));

	if (!info)
		return RC_ERR_NOMEM;
	*out = info;
	return RC_OK;
}

static void info_clear(struct rc_info *info)
{
	int i;

	for (i = 0; i < info->n; i++) {
		free(info->ent[i].key);
		free(info->ent[i].val);
	}
	free(info->ent);
	info->ent = NULL;
	info->n = info->cap = 0;
}

void rc_info_free(struct rc_info *info)
{
	info_clear(info);
	if (!info->predefined)
		rc_hobj_free(RC_HK_INFO, info);
}

static int info_find(const struct rc_info *info, const char *key)
{
	int i;

	for (i = 0; i < info->n; i++)
		if (!strcmp(info->ent[i].key, key))
			return i;
	return -1;
}

int rc_info_set(struct rc_info *info, const char *key, const char *val)
{
	int i = info_find(info, key);
	char *v = strdup(val), *k = NULL;

	if (!v)
		return RC_ERR_NOMEM;
	if (i >= 0) {
		free(info->ent[i].val);
		info->ent[i].val = v;
		return RC_OK;
	}
	k = strdup(key);
	if (!k)
		goto err_free_val;
	if (info->n == info->cap) {
		int cap = info->cap ? 2 * info->cap : 8;
		struct rc_info_ent *e = realloc(info->ent, cap * sizeof(*e));

		if (!e)
			goto err_free_key;
		info->ent = e;
		info->cap = cap;
	}
	info->ent[info->n].key = k;
	info->ent[info->n].val = v;
	info->n++;
	return RC_OK;

err_free_key:
	free(k);
err_free_val:
	free(v);
	return RC_ERR_NOMEM;
}

const char *rc_info_get(const struct rc_info *info, const char *key)
{
	int i = info_find(info, key);

	return i < 0 ? NULL : info->ent[i].val;
}

bool rc_info_delete(struct rc_info *info, const char *key)
{
	int i = info_find(info, key);

	if (i < 0)
		return false;
	free(info->ent[i].key);
	free(info->ent[i].val);
	memmove(&info->ent[i], &info->ent[i + 1],
		(size_t)(info->n - i - 1) * sizeof(info->ent[0]));
	info->n--;
	return true;
}

int rc_info_dup(const struct rc_info *src, struct rc_info **out)
{
	struct rc_info *info;
	int ret, i;

	ret = rc_info_new(&info);
	if (ret)
		return ret;
	for (i = 0; src && i < src->n; i++) {
		ret = rc_info_set(info, src->ent[i].key, src->ent[i].val);
		if (ret) {
			rc_info_free(info);
			return ret;
		}
	}
	*out = info;
	return RC_OK;
}

int rc_info_merge(struct rc_info **dst, const struct rc_info *src)
{
	struct rc_info *m;
	int ret, i;

	/* into a copy, swapped in when complete */
	ret = rc_info_dup(*dst, &m);
	if (ret)
		return ret;
	for (i = 0; src && i < src->n; i++) {
		ret = rc_info_set(m, src->ent[i].key, src->ent[i].val);
		if (ret) {
			rc_info_free(m);
			return ret;
		}
	}
	if (*dst)
		rc_info_free(*dst);
	*dst = m;
	return RC_OK;
}

int rc_info_check_key(const char *key)
{
	size_t n = key ? strnlen(key, MPI_MAX_INFO_KEY) : 0;

	return n == 0 || n >= MPI_MAX_INFO_KEY ? MPI_ERR_INFO_KEY : 0;
}

int rc_info_check_val(const char *val)
{
	size_t n = val ? strnlen(val, MPI_MAX_INFO_VAL) : 0;

	return n == 0 || n >= MPI_MAX_INFO_VAL ? MPI_ERR_INFO_VALUE : 0;
}

/* "command" (argv[0]), and "argv" the arguments joined by spaces, each
 * within MPI_MAX_INFO_VAL (a longer one is left out) */
static int env_args(struct rc_info *env, int argc, char *const argv[])
{
	char args[MPI_MAX_INFO_VAL];
	size_t alen = 0;
	int i, ret = RC_OK;

	if (argc < 1 || !argv || !argv[0])
		return RC_OK;
	if (*argv[0] && strlen(argv[0]) < MPI_MAX_INFO_VAL)
		ret = rc_info_set(env, "command", argv[0]);
	args[0] = 0;
	for (i = 1; i < argc && argv[i]; i++)
		alen += (size_t)snprintf(
			args + alen,
			alen < sizeof(args) ? sizeof(args) - alen : 0, "%s%s",
			alen ? " " : "", argv[i]);
	if (!ret && args[0] && alen < sizeof(args))
		ret = rc_info_set(env, "argv", args);
	return ret;
}

/* The same from the command line this process was started with
 * (MPI_Init may get no argv). */
static int env_cmdline(struct rc_info *env)
{
	size_t n, off;
	int argc = 0, ret;
	char *buf = rc_proc_cmdline(&n), **argv;

	if (!buf)
		return RC_OK;
	for (off = 0; off < n; off += strlen(buf + off) + 1)
		argc++;
	argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		free(buf);
		return RC_ERR_NOMEM;
	}
	argc = 0;
	for (off = 0; off < n; off += strlen(buf + off) + 1)
		argv[argc++] = buf + off;
	ret = env_args(env, argc, argv);
	free(argv);
	free(buf);
	return ret;
}

int rc_info_env_build(struct rc_info *env, const struct rc_inst *inst,
		      int required, int argc, char *const argv[])
{
	static const char *const level[] = {
		"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
		"MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
	char buf[MPI_MAX_INFO_VAL];
	struct utsname u;
	int ret;

	/* values we cannot know (soft, file) are not set */
	info_clear(env);
	ret = argv ? env_args(env, argc, argv) : env_cmdline(env);
	snprintf(buf, sizeof(buf), "%d", inst->size);
	if (!ret && inst->size > 0) /* known from MPI_Init on */
		ret = rc_info_set(env, "maxprocs", buf);
	if (!ret && (inst->host[0] || !gethostname(buf, sizeof(buf))))
		ret = rc_info_set(env, "host",
				  inst->host[0] ? inst->host : buf);
	if (!ret && !uname(&u))
		ret = rc_info_set(env, "arch", u.machine);
	if (!ret && getcwd(buf, sizeof(buf)))
		ret = rc_info_set(env, "wdir", buf);
	if (!ret && required >= MPI_THREAD_SINGLE &&
	    required <= MPI_THREAD_MULTIPLE)
		ret = rc_info_set(env, "thread_level", level[required]);
	return ret;
}

void rc_info_env_fill(struct rc_inst *inst, int required)
{
	/* a failed allocation leaves keys out, nothing worse */
	(void)rc_info_env_build(&rc_mpi_info_env, inst, required, 0, NULL);
}
