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
#include <mpi.h>

struct rc_inst;
struct rc_comm;
struct rc_req;
struct rc_cargs;
struct rc_group;
struct rc_dtype;
struct rc_op;
struct rc_info;
struct rc_cc_dup; /* comm_cc.h */

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
	RC_COLL_ALLTOALLW,
	/* neighbourhood collectives (process topologies) */
	RC_COLL_NBR_ALLGATHER,
	RC_COLL_NBR_ALLGATHERV,
	RC_COLL_NBR_ALLTOALL,
	RC_COLL_NBR_ALLTOALLV,
	RC_COLL_NBR_ALLTOALLW,
	RC_COLL_N
};

/* The arguments of any collective (unused fields are zero). */
struct rc_cargs {
	const void *sbuf;	/* may be MPI_IN_PLACE */
	void *rbuf;		/* may be MPI_IN_PLACE (scatter root) */
	size_t scount, rcount;	/* per block */
	struct rc_dtype *sdt, *rdt;
	const int *scounts, *sdispls, *rcounts, *rdispls;
	/* alltoallw, neighbor_alltoallw: a type per block; alltoallw's
	 * displacements (above) are in bytes, neighbor_alltoallw's are
	 * these */
	struct rc_dtype *const *sdts, *const *rdts;
	const MPI_Aint *sbdispls, *rbdispls;
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
/*
 * A persistent collective (MPI-4 MPI_Bcast_init, ...): the algorithm is
 * chosen, the schedule built and the tag taken now (so every rank inits
 * the same collectives in the same order, and may start them in any
 * order); *reqp a pooled, inactive RC_REQ_PERSISTENT request whose
 * req->pers starts it (rc_req_start) any number of times and releases
 * the schedule with the request (rc_req_free, when not active). Counts,
 * displacements and types are read now; the buffers' contents at each
 * start.
 */
int rc_coll_init(struct rc_comm *comm, int coll, const struct rc_cargs *a,
		 struct rc_req **reqp);

/* Algorithms: names, and forcing one (what RCMPI_COLL_<NAME> does).
 * name NULL or "auto" restores the default choice. */
const char *rc_coll_name(int coll);
int rc_coll_nalgs(int coll);
const char *rc_coll_alg_name(int coll, int alg);
int rc_coll_force(struct rc_inst *inst, int coll, const char *alg);
/* The same for intercommunicators (RCMPI_COLL_INTER_<NAME>). */
int rc_coll_inter_nalgs(int coll);
const char *rc_coll_inter_alg_name(int coll, int alg);
int rc_coll_force_inter(struct rc_inst *inst, int coll, const char *alg);

/* ---- communicator constructors (comm_create.c) ----
 * Collective over the parent comm. reqp NULL: blocking, *out written on
 * success (NULL, i.e. MPI_COMM_NULL, where the standard says so).
 * reqp non-NULL: started as a pooled request, *out written when it
 * completes and the status is the request's err (MPI_Comm_idup; unit
 * tests drive several ranks this way). Any number may be in flight in a
 * process. RC_ERR_NOCTX: no context block is free on every member. */
int rc_comm_dup(struct rc_comm *comm, struct rc_comm **out,
		struct rc_req **reqp);
/* MPI_Comm_idup (with_info false) and MPI_Comm_idup_with_info (info may be
 * NULL: no hints; copied at the call): rc_comm_dup, and when the new
 * communicator is made, what a dup copies (rc_comm_dup_cache: hints,
 * attributes; a failing copy callback fails the request with
 * RC_ERR_CALLBACK) */
int rc_comm_idup(struct rc_comm *comm, const struct rc_info *info,
		 bool with_info, struct rc_comm **out, struct rc_req **reqp);
int rc_comm_split(struct rc_comm *comm, int color, int key,
		  struct rc_comm **out, struct rc_req **reqp);
/*
 * type: MPI_COMM_TYPE_SHARED (ranks on one node: inst->procs[w].local),
 * MPI_UNDEFINED, or MPI-4's hardware splits, which know one level, the
 * node (its resource type "mpi_shared_memory"; rcmpi has no finer
 * topology): MPI_COMM_TYPE_HW_GUIDED splits by node when info's
 * "mpi_hw_resource_type" is "mpi_shared_memory", and gives NULL for any
 * other or no value; MPI_COMM_TYPE_HW_UNGUIDED splits by node when comm
 * spans several (a strict subset), setting that key in info, else NULL.
 * info may be NULL.
 */
int rc_comm_split_type(struct rc_comm *comm, int type, int key,
		       struct rc_info *info, struct rc_comm **out,
		       struct rc_req **reqp);
/* group: a subset of comm's group, the same on every rank */
int rc_comm_create(struct rc_comm *comm, struct rc_group *group,
		   struct rc_comm **out, struct rc_req **reqp);
/* Collective over group's members only (a subset of comm's group, the
 * same on every member), keyed by tag (0..MPI_TAG_UB): concurrent calls on
 * one parent need distinct tags. A process outside group gets NULL at
 * once. */
int rc_comm_create_group(struct rc_comm *comm, struct rc_group *group, int tag,
			 struct rc_comm **out, struct rc_req **reqp);
/* Topologies: nodes = ranks 0..nnodes-1 of comm (never reordered);
 * arrays checked by the caller. */
int rc_graph_create(struct rc_comm *comm, int nnodes, const int *index,
		    const int *edges, struct rc_comm **out,
		    struct rc_req **reqp);
int rc_dist_graph_adjacent(struct rc_comm *comm, int indegree, const int *in,
			   const int *inw, int outdegree, const int *outl,
			   const int *outw, bool weighted, struct rc_comm **out,
			   struct rc_req **reqp);
int rc_dist_graph_create(struct rc_comm *comm, int n, const int *sources,
			 const int *degrees, const int *dests,
			 const int *weights, bool weighted,
			 struct rc_comm **out, struct rc_req **reqp);
/*
 * Intercommunicators (comm_inter.c). rc_comm_dup, rc_comm_split and
 * rc_comm_create hand an intercommunicator to the rc_intercomm_ ones:
 * collective over both groups. create: local_comm's members (lleader the
 * leader), peer and rleader significant at the leader only (peer's
 * RC_CTX_PEER context, keyed by tag); RC_ERR_INVAL when the groups
 * overlap. subset: MPI_Comm_create's (group within the local group).
 * merge: an intracommunicator, the group with high == false first.
 */
int rc_intercomm_create(struct rc_comm *local, int lleader,
			struct rc_comm *peer, int rleader, int tag,
			struct rc_comm **out, struct rc_req **reqp);
int rc_intercomm_dup(struct rc_comm *comm, struct rc_comm **out,
		     struct rc_req **reqp, const struct rc_cc_dup *want);
int rc_intercomm_split(struct rc_comm *comm, int color, int key,
		       struct rc_comm **out, struct rc_req **reqp);
int rc_intercomm_subset(struct rc_comm *comm, struct rc_group *group,
			struct rc_comm **out, struct rc_req **reqp);
int rc_intercomm_merge(struct rc_comm *comm, bool high, struct rc_comm **out,
		       struct rc_req **reqp);
/* dims/periods checked by the caller; product <= comm->size */
int rc_cart_create(struct rc_comm *comm, int ndims, const int *dims,
		   const int *periods, struct rc_comm **out,
		   struct rc_req **reqp);
int rc_cart_sub(struct rc_comm *comm, const int *remain,
		struct rc_comm **out, struct rc_req **reqp);

#endif
