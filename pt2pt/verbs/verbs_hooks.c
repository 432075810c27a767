/*
 * verbs_hooks.c - how the registration cache learns that memory goes away.
 *
 * librcmpi defines munmap, mremap, madvise, brk, sbrk, shmat, shmdt and
 * mmap/mmap64 itself. Programs linked with it (and libraries they load)
 * resolve those names here first; each hook tells every registration cache
 * which range is about to be unmapped or replaced (rc_rcache_invalidate_all)
 * and then calls the next definition, found with dlsym(RTLD_NEXT) (libc's,
 * or a sanitizer's). Only the address range matters: caches drop entries
 * overlapping it before the kernel changes the mapping.
 *
 * What the hooks cannot see: glibc's malloc unmaps and trims through
 * internal aliases (__munmap, __madvise, __brk) that no interposer reaches.
 * Two measures cover it:
 *  - rc_verbs_hooks_malloc_tune() asks glibc never to give memory back
 *    behind our back once verbs is in use: mallopt(M_MMAP_MAX, 0) (large
 *    blocks come from the heap, not from mmap) and M_TRIM_THRESHOLD /
 *    M_TOP_PAD (the heap never shrinks). Freed memory then stays mapped to
 *    the same pages, so a cached registration of it stays valid whoever
 *    reuses it (Open MPI's leave-pinned trade).
 *  - free() and realloc() are hooked too, for the blocks glibc mmapped
 *    anyway (before MPI_Init, or with RCMPI_VERBS_MALLOPT=0): when the next
 *    free is glibc's and the chunk header just before the pointer has the
 *    IS_MMAPPED bit, the whole mapping (prev_size bytes before the chunk,
 *    prev_size + size long, as glibc's munmap_chunk computes it) is
 *    invalidated before glibc unmaps it. Other allocators (jemalloc,
 *    tcmalloc, a sanitizer's) are left alone: glibc unmaps none of theirs.
 *
 * Invalidation range for each call:
 *   munmap(a, n), shmdt(a) (size recorded by shmat), madvise(a, n,
 *   DONTNEED|FREE|REMOVE), mremap(a, old, ...) (the old range),
 *   mmap(a, n, MAP_FIXED), sbrk(-n) / brk(lower) (the released top).
 */
#include <dlfcn.h>
#include <string.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "verbs_hooks.h"
#include "verbs_rcache.h"

/* ThreadSanitizer calls mmap while it initialises, before any function it
 * instruments may run: a TSan build has no hooks, and so no registration
 * cache (vb_params_read turns it off; every transfer registers its own
 * memory). */
#if defined(__SANITIZE_THREAD__)
#define RC_HOOKS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RC_HOOKS 0
#endif
#endif
#ifndef RC_HOOKS
#define RC_HOOKS 1
#endif

static unsigned long hook_calls;

unsigned long rc_verbs_hooks_calls(void)
{
	return __atomic_load_n(&hook_calls, __ATOMIC_RELAXED);
}

bool rc_verbs_hooks_live(void)
{
	return RC_HOOKS;
}

#if RC_HOOKS
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*madvise_fn)(void *, size_t, int);
typedef int (*brk_fn)(void *);
typedef void *(*sbrk_fn)(intptr_t);
typedef void *(*shmat_fn)(int, const void *, int);
typedef int (*shmdt_fn)(const void *);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void (*free_fn)(void *);
typedef void *(*realloc_fn)(void *, size_t);

/* glibc's own entry points, usable before dlsym has answered */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

static struct {
	munmap_fn munmap;
	mremap_fn mremap;
	madvise_fn madvise;
	brk_fn brk;
	sbrk_fn sbrk;
	shmat_fn shmat;
	shmdt_fn shmdt;
	mmap_fn mmap;
	mmap_fn mmap64;
	free_fn free;
	realloc_fn realloc;
	bool glibc_malloc; /* the next free is glibc's */
} next;
static volatile int resolving;

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* noinline: gcc 12's link-time optimiser stops with an internal error
 * (copy_bb) inlining this constructor into the hooks. */
__attribute__((constructor, noinline)) static void hooks_resolve(void)
{
	if (next.munmap)
		return;
	resolving = 1;
	next.mremap = (mremap_fn)next_sym("mremap");
	next.madvise = (madvise_fn)next_sym("madvise");
	next.brk = (brk_fn)next_sym("brk");
	next.sbrk = (sbrk_fn)next_sym("sbrk");
	next.shmat = (shmat_fn)next_sym("shmat");
	next.shmdt = (shmdt_fn)next_sym("shmdt");
	next.mmap = (mmap_fn)next_sym("mmap");
	next.mmap64 = (mmap_fn)next_sym("mmap64");
	next.realloc = (realloc_fn)next_sym("realloc");
	next.free = (free_fn)next_sym("free");
	if (next.free) {
		Dl_info di;

		next.glibc_malloc = dladdr((void *)next.free, &di) &&
				    di.dli_fname &&
				    strstr(di.dli_fname, "libc.so");
	}
	next.munmap = (munmap_fn)next_sym("munmap");
	resolving = 0;
}

static inline bool hooks_ready(void)
{
	if (__builtin_expect(!next.munmap, 0) && !resolving)
		hooks_resolve();
	return next.munmap != NULL;
}

static inline void inval(const void *addr, size_t len)
{
	__atomic_fetch_add(&hook_calls, 1, __ATOMIC_RELAXED);
	if (len)
		rc_rcache_invalidate_all((uintptr_t)addr,
					 (uintptr_t)addr + len);
}

/* Until dlsym has answered (a call made while it runs), the system call
 * itself stands in for the next definition. */
int munmap(void *addr, size_t len)
{
	inval(addr, len);
	if (!hooks_ready())
		return (int)syscall(SYS_munmap, addr, len);
	return next.munmap(addr, len);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
		inval(new_addr, new_len);
	}
	inval(old, old_len);
	if (!hooks_ready() || !next.mremap)
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags,
				       new_addr);
	return next.mremap(old, old_len, new_len, flags, new_addr);
}

int madvise(void *addr, size_t len, int advice)
{
	if (advice == MADV_DONTNEED || advice == MADV_REMOVE
#ifdef MADV_FREE
	    || advice == MADV_FREE
#endif
	)
		inval(addr, len);
	if (!hooks_ready() || !next.madvise)
		return (int)syscall(SYS_madvise, addr, len, advice);
	return next.madvise(addr, len, advice);
}

int brk(void *addr)
{
	void *cur;

	if (!hooks_ready() || !next.brk || !next.sbrk) {
		errno = ENOMEM;
		return -1;
	}
	cur = next.sbrk(0);
	if (cur != (void *)-1 && (uintptr_t)addr < (uintptr_t)cur)
		inval(addr, (uintptr_t)cur - (uintptr_t)addr);
	return next.brk(addr);
}

void *sbrk(intptr_t inc)
{
	if (!hooks_ready() || !next.sbrk) {
		errno = ENOMEM;
		return (void *)-1;
	}
	if (inc < 0) {
		char *cur = next.sbrk(0);

		if (cur != (char *)-1)
			inval(cur + inc, (size_t)-inc);
	}
	return next.sbrk(inc);
}

/* shmdt() gets no size: remember what shmat() attached. */
#define SHM_TRACK 64
static struct {
	const void *addr;
	size_t len;
} shm_seen[SHM_TRACK];
static pthread_mutex_t shm_lock = PTHREAD_MUTEX_INITIALIZER;

void *shmat(int id, const void *addr, int flags)
{
	struct shmid_ds ds;
	void *p;
	int i;

	if (!hooks_ready() || !next.shmat) {
		errno = ENOSYS;
		return (void *)-1;
	}
	p = next.shmat(id, addr, flags);
	if (p == (void *)-1 || shmctl(id, IPC_STAT, &ds))
		return p;
	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < SHM_TRACK; i++) {
		if (!shm_seen[i].addr || shm_seen[i].addr == p) {
			shm_seen[i].addr = p;
			shm_seen[i].len = ds.shm_segsz;
			break;
		}
	}
	pthread_mutex_unlock(&shm_lock);
	return p;
}

int shmdt(const void *addr)
{
	size_t len = 0;
	int i;

	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < SHM_TRACK; i++) {
		if (shm_seen[i].addr == addr) {
			len = shm_seen[i].len;
			shm_seen[i].addr = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&shm_lock);
	/* untracked (table full): drop everything from addr on, to be safe */
	inval(addr, len ? len : (size_t)(UINTPTR_MAX - (uintptr_t)addr));
	if (!hooks_ready() || !next.shmdt)
		return (int)syscall(SYS_shmdt, addr);
	return next.shmdt(addr);
}

static void *mmap_common(mmap_fn fn, void *addr, size_t len, int prot,
			 int flags, int fd, off_t off)
{
	if (flags & MAP_FIXED)
		inval(addr, len);
	if (!hooks_ready() || !fn)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd,
				       off);
	return fn(addr, len, prot, flags, fd, off);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap_common(next.mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap_common(next.mmap64 ? next.mmap64 : next.mmap, addr, len,
			   prot, flags, fd, off);
}

/* glibc's chunk header: prev_size and size (low bits: flags) just before
 * the user pointer; an mmapped chunk sits prev_size bytes into its mapping
 * (alignment padding) and the mapping is prev_size + size long. */
#define GLIBC_MMAPPED 0x2u

static inline __attribute__((unused)) void inval_mmapped_chunk(void *p)
{
	const size_t *h = p;

	if (!p || !next.glibc_malloc || !rc_rcache_active() ||
	    !(h[-1] & GLIBC_MMAPPED))
		return;
	inval((const char *)p - 2 * sizeof(size_t) - h[-2],
	      h[-2] + (h[-1] & ~(size_t)7));
}

/* Under a sanitizer its allocator replaces glibc's: nothing to watch, and
 * a free() of ours would sit in front of the sanitizer's own. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RC_HOOK_FREE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define RC_HOOK_FREE 0
#endif
#endif
#ifndef RC_HOOK_FREE
#define RC_HOOK_FREE 1
#endif

#if RC_HOOK_FREE
void free(void *p)
{
	if (__builtin_expect(!next.free, 0)) {
		if (resolving || !hooks_ready() || !next.free) {
			__libc_free(p);
			return;
		}
	}
	inval_mmapped_chunk(p);
	next.free(p);
}

void *realloc(void *p, size_t len)
{
	if (__builtin_expect(!next.realloc, 0)) {
		if (resolving || !hooks_ready() || !next.realloc)
			return __libc_realloc(p, len);
	}
	/* an mmapped chunk may move (mremap) or be unmapped */
	inval_mmapped_chunk(p);
	return next.realloc(p, len);
}
#endif

#endif /* RC_HOOKS */

void rc_verbs_hooks_malloc_tune(void)
{
	static int done;

	if (done)
		return;
	done = 1;
#if RC_HOOKS
	hooks_ready();
#endif
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, -1);
	mallopt(M_TOP_PAD, 1 << 20);
}
