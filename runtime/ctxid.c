/*
 * ctxid.c - context-id agreement, the local half: what this process
 * proposes in a round, which regions of the bitmap it holds meanwhile, and
 * the verdict on the ANDed proposals (the protocol and why it never
 * livelocks: comm.h). The rounds' messages are coll/comm_create.c's.
 *
 * State per process (struct rc_inst): ctx_used (a bit per block of four
 * context ids), ctx_agree (the agreements in flight that are members,
 * sorted by key: the first entered one has priority) and ctx_locked (the
 * regions some round holds). Everything here is local and runs inside the
 * caller's critical section.
 */
#include <string.h>
#include "comm.h"
#include "inst.h"
#include "status.h"

enum { REG_EAGER = 0x1u, REG_MAIN = 0x2u };

static int key_cmp(struct rc_ctx_key a, struct rc_ctx_key b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	if (a.lo != b.lo)
		return a.lo < b.lo ? -1 : 1;
	return 0;
}

static void list_add(struct rc_inst *inst, struct rc_ctx_agree *a)
{
	struct rc_ctx_agree **pp = &inst->ctx_agree;

	while (*pp && key_cmp((*pp)->key, a->key) <= 0)
		pp = &(*pp)->next;
	a->next = *pp;
	*pp = a;
	a->listed = true;
}

static void list_del(struct rc_inst *inst, struct rc_ctx_agree *a)
{
	struct rc_ctx_agree **pp = &inst->ctx_agree;

	if (!a->listed)
		return;
	while (*pp != a)
		pp = &(*pp)->next;
	*pp = a->next;
	a->next = NULL;
	a->listed = false;
}

/* Is a the entered agreement of lowest key in this process? */
static bool has_priority(const struct rc_inst *inst,
			 const struct rc_ctx_agree *a)
{
	const struct rc_ctx_agree *x;

	for (x = inst->ctx_agree; x && x != a; x = x->next)
		if (x->entered)
			return false;
	return true;
}

void rc_ctx_agree_init(struct rc_ctx_agree *a, struct rc_ctx_key key,
		       bool member)
{
	memset(a, 0, sizeof(*a));
	a->key = key;
	a->member = member;
}

unsigned rc_ctx_round_words(const struct rc_ctx_agree *a)
{
	return a->entered ? RC_CTX_FULL_WORDS : RC_CTX_FIRST_WORDS;
}

static void offer(const struct rc_inst *inst, uint32_t *mask, unsigned from,
		  unsigned to)
{
	unsigned i;

	for (i = from; i < to; i++)
		mask[i] = ~inst->ctx_used[i];
}

void rc_ctx_propose(struct rc_inst *inst, struct rc_ctx_agree *a,
		    uint32_t *mask)
{
	unsigned n = rc_ctx_round_words(a) - 1;
	bool all = true, prio;

	a->rounds++;
	if (!a->member) {
		/* a bystander keeps nothing: any block will do */
		memset(mask, 0xff, sizeof(uint32_t) * (n + 1));
		return;
	}
	if (!a->listed)
		list_add(inst, a);
	memset(mask, 0, sizeof(uint32_t) * (n + 1));
	prio = a->entered && has_priority(inst, a);
	if (!(inst->ctx_locked & REG_EAGER) && (!a->entered || prio)) {
		inst->ctx_locked |= REG_EAGER;
		a->held |= REG_EAGER;
		offer(inst, mask, 0, RC_CTX_EAGER_WORDS);
	} else {
		all = false;
	}
	if (!a->entered) {
		all = false; /* the main region waits for everyone */
	} else if (!(inst->ctx_locked & REG_MAIN) && prio) {
		inst->ctx_locked |= REG_MAIN;
		a->held |= REG_MAIN;
		offer(inst, mask, RC_CTX_EAGER_WORDS, RC_CTX_WORDS);
	} else {
		all = false;
	}
	mask[n] = all ? ~0u : 0;
}

static void release(struct rc_inst *inst, struct rc_ctx_agree *a)
{
	inst->ctx_locked &= ~a->held;
	a->held = 0;
}

void rc_ctx_abandon(struct rc_inst *inst, struct rc_ctx_agree *a)
{
	release(inst, a);
	list_del(inst, a);
}

int rc_ctx_settle(struct rc_inst *inst, struct rc_ctx_agree *a,
		  const uint32_t *res, uint32_t *ctx)
{
	unsigned n = rc_ctx_round_words(a) - 1, i;

	release(inst, a);
	a->entered = true;
	for (i = 0; i < n; i++) {
		uint32_t b;

		if (!res[i])
			continue;
		b = i * 32 + (uint32_t)__builtin_ctz(res[i]);
		*ctx = b * RC_CTX_BLOCK;
		if (a->member)
			rc_ctx_mark(inst, *ctx, true);
		list_del(inst, a);
		return RC_OK;
	}
	if (res[n] != ~0u)
		return RC_AGAIN; /* somebody withheld a region */
	list_del(inst, a);
	return RC_ERR_NOCTX;
}
