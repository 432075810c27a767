/*
 * vt_rcache.c - the registration cache stays correct when memory is freed
 * and new memory appears at the same address. Rank 0 sends rendezvous-sized
 * messages to rank 1; before each send both sides get their buffer by the
 * method of the case, fill it (rank 0: new contents; rank 1: a poison
 * pattern) and rank 1 checks it received the new contents. Both sides'
 * caches are exercised: with RCMPI_RNDV_MODE=get rank 1 reads into its
 * registered buffer, with put rank 0 writes into it.
 *
 * Cases (each: send, release the memory, get memory back at the same
 * address, send again):
 *   same       the same buffer, new contents (a cache hit)
 *   malloc     free() then malloc() of the same size
 *   realloc    the block moves away by realloc(), malloc() takes its place
 *   munmap     munmap() then mmap(MAP_FIXED) at the same address
 *   mapfixed   mmap(MAP_FIXED) straight over the mapping
 *   dontneed   madvise(MADV_DONTNEED): the kernel drops the pages
 *   mremap     mremap() moves the mapping, mmap(MAP_FIXED) refills it
 *   shm        shmdt() then shmat() of another segment at the address
 *   preinit    a block malloc'd (so mmapped by glibc) before MPI_Init,
 *              sent, freed (glibc unmaps it through its internal
 *              __munmap), new memory mmapped at the same address
 * A case where malloc did not hand back the same address still checks the
 * data, and says so ("address not reused"); the mmap-based cases always
 * reuse it.
 */
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include "vt_common.h"

#define LEN (1 << 20)

static int seed;

static void *map_at(void *addr)
{
	void *p = mmap(addr, LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0), -1,
		       0);

	if (p == MAP_FAILED) {
		perror("mmap");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* One transfer rank 0 -> rank 1 through buf (LEN bytes). */
static void xfer(void *buf, const char *what, int step)
{
	seed++;
	if (vt_rank == 0) {
		vt_fill(buf, LEN, 0, seed);
		MPI_Send(buf, LEN, MPI_BYTE, 1, step, MPI_COMM_WORLD);
	} else if (vt_rank == 1) {
		long bad;

		memset(buf, 0x5a, LEN);
		MPI_Recv(buf, LEN, MPI_BYTE, 0, step, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		bad = vt_verify(buf, LEN, 0, seed);
		VT_CHECK(bad < 0, "%s, transfer %d: byte %ld is stale", what,
			 step, bad);
	}
}

static void note(const char *what, void *a, void *b)
{
	if (vt_rank <= 1)
		printf("vt: rcache: rank %d: %s: address %s\n", vt_rank, what,
		       a == b ? "reused" : "not reused");
}

int main(int argc, char **argv)
{
	void *a, *b, *c, *pre;
	uintptr_t pre_off;
	int id;

	pre = malloc(LEN); /* >= 128 KiB before MPI_Init: mmapped */
	vt_init(&argc, &argv);

	a = malloc(LEN);
	xfer(a, "same", 0);
	xfer(a, "same", 1);
	free(a);

	a = malloc(LEN);
	xfer(a, "malloc", 0);
	free(a);
	b = malloc(LEN);
	note("malloc", a, b);
	xfer(b, "malloc", 1);
	free(b);

	a = malloc(LEN);
	xfer(a, "realloc", 0);
	b = realloc(a, 4 * LEN);
	c = malloc(LEN);
	note("realloc", a, c);
	xfer(c, "realloc", 1);
	free(c);
	free(b);

	a = map_at(NULL);
	xfer(a, "munmap", 0);
	munmap(a, LEN);
	b = map_at(a);
	xfer(b, "munmap", 1);

	xfer(b, "mapfixed", 0);
	c = map_at(b);
	xfer(c, "mapfixed", 1);

	xfer(c, "dontneed", 0);
	madvise(c, LEN, MADV_DONTNEED);
	xfer(c, "dontneed", 1);

	xfer(c, "mremap", 0);
	b = map_at(NULL); /* the destination: our own mapping */
	b = mremap(c, LEN, LEN, MREMAP_MAYMOVE | MREMAP_FIXED, b);
	VT_CHECK(b != MAP_FAILED, "mremap failed");
	a = map_at(c);
	xfer(a, "mremap", 1);
	munmap(a, LEN);
	if (b != MAP_FAILED)
		munmap(b, LEN);

	id = shmget(IPC_PRIVATE, LEN, IPC_CREAT | 0600);
	a = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	xfer(a, "shm", 0);
	shmdt(a);
	id = shmget(IPC_PRIVATE, LEN, IPC_CREAT | 0600);
	b = shmat(id, a, 0);
	shmctl(id, IPC_RMID, NULL);
	VT_CHECK(b == a, "shmat did not take the old address");
	xfer(b, "shm", 1);
	shmdt(b);

	/* glibc's mapping: from the page holding the chunk header, LEN and
	 * the header rounded up to pages */
	memset(pre, 0, LEN);
	xfer(pre, "preinit", 0);
	a = (void *)((uintptr_t)pre & ~(uintptr_t)4095);
	pre_off = (uintptr_t)pre & 4095; /* where the block sat in its page */
	free(pre);
	b = mmap(a, LEN + 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	VT_CHECK(b == a, "preinit: the freed block's address is not free");
	if (b == a)
		xfer((char *)b + pre_off, "preinit", 1); /* at pre */
	if (b != MAP_FAILED)
		munmap(b, LEN + 4096);

	return vt_finish("rcache");
}
