/*
 * compiler.h - compiler helpers shared by every layer.
 */
#ifndef RC_COMPILER_H
#define RC_COMPILER_H

#define RC_LIKELY(x) __builtin_expect(!!(x), 1)
#define RC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RC_CACHELINE 64

#endif
