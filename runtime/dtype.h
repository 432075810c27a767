/*
 * dtype.h - datatypes: the type map of every MPI datatype, flattened at
 * construction into merged contiguous blocks, and the pack/unpack engine
 * that moves any byte range of a message's packed stream.
 *
 * Packed stream: the concatenation, in type-map order, of the data bytes of
 * `count` elements; element i starts at buf + i * extent. Protocols address
 * it by byte offset, so a rendezvous can move it in pipelined chunks.
 */
#ifndef RC_DTYPE_H
#define RC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <mpi.h>
#include "handle.h"

/* Basic (predefined, non-composite for ops) element kinds. */
#define RC_BASIC_TABLE(X)                                  \
	X(CHAR, char, "MPI_CHAR")                              \
	X(SIGNED_CHAR, signed char, "MPI_SIGNED_CHAR")         \
	X(UNSIGNED_CHAR, unsigned char, "MPI_UNSIGNED_CHAR")   \
	X(BYTE, unsigned char, "MPI_BYTE")                     \
	X(SHORT, short, "MPI_SHORT")                           \
	X(UNSIGNED_SHORT, unsigned short, "MPI_UNSIGNED_SHORT") \
	X(INT, int, "MPI_INT")                                 \
	X(UNSIGNED, unsigned, "MPI_UNSIGNED")                  \
	X(LONG, long, "MPI_LONG")                              \
	X(UNSIGNED_LONG, unsigned long, "MPI_UNSIGNED_LONG")   \
	X(LONG_LONG, long long, "MPI_LONG_LONG_INT")           \
	X(UNSIGNED_LONG_LONG, unsigned long long, "MPI_UNSIGNED_LONG_LONG") \
	X(FLOAT, float, "MPI_FLOAT")                           \
	X(DOUBLE, double, "MPI_DOUBLE")                        \
	X(LONG_DOUBLE, long double, "MPI_LONG_DOUBLE")         \
	X(WCHAR, wchar_t, "MPI_WCHAR")                         \
	X(C_BOOL, _Bool, "MPI_C_BOOL")                         \
	X(INT8_T, int8_t, "MPI_INT8_T")                        \
	X(INT16_T, int16_t, "MPI_INT16_T")                     \
	X(INT32_T, int32_t, "MPI_INT32_T")                     \
	X(INT64_T, int64_t, "MPI_INT64_T")                     \
	X(UINT8_T, uint8_t, "MPI_UINT8_T")                     \
	X(UINT16_T, uint16_t, "MPI_UINT16_T")                  \
	X(UINT32_T, uint32_t, "MPI_UINT32_T")                  \
	X(UINT64_T, uint64_t, "MPI_UINT64_T")                  \
	X(C_FLOAT_COMPLEX, float _Complex, "MPI_C_FLOAT_COMPLEX") \
	X(C_DOUBLE_COMPLEX, double _Complex, "MPI_C_DOUBLE_COMPLEX") \
	X(C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX") \
	X(AINT, MPI_Aint, "MPI_AINT")                          \
	X(OFFSET, MPI_Offset, "MPI_OFFSET")                    \
	X(COUNT, MPI_Count, "MPI_COUNT")                       \
	X(PACKED, unsigned char, "MPI_PACKED")                 \
	RC_BASIC_FORTRAN_CXX_TABLE(X)

/*
 * The Fortran and C++ named types, usable from C (MPI-3.1 3.2.2, 5.9.2):
 * the C type that holds each. Fortran's default INTEGER, REAL and LOGICAL
 * are 4 bytes (gfortran, ifort, flang without -fdefault-*-8), LOGICAL
 * .TRUE. is any non-zero value; C++'s bool and std::complex<T> have the
 * layout of _Bool and T _Complex on every ABI we build for. MPI_REAL16 and
 * MPI_COMPLEX32 are not here (see mpi.h).
 */
#define RC_BASIC_FORTRAN_CXX_TABLE(X)                                   \
	X(CHARACTER, char, "MPI_CHARACTER")                             \
	X(LOGICAL, int32_t, "MPI_LOGICAL")                              \
	X(INTEGER, int32_t, "MPI_INTEGER")                              \
	X(REAL, float, "MPI_REAL")                                      \
	X(DOUBLE_PRECISION, double, "MPI_DOUBLE_PRECISION")             \
	X(COMPLEX, float _Complex, "MPI_COMPLEX")                       \
	X(DOUBLE_COMPLEX, double _Complex, "MPI_DOUBLE_COMPLEX")        \
	X(INTEGER1, int8_t, "MPI_INTEGER1")                             \
	X(INTEGER2, int16_t, "MPI_INTEGER2")                            \
	X(INTEGER4, int32_t, "MPI_INTEGER4")                            \
	X(INTEGER8, int64_t, "MPI_INTEGER8")                            \
	X(REAL4, float, "MPI_REAL4")                                    \
	X(REAL8, double, "MPI_REAL8")                                   \
	X(COMPLEX8, float _Complex, "MPI_COMPLEX8")                     \
	X(COMPLEX16, double _Complex, "MPI_COMPLEX16")                  \
	X(CXX_BOOL, _Bool, "MPI_CXX_BOOL")                              \
	X(CXX_FLOAT_COMPLEX, float _Complex, "MPI_CXX_FLOAT_COMPLEX")   \
	X(CXX_DOUBLE_COMPLEX, double _Complex, "MPI_CXX_DOUBLE_COMPLEX") \
	X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex,                \
	  "MPI_CXX_LONG_DOUBLE_COMPLEX")

/* The pair types of MAXLOC/MINLOC: name, value C type and basic kind,
 * index C type and basic kind, standard name. Their layout is the C
 * struct { value; index; }, padding included in the extent. The C pairs
 * have an int index; Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION carry
 * the index in the value's type. */
#define RC_PAIR_TABLE(X)                                                   \
	X(FLOAT_INT, float, FLOAT, int, INT, "MPI_FLOAT_INT")              \
	X(DOUBLE_INT, double, DOUBLE, int, INT, "MPI_DOUBLE_INT")          \
	X(LONG_INT, long, LONG, int, INT, "MPI_LONG_INT")                  \
	X(2INT, int, INT, int, INT, "MPI_2INT")                            \
	X(SHORT_INT, short, SHORT, int, INT, "MPI_SHORT_INT")              \
	X(LONG_DOUBLE_INT, long double, LONG_DOUBLE, int, INT,             \
	  "MPI_LONG_DOUBLE_INT")                                           \
	X(2INTEGER, int32_t, INTEGER, int32_t, INTEGER, "MPI_2INTEGER")    \
	X(2REAL, float, REAL, float, REAL, "MPI_2REAL")                    \
	X(2DOUBLE_PRECISION, double, DOUBLE_PRECISION, double,             \
	  DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION")

enum rc_basic {
	RC_BASIC_NONE = 0,
#define RC_X_BASIC(name, ctype, str) RC_BASIC_##name,
	RC_BASIC_TABLE(RC_X_BASIC)
#undef RC_X_BASIC
	/* pair types for MAXLOC/MINLOC, from RC_BASIC_FLOAT_INT on */
#define RC_X_PAIR_KIND(name, vt, vb, it, ib, str) RC_BASIC_##name,
	RC_PAIR_TABLE(RC_X_PAIR_KIND)
#undef RC_X_PAIR_KIND
	/* the number of kinds (RC_BASIC_COUNT, from the table, is the kind
	 * of MPI_COUNT) */
	RC_BASIC_NKINDS
};

#define RC_X_PAIR_STRUCT(name, vtype, vbasic, itype, ibasic, str) \
	struct rc_pair_##name {                                   \
		vtype v;                                          \
		itype i;                                          \
	};
RC_PAIR_TABLE(RC_X_PAIR_STRUCT)
#undef RC_X_PAIR_STRUCT

/* One contiguous run of data bytes in an element, relative to its start. */
struct rc_dt_block {
	ptrdiff_t disp;
	size_t len;
};

/* One run of identical basic elements in the type signature. */
struct rc_dt_sig {
	enum rc_basic basic;
	size_t count;
};

#define RC_DT_PREDEFINED 0x1u
#define RC_DT_COMMITTED 0x2u
/* lb / ub were set explicitly (MPI_Type_create_resized, or a type built
 * from one): the "lb/ub markers" of the standard, which win over data. */
#define RC_DT_STICKY_LB 0x4u
#define RC_DT_STICKY_UB 0x8u

/*
 * The blocks all have one length and follow at one stride (rstride), as a
 * vector's do. Such a map is kept compact, in constant space whatever its
 * length: blocks[0] and boff[0] are the only entries stored, and block i
 * is blocks[0] moved by i * rstride (rc_dt_block_at). The pack loop
 * computes displacements instead of reading them.
 */
#define RC_DT_REGULAR 0x10u

struct rc_attr;

/*
 * The arguments of the constructor call that made a derived type, as
 * MPI_Type_get_contents returns them (MPI-3.1 4.1.13): integers,
 * addresses, datatypes. The datatypes are held by a reference each (the
 * user may free the originals); predefined ones need none.
 */
struct rc_dt_contents {
	int ni, na, nd;
	int *ints;
	MPI_Aint *aints;
	struct rc_dtype **types;
};

struct rc_dtype {
	struct rc_hobj h; /* handle.h */
	struct rc_attr *attrs; /* cached attributes (attr.h) */
	unsigned flags;
	int combiner;		/* MPI_COMBINER_* */
	enum rc_basic basic;	/* if all data is one basic kind, else NONE */
	size_t size;		/* data bytes in one element */
	ptrdiff_t lb, ub;	/* extent = ub - lb */
	ptrdiff_t true_lb, true_ub;
	size_t nblocks;		/* flattened type map, merged */
	struct rc_dt_block *blocks; /* (RC_DT_REGULAR: the first only) */
	size_t *boff;		/* packed offset of each block (prefix sum) */
	ptrdiff_t rstride;	/* RC_DT_REGULAR: disp[i + 1] - disp[i] */
	size_t nsig;		/* type signature, run-length coded */
	struct rc_dt_sig *sig;
	void *flat;		/* derived: the one allocation that holds
				 * blocks, boff and sig (dtype.c) */
	size_t nbasic;		/* basic elements in one element */
	size_t align;		/* largest alignment of the basic types in it */
	size_t dalign;		/* power of two dividing every block disp and
				 * the extent (capped at 64): typed kernels
				 * may access blocks directly when the buffer
				 * is aligned to it */
	int env[3];		/* MPI_Type_get_envelope: integers,
				 * addresses, datatypes */
	struct rc_dt_contents *contents;	/* derived types made through
						 * the API; NULL otherwise */
	char name[MPI_MAX_OBJECT_NAME];
	/* each pending operation holds a reference: a cache line away from
	 * what other threads read outside the critical section
	 * (MPI_Type_size, thread.h), as struct rc_comm's */
	int refcount __attribute__((aligned(64)));
};

static inline ptrdiff_t rc_dt_extent(const struct rc_dtype *dt)
{
	return dt->ub - dt->lb;
}

/*
 * True when `count` elements occupy one contiguous span of memory; then the
 * data starts at rc_dt_contig_ptr(dt, buf) and is count * size bytes long.
 */
static inline bool rc_dt_is_contig(const struct rc_dtype *dt, size_t count)
{
	if (!dt->nblocks)
		return true;
	if (dt->nblocks != 1)
		return false;
	return count <= 1 || (ptrdiff_t)dt->size == rc_dt_extent(dt);
}

/* Block i of dt's type map, and its offset in an element's packed bytes:
 * read everywhere outside the pack engine through these, which know the
 * compact form of RC_DT_REGULAR maps. */
static inline struct rc_dt_block rc_dt_block_at(const struct rc_dtype *dt,
						size_t i)
{
	struct rc_dt_block b;

	if (!(dt->flags & RC_DT_REGULAR))
		return dt->blocks[i];
	b = dt->blocks[0];
	b.disp += (ptrdiff_t)i * dt->rstride;
	return b;
}

static inline size_t rc_dt_boff_at(const struct rc_dtype *dt, size_t i)
{
	return dt->flags & RC_DT_REGULAR ? i * dt->blocks[0].len : dt->boff[i];
}

/*
 * [*lo, *hi): the addresses that n elements of dt at address base touch,
 * from their first data byte to their last; false when they touch none.
 * A product that overflows saturates (such a call fails later anyway).
 * How buffers are checked for aliasing (coll/, MPI_Reduce_local).
 */
static inline bool rc_dt_span(const struct rc_dtype *dt, size_t n,
			      ptrdiff_t base, ptrdiff_t *lo, ptrdiff_t *hi)
{
	ptrdiff_t ext = rc_dt_extent(dt), reach;

	if (!n || !dt->size)
		return false;
	if (__builtin_mul_overflow((ptrdiff_t)(n - 1), ext, &reach))
		reach = ext < 0 ? PTRDIFF_MIN / 2 : PTRDIFF_MAX / 2;
	*lo = base + dt->true_lb + (reach < 0 ? reach : 0);
	*hi = base + dt->true_ub + (reach > 0 ? reach : 0);
	return true;
}

static inline void *rc_dt_contig_ptr(const struct rc_dtype *dt, const void *buf)
{
	/* integer arithmetic: buf may be MPI_BOTTOM with absolute disps */
	return (void *)((uintptr_t)buf +
			(uintptr_t)(dt->nblocks ? dt->blocks[0].disp : 0));
}

/* Pack bytes [offset, offset + len) of the packed stream of (buf, count, dt)
 * into out. Returns the bytes written (less than len only at the end). */
size_t rc_dt_pack(const struct rc_dtype *dt, size_t count, const void *buf,
		  size_t offset, void *out, size_t len);
/* Unpack len bytes of packed stream, starting at stream offset `offset`,
 * into (buf, count, dt). Returns the bytes consumed. */
size_t rc_dt_unpack(const struct rc_dtype *dt, size_t count, void *buf,
		    size_t offset, const void *in, size_t len);

/* MPI_Get_elements: basic elements in `bytes` of packed data of dt;
 * MPI_UNDEFINED if bytes does not end on a basic element boundary. */
MPI_Count rc_dt_get_elements(const struct rc_dtype *dt, MPI_Count bytes);

/* The inverse, for MPI_Status_set_elements: the bytes of the first n
 * basic elements of a stream of dt (0 for n <= 0 or a type without data). */
MPI_Count rc_dt_elements_bytes(const struct rc_dtype *dt, MPI_Count n);

/* Is `dt` a valid, committed (or predefined) datatype handle for transfer? */
bool rc_dt_valid(const struct rc_dtype *dt);
void rc_dt_release_slow(struct rc_dtype *dt);
/* A request's reference to its datatype; predefined ones are not counted
 * (inline: every message takes one and drops it). */
static inline void rc_dt_retain(struct rc_dtype *dt)
{
	if (!(dt->flags & RC_DT_PREDEFINED))
		__atomic_add_fetch(&dt->refcount, 1, __ATOMIC_RELAXED);
}

static inline void rc_dt_release(struct rc_dtype *dt)
{
	if (!(dt->flags & RC_DT_PREDEFINED))
		rc_dt_release_slow(dt);
}

/* Size in bytes of one basic element kind (pair types: their packed size,
 * value plus index, without padding). */
size_t rc_basic_size(enum rc_basic b);
/* C alignment of a basic kind (pair types: of their C struct). */
size_t rc_basic_align(enum rc_basic b);
/* Standard name ("MPI_INT") of a basic kind, NULL for NONE. */
const char *rc_basic_name(enum rc_basic b);
static inline bool rc_basic_is_pair(enum rc_basic b)
{
	return b >= RC_BASIC_FLOAT_INT && b < RC_BASIC_NKINDS;
}

/* Is dt a live datatype object (predefined or derived, committed or not)? */
static inline bool rc_dt_ok(const struct rc_dtype *dt)
{
	return rc_hobj_is(dt, RC_HK_DTYPE);
}

/* Every predefined datatype, in the order of their fixed MPI_Fint
 * indices (handle.h). */
extern struct rc_dtype *const rc_dt_predefined[];
extern const size_t rc_dt_npredefined;

/*
 * Constructors. Arguments are assumed checked by the caller (the API layer
 * checks and raises MPI errors); old types need not be committed. The new
 * type has refcount 1 and is not committed. Return RC_OK, RC_ERR_NOMEM, or
 * RC_ERR_INVAL when a size or displacement overflows.
 */
int rc_dt_create_contig(size_t count, const struct rc_dtype *old,
			struct rc_dtype **newp);
/* stride in multiples of old's extent (MPI_Type_vector) */
int rc_dt_create_vector(size_t count, size_t blocklen, ptrdiff_t stride,
			const struct rc_dtype *old, struct rc_dtype **newp);
int rc_dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
			 const struct rc_dtype *old, struct rc_dtype **newp);
/* blens NULL: every block is `blen` long. */
int rc_dt_create_hindexed(size_t count, const int *blens, size_t blen,
			  const MPI_Aint *disps, const struct rc_dtype *old,
			  struct rc_dtype **newp);
/* displacements in multiples of old's extent (MPI_Type_indexed, and
 * MPI_Type_create_indexed_block when blens is NULL) */
int rc_dt_create_indexed(size_t count, const int *blens, size_t blen,
			 const int *disps, const struct rc_dtype *old,
			 struct rc_dtype **newp);
int rc_dt_create_struct(size_t count, const int *blens, const MPI_Aint *disps,
			struct rc_dtype *const *types, struct rc_dtype **newp);
int rc_dt_create_resized(const struct rc_dtype *old, ptrdiff_t lb,
			 ptrdiff_t extent, struct rc_dtype **newp);
/* order is MPI_ORDER_C or MPI_ORDER_FORTRAN; sizes > 0, subsizes > 0,
 * starts + subsizes <= sizes (checked by the caller). */
int rc_dt_create_subarray(int ndims, const int *sizes, const int *subsizes,
			  const int *starts, int order,
			  const struct rc_dtype *old, struct rc_dtype **newp);
int rc_dt_create_dup(const struct rc_dtype *old, struct rc_dtype **newp);
/* MPI_Type_create_darray (dtype_darray.c); arguments checked by the
 * caller: prod(psizes) == size, distribs valid, dargs > 0 or
 * MPI_DISTRIBUTE_DFLT_DARG, darg * psize >= gsize for BLOCK, psize 1 for
 * NONE. */
int rc_dt_create_darray(int size, int rank, int ndims, const int *gsizes,
			const int *distribs, const int *dargs,
			const int *psizes, int order,
			const struct rc_dtype *old, struct rc_dtype **newp);
void rc_dt_commit(struct rc_dtype *dt);

/* Bytes of one element of basic kind b in the "external32" representation
 * (dtype_ext32.c); 0 for the pair kinds, which are never in a signature. */
size_t rc_ext32_size(enum rc_basic b);

/* The type MPI_Type_create_f90_<combiner>(p, r) returns (r unused for
 * F90_INTEGER): predefined, a copy of base (the sized Fortran type it
 * matches), the same object for the same arguments; all are freed by
 * rc_dt_f90_fini (MPI_Finalize). */
int rc_dt_f90_get(int combiner, int p, int r, const struct rc_dtype *base,
		  struct rc_dtype **out);
void rc_dt_f90_fini(void);

/* Room for a constructor's arguments (arrays zeroed); NULL when out of
 * memory. The caller fills it and hands it to rc_dt_set_contents, which
 * takes a reference on each derived datatype in it, records the combiner
 * and sets the envelope; the contents live until dt is destroyed. */
struct rc_dt_contents *rc_dt_contents_new(int ni, int na, int nd);
void rc_dt_set_contents(struct rc_dtype *dt, int combiner,
			struct rc_dt_contents *c);
/* The predefined datatype of a basic kind (pair kinds included), or NULL. */
struct rc_dtype *rc_dt_of_basic(enum rc_basic b);
/*
 * A flattened type map as one process describes its datatype to another
 * (rma/): nblocks blocks, listed in `blocks`, or, when regular, blocks[0]
 * moved by i * rstride (the compact form of RC_DT_REGULAR).
 */
struct rc_dt_map {
	const struct rc_dt_block *blocks;
	size_t nblocks;
	bool regular;
	ptrdiff_t rstride;
	ptrdiff_t lb, extent;
};

/* dt's map as rc_dt_create_flat takes it (points into dt). */
void rc_dt_get_map(const struct rc_dtype *dt, struct rc_dt_map *m);

/*
 * A committed datatype from a flattened type map, made of basic kind
 * `basic` (RC_BASIC_NONE: bytes of mixed kinds). For pack, unpack and
 * reductions only; its signature is one run of `basic`. RC_ERR_INVAL: a
 * block not made of whole elements, or sizes that overflow.
 */
int rc_dt_create_flat(enum rc_basic basic, const struct rc_dt_map *m,
		      struct rc_dtype **newp);

#endif
