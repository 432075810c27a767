/*
 * handle.h - the handle table: where every MPI object lives, how a stale
 * handle is recognised, and the MPI_Fint of each handle.
 *
 * Decision. Handles stay pointers to the objects (mpi.h's ABI unchanged,
 * predefined handles stay constant expressions, the hot path validates a
 * handle by reading one word at its address, with no lookup). What changes
 * is where objects live: every kind is allocated from a pool of slots of
 * its own, and a slot is never returned to malloc while MPI runs. Freeing
 * an object turns its slot into a tombstone: the magic word says "freed
 * <kind>", and the slot waits in a FIFO quarantine. A slot is reused only
 * after `quarantine` more objects of its kind have been freed
 * (RCMPI_HANDLE_QUARANTINE, default 1024; requests RCMPI_REQ_QUARANTINE,
 * default 64, which keeps a reused request in the L1 cache).
 * So a stale handle is recognised, and named in the error ("datatype
 * handle 0x... was freed"), without reading freed memory -- until its slot
 * is reused. After that the stale handle silently names the new object of
 * the same kind, as in any MPI whose handles are pointers or reused
 * indices. That is the limit, and it is the price of no lookup.
 *
 * Why not a table of indices with generation counts: every use of every
 * handle would pay a lookup (and mpi.h's predefined handles would stop
 * being the addresses of objects); the tombstones give the same detection
 * within the quarantine at no cost on the hot path.
 *
 * Each slot has a stable index in its kind's table: the handle's MPI_Fint
 * (MPI_Comm_c2f and friends). Index 0 is the kind's null handle; the
 * predefined objects get the next fixed indices, in the order
 * rc_handles_init registers them (MPI_COMM_WORLD is 1, MPI_COMM_SELF 2,
 * ...); f2c of an index that names no live object gives the null handle.
 *
 * Lifetime: an object is freed (tombstone) when its last reference goes:
 * a datatype still used by a pending request, a group a communicator
 * uses, an error handler attached to a communicator live on and so do
 * their handles. A communicator's handle dies at MPI_Comm_free even while
 * pending operations keep the object (rc_hobj_kill).
 *
 * Requests come from each instance's own pool (inst->req_pool: the pool
 * of rc_g serves MPI_Request_f2c), used inside the critical section
 * (thread.h) and not locked (the eager sends made outside it have a pool
 * of their own: request.h); every other kind from the process-wide pools here,
 * which calls outside the section use too (datatypes, ops, info, groups):
 * rc_hobj_new, rc_hobj_free and rc_handle_f2c take the pool's leaf lock
 * at MPI_THREAD_MULTIPLE.
 */
#ifndef RC_HANDLE_H
#define RC_HANDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "compiler.h"
#include "thread.h"

/* kind, what a user calls it, error class of a bad handle, null handle */
#define RC_HKIND_TABLE(X)                                            \
	X(COMM, "communicator", MPI_ERR_COMM, "MPI_COMM_NULL")       \
	X(GROUP, "group", MPI_ERR_GROUP, "MPI_GROUP_NULL")           \
	X(DTYPE, "datatype", MPI_ERR_TYPE, "MPI_DATATYPE_NULL")      \
	X(REQ, "request", MPI_ERR_REQUEST, "MPI_REQUEST_NULL")       \
	X(OP, "op", MPI_ERR_OP, "MPI_OP_NULL")                       \
	X(INFO, "info", MPI_ERR_INFO, "MPI_INFO_NULL")               \
	X(ERRH, "error handler", MPI_ERR_ARG, "MPI_ERRHANDLER_NULL") \
	X(WIN, "window", MPI_ERR_WIN, "MPI_WIN_NULL")                \
	X(MSG, "message", MPI_ERR_REQUEST, "MPI_MESSAGE_NULL")       \
	X(KEYVAL, "keyval", MPI_ERR_KEYVAL, "MPI_KEYVAL_INVALID")

enum rc_hkind {
#define RC_X_HK(k, str, cls, null) RC_HK_##k,
	RC_HKIND_TABLE(RC_X_HK)
#undef RC_X_HK
		RC_HK_NKINDS
};

/*
 * Magic words: 'r' 'c', a state byte ('L' live, 'F' freed) and the kind,
 * so a debugger shows what a slot holds.
 */
#define RC_H_LIVE(k) (0x72634c00u | (uint32_t)(k))
#define RC_H_FREED(k) (0x72634600u | (uint32_t)(k))

/* The header every handle object starts with. */
struct rc_hobj {
	uint32_t magic;	      /* RC_H_LIVE(kind) / RC_H_FREED(kind) */
	int32_t idx;	      /* index in the kind's table (MPI_Fint);
			       * 0 when the object is in no table */
	struct rc_hobj *next; /* fresh list / quarantine, while free */
};

#define RC_HOBJ_INIT(k)               \
	{                             \
		.magic = RC_H_LIVE(k) \
	}

struct rc_hpool {
	uint32_t live, freed; /* the kind's magic words */
	uint8_t kind;
	uint32_t slot_size;  /* set by the first allocation */
	uint32_t quarantine; /* frees before a slot is reused */
	uint32_t nquar;
	struct rc_hobj *fresh;	       /* never used */
	struct rc_hobj *qhead, *qtail; /* freed, oldest first */
	struct rc_hobj **tab;	       /* index -> slot; tab[0] = NULL */
	uint32_t ntab, captab;
	uint32_t npredef;
	uint32_t base; /* a slot's MPI_Fint: base + its place in tab */
	void **chunks;
	uint32_t nchunks;
	struct rc_lock lock; /* the global pools' (rc_hobj_new, ...) */
};

#define RC_HPOOL_INIT(k)                                                   \
	{                                                                  \
		.live = RC_H_LIVE(k), .freed = RC_H_FREED(k), .kind = (k), \
		.quarantine = (k) == RC_HK_REQ ? RC_H_REQ_QUARANTINE       \
					       : RC_H_QUARANTINE           \
	}
#define RC_H_QUARANTINE 1024
/* Requests: a slot reused after 64 frees stays in the L1 cache; 1024
 * cost 4 L1 write misses per message (cachegrind on bench/cg_self). */
#define RC_H_REQ_QUARANTINE 64

/* The process-wide pools, one per kind (requests: per instance). */
extern struct rc_hpool rc_hpools[RC_HK_NKINDS];

/* Set up a pool (the global ones are set up statically); a second pool of
 * one kind (requests: request.h) gives its slots indices from base. */
void rc_hpool_init(struct rc_hpool *p, enum rc_hkind kind);
void rc_hpool_init_at(struct rc_hpool *p, enum rc_hkind kind, uint32_t base);
/* Give every slot back to malloc (MPI_Finalize, instance close). */
void rc_hpool_fini(struct rc_hpool *p);
void *rc_hpool_get_slow(struct rc_hpool *p, size_t size);

/*
 * A slot of `size` bytes (the same for every call on one pool), header
 * live; the rest of the slot is whatever it was (rc_hobj_new zeroes it).
 * NULL when out of memory.
 */
static inline void *rc_hpool_get(struct rc_hpool *p, size_t size)
{
	struct rc_hobj *o;

	if (RC_LIKELY(p->nquar > p->quarantine)) {
		o = p->qhead;
		p->qhead = o->next;
		if (!--p->nquar)
			p->qtail = NULL;
	} else if (RC_LIKELY(p->fresh != NULL)) {
		o = p->fresh;
		p->fresh = o->next;
	} else {
		return rc_hpool_get_slow(p, size);
	}
	o->magic = p->live;
	return o;
}

/* The chain first .. last (linked by next, last->next NULL) at the back
 * of the list *head .. *tail. */
static inline void rc_hobj_chain_add(struct rc_hobj **head,
				     struct rc_hobj **tail,
				     struct rc_hobj *first,
				     struct rc_hobj *last)
{
	if (*tail)
		(*tail)->next = first;
	else
		*head = first;
	*tail = last;
}

/* The object is gone: tombstone, to the back of the quarantine. */
static inline void rc_hpool_put(struct rc_hpool *p, void *obj)
{
	struct rc_hobj *o = obj;

	o->magic = p->freed;
	o->next = NULL;
	rc_hobj_chain_add(&p->qhead, &p->qtail, o, o);
	p->nquar++;
}

/* Back to the quarantine, in order: n tombstones first .. last, linked by
 * next (last->next NULL). */
static inline void rc_hpool_put_chain(struct rc_hpool *p, struct rc_hobj *first,
				      struct rc_hobj *last, unsigned n)
{
	rc_hobj_chain_add(&p->qhead, &p->qtail, first, last);
	p->nquar += n;
}

/*
 * Slots for a cache of p's (the requests' per-thread caches, request.c):
 * up to n, as get would hand them out (the quarantine kept), linked by
 * next from *first, none live (tombstones, or magic 0: never used).
 * Returns how many: 0 when out of memory.
 */
unsigned rc_hpool_get_batch(struct rc_hpool *p, size_t size,
			    struct rc_hobj **first, unsigned n);

/* Register a predefined (static) object at the next fixed index. */
void rc_hpool_predef(struct rc_hpool *p, void *obj);
/* The live object at index idx, or NULL. */
void *rc_hpool_at(const struct rc_hpool *p, MPI_Fint idx);
/* The slot at index idx whatever it holds (live, tombstone, never used:
 * magic 0), or NULL past the table: to explain an integer handle. */
const struct rc_hobj *rc_hpool_slot(const struct rc_hpool *p, MPI_Fint idx);
/* Objects allocated from p and not freed yet (leak checks). */
unsigned rc_hpool_nlive(const struct rc_hpool *p);
/* Slots of p whose header is live, by looking: for a pool whose free
 * slots may sit outside its lists (the requests' out pool, request.c).
 * Unlike rc_hpool_nlive, it misses an object killed (rc_hobj_kill) but
 * not yet freed. */
unsigned rc_hpool_nlive_scan(const struct rc_hpool *p);

/* A zeroed object of `size` bytes from kind's global pool. */
void *rc_hobj_new(enum rc_hkind kind, size_t size);
/* Free an object of a global pool (tombstone). */
void rc_hobj_free(enum rc_hkind kind, void *obj);

/* The handle dies now, the object lives on (references inside MPI);
 * rc_hobj_free still follows. */
static inline void rc_hobj_kill(void *obj, enum rc_hkind kind)
{
	((struct rc_hobj *)obj)->magic = RC_H_FREED(kind);
}

static inline bool rc_hobj_is(const void *obj, enum rc_hkind kind)
{
	return obj && ((const struct rc_hobj *)obj)->magic == RC_H_LIVE(kind);
}

/*
 * Handle conversion: the index of a live (or freed) object of the kind,
 * 0 for the null handle, -1 for anything else; and back (NULL unless idx
 * names a live object).
 */
MPI_Fint rc_handle_c2f(enum rc_hkind kind, const void *h);
void *rc_handle_f2c(struct rc_hpool *p, MPI_Fint idx);

/* Why h is not a usable handle of `kind`: "MPI_COMM_NULL", "datatype
 * handle 0x... was freed", "0x... is a group handle, not a datatype",
 * ... Writes buf and returns it. */
const char *rc_handle_explain(enum rc_hkind kind, const void *h, char *buf,
			      size_t len);
const char *rc_hkind_name(enum rc_hkind kind);
int rc_hkind_class(enum rc_hkind kind);

/* Register the predefined objects (fixed indices) and read the
 * quarantine parameters: first thing in MPI_Init. */
void rc_handles_init(void);
/* The info pool's part of it, also before MPI_Init (rc_info_new). */
void rc_handles_info_init(void);
/* Give every global pool but info's back to malloc: last thing in
 * MPI_Finalize. */
void rc_handles_fini(void);

#endif
