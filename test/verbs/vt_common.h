/*
 * vt_common.h - helpers for the verbs suite's MPI programs (plain MPI C:
 * the same sources build against Open MPI for side-by-side runs).
 *
 * Each program prints "vt: <name>: ok" from rank 0 when every check on
 * every rank passed, or "vt: <name>: FAILED (<n> checks)" and exits 1.
 */
#ifndef VT_COMMON_H
#define VT_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int vt_fails;
static int vt_rank, vt_size;

#define VT_CHECK(cond, ...)                                              \
	do {                                                             \
		if (!(cond)) {                                           \
			vt_fails++;                                      \
			if (vt_fails <= 10) {                            \
				fprintf(stderr,                          \
					"vt: rank %d: %s:%d: ", vt_rank, \
					__FILE__, __LINE__);             \
				fprintf(stderr, __VA_ARGS__);            \
				fputc('\n', stderr);                     \
			}                                                \
		}                                                        \
	} while (0)

static inline void vt_init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &vt_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &vt_size);
}

/* Byte i of message `seed` from rank src. */
static inline unsigned char vt_byte(size_t i, int src, int seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(src * 131 + seed);

	return (unsigned char)(x >> 13 ^ x);
}

static inline void vt_fill(void *buf, size_t n, int src, int seed)
{
	unsigned char *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = vt_byte(i, src, seed);
}

/* First bad byte or -1. */
static inline long vt_verify(const void *buf, size_t n, int src, int seed)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != vt_byte(i, src, seed))
			return (long)i;
	return -1;
}

/* Collectives may be missing: a barrier and a sum over pt2pt (the tests
 * use no other tag that high). */
#define VT_TAG_SYNC 32000

static inline int vt_sum(int v)
{
	int i, x, all = v;

	if (vt_rank) {
		MPI_Send(&v, 1, MPI_INT, 0, VT_TAG_SYNC, MPI_COMM_WORLD);
		MPI_Recv(&all, 1, MPI_INT, 0, VT_TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		return all;
	}
	for (i = 1; i < vt_size; i++) {
		MPI_Recv(&x, 1, MPI_INT, i, VT_TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		all += x;
	}
	for (i = 1; i < vt_size; i++)
		MPI_Send(&all, 1, MPI_INT, i, VT_TAG_SYNC, MPI_COMM_WORLD);
	return all;
}

static inline void vt_barrier(void)
{
	(void)vt_sum(0);
}

static inline int vt_finish(const char *name)
{
	int all = vt_sum(vt_fails);

	if (vt_rank == 0) {
		if (all)
			printf("vt: %s: FAILED (%d checks)\n", name, all);
		else
			printf("vt: %s: ok\n", name);
		fflush(stdout);
	}
	MPI_Finalize();
	return all ? 1 : 0;
}

#endif
