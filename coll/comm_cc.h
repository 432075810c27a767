/*
 * comm_cc.h - inside the collective communicator constructors
 * (comm_create.c: intracommunicators, comm_inter.c: intercommunicators,
 * comm_agree.c: the context-id agreement and running a constructor).
 */
#ifndef RC_COMM_CC_H
#define RC_COMM_CC_H

#include <stdbool.h>
#include "coll_impl.h"
#include "comm.h"

/*
 * One context-id agreement inside a schedule. The participants are the
 * members of side `lside`'s communicator (intra), or, for an
 * intercommunicator's two groups, those of both sides: each group reduces
 * its proposals to its leader on lside, the leaders swap theirs on rside
 * (remote rank `rleader`), and each leader hands the AND to its group.
 */
struct rc_cc_agree {
	struct rc_ctx_agree a;
	uint32_t *mask;	  /* this round's proposal, then the result */
	uint32_t *rmask;  /* inter, at a leader: the other group's */
	int lside, rside; /* rside -1: intra */
	int lroot;	  /* inter: the local leader's rank on lside */
	int rleader;	  /* inter: the other leader; -1 not a leader */
	uint32_t ctx;	  /* the agreed context (after settling) */
	rc_sched_fn done; /* appended after settling (checks s->err) */
	void *arg;
};

/* The key of an agreement whose messages run on s's own context and tag
 * (unique among the agreements that share a process: comm.h). */
struct rc_ctx_key rc_cc_key(const struct rc_sched *s);

/* Append agreement g to s (g's sides, lroot and rleader set by the
 * caller; its scratch from s: NOMEM in s->berr): rounds until settled,
 * then `done` (which finds the context in g->ctx, marked used when
 * `member`, or an error in s->err). */
void rc_cc_agree(struct rc_sched *s, struct rc_cc_agree *g,
		 struct rc_ctx_key key, bool member, rc_sched_fn done,
		 void *arg);

/*
 * What a nonblocking dup copies when its schedule ends (MPI_Comm_idup,
 * MPI_Comm_idup_with_info): the attributes, and the parent's hints or,
 * with_info, the caller's (info: a copy in the schedule's scratch, as the
 * caller may free its own at once; NULL: no hints).
 */
struct rc_cc_dup {
	bool cache;
	bool with_info;
	const struct rc_info *info;
};

/* d for s: want, with want's info (the caller's) copied into s's scratch.
 * RC_ERR_NOMEM when the copy does not fit. */
int rc_cc_dup_init(struct rc_sched *s, struct rc_cc_dup *d,
		   const struct rc_cc_dup *want);

/* At the end: what d says to copy from parent p to nc (rc_comm_dup_cache);
 * a failing copy callback gives RC_ERR_CALLBACK. */
int rc_cc_dup_copy(const struct rc_cc_dup *d, struct rc_comm *p,
		   struct rc_comm *nc);

/* Start a built constructor schedule as a pooled request in *reqp, or
 * (reqp NULL) run it to completion; the request's communicator is `owner`
 * (retained by a pooled request). */
int rc_cc_run(struct rc_sched *s, struct rc_comm *owner, struct rc_req **reqp);

#endif
