/*
 * info.h - info objects: ordered (key, value) string pairs (MPI-3.1
 * chapter 9), the hints of communicators (and files, later; windows read
 * theirs into bits, rma_api.c),
 * and MPI_INFO_ENV.
 *
 * Keys keep the order in which they were first set (MPI_Info_get_nthkey
 * walks it); setting a key again replaces its value in place. Keys are
 * 1..MPI_MAX_INFO_KEY-1 characters and values 1..MPI_MAX_INFO_VAL-1, so
 * a buffer of MPI_MAX_INFO_KEY (or _VAL) bytes always holds one with its
 * terminating null, however the caller sized it.
 */
#ifndef RC_INFO_H
#define RC_INFO_H

#include <stdbool.h>
#include <mpi.h>
#include "handle.h"

struct rc_inst;

struct rc_info_ent {
	char *key;
	char *val;
};

struct rc_info {
	struct rc_hobj h; /* handle.h */
	bool predefined;  /* MPI_INFO_ENV: never freed */
	int n, cap;
	struct rc_info_ent *ent;
};

static inline bool rc_info_valid(const struct rc_info *info)
{
	return rc_hobj_is(info, RC_HK_INFO);
}

/* An empty info object; RC_OK or RC_ERR_NOMEM. */
int rc_info_new(struct rc_info **out);
/* Free info and its entries (MPI_INFO_ENV: its entries only). */
void rc_info_free(struct rc_info *info);
/* Set key to val (copied); RC_OK or RC_ERR_NOMEM (info unchanged). */
int rc_info_set(struct rc_info *info, const char *key, const char *val);
/* The value of key, or NULL. */
const char *rc_info_get(const struct rc_info *info, const char *key);
/* Remove key; false when info has no such key. */
bool rc_info_delete(struct rc_info *info, const char *key);
/* A new object with src's entries (src NULL: empty). */
int rc_info_dup(const struct rc_info *src, struct rc_info **out);
/* Set every key of src in *dst (created when NULL). All or nothing. */
int rc_info_merge(struct rc_info **dst, const struct rc_info *src);

/* MPI_Info_* argument checks: 0 or MPI_ERR_INFO_KEY / _VALUE. */
int rc_info_check_key(const char *key);
int rc_info_check_val(const char *val);

/* Build env (its entries replaced) as MPI_INFO_ENV: command and argv (from
 * argv[0..argc-1], or with argv NULL the process's command line),
 * maxprocs, host, arch, wdir, thread_level (required, when a level).
 * RC_ERR_NOMEM: some keys are left out. */
int rc_info_env_build(struct rc_info *env, const struct rc_inst *inst,
		      int required, int argc, char *const argv[]);
/* Fill MPI_INFO_ENV from the launch (MPI_Init; the level requested). */
void rc_info_env_fill(struct rc_inst *inst, int required);

#endif
