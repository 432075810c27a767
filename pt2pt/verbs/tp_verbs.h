/*
 * tp_verbs.h - what the engine may ask the verbs transport beyond tp.h.
 */
#ifndef RC_TP_VERBS_H
#define RC_TP_VERBS_H

/* Why the verbs transport could not open (no device, no active port, ...),
 * for the engine's message when a peer needs verbs. */
const char *rc_tp_verbs_open_error(void);

#endif
