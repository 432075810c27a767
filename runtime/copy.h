/*
 * copy.h - copying large contiguous buffers.
 *
 * glibc's memcpy picks its method by size. On AMD CPUs it stops using the
 * CPU's string copy (REP MOVSB) at the size of the L2 cache (1 MiB on the
 * hosts we measure on) and copies with vector loads and stores from there
 * on. From 1 to 64 MiB that ran 11-20 % slower than the same bytes copied
 * in pieces of 128 KiB; at 256 MiB, where glibc streams past the cache,
 * 6 % slower (bench/copy_pieces; bench/RESULTS.md, one-sided shared-memory
 * bandwidth). rc_copy copies anything larger than RC_COPY_PIECE in pieces
 * of that size: 128 KiB is under every AMD L2 since Zen (512 KiB and up).
 * Where glibc uses one method for all sizes the pieces cost a call per
 * 128 KiB, a few ns against some 5 us of copy.
 */
#ifndef RC_COPY_H
#define RC_COPY_H

#include <stddef.h>
#include <string.h>
#include "compiler.h"

#define RC_COPY_PIECE ((size_t)128 * 1024)

/* memcpy(d, s, n) for buffers that do not overlap */
static inline void rc_copy(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;

	while (RC_UNLIKELY(n > RC_COPY_PIECE)) {
		memcpy(dp, sp, RC_COPY_PIECE);
		dp += RC_COPY_PIECE;
		sp += RC_COPY_PIECE;
		n -= RC_COPY_PIECE;
	}
	memcpy(dp, sp, n);
}

#endif
