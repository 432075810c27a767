/*
 * coll.h - the collective module's interface: to the runtime (open, close,
 * the MPI_Finalize barrier), to the MPI API files, and to unit tests, which
 * start collectives on several ranks' instances in one process and drive
 * their progress.
 */
#ifndef RC_COLL_H
#define RC_COLL_H

#include <stdbool.h>
#include <stddef.h>

struct rc_inst;
struct rc_comm;
struct rc_req;
struct rc_cargs;
struct rc_group;
struct rc_dtype;
struct rc_op;

enum rc_coll_id {
	RC_COLL_BARRIER = 0,
	RC_COLL_BCAST,
	RC_COLL_REDUCE,
	RC_COLL_ALLREDUCE,
	RC_COLL_GATHER,
	RC_COLL_GATHERV,
	RC_COLL_SCATTER,
	RC_COLL_SCATTERV,
	RC_COLL_ALLGATHER,
	RC_COLL_ALLGATHERV,
	RC_COLL_ALLTOALL,
	RC_COLL_ALLTOALLV,
	RC_COLL_REDUCE_SCATTER,
	RC_COLL_REDUCE_SCATTER_BLOCK,
	RC_COLL_SCAN,
	RC_COLL_EXSCAN,
	RC_COLL_N
};

/* The arguments of any collective (unused fields are zero). */
struct rc_cargs {
	const void *sbuf;	/* may be MPI_IN_PLACE */
	void *rbuf;		/* may be MPI_IN_PLACE (scatter root) */
	size_t scount, rcount;	/* per block */
	struct rc_dtype *sdt, *rdt;
	const int *scounts, *sdispls, *rcounts, *rdispls;
	size_t count;		/* reductions, bcast */
	struct rc_dtype *dt;
	struct rc_op *op;
	int root;
};

int rc_coll_open(struct rc_inst *inst);
void rc_coll_close(struct rc_inst *inst);
/* A barrier over MPI_COMM_WORLD that keeps every transport progressing
 * (MPI_Finalize's last exchange). */
int rc_coll_fence(struct rc_inst *inst);

/*
 * Start collective `coll` on comm with the (checked) arguments a: a
 * pooled RC_REQ_COLL request in *reqp, completed from progress. Every rank
 * of comm starts the same collectives in the same order.
 */
int rc_coll_start(struct rc_comm *comm, int coll, const struct rc_cargs *a,
		  struct rc_req **reqp);
/* The same, blocking: returns when this rank's part is done. */
int rc_coll_run(struct rc_comm *comm, int coll, const struct rc_cargs *a);

/* Algorithms: names, and forcing one (what RCMPI_COLL_<NAME> does).
 * name NULL or "auto" restores the default choice. */
const char *rc_coll_name(int coll);
int rc_coll_nalgs(int coll);
const char *rc_coll_alg_name(int coll, int alg);
int rc_coll_force(struct rc_inst *inst, int coll, const char *alg);

/* ---- communicator constructors (comm_create.c) ----
 * Collective over the parent comm. reqp NULL: blocking, *out written on
 * success (NULL, i.e. MPI_COMM_NULL, where the standard says so).
 * reqp non-NULL: started as a pooled request, *out written when it
 * completes and the status is the request's err (unit tests drive several
 * ranks this way). One creation at a time per process. RC_ERR_NOCTX: no
 * context id pair is free on every member. */
int rc_comm_dup(struct rc_comm *comm, struct rc_comm **out,
		struct rc_req **reqp);
int rc_comm_split(struct rc_comm *comm, int color, int key,
		  struct rc_comm **out, struct rc_req **reqp);
/* type: MPI_COMM_TYPE_SHARED (ranks on one node: inst->procs[w].local)
 * or MPI_UNDEFINED */
int rc_comm_split_type(struct rc_comm *comm, int type, int key,
		       struct rc_comm **out, struct rc_req **reqp);
/* group: a subset of comm's group, the same on every rank */
int rc_comm_create(struct rc_comm *comm, struct rc_group *group,
		   struct rc_comm **out, struct rc_req **reqp);
/* dims/periods checked by the caller; product <= comm->size */
int rc_cart_create(struct rc_comm *comm, int ndims, const int *dims,
		   const int *periods, struct rc_comm **out,
		   struct rc_req **reqp);
int rc_cart_sub(struct rc_comm *comm, const int *remain,
		struct rc_comm **out, struct rc_req **reqp);

#endif
