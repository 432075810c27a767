/*
 * comm.c - communicators and groups: MPI_COMM_WORLD and MPI_COMM_SELF, rank
 * translation, context ids.
 *
 * Context ids come in blocks of four (comm.h). World owns block 0, self
 * block 1; new communicators agree on a block free on every member
 * (ctxid.c, coll/comm_create.c); this file creates and releases the objects
 * (comm.h: lifetime and references).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "attr.h"
#include "comm.h"
#include "errhandler.h"
#include "info.h"
#include "inst.h"
#include "thread.h"
#include "topo.h"

struct rc_comm rc_mpi_comm_world, rc_mpi_comm_self;
struct rc_group rc_mpi_group_empty = {.h = RC_HOBJ_INIT(RC_HK_GROUP),
				      .refcount = 1,
				      .predefined = true,
				      .size = 0,
				      .rank = MPI_UNDEFINED};

struct rc_group *rc_group_new(int size)
{
	struct rc_group *g = rc_hobj_new(RC_HK_GROUP, sizeof(*g));

	if (!g)
		return NULL;
	g->wranks = calloc(size ? size : 1, sizeof(int));
	if (!g->wranks) {
		rc_hobj_free(RC_HK_GROUP, g);
		return NULL;
	}
	g->refcount = 1;
	g->size = size;
	g->rank = MPI_UNDEFINED;
	return g;
}

/* Atomic: MPI_Group_free runs outside the critical section (thread.h),
 * while communicators release theirs inside it. */
void rc_group_retain(struct rc_group *g)
{
	if (g && !g->predefined)
		__atomic_add_fetch(&g->refcount, 1, __ATOMIC_RELAXED);
}

void rc_group_release(struct rc_group *g)
{
	if (!g || g->predefined)
		return;
	if (__atomic_sub_fetch(&g->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		free(g->wranks);
		rc_hobj_free(RC_HK_GROUP, g);
	}
}

int rc_group_rank_of(const struct rc_group *g, int w)
{
	int i;

	for (i = 0; i < g->size; i++)
		if (g->wranks[i] == w)
			return i;
	return MPI_UNDEFINED;
}

/* At MULTIPLE a receive posted outside the critical section takes its
 * reference there (pt2pt/engine.c), so the count is atomic; the last
 * release, and with it the free, stays in the section. */
void rc_comm_retain(struct rc_comm *c)
{
	if (c->flags & RC_COMM_PREDEFINED)
		return;
	if (RC_UNLIKELY(rc_thread_multiple))
		__atomic_add_fetch(&c->refcount, 1, __ATOMIC_RELAXED);
	else
		c->refcount++;
}

void rc_comm_release(struct rc_comm *c)
{
	if (c->flags & RC_COMM_PREDEFINED)
		return;
	if (RC_UNLIKELY(rc_thread_multiple)
		    ? __atomic_sub_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL) > 0
		    : --c->refcount > 0)
		return;
	/* nothing can reference the context ids any more */
	if (!(c->flags & RC_COMM_BORROWED))
		rc_ctx_mark(c->inst, c->ctx, false);
	if (c->local)
		rc_comm_release(c->local);
	rc_group_release(c->rgroup);
	rc_group_release(c->group);
	rc_topo_free(c->topo);
	if (c->info)
		rc_info_free(c->info);
	rc_attr_discard(&c->attrs); /* MPI_Comm_free deleted them */
	rc_errh_release(c->errh);
	rc_hobj_free(RC_HK_COMM, c);
}

int rc_comm_dup_cache(struct rc_comm *old, struct rc_comm *nc,
		      const struct rc_info *info, bool with_info)
{
	const struct rc_info *hints = with_info ? info : old->info;
	int err;

	if (hints && rc_info_dup(hints, &nc->info))
		return MPI_ERR_NO_MEM;
	err = rc_attr_copy_all(RC_AK_COMM, old, old->attrs, nc, &nc->attrs);
	if (err && nc->info) {
		rc_info_free(nc->info);
		nc->info = NULL;
	}
	return err;
}

int rc_comm_new(struct rc_inst *inst, struct rc_group *group, uint32_t ctx,
		const struct rc_comm *parent, struct rc_comm **out)
{
	struct rc_comm *c = rc_hobj_new(RC_HK_COMM, sizeof(*c));

	if (!c)
		return RC_ERR_NOMEM;
	rc_group_retain(group);
	c->group = group;
	c->pgroup = group;
	c->inst = inst;
	c->refcount = 1;
	c->ctx = ctx;
	c->rank = group->rank;
	c->size = group->size;
	c->errh = parent ? parent->errh : &rc_mpi_errors_are_fatal;
	rc_errh_retain(c->errh);
	*out = c;
	return RC_OK;
}

void rc_ctx_mark(struct rc_inst *inst, uint32_t ctx, bool used)
{
	uint32_t b = ctx / RC_CTX_BLOCK;

	if (used)
		inst->ctx_used[b / 32] |= 1u << (b % 32);
	else
		inst->ctx_used[b / 32] &= ~(1u << (b % 32));
}

bool rc_ctx_used(const struct rc_inst *inst, uint32_t ctx)
{
	uint32_t b = ctx / RC_CTX_BLOCK;

	return inst->ctx_used[b / 32] & (1u << (b % 32));
}

int rc_intercomm_new(struct rc_inst *inst, struct rc_group *lg,
		     struct rc_group *rg, uint32_t ctx,
		     const struct rc_comm *parent, struct rc_comm **out)
{
	struct rc_comm *c, *l;
	int ret;

	ret = rc_comm_new(inst, lg, ctx + RC_CTX_PEER, parent, &l);
	if (ret)
		return ret;
	l->flags |= RC_COMM_BORROWED;
	ret = rc_comm_new(inst, lg, ctx, parent, &c);
	if (ret) {
		rc_comm_release(l);
		return ret;
	}
	rc_group_retain(rg);
	c->rgroup = rg;
	c->pgroup = rg;
	c->local = l;
	*out = c;
	return RC_OK;
}

static int comm_setup(struct rc_inst *inst, struct rc_comm *c, int size,
		      int rank, uint32_t ctx, const char *name)
{
	int i;

	c->group = rc_group_new(size);
	if (!c->group)
		return RC_ERR_NOMEM;
	for (i = 0; i < size; i++)
		c->group->wranks[i] = size == 1 ? inst->rank : i;
	c->group->rank = rank;
	c->pgroup = c->group;
	c->inst = inst;
	c->refcount = 1;
	c->flags = RC_COMM_PREDEFINED;
	c->ctx = ctx;
	c->rank = rank;
	c->size = size;
	c->errh = &rc_mpi_errors_are_fatal;
	snprintf(c->name, sizeof(c->name), "%s", name);
	rc_ctx_mark(inst, ctx, true);
	c->h.magic = RC_H_LIVE(RC_HK_COMM);
	return RC_OK;
}

int rc_comm_init_world(struct rc_inst *inst, struct rc_comm *world,
		       struct rc_comm *self)
{
	int ret;

	if (!world)
		world = calloc(1, sizeof(*world));
	if (!self)
		self = calloc(1, sizeof(*self));
	if (!world || !self)
		return RC_ERR_NOMEM;
	ret = comm_setup(inst, world, inst->size, inst->rank, 0,
			 "MPI_COMM_WORLD");
	if (ret)
		return ret;
	ret = comm_setup(inst, self, 1, 0, RC_CTX_BLOCK, "MPI_COMM_SELF");
	if (ret)
		return ret;
	inst->world = world;
	inst->self = self;
	return RC_OK;
}

void rc_comm_fini_world(struct rc_inst *inst)
{
	struct rc_comm *c[2] = { inst->world, inst->self };
	int i;

	for (i = 0; i < 2; i++) {
		if (!c[i])
			continue;
		rc_group_release(c[i]->group);
		c[i]->group = NULL;
		rc_topo_free(c[i]->topo);
		c[i]->topo = NULL;
		if (c[i]->info)
			rc_info_free(c[i]->info);
		c[i]->info = NULL;
		/* MPI_Finalize ran their delete callbacks */
		rc_attr_discard(&c[i]->attrs);
		rc_errh_release(c[i]->errh);
		c[i]->errh = NULL;
		rc_hobj_kill(c[i], RC_HK_COMM);
		if (c[i] != &rc_mpi_comm_world && c[i] != &rc_mpi_comm_self)
			free(c[i]);
	}
	inst->world = NULL;
	inst->self = NULL;
}

static int api_comm_rank(MPI_Comm comm, int *rank)
{
	RC_API_CHECK_INIT("MPI_Comm_rank");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, "MPI_Comm_rank");
	if (!rank)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_rank");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
	return RC_CS_OUTSIDE(api_comm_rank(comm, rank));
}
RC_WEAK(MPI_Comm_rank)

static int api_comm_size(MPI_Comm comm, int *size)
{
	RC_API_CHECK_INIT("MPI_Comm_size");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, "MPI_Comm_size");
	if (!size)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_size");
	*size = comm->size;
	return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
	return RC_CS_OUTSIDE(api_comm_size(comm, size));
}
RC_WEAK(MPI_Comm_size)

static int comm_remote_size(MPI_Comm comm, int *size)
{
	static const char fn[] = "MPI_Comm_remote_size";

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "not an intercommunicator");
	if (!size)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	*size = comm->rgroup->size;
	return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	return RC_CS_CALL(&rc_cs_big, comm_remote_size(comm, size));
}
RC_WEAK(MPI_Comm_remote_size)

static int comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	static const char fn[] = "MPI_Comm_remote_group";

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "not an intercommunicator");
	if (!group)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	/* groups are immutable: the handle shares the communicator's */
	rc_group_retain(comm->rgroup);
	*group = comm->rgroup;
	return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	return RC_CS_CALL(&rc_cs_big, comm_remote_group(comm, group));
}
RC_WEAK(MPI_Comm_remote_group)
