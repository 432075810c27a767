/*
 * tp_loop.h - the in-process fabric (tp_loop.c), for the self transport and
 * for unit tests that run several ranks' engines in one process.
 */
#ifndef RC_TP_LOOP_H
#define RC_TP_LOOP_H

#include <stddef.h>

struct rc_tp;

struct rc_loop_fabric {
	int size;
	struct rc_tp **tps;	/* by world rank */
	/* shape of the transport, set before the instances open */
	size_t eager_limit;
	size_t max_am;
	size_t rdma_chunk;
	size_t rdma_max;	/* 0: any; else longer gets/puts fail */
	unsigned max_rdma;
	/* flow-control knobs for tests: 0 disables */
	unsigned max_queued;	/* messages queued towards one rank */
	unsigned again_every;	/* refuse every n-th send with RC_AGAIN */
	/* device atomics (RC_TP_CAP_ATOMIC), for unit tests of rma's device
	 * agent: applied in the initiator's progress; again_every refuses
	 * every n-th of them too */
	bool atomics;
	/* refuse every n-th get and put with RC_AGAIN (0: never) */
	unsigned rdma_again_every;
	/* counters */
	unsigned long nmsgs, nrdma;
};

struct rc_loop_fabric *rc_loop_fabric_new(int size);
void rc_loop_fabric_free(struct rc_loop_fabric *f);
/* Tests: rank dies. Sends to it fail from now on and every other rank's
 * engine is told, as a transport tells it of a lost connection. */
void rc_loop_fabric_fail(struct rc_loop_fabric *f, int rank);

#endif
