/*
 * group.c - process groups: MPI_Comm_group and the local group functions
 * (size, rank, incl, excl, range_incl, range_excl, union, intersection,
 * difference, translate_ranks, compare, free).
 *
 * A group is an array of world ranks in group-rank order plus this
 * process's rank in it; groups are immutable and reference counted, so a
 * communicator and the handles MPI_Comm_group returns share one object.
 * No function here communicates. Errors are raised on MPI_COMM_WORLD's
 * handler (a group has none of its own), except MPI_Comm_group's.
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "comm.h"
#include "thread.h"

/* A group of the n world ranks in w (copied); my rank from myw. */
static int group_make(int n, const int *w, int myw, struct rc_group **out)
{
	struct rc_group *g;
	int i;

	if (n == 0) {
		*out = &rc_mpi_group_empty;
		return RC_OK;
	}
	g = rc_group_new(n);
	if (!g)
		return RC_ERR_NOMEM;
	memcpy(g->wranks, w, sizeof(int) * (size_t)n);
	for (i = 0; i < n; i++)
		if (w[i] == myw)
			g->rank = i;
	*out = g;
	return RC_OK;
}

/* Mark array of g->size flags (calloc'd), or NULL. */
static char *group_flags(const struct rc_group *g)
{
	return calloc(g->size ? (size_t)g->size : 1, 1);
}

#define GROUP_CHECK(g, fn)                                                \
	do {                                                              \
		if (!rc_group_valid(g))                                   \
			return rc_err_handle(NULL, RC_HK_GROUP, (g), fn); \
	} while (0)

/* Return a new group handle or raise the status. */
static int group_out(int ret, struct rc_group *g, MPI_Group *out,
		     const char *fn)
{
	if (ret)
		return rc_api_status(NULL, ret, fn);
	*out = g;
	return MPI_SUCCESS;
}

static int api_comm_group(MPI_Comm comm, MPI_Group *group)
{
	RC_API_CHECK_INIT("MPI_Comm_group");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, "MPI_Comm_group");
	if (!group)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_group");
	rc_group_retain(comm->group);
	*group = comm->group;
	return MPI_SUCCESS;
}

/* outside the section: a communicator's group is fixed while it lives,
 * and its reference count atomic */
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	return RC_CS_OUTSIDE(api_comm_group(comm, group));
}
RC_WEAK(MPI_Comm_group)

static int api_group_size(MPI_Group group, int *size)
{
	RC_API_CHECK_INIT("MPI_Group_size");
	GROUP_CHECK(group, "MPI_Group_size");
	if (!size)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Group_size");
	*size = group->size;
	return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
	return RC_CS_OUTSIDE(api_group_size(group, size));
}
RC_WEAK(MPI_Group_size)

static int api_group_rank(MPI_Group group, int *rank)
{
	RC_API_CHECK_INIT("MPI_Group_rank");
	GROUP_CHECK(group, "MPI_Group_rank");
	if (!rank)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Group_rank");
	*rank = group->rank;
	return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
	return RC_CS_OUTSIDE(api_group_rank(group, rank));
}
RC_WEAK(MPI_Group_rank)

static int api_group_free(MPI_Group *group)
{
	RC_API_CHECK_INIT("MPI_Group_free");
	if (!group)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Group_free");
	GROUP_CHECK(*group, "MPI_Group_free");
	rc_group_release(*group);
	*group = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
	return RC_CS_OUTSIDE(api_group_free(group));
}
RC_WEAK(MPI_Group_free)

static int api_group_incl(MPI_Group group, int n, const int ranks[],
			  MPI_Group *newgroup)
{
	static const char fn[] = "MPI_Group_incl";
	struct rc_group *g = NULL;
	char *seen;
	int *w, i, ret;

	RC_API_CHECK_INIT(fn);
	GROUP_CHECK(group, fn);
	if (!newgroup || n < 0 || (n && !ranks))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	if (n > group->size)
		return RC_ERR_MSG(NULL, MPI_ERR_RANK, fn,
				  "more ranks than the group has");
	seen = group_flags(group);
	w = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!seen || !w) {
		free(seen);
		free(w);
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	}
	for (i = 0; i < n; i++) {
		if (ranks[i] < 0 || ranks[i] >= group->size || seen[ranks[i]]) {
			free(seen);
			free(w);
			return RC_ERR_MSG(NULL, MPI_ERR_RANK, fn,
					  "rank out of range or repeated");
		}
		seen[ranks[i]] = 1;
		w[i] = group->wranks[ranks[i]];
	}
	ret = group_make(n, w, rc_g.rank, &g);
	free(seen);
	free(w);
	return group_out(ret, g, newgroup, fn);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
		    MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(api_group_incl(group, n, ranks, newgroup));
}
RC_WEAK(MPI_Group_incl)

static int api_group_excl(MPI_Group group, int n, const int ranks[],
			  MPI_Group *newgroup)
{
	static const char fn[] = "MPI_Group_excl";
	struct rc_group *g = NULL;
	char *seen;
	int *w, i, k, ret;

	RC_API_CHECK_INIT(fn);
	GROUP_CHECK(group, fn);
	if (!newgroup || n < 0 || (n && !ranks))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	if (n > group->size)
		return RC_ERR_MSG(NULL, MPI_ERR_RANK, fn,
				  "more ranks than the group has");
	seen = group_flags(group);
	w = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
	if (!seen || !w) {
		free(seen);
		free(w);
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	}
	for (i = 0; i < n; i++) {
		if (ranks[i] < 0 || ranks[i] >= group->size || seen[ranks[i]]) {
			free(seen);
			free(w);
			return RC_ERR_MSG(NULL, MPI_ERR_RANK, fn,
					  "rank out of range or repeated");
		}
		seen[ranks[i]] = 1;
	}
	for (i = 0, k = 0; i < group->size; i++)
		if (!seen[i])
			w[k++] = group->wranks[i];
	ret = group_make(k, w, rc_g.rank, &g);
	free(seen);
	free(w);
	return group_out(ret, g, newgroup, fn);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[],
		    MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(api_group_excl(group, n, ranks, newgroup));
}
RC_WEAK(MPI_Group_excl)

/* Expand (first, last, stride) triplets into ranks; count in *n. */
static int ranges_expand(const struct rc_group *group, int n,
			 int ranges[][3], int **out, int *nout)
{
	char *seen = group_flags(group);
	int *r = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
	int i, k = 0;

	if (!seen || !r) {
		free(seen);
		free(r);
		return MPI_ERR_NO_MEM;
	}
	for (i = 0; i < n; i++) {
		int first = ranges[i][0], last = ranges[i][1];
		int stride = ranges[i][2], x;

		if (!stride || first < 0 || first >= group->size || last < 0 ||
		    last >= group->size)
			goto bad;
		if ((stride > 0 && first > last) ||
		    (stride < 0 && first < last))
			goto bad;
		for (x = first; stride > 0 ? x <= last : x >= last;
		     x += stride) {
			if (seen[x])
				goto bad;
			seen[x] = 1;
			r[k++] = x;
		}
	}
	free(seen);
	*out = r;
	*nout = k;
	return MPI_SUCCESS;
bad:
	free(seen);
	free(r);
	return MPI_ERR_RANK;
}

static int group_range(MPI_Group group, int n, int ranges[][3],
		       MPI_Group *newgroup, bool incl, const char *fn)
{
	int *r, k, cls, i, ret;
	MPI_Group g = MPI_GROUP_NULL;

	RC_API_CHECK_INIT(fn);
	GROUP_CHECK(group, fn);
	if (!newgroup || n < 0 || (n && !ranges))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	cls = ranges_expand(group, n, ranges, &r, &k);
	if (cls)
		return RC_ERR_MSG(NULL, cls, fn,
				  cls == MPI_ERR_RANK
					  ? "bad range, or a rank out of range "
					    "or repeated"
					  : NULL);
	if (incl) {
		for (i = 0; i < k; i++)
			r[i] = group->wranks[r[i]];
		ret = group_make(k, r, rc_g.rank, &g);
	} else {
		char *drop = group_flags(group);
		int m = 0;

		if (!drop) {
			free(r);
			return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
		}
		for (i = 0; i < k; i++)
			drop[r[i]] = 1;
		for (i = 0; i < group->size; i++)
			if (!drop[i])
				r[m++] = group->wranks[i];
		free(drop);
		ret = group_make(m, r, rc_g.rank, &g);
	}
	free(r);
	return group_out(ret, g, newgroup, fn);
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
			  MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(group_range(group, n, ranges, newgroup, true,
					 "MPI_Group_range_incl"));
}
RC_WEAK(MPI_Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
			  MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(group_range(group, n, ranges, newgroup, false,
					 "MPI_Group_range_excl"));
}
RC_WEAK(MPI_Group_range_excl)

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int group_set(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup,
		     int what, const char *fn)
{
	struct rc_group *g = NULL;
	int *w, i, k = 0, ret;

	RC_API_CHECK_INIT(fn);
	GROUP_CHECK(g1, fn);
	GROUP_CHECK(g2, fn);
	if (!newgroup)
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	w = malloc(sizeof(int) * (size_t)(g1->size + g2->size + 1));
	if (!w)
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	for (i = 0; i < g1->size; i++) {
		bool in2 = rc_group_rank_of(g2, g1->wranks[i]) != MPI_UNDEFINED;

		if (what == SET_UNION || (what == SET_INTERSECTION) == in2)
			w[k++] = g1->wranks[i];
	}
	if (what == SET_UNION)
		for (i = 0; i < g2->size; i++)
			if (rc_group_rank_of(g1, g2->wranks[i]) ==
			    MPI_UNDEFINED)
				w[k++] = g2->wranks[i];
	ret = group_make(k, w, rc_g.rank, &g);
	free(w);
	return group_out(ret, g, newgroup, fn);
}

int PMPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(
		group_set(g1, g2, newgroup, SET_UNION, "MPI_Group_union"));
}
RC_WEAK(MPI_Group_union)

int PMPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(group_set(g1, g2, newgroup, SET_INTERSECTION,
				       "MPI_Group_intersection"));
}
RC_WEAK(MPI_Group_intersection)

int PMPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup)
{
	return RC_CS_OUTSIDE(group_set(g1, g2, newgroup, SET_DIFFERENCE,
				       "MPI_Group_difference"));
}
RC_WEAK(MPI_Group_difference)

static int api_group_translate_ranks(MPI_Group g1, int n, const int ranks1[],
				     MPI_Group g2, int ranks2[])
{
	static const char fn[] = "MPI_Group_translate_ranks";
	int i;

	RC_API_CHECK_INIT(fn);
	GROUP_CHECK(g1, fn);
	GROUP_CHECK(g2, fn);
	if (n < 0 || (n && (!ranks1 || !ranks2)))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	for (i = 0; i < n; i++)
		if ((ranks1[i] < 0 || ranks1[i] >= g1->size) &&
		    ranks1[i] != MPI_PROC_NULL)
			return RC_ERR_MSG(NULL, MPI_ERR_RANK, fn,
					  "rank out of range in group1");
	for (i = 0; i < n; i++)
		ranks2[i] = ranks1[i] == MPI_PROC_NULL
				    ? MPI_PROC_NULL
				    : rc_group_rank_of(g2,
						       g1->wranks[ranks1[i]]);
	return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[],
			       MPI_Group g2, int ranks2[])
{
	return RC_CS_OUTSIDE(
		api_group_translate_ranks(g1, n, ranks1, g2, ranks2));
}
RC_WEAK(MPI_Group_translate_ranks)

int rc_group_compare(const struct rc_group *a, const struct rc_group *b)
{
	int i;

	if (a->size != b->size)
		return MPI_UNEQUAL;
	if (!memcmp(a->wranks, b->wranks, sizeof(int) * (size_t)a->size))
		return MPI_IDENT;
	for (i = 0; i < a->size; i++)
		if (rc_group_rank_of(b, a->wranks[i]) == MPI_UNDEFINED)
			return MPI_UNEQUAL;
	return MPI_SIMILAR;
}

static int api_group_compare(MPI_Group g1, MPI_Group g2, int *result)
{
	RC_API_CHECK_INIT("MPI_Group_compare");
	GROUP_CHECK(g1, "MPI_Group_compare");
	GROUP_CHECK(g2, "MPI_Group_compare");
	if (!result)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Group_compare");
	*result = rc_group_compare(g1, g2);
	return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group g1, MPI_Group g2, int *result)
{
	return RC_CS_OUTSIDE(api_group_compare(g1, g2, result));
}
RC_WEAK(MPI_Group_compare)
