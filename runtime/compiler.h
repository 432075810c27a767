/*
 * compiler.h - compiler helpers shared by every layer.
 */
#ifndef RC_COMPILER_H
#define RC_COMPILER_H

#define RC_LIKELY(x) __builtin_expect(!!(x), 1)
#define RC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RC_CACHELINE 64

/*
 * Ask for the cache line at p for writing (ownership) ahead of a store, so
 * that taking it from another core's cache overlaps with other work. On
 * x86 gcc emits PREFETCHW only when the target CPU is known to have it,
 * so it is written out: CPUs without it run it as a NOP.
 */
static inline void rc_prefetch_w(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

#endif
