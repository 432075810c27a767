/*
 * attr.c - the attribute core (attr.h): keyvals, attribute lists, and the
 * callbacks, kind-generic.
 *
 * A kind plugs in with one entry in ak_ops (how to call its callbacks with
 * its handle type): communicators, datatypes and windows. The window
 * keyval functions are attr_api.c's with RC_AK_WIN; the window attribute
 * functions are rma's, on attr_api.c's generic bodies (attr.h).
 *
 * Callbacks may call MPI (they run inside the critical section, which
 * nests). A callback that changes the attributes of the very object it
 * was called for is erroneous (as in Open MPI); the list is walked again
 * after each callback, so it is not corrupted by one, only unpredictable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attr.h"
#include "status.h"

/* ---- the kinds ---------------------------------------------------------- */

static int comm_copy(void (*fn)(void), void *obj, int keyval, void *extra,
		     void *in, void *out, int *flag)
{
	return ((MPI_Comm_copy_attr_function *)fn)(obj, keyval, extra, in, out,
						   flag);
}

static int comm_del(void (*fn)(void), void *obj, int keyval, void *val,
		    void *extra)
{
	return ((MPI_Comm_delete_attr_function *)fn)(obj, keyval, val, extra);
}

static int type_copy(void (*fn)(void), void *obj, int keyval, void *extra,
		     void *in, void *out, int *flag)
{
	return ((MPI_Type_copy_attr_function *)fn)(obj, keyval, extra, in, out,
						   flag);
}

static int type_del(void (*fn)(void), void *obj, int keyval, void *val,
		    void *extra)
{
	return ((MPI_Type_delete_attr_function *)fn)(obj, keyval, val, extra);
}

static int win_copy(void (*fn)(void), void *obj, int keyval, void *extra,
		    void *in, void *out, int *flag)
{
	return ((MPI_Win_copy_attr_function *)fn)(obj, keyval, extra, in, out,
						  flag);
}

static int win_del(void (*fn)(void), void *obj, int keyval, void *val,
		   void *extra)
{
	return ((MPI_Win_delete_attr_function *)fn)(obj, keyval, val, extra);
}

static const struct rc_attr_ops comm_ops = {"communicator", comm_copy,
					    comm_del};
static const struct rc_attr_ops type_ops = {"datatype", type_copy, type_del};
static const struct rc_attr_ops win_ops = {"window", win_copy, win_del};

static const struct rc_attr_ops *const ak_ops[RC_AK_NKINDS] = {
	[RC_AK_COMM] = &comm_ops,
	[RC_AK_TYPE] = &type_ops,
	[RC_AK_WIN] = &win_ops,
};

static const char *ak_name(unsigned kind)
{
	return ak_ops[kind]->name;
}

/* The predefined keys: keyvals at the indices mpi.h gives (communicator
 * ones, then window ones), in that order. */
#define RC_X_KV(name, akind)                                                  \
	static struct rc_keyval kv_##name = {.h = RC_HOBJ_INIT(RC_HK_KEYVAL), \
					     .predefined = true,              \
					     .kind = (akind),                 \
					     .refcount = 1};
#define RC_KEYVAL_PREDEF_TABLE(X)       \
	X(TAG_UB, RC_AK_COMM)           \
	X(HOST, RC_AK_COMM)             \
	X(IO, RC_AK_COMM)               \
	X(WTIME_IS_GLOBAL, RC_AK_COMM)  \
	X(UNIVERSE_SIZE, RC_AK_COMM)    \
	X(APPNUM, RC_AK_COMM)           \
	X(LASTUSEDCODE, RC_AK_COMM)     \
	X(WIN_BASE, RC_AK_WIN)          \
	X(WIN_SIZE, RC_AK_WIN)          \
	X(WIN_DISP_UNIT, RC_AK_WIN)     \
	X(WIN_CREATE_FLAVOR, RC_AK_WIN) \
	X(WIN_MODEL, RC_AK_WIN)
RC_KEYVAL_PREDEF_TABLE(RC_X_KV)
#undef RC_X_KV

struct rc_keyval *const rc_keyval_predefined[] = {
#define RC_X_KVL(name, kind) &kv_##name,
	RC_KEYVAL_PREDEF_TABLE(RC_X_KVL)
#undef RC_X_KVL
};
const size_t rc_keyval_npredefined =
	sizeof(rc_keyval_predefined) / sizeof(rc_keyval_predefined[0]);

/* ---- keyvals ------------------------------------------------------------ */

int rc_keyval_create(enum rc_akind kind, void (*copy_fn)(void),
		     void (*delete_fn)(void), void *extra_state, int *keyval)
{
	struct rc_keyval *kv = rc_hobj_new(RC_HK_KEYVAL, sizeof(*kv));

	if (!kv)
		return RC_ERR_NOMEM;
	kv->kind = (unsigned char)kind;
	kv->refcount = 1;
	kv->copy_fn = copy_fn;
	kv->delete_fn = delete_fn;
	kv->extra_state = extra_state;
	*keyval = kv->h.idx;
	return RC_OK;
}

int rc_keyval_lookup(enum rc_akind kind, int keyval, struct rc_keyval **kvp,
		     char *why, size_t len)
{
	const struct rc_hpool *p = &rc_hpools[RC_HK_KEYVAL];
	struct rc_keyval *kv = rc_hpool_at(p, keyval);
	const struct rc_hobj *slot;

	if (kv && kv->kind == kind) {
		*kvp = kv;
		return MPI_SUCCESS;
	}
	slot = rc_hpool_slot(p, keyval);
	if (keyval == MPI_KEYVAL_INVALID)
		snprintf(why, len, "MPI_KEYVAL_INVALID");
	else if (kv)
		snprintf(why, len, "keyval %d is a %s keyval, not a %s keyval",
			 keyval, ak_name(kv->kind), ak_name(kind));
	else if (slot && slot->magic == RC_H_FREED(RC_HK_KEYVAL))
		snprintf(why, len, "keyval %d was freed", keyval);
	else
		snprintf(why, len, "%d is not a keyval", keyval);
	return MPI_ERR_KEYVAL;
}

static void kv_release(struct rc_keyval *kv)
{
	if (--kv->refcount == 0)
		rc_hobj_free(RC_HK_KEYVAL, kv);
}

void rc_keyval_free(struct rc_keyval *kv)
{
	if (kv->freed)
		return;
	kv->freed = true;
	kv_release(kv);
}

/* ---- attributes --------------------------------------------------------- */

static int attr_call_delete(enum rc_akind kind, void *obj,
			    const struct rc_attr *a)
{
	const struct rc_keyval *kv = a->kv;

	if (!kv->delete_fn)
		return MPI_SUCCESS;
	return ak_ops[kind]->del(kv->delete_fn, obj, kv->h.idx, a->val,
				 kv->extra_state);
}

/* Take a off the list (wherever a callback left it); false if gone. */
static bool attr_unlink(struct rc_attr **list, const struct rc_attr *a)
{
	struct rc_attr **pp;

	for (pp = list; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			return true;
		}
	return false;
}

static void attr_append(struct rc_attr **list, struct rc_attr *a)
{
	struct rc_attr **pp = list;

	while (*pp)
		pp = &(*pp)->next;
	a->next = NULL;
	*pp = a;
}

static struct rc_attr *attr_find(const struct rc_attr *list,
				 const struct rc_keyval *kv)
{
	for (; list; list = list->next)
		if (list->kv == kv)
			return (struct rc_attr *)list;
	return NULL;
}

static void attr_destroy(struct rc_attr *a)
{
	kv_release(a->kv);
	free(a);
}

int rc_attr_set(enum rc_akind kind, void *obj, struct rc_attr **list,
		struct rc_keyval *kv, void *val)
{
	struct rc_attr *a = attr_find(*list, kv);
	int err;

	if (a) {
		/* the old value goes first, through its callback */
		err = attr_call_delete(kind, obj, a);
		if (err)
			return err;
		if (!attr_unlink(list, a))
			return MPI_ERR_INTERN;
	} else {
		a = malloc(sizeof(*a));
		if (!a)
			return MPI_ERR_NO_MEM;
		a->kv = kv;
		kv->refcount++;
	}
	a->val = val;
	attr_append(list, a);
	return MPI_SUCCESS;
}

bool rc_attr_get(const struct rc_attr *list, const struct rc_keyval *kv,
		 void **val)
{
	const struct rc_attr *a = attr_find(list, kv);

	if (a)
		*val = a->val;
	return a != NULL;
}

int rc_attr_delete(enum rc_akind kind, void *obj, struct rc_attr **list,
		   struct rc_keyval *kv)
{
	struct rc_attr *a = attr_find(*list, kv);
	int err;

	if (!a)
		return MPI_SUCCESS;
	err = attr_call_delete(kind, obj, a);
	if (err)
		return err;
	if (attr_unlink(list, a))
		attr_destroy(a);
	return MPI_SUCCESS;
}

int rc_attr_delete_all(enum rc_akind kind, void *obj, struct rc_attr **list)
{
	while (*list) {
		struct rc_attr *a = *list;
		int err;

		while (a->next) /* the newest: lists are short */
			a = a->next;
		err = attr_call_delete(kind, obj, a);
		if (err)
			return err;
		if (attr_unlink(list, a))
			attr_destroy(a);
	}
	return MPI_SUCCESS;
}

int rc_attr_copy_all(enum rc_akind kind, void *old, const struct rc_attr *list,
		     void *nobj, struct rc_attr **nlist)
{
	const struct rc_attr *a;

	for (a = list; a; a = a->next) {
		const struct rc_keyval *kv = a->kv;
		struct rc_attr *c;
		void *out = NULL;
		int flag = 0, err;

		if (!kv->copy_fn)
			continue;
		err = ak_ops[kind]->copy(kv->copy_fn, old, kv->h.idx,
					 kv->extra_state, a->val, &out, &flag);
		if (!err && flag) {
			c = malloc(sizeof(*c));
			if (!c) {
				err = MPI_ERR_NO_MEM;
			} else {
				c->kv = a->kv;
				c->val = out;
				c->kv->refcount++;
				attr_append(nlist, c);
			}
		}
		if (err) {
			/* the new object is freed: its copies go again */
			if (rc_attr_delete_all(kind, nobj, nlist))
				rc_attr_discard(nlist);
			return err;
		}
	}
	return MPI_SUCCESS;
}

void rc_attr_discard(struct rc_attr **list)
{
	while (*list) {
		struct rc_attr *a = *list;

		*list = a->next;
		attr_destroy(a);
	}
}
