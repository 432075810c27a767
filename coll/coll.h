/*
 * coll.h - the collective module's interface to the runtime.
 */
#ifndef RC_COLL_H
#define RC_COLL_H

struct rc_inst;

int rc_coll_open(struct rc_inst *inst);
void rc_coll_close(struct rc_inst *inst);
/* A barrier over MPI_COMM_WORLD's collective context that keeps every
 * transport progressing (MPI_Finalize's last exchange). */
int rc_coll_fence(struct rc_inst *inst);

#endif
