/*
 * bsend.c - buffered mode (MPI-3.1 section 3.6): MPI_Bsend, MPI_Ibsend and
 * MPI_Bsend_init copy the message into the buffer the program attached and
 * send it from there; the call returns at once.
 *
 * The attached buffer is carved by a first-fit allocator: every message
 * gets one block, a header (struct bsend_blk) followed by the packed data,
 * on a list of blocks in address order; the free space is the gaps between
 * them. Blocks start on BSEND_ALIGN boundaries, so one message costs its
 * packed size plus at most BSEND_ALIGN - 1 + sizeof(struct bsend_blk)
 * bytes, plus BSEND_ALIGN - 1 once for an unaligned buffer: less than
 * MPI_BSEND_OVERHEAD (asserted below), so MPI_Pack_size + MPI_BSEND_OVERHEAD
 * per message always suffices.
 *
 *   post:     find a gap, pack the data into a new block, start a pooled
 *             standard-mode send of the packed bytes whose completion
 *             callback frees the block (the send request frees itself)
 *   complete: (inside progress) unlink the block: the space is free again
 *   detach:   progress until no block is left, then forget the buffer
 *
 * Nothing is ever allocated behind the program's back: no room is
 * RC_ERR_BUFFER (MPI_ERR_BUFFER). MPI_Finalize waits for the sends like for
 * any other (rc_p2p_drain), then rc_bsend_fini forgets the buffer.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "dtype.h"
#include "inst.h"
#include "log.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"

#define BSEND_ALIGN 16u

struct bsend_blk {
	struct rc_list link; /* the pool's blocks, by address */
	size_t size;	     /* bytes of the block, header included */
	size_t len;	     /* packed bytes after the header */
};

#define BLK_HDR                                         \
	((sizeof(struct bsend_blk) + BSEND_ALIGN - 1) & \
	 ~(size_t)(BSEND_ALIGN - 1))

_Static_assert(BLK_HDR + 2 * (BSEND_ALIGN - 1) <= MPI_BSEND_OVERHEAD,
	       "MPI_BSEND_OVERHEAD must cover a block header and alignment");

struct rc_bsend {
	void *ubuf; /* as attached */
	size_t usize;
	char *base; /* aligned start of the usable space */
	char *end;
	struct rc_list blocks;
	unsigned nblocks;
};

static inline size_t align_up(size_t n)
{
	return (n + BSEND_ALIGN - 1) & ~(size_t)(BSEND_ALIGN - 1);
}

int rc_bsend_attach(struct rc_inst *inst, void *buf, size_t size)
{
	struct rc_bsend *bs;
	uintptr_t a = (uintptr_t)buf;
	uintptr_t b = (a + BSEND_ALIGN - 1) & ~(uintptr_t)(BSEND_ALIGN - 1);

	if (inst->bsend)
		return RC_ERR_BUFFER;
	bs = calloc(1, sizeof(*bs));
	if (!bs)
		return RC_ERR_NOMEM;
	bs->ubuf = buf;
	bs->usize = size;
	bs->base = (char *)b;
	bs->end = b - a < size ? (char *)(a + size) : (char *)b;
	rc_list_init(&bs->blocks);
	inst->bsend = bs;
	return RC_OK;
}

bool rc_bsend_busy(struct rc_inst *inst)
{
	return inst->bsend && inst->bsend->nblocks;
}

int rc_bsend_detach(struct rc_inst *inst, void **buf, size_t *size)
{
	struct rc_bsend *bs = inst->bsend;

	if (!bs) {
		*buf = NULL;
		*size = 0;
		return RC_OK;
	}
	while (bs->nblocks) {
		if (!rc_progress(inst) && bs->nblocks)
			rc_progress_idle(inst);
	}
	*buf = bs->ubuf;
	*size = bs->usize;
	inst->bsend = NULL;
	free(bs);
	return RC_OK;
}

void rc_bsend_fini(struct rc_inst *inst)
{
	/* after rc_p2p_drain every buffered send has left (an aborted
	 * MPI_Init or a failed job may leave blocks: the memory is the
	 * program's) */
	free(inst->bsend);
	inst->bsend = NULL;
}

/* First fit: the block that starts the first gap of need bytes, linked in
 * address order; NULL when no gap is large enough. */
static struct bsend_blk *blk_alloc(struct rc_bsend *bs, size_t need)
{
	char *start = bs->base;
	struct rc_list *pos;
	struct bsend_blk *blk;

	rc_list_for_each(pos, &bs->blocks) {
		blk = rc_list_entry(pos, struct bsend_blk, link);
		if ((size_t)((char *)blk - start) >= need)
			goto found;
		start = (char *)blk + blk->size;
	}
	if (start > bs->end || (size_t)(bs->end - start) < need)
		return NULL;
found:
	/* pos is the block the new one goes before (or the list head) */
	blk = (struct bsend_blk *)start;
	blk->size = need;
	rc_list_add_tail(pos, &blk->link);
	bs->nblocks++;
	return blk;
}

static void blk_free(struct rc_bsend *bs, struct bsend_blk *blk)
{
	rc_list_del(&blk->link);
	bs->nblocks--;
}

/* The send of a block completed (inside progress): its space is free. */
static void bsend_done(struct rc_req *req)
{
	struct rc_bsend *bs = req->inst->bsend;

	if (req->err)
		rc_log_err("buffered send to rank %d failed: %s", req->peer,
			   rc_status_str(req->err));
	blk_free(bs, req->cb_data);
}

int rc_bsend_post(struct rc_comm *comm, uint32_t ctx, const void *buf,
		  size_t count, struct rc_dtype *dt, int dst, int tag)
{
	struct rc_inst *inst = comm->inst;
	struct rc_bsend *bs = inst->bsend;
	size_t len = count * dt->size;
	struct bsend_blk *blk;
	struct rc_req *req;
	void *data;
	int ret;

	if (dst == MPI_PROC_NULL)
		return RC_OK;
	if (!bs)
		return RC_ERR_BUFFER;
	blk = blk_alloc(bs, BLK_HDR + align_up(len));
	if (!blk) {
		/* sends that completed since are reaped by progress */
		rc_progress(inst);
		blk = blk_alloc(bs, BLK_HDR + align_up(len));
		if (!blk)
			return RC_ERR_BUFFER;
	}
	blk->len = len;
	data = (char *)blk + BLK_HDR;
	rc_dt_pack(dt, count, buf, 0, data, len);
	req = rc_req_alloc(inst, RC_REQ_SEND);
	if (!req) {
		ret = RC_ERR_NOMEM;
		goto err_blk;
	}
	rc_p2p_req_setup(req, comm, ctx, data, len, &rc_mpi_byte, dst, tag,
			 RC_SEND_STD);
	req->cb = bsend_done;
	req->cb_data = blk;
	/* nobody waits on it: it frees itself when it completes */
	req->flags |= RC_REQ_USER_FREED;
	ret = rc_p2p_start(req);
	if (ret)
		goto err_req;
	return RC_OK;

err_req:
	rc_req_free(req);
err_blk:
	blk_free(bs, blk);
	return ret;
}
