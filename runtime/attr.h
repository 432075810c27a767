/*
 * attr.h - attribute caching (MPI-3.1 6.7): keyvals and the attributes
 * they index, for every object kind that carries them (communicators,
 * datatypes and windows, each with an ops entry in attr.c).
 *
 * A keyval is a handle-table object (kind RC_HK_KEYVAL): its int handle
 * is its index. It is reference counted: one reference for the handle and
 * one per attribute that uses it, so MPI_*_free_keyval kills the handle at
 * once (a later use gets MPI_ERR_KEYVAL "keyval N was freed") while the
 * attributes still set with it keep their copy and delete callbacks until
 * they go. The predefined attribute keys (MPI_TAG_UB ... MPI_LASTUSEDCODE)
 * are predefined keyvals at those fixed indices: they can be read, never
 * set, deleted or freed.
 *
 * An object's attributes are a list in the order they were set (setting a
 * key again deletes the old value through the callback and moves the key
 * to the end, a new setting). Copies (dup) walk it in that order; deletes
 * of a whole object (free, and MPI_Finalize for MPI_COMM_SELF first) walk
 * it backwards, the reverse order of setting. Every callback's error code
 * fails the call that ran it, and is what that call returns.
 */
#ifndef RC_ATTR_H
#define RC_ATTR_H

#include <stdbool.h>
#include <mpi.h>
#include "handle.h"

/* Object kinds that carry attributes. */
enum rc_akind { RC_AK_COMM, RC_AK_TYPE, RC_AK_WIN, RC_AK_NKINDS };

/* Calls a kind's callbacks with the object's handle (attr.c has one per
 * kind; windows add theirs). */
struct rc_attr_ops {
	const char *name; /* "communicator", for messages */
	int (*copy)(void (*fn)(void), void *obj, int keyval, void *extra,
		    void *in, void *out, int *flag);
	int (*del)(void (*fn)(void), void *obj, int keyval, void *val,
		   void *extra);
};

struct rc_keyval {
	struct rc_hobj h; /* handle.h; the index is the keyval */
	bool predefined;
	unsigned char kind;	 /* enum rc_akind of the objects it indexes */
	bool freed;		 /* the program freed it; attributes keep it */
	int refcount;		 /* the handle + one per attribute */
	void (*copy_fn)(void);	 /* NULL: never copied */
	void (*delete_fn)(void); /* NULL: nothing to call */
	void *extra_state;
};

struct rc_attr {
	struct rc_attr *next;
	struct rc_keyval *kv;
	void *val;
};

/* Every predefined keyval, in index order (handle.c registers them). */
extern struct rc_keyval *const rc_keyval_predefined[];
extern const size_t rc_keyval_npredefined;

/* A new keyval of `kind`; RC_OK or RC_ERR_NOMEM. */
int rc_keyval_create(enum rc_akind kind, void (*copy_fn)(void),
		     void (*delete_fn)(void), void *extra_state, int *keyval);
/*
 * The live keyval `keyval` of `kind` in *kvp, or MPI_ERR_KEYVAL with what
 * is wrong in why ("keyval 9 was freed", "keyval 1 is a communicator
 * keyval, not a datatype keyval", ...).
 */
int rc_keyval_lookup(enum rc_akind kind, int keyval, struct rc_keyval **kvp,
		     char *why, size_t len);
/*
 * MPI_*_free_keyval. The keyval and its handle live on while attributes
 * use it: its number still gets, sets and deletes them (as in MPICH and
 * Open MPI), and freeing it again does nothing. Both die with its last
 * attribute.
 */
void rc_keyval_free(struct rc_keyval *kv);

/*
 * On the object `obj` (its handle, given to callbacks) with attribute list
 * *list. Each returns MPI_SUCCESS or an MPI error code (a callback's own).
 * set: replaces an existing value (its delete callback runs first; if it
 * fails nothing changes). delete: absent attributes are fine.
 */
int rc_attr_set(enum rc_akind kind, void *obj, struct rc_attr **list,
		struct rc_keyval *kv, void *val);
bool rc_attr_get(const struct rc_attr *list, const struct rc_keyval *kv,
		 void **val);
int rc_attr_delete(enum rc_akind kind, void *obj, struct rc_attr **list,
		   struct rc_keyval *kv);
/* Every attribute, in the reverse order of setting; stops at the first
 * callback that fails (that attribute and the older ones stay). */
int rc_attr_delete_all(enum rc_akind kind, void *obj, struct rc_attr **list);
/* Copy old's attributes to the new object (its list must be empty), in
 * order of setting, through the copy callbacks. On a failure the copies
 * already made are deleted again (callbacks run) and the error returned. */
int rc_attr_copy_all(enum rc_akind kind, void *old, const struct rc_attr *list,
		     void *nobj, struct rc_attr **nlist);
/* Drop every attribute without callbacks (an object that dies where no
 * callback may run: teardown after MPI_Finalize's deletes). */
void rc_attr_discard(struct rc_attr **list);

/*
 * The MPI functions' bodies (attr_api.c), for every kind: an object with
 * attributes as they see it. Errors are raised on ecomm's handler (NULL:
 * MPI_COMM_WORLD's; a window's private communicator: the window's).
 * predef gives the value of a predefined keyval on the object (NULL: not
 * set); NULL for kinds without predefined attributes.
 */
struct rc_comm;
struct rc_attr_obj {
	enum rc_akind kind;
	void *handle;
	struct rc_attr **list;
	struct rc_comm *ecomm;
	void *(*predef)(void *handle, int keyval);
};

int rc_attr_api_set(const struct rc_attr_obj *o, int keyval, void *val,
		    const char *fn);
int rc_attr_api_get(const struct rc_attr_obj *o, int keyval, void *val,
		    int *flag, const char *fn);
int rc_attr_api_delete(const struct rc_attr_obj *o, int keyval, const char *fn);

#endif
