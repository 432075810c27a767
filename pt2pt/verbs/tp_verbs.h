/*
 * tp_verbs.h - what the engine may ask the verbs transport beyond tp.h.
 */
#ifndef RC_TP_VERBS_H
#define RC_TP_VERBS_H

#include <stdbool.h>

/* Why the verbs transport could not open (no device, no active port, ...),
 * for the engine's message when a peer needs verbs. */
const char *rc_tp_verbs_open_error(void);

struct rc_inst;

/* Whether the verbs transport fences at connect (every QP in RTR before
 * anyone sends) or at close (nobody destroys a QP before everyone has
 * drained); carries: verbs carries messages to some peer of ours. Every
 * rank of the job decides the same, with or without a device: on several
 * nodes always (a node without one, reaching the others over TCP, fences
 * in the engine instead), on one node when verbs carries messages (the
 * same devices and environment for every rank). */
bool rc_tp_verbs_fences(struct rc_inst *inst, bool carries, bool at_close);

/* May verbs connections come on first use (RCMPI_VERBS_CM=rdmacm, or
 * auto past RCMPI_VERBS_CM_AUTO_RANKS)? The same answer on every rank,
 * with or without a device. */
bool rc_tp_verbs_on_demand(const struct rc_inst *inst);

#endif
