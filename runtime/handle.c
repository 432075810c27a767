/*
 * handle.c - the handle table (handle.h: the decision, its reasons and its
 * limit): per-kind pools of slots that are never returned to malloc while
 * MPI runs, tombstones in a FIFO quarantine, stable indices for MPI_Fint,
 * and the words that name a bad handle in an error message.
 *
 * A pool grows by chunks of HP_CHUNK slots; a new chunk's slots get the
 * next indices and go on the fresh list. An allocation takes the oldest
 * tombstone once more than `quarantine` wait, else a fresh slot, else a
 * new chunk: the pool holds at most quarantine + (most objects ever live
 * at once) slots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attr.h"
#include "dtype.h"
#include "handle.h"
#include "info.h"
#include "op.h"
#include "param.h"

#define HP_CHUNK 64u

struct rc_hpool rc_hpools[RC_HK_NKINDS] = {
#define RC_X_HP(k, str, cls, null) [RC_HK_##k] = RC_HPOOL_INIT(RC_HK_##k),
	RC_HKIND_TABLE(RC_X_HP)
#undef RC_X_HP
};

static const struct {
	const char *name;
	int cls;
	const char *null;
} hk_tab[] = {
#define RC_X_HT(k, str, c, n) [RC_HK_##k] = {str, c, n},
	RC_HKIND_TABLE(RC_X_HT)
#undef RC_X_HT
};

const char *rc_hkind_name(enum rc_hkind kind)
{
	return kind < RC_HK_NKINDS ? hk_tab[kind].name : "handle";
}

int rc_hkind_class(enum rc_hkind kind)
{
	return kind < RC_HK_NKINDS ? hk_tab[kind].cls : MPI_ERR_ARG;
}

void rc_hpool_init_at(struct rc_hpool *p, enum rc_hkind kind, uint32_t base)
{
	struct rc_hpool init = RC_HPOOL_INIT(kind);

	init.quarantine = rc_hpools[kind].quarantine;
	init.base = base;
	*p = init;
}

void rc_hpool_init(struct rc_hpool *p, enum rc_hkind kind)
{
	rc_hpool_init_at(p, kind, 0);
}

void rc_hpool_fini(struct rc_hpool *p)
{
	uint32_t i;

	for (i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->tab);
	p->chunks = NULL;
	p->nchunks = 0;
	p->tab = NULL;
	p->ntab = p->captab = p->npredef = 0;
	p->fresh = p->qhead = p->qtail = NULL;
	p->nquar = 0;
}

/* Room for n more entries in the index table (entry 0 reserved). */
static int hp_tab_reserve(struct rc_hpool *p, uint32_t n)
{
	struct rc_hobj **tab;
	uint32_t cap;

	if (!p->ntab)
		p->ntab = 1;
	if (p->ntab + n <= p->captab)
		return 0;
	cap = p->captab ? p->captab : HP_CHUNK;
	while (cap < p->ntab + n)
		cap *= 2;
	if (cap > INT32_MAX - p->base)
		return -1;
	tab = realloc(p->tab, cap * sizeof(*tab));
	if (!tab)
		return -1;
	tab[0] = NULL;
	p->tab = tab;
	p->captab = cap;
	return 0;
}

void *rc_hpool_get_slow(struct rc_hpool *p, size_t size)
{
	size_t sz = (size + 15) & ~(size_t)15;
	void **chunks;
	char *c;
	uint32_t i;

	if (!p->slot_size)
		p->slot_size = (uint32_t)sz;
	if (p->slot_size != sz) {
		/* one object type per kind: a programming error */
		fprintf(stderr, "rcmpi: %s pool: slot of %zu bytes, not %u\n",
			rc_hkind_name(p->kind), sz, p->slot_size);
		abort();
	}
	/* before growing, a tombstone that waited long enough (get's fast
	 * path found none: nquar <= quarantine) */
	if (hp_tab_reserve(p, HP_CHUNK))
		return NULL;
	chunks = realloc(p->chunks, (p->nchunks + 1) * sizeof(*chunks));
	if (!chunks)
		return NULL;
	p->chunks = chunks;
	c = calloc(HP_CHUNK, sz);
	if (!c)
		return NULL;
	p->chunks[p->nchunks++] = c;
	/* fresh list in index order: the first slot is taken first */
	for (i = HP_CHUNK; i-- > 0;) {
		struct rc_hobj *o = (struct rc_hobj *)(c + (size_t)i * sz);

		o->idx = (int32_t)(p->base + p->ntab + i);
		o->next = p->fresh;
		p->tab[p->ntab + i] = o;
		p->fresh = o;
	}
	p->ntab += HP_CHUNK;
	return rc_hpool_get(p, size);
}

unsigned rc_hpool_get_batch(struct rc_hpool *p, size_t size,
			    struct rc_hobj **first, unsigned n)
{
	struct rc_hobj **head = &p->fresh, *o, *last;
	unsigned k;

	if (p->nquar > p->quarantine) {
		head = &p->qhead;
		if (n > p->nquar - p->quarantine)
			n = p->nquar - p->quarantine;
		p->nquar -= n;
		if (!p->nquar)
			p->qtail = NULL;
	} else if (!p->fresh) {
		/* grow by a chunk: one slot now, the rest fresh */
		o = rc_hpool_get_slow(p, size);
		if (!o)
			return 0;
		o->magic = p->freed;
		o->next = NULL;
		*first = o;
		return 1;
	}
	last = *first = *head;
	for (k = 1; k < n && last->next; k++)
		last = last->next;
	*head = last->next;
	last->next = NULL;
	return k;
}

void rc_hpool_predef(struct rc_hpool *p, void *obj)
{
	struct rc_hobj *o = obj;

	if (hp_tab_reserve(p, 1))
		return; /* the object keeps working; no MPI_Fint */
	o->idx = (int32_t)(p->base + p->ntab);
	p->tab[p->ntab++] = o;
	p->npredef++;
}

/* idx's place in p's table, or 0 (no slot) */
static uint32_t hp_place(const struct rc_hpool *p, MPI_Fint idx)
{
	uint32_t i;

	if (idx <= 0 || (uint32_t)idx <= p->base)
		return 0;
	i = (uint32_t)idx - p->base;
	return i < p->ntab ? i : 0;
}

void *rc_hpool_at(const struct rc_hpool *p, MPI_Fint idx)
{
	uint32_t i = hp_place(p, idx);
	struct rc_hobj *o = i ? p->tab[i] : NULL;

	return o && o->magic == p->live ? o : NULL;
}

const struct rc_hobj *rc_hpool_slot(const struct rc_hpool *p, MPI_Fint idx)
{
	uint32_t i = hp_place(p, idx);

	return i ? p->tab[i] : NULL;
}

unsigned rc_hpool_nlive(const struct rc_hpool *p)
{
	const struct rc_hobj *o;
	unsigned n;

	if (!p->ntab)
		return 0;
	n = p->ntab - 1 - p->npredef - p->nquar;
	for (o = p->fresh; o; o = o->next)
		n--;
	return n;
}

unsigned rc_hpool_nlive_scan(const struct rc_hpool *p)
{
	unsigned n = 0;
	uint32_t c, i;

	for (c = 0; c < p->nchunks; c++) {
		const char *chunk = p->chunks[c];

		for (i = 0; i < HP_CHUNK; i++) {
			const struct rc_hobj *o =
				(const void *)(chunk +
					       (size_t)i * p->slot_size);

			n += o->magic == p->live;
		}
	}
	return n;
}

void *rc_hobj_new(enum rc_hkind kind, size_t size)
{
	struct rc_hpool *p = &rc_hpools[kind];
	bool held = rc_lock_take(&p->lock);
	struct rc_hobj *o = rc_hpool_get(p, size);

	rc_lock_give(&p->lock, held);
	if (o)
		memset(o + 1, 0, size - sizeof(*o));
	return o;
}

void rc_hobj_free(enum rc_hkind kind, void *obj)
{
	struct rc_hpool *p = &rc_hpools[kind];
	bool held = rc_lock_take(&p->lock);

	rc_hpool_put(p, obj);
	rc_lock_give(&p->lock, held);
}

MPI_Fint rc_handle_c2f(enum rc_hkind kind, const void *h)
{
	const struct rc_hobj *o = h;

	if (!h)
		return 0;
	if (o->magic != RC_H_LIVE(kind) && o->magic != RC_H_FREED(kind))
		return -1;
	return o->idx > 0 ? o->idx : -1;
}

void *rc_handle_f2c(struct rc_hpool *p, MPI_Fint idx)
{
	bool held = rc_lock_take(&p->lock);
	void *o = rc_hpool_at(p, idx);

	rc_lock_give(&p->lock, held);
	return o;
}

const char *rc_handle_explain(enum rc_hkind kind, const void *h, char *buf,
			      size_t len)
{
	uint32_t m;
	unsigned k;

	if (!h) {
		snprintf(buf, len, "%s", hk_tab[kind].null);
		return buf;
	}
	m = ((const struct rc_hobj *)h)->magic;
	k = m & 0xffu;
	if (m == RC_H_FREED(kind))
		snprintf(buf, len, "%s handle %p was freed", hk_tab[kind].name,
			 h);
	else if (m == RC_H_LIVE(kind))
		snprintf(buf, len, "%s handle %p is not valid here",
			 hk_tab[kind].name, h);
	else if (k < RC_HK_NKINDS && m == RC_H_LIVE(k))
		snprintf(buf, len, "%p is a %s handle, not a %s", h,
			 hk_tab[k].name, hk_tab[kind].name);
	else if (k < RC_HK_NKINDS && m == RC_H_FREED(k))
		snprintf(buf, len, "%p is a freed %s handle, not a %s", h,
			 hk_tab[k].name, hk_tab[kind].name);
	else
		snprintf(buf, len, "%p is not a %s handle", h,
			 hk_tab[kind].name);
	return buf;
}

static bool hp_predef_done;

void rc_handles_init(void)
{
	long q = rc_param_int(RC_P_HANDLE_QUARANTINE);
	unsigned k;
	size_t i;

	for (k = 0; k < RC_HK_NKINDS; k++)
		rc_hpools[k].quarantine = (uint32_t)q;
	rc_hpools[RC_HK_REQ].quarantine =
		(uint32_t)rc_param_int(RC_P_REQ_QUARANTINE);
	if (hp_predef_done)
		return;
	hp_predef_done = true;
	/* the fixed indices: new predefined objects go at the end of their
	 * kind's list, so existing indices never move */
	rc_hpool_predef(&rc_hpools[RC_HK_COMM], &rc_mpi_comm_world);
	rc_hpool_predef(&rc_hpools[RC_HK_COMM], &rc_mpi_comm_self);
	rc_hpool_predef(&rc_hpools[RC_HK_GROUP], &rc_mpi_group_empty);
	rc_hpool_predef(&rc_hpools[RC_HK_ERRH], &rc_mpi_errors_are_fatal);
	rc_hpool_predef(&rc_hpools[RC_HK_ERRH], &rc_mpi_errors_return);
	rc_hpool_predef(&rc_hpools[RC_HK_MSG], &rc_mpi_message_no_proc);
	rc_handles_info_init();
	/* keyvals: the predefined attribute keys are their indices */
	for (i = 0; i < rc_keyval_npredefined; i++)
		rc_hpool_predef(&rc_hpools[RC_HK_KEYVAL],
				rc_keyval_predefined[i]);
	for (i = 0; i < rc_dt_npredefined; i++)
		rc_hpool_predef(&rc_hpools[RC_HK_DTYPE], rc_dt_predefined[i]);
	for (i = 0; i < rc_op_npredefined; i++)
		rc_hpool_predef(&rc_hpools[RC_HK_OP], rc_op_predefined[i]);
}

/*
 * Info objects may be made before MPI_Init and used after MPI_Finalize
 * (MPI-4.0 11.4.1), so their pool is set up by the first of MPI_Init and
 * rc_info_new, and MPI_Finalize keeps it (what is left in it stays
 * reachable, not leaked).
 */
void rc_handles_info_init(void)
{
	struct rc_hpool *p = &rc_hpools[RC_HK_INFO];

	if (!p->npredef)
		rc_hpool_predef(p, &rc_mpi_info_env);
}

void rc_handles_fini(void)
{
	unsigned k;

	for (k = 0; k < RC_HK_NKINDS; k++)
		if (k != RC_HK_INFO)
			rc_hpool_fini(&rc_hpools[k]);
	hp_predef_done = false;
}
