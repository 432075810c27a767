/*
 * verbs_hooks.h - memory hooks that keep the registration cache correct
 * (verbs_hooks.c explains the scheme).
 */
#ifndef RC_VERBS_HOOKS_H
#define RC_VERBS_HOOKS_H

#include <stdbool.h>

/* Keep glibc's malloc from unmapping or trimming memory through paths the
 * hooks cannot see (once per process, when verbs registers user memory). */
void rc_verbs_hooks_malloc_tune(void);
/* How many hooked calls the process made (tests: are the hooks live?). */
unsigned long rc_verbs_hooks_calls(void);
/* Whether this build has the hooks (not under ThreadSanitizer). */
bool rc_verbs_hooks_live(void);

#endif
