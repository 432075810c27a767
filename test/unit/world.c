/*
 * world.c - see world.h.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "coll.h"
#include "comm.h"
#include "pt2pt.h"
#include "rma.h"
#include "status.h"
#include "world.h"

#define TW_SPIN_MAX 10000000u

struct tw *tw_new(int n)
{
	struct tw *tw = calloc(1, sizeof(*tw));

	ck_assert_ptr_nonnull(tw);
	tw->n = n;
	tw->inst = calloc(n, sizeof(*tw->inst));
	tw->dead = calloc(n, sizeof(*tw->dead));
	tw->fab = rc_loop_fabric_new(n);
	ck_assert_ptr_nonnull(tw->inst);
	ck_assert_ptr_nonnull(tw->fab);
	return tw;
}

void tw_open(struct tw *tw)
{
	int r;

	for (r = 0; r < tw->n; r++) {
		struct rc_inst *inst = calloc(1, sizeof(*inst));

		ck_assert_ptr_nonnull(inst);
		inst->rank = r;
		inst->size = tw->n;
		snprintf(inst->host, sizeof(inst->host), "unit%d", r);
		snprintf(inst->nspace, sizeof(inst->nspace), "unit");
		inst->procs = calloc(tw->n, sizeof(*inst->procs));
		ck_assert_ptr_nonnull(inst->procs);
		inst->loop_fabric = tw->fab;
		rc_req_pool_init(inst);
		ck_assert_int_eq(rc_p2p_open(inst), RC_OK);
		tw->inst[r] = inst;
	}
	for (r = 0; r < tw->n; r++) {
		ck_assert_int_eq(rc_p2p_connect(tw->inst[r]), RC_OK);
		ck_assert_int_eq(rc_comm_init_world(tw->inst[r], NULL, NULL),
				 RC_OK);
		ck_assert_int_eq(rc_coll_open(tw->inst[r]), RC_OK);
		ck_assert_int_eq(rc_rma_open(tw->inst[r]), RC_OK);
	}
}

void tw_free(struct tw *tw)
{
	int r;

	for (r = 0; r < tw->n; r++) {
		struct rc_inst *inst = tw->inst[r];

		rc_rma_close(inst);
		rc_coll_close(inst);
		rc_p2p_close(inst);
		rc_comm_fini_world(inst);
		rc_req_pool_fini(inst);
		free(inst->procs);
		free(inst);
	}
	rc_rma_reap();
	rc_loop_fabric_free(tw->fab);
	free(tw->dead);
	free(tw->inst);
	free(tw);
}

unsigned tw_progress(struct tw *tw)
{
	unsigned ev = 0;
	int r;

	for (r = 0; r < tw->n; r++)
		if (!tw->dead[r])
			ev += rc_progress(tw->inst[r]);
	return ev;
}

void tw_kill(struct tw *tw, int r)
{
	tw->dead[r] = true;
	rc_loop_fabric_fail(tw->fab, r);
}

void tw_wait(struct tw *tw, struct rc_req *req)
{
	unsigned spins = 0;

	while (!rc_req_done(req)) {
		tw_progress(tw);
		ck_assert_msg(++spins < TW_SPIN_MAX, "request never completed");
	}
}

void tw_wait_all(struct tw *tw, struct rc_req **reqs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		tw_wait(tw, reqs[i]);
}

void tw_quiesce(struct tw *tw)
{
	int idle = 0;

	while (idle < 3)
		idle = tw_progress(tw) ? 0 : idle + 1;
}

struct tw *tw_open_new(int n)
{
	struct tw *tw = tw_new(n);

	tw_open(tw);
	return tw;
}

char tw_verdict[512];

bool tw_note_fail(const char *fmt, ...)
{
	va_list ap;

	if (tw_verdict[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(tw_verdict, sizeof(tw_verdict), fmt, ap);
	va_end(ap);
	return false;
}

void *tw_xmalloc(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, n ? n : 1))
		p = NULL;
	ck_assert_ptr_nonnull(p);
	return p;
}
