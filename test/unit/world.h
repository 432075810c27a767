/*
 * world.h - several ranks' engines in one process, joined by the in-process
 * fabric (pt2pt/tp_loop.c), for unit tests of protocols and collectives.
 * Nothing moves unless a test drives progress (tw_progress, tw_wait).
 */
#ifndef RC_TEST_WORLD_H
#define RC_TEST_WORLD_H

#include <stdbool.h>
#include "inst.h"
#include "request.h"
#include "tp_loop.h"

struct tw {
	int n;
	struct rc_inst **inst;
	struct rc_loop_fabric *fab;
	bool *dead;		/* killed ranks make no more progress */
};

/* A fabric for n ranks; adjust tw->fab's knobs, then tw_open(). */
struct tw *tw_new(int n);
void tw_open(struct tw *tw);
void tw_free(struct tw *tw);
/* tw_new and tw_open at once, for worlds with the fabric's defaults. */
struct tw *tw_open_new(int n);

/* A case's first failure, for checks that run on many ranks and report
 * once: tw_note_fail records it (if none is yet) and returns false; the
 * case clears tw_verdict before and asserts it empty after. */
extern char tw_verdict[512];
bool tw_note_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 64-byte aligned memory, never NULL (fails the case). */
void *tw_xmalloc(size_t n);

/* One progress call on every rank; events handled. */
unsigned tw_progress(struct tw *tw);
/* Progress every rank until req is done (fails the test after a bound). */
void tw_wait(struct tw *tw, struct rc_req *req);
void tw_wait_all(struct tw *tw, struct rc_req **reqs, int n);
/* Progress until nothing moves any more. */
void tw_quiesce(struct tw *tw);
/* Rank r dies: it stops progressing, its transport refuses messages and
 * every other rank's engine hears of it (as from a lost connection). */
void tw_kill(struct tw *tw, int r);

#endif
