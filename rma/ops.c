/*
 * ops.c - the operations: put, get, accumulate, get_accumulate (and
 * fetch_and_op), compare_and_swap, at the origin and at the target.
 *
 * Origin, AM path. An operation is one byte stream to the target: an
 * rma_op_hdr, then the target datatype's description when it is derived
 * (struct rma_dt_desc and its flattened blocks), then the origin's data
 * packed in type-map order. When everything fits in one message (the
 * peer's eager limit) it leaves at once, or as a copy queued behind the
 * peer's earlier messages: the origin buffer is free on return and no
 * state is kept (put, accumulate). Otherwise the operation becomes a
 * stream (struct rma_op) that pt2pt pushes in order, packing each message
 * from the origin buffer as its turn comes; accumulate messages carry
 * whole elements only, so each element is applied in one piece. Results
 * (get, get_accumulate, compare_and_swap) come back as REPLY messages,
 * unpacked into the result buffer at their offset.
 *
 * Target. The stream from each origin is consumed as it arrives (one at a
 * time per origin: its messages arrive in order): the description is
 * collected and turned into a datatype (rc_dt_create_flat; predefined
 * types are named by their basic kind), the range checked against the
 * window (dynamic windows: against the attached regions), then data is
 * applied chunk by chunk: put unpacks it, accumulate packs the target's
 * current values, combines them with rc_op_apply_packed and unpacks them
 * back. All of this runs in the target's progress, one message at a time,
 * so the target's CPU is the one agent: an element is never half-updated
 * when another origin's accumulate reads it. get_accumulate saves the old
 * values before applying; get answers with a stream that reads the window
 * as it goes out (the origin waits for it before it ends the epoch).
 *
 * SHM path (allocate_shared; allocate on one node): the origin does all
 * of this itself on the target's memory mapped here, accumulates under
 * the target's accumulate lock (see "the SHM path" below); nothing is
 * sent.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "copy.h"
#include "log.h"
#include "rma_impl.h"

#define RMA_CHUNK 4096	/* scratch for packing */
#define RMA_MIN_ROOM 256	/* payload of a message, at least */
#define RMA_FRAG_MAX 65536	/* payload of a stream's message, at most */

/* ---- applying data at the target ----------------------------------------- */

/* One request-sized piece of scratch, aligned for every basic kind. */
struct rma_scratch {
	_Alignas(64) unsigned char b[RMA_CHUNK];
};

static void acc_apply(const struct rc_op *op, struct rc_dtype *dt,
		      size_t count, char *tbuf, size_t off, const char *data,
		      size_t n)
{
	const enum rc_basic b = rma_acc_basic(dt->basic);
	const size_t esize = rc_basic_size(b);
	const size_t step = RMA_CHUNK / esize * esize;
	struct rma_scratch s;
	size_t k, m;

	if (rc_dt_is_contig(dt, count)) {
		/* contiguous memory holds the packed layout */
		rc_op_apply_packed(op, b, data,
				   (char *)rc_dt_contig_ptr(dt, tbuf) + off,
				   n / esize);
		return;
	}
	for (k = 0; k < n; k += m) {
		m = n - k < step ? n - k : step;
		rc_dt_pack(dt, count, tbuf, off + k, s.b, m);
		rc_op_apply_packed(op, b, data + k, s.b, m / esize);
		rc_dt_unpack(dt, count, tbuf, off + k, s.b, m);
	}
}

void rma_apply(int type, const struct rc_op *op, struct rc_dtype *dt,
	       size_t count, char *tbuf, size_t off, const void *data,
	       size_t n, char *old)
{
	if (!n)
		return;
	if (type == RMA_GACC && old)
		rc_dt_pack(dt, count, tbuf, off, old + off, n);
	if (type == RMA_PUT || op->kind == RC_OP_REPLACE) {
		rc_dt_unpack(dt, count, tbuf, off, data, n);
		return;
	}
	if (op->kind == RC_OP_NO_OP)
		return;
	acc_apply(op, dt, count, tbuf, off, data, n);
}

/* compare_and_swap on the one element of predefined type dt at p (what
 * MPI_Compare_and_swap takes): old gets its value, val replaces it when
 * that equals cmp. Only p and old are written, so val and cmp may be the
 * caller's result buffer. */
static void cas_apply(const struct rc_dtype *dt, char *p, const char *val,
		      const char *cmp, char *old)
{
	assert(rc_dt_is_contig(dt, 1));
	p = rc_dt_contig_ptr(dt, p);
	memcpy(old, p, dt->size);
	if (!memcmp(old, cmp, dt->size))
		memcpy(p, val, dt->size);
}

/*
 * Payload room of one message to world rank w after a header of hlen.
 * What goes as one message, copied into the peer's queue if need be: the
 * peer's eager limit. A stream's messages: as large as the transport
 * takes, up to RMA_FRAG_MAX (on shared memory a quarter ring: measured 3x
 * the bandwidth of eager-sized fragments at 1 MiB, each fragment costing
 * both sides a ring round). Whole elements of every kind fit whatever
 * RCMPI_EAGER_LIMIT says.
 */
static size_t rma_room(struct rc_inst *inst, int w, size_t hlen, bool stream)
{
	size_t room = stream ? RMA_FRAG_MAX : rc_am_frag(inst, w);
	size_t max = rc_am_max(inst, w) - hlen;

	if (room < RMA_MIN_ROOM)
		room = RMA_MIN_ROOM;
	return room < max ? room : max;
}

/* ---- replies (target -> origin) ------------------------------------------ */

/* A result going back: from a buffer of old values, or read from the
 * window as it goes (get). */
struct rma_rstream {
	struct rc_am_stream st;
	struct rc_inst *inst;
	struct rma_reply hdr;
	char *buf;		/* owned; NULL: read (tbuf, count, dt) */
	char *tbuf;
	size_t count;
	struct rc_dtype *dt;	/* retained */
	size_t len, off;
};

static void rstream_free(struct rma_rstream *r)
{
	free(r->buf);
	if (r->dt)
		rc_dt_release(r->dt);
	free(r);
}

static int rstream_push(struct rc_am_stream *st)
{
	struct rma_rstream *r = rc_container_of(st, struct rma_rstream, st);
	struct rc_rma *rma = rma_of(r->inst);
	size_t room = rma_room(r->inst, st->wrank, sizeof(r->hdr), true);
	const void *p;
	int ret;

	while (r->off < r->len) {
		size_t n = r->len - r->off < room ? r->len - r->off : room;

		if (r->buf) {
			p = r->buf + r->off;
		} else if (rc_dt_is_contig(r->dt, r->count)) {
			p = (char *)rc_dt_contig_ptr(r->dt, r->tbuf) + r->off;
		} else {
			rc_dt_pack(r->dt, r->count, r->tbuf, r->off,
				   rma->bounce, n);
			p = rma->bounce;
		}
		r->hdr.off = r->off;
		ret = rc_am_send_now(r->inst, st->wrank, RC_AM_RMA, &r->hdr,
				     sizeof(r->hdr), p, n);
		if (ret)
			return ret;
		r->off += n;
	}
	rstream_free(r);
	return RC_OK;
}

static void rstream_drop(struct rc_am_stream *st, int status)
{
	rstream_free(rc_container_of(st, struct rma_rstream, st));
}

/*
 * Send a result to world rank w for op id: len bytes from buf (owned,
 * freed here) or from (tbuf, count, dt); status != RC_OK: no data.
 */
static void reply_send(struct rc_inst *inst, int w, uint32_t win, uint64_t id,
		       int status, char *buf, char *tbuf, size_t count,
		       struct rc_dtype *dt, size_t len)
{
	struct rc_rma *rma = rma_of(inst);
	struct rma_rstream *r;
	struct rma_reply h;
	size_t room = rma_room(inst, w, sizeof(h), false);
	const void *p = NULL;

	memset(&h, 0, sizeof(h));
	h.h.type = RMA_REPLY;
	h.h.win = win;
	h.h.arg = id;
	h.status = status;
	if (status)
		len = 0;
	if (len <= room) {
		if (!len)
			p = NULL;
		else if (buf)
			p = buf;
		else if (rc_dt_is_contig(dt, count))
			p = rc_dt_contig_ptr(dt, tbuf);
		else
			p = rma->bounce, rc_dt_pack(dt, count, tbuf, 0,
						    rma->bounce, len);
		/* a dead origin: nothing to answer */
		rc_am_send(inst, w, RC_AM_RMA, &h, sizeof(h), p, len);
		free(buf);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		rc_abort(inst, MPI_ERR_NO_MEM, "out of memory for a reply");
	r->st.push = rstream_push;
	r->st.drop = rstream_drop;
	r->st.wrank = w;
	r->inst = inst;
	r->hdr = h;
	r->buf = buf;
	r->tbuf = tbuf;
	r->count = count;
	r->len = len;
	if (!buf) {
		r->dt = dt;
		rc_dt_retain(dt);
	}
	rc_am_stream_start(inst, &r->st);
}

/* ---- the target: streams arriving ---------------------------------------- */

void rma_in_reset(struct rma_in *in)
{
	free(in->desc);
	free(in->old);
	if (in->dt)
		rc_dt_release(in->dt);
	memset(in, 0, sizeof(*in));
}

/* The description is complete: the datatype, the address, the range. */
static void in_setup(struct rma_in *in)
{
	const struct rma_op_hdr *h = &in->h;
	ptrdiff_t lo, hi;
	int ret;

	if (h->basic >= RC_BASIC_NKINDS) {
		in->err = RC_ERR_INVAL;
		return;
	}
	if (h->desc) {
		const struct rma_dt_desc *d = (const void *)in->desc;
		struct rc_dt_map m;

		if (h->desc < sizeof(*d) ||
		    (h->desc - sizeof(*d)) / sizeof(struct rc_dt_block) !=
			    (d->regular ? 1 : d->nblocks) ||
		    (h->desc - sizeof(*d)) % sizeof(struct rc_dt_block)) {
			in->err = RC_ERR_INVAL;
			return;
		}
		m.blocks = (const void *)(d + 1);
		m.nblocks = d->nblocks;
		m.regular = d->regular;
		m.rstride = d->rstride;
		m.lb = d->lb;
		m.extent = d->extent;
		ret = rc_dt_create_flat((enum rc_basic)h->basic, &m, &in->dt);
		if (ret) {
			in->err = ret;
			return;
		}
	} else {
		in->dt = rc_dt_of_basic((enum rc_basic)h->basic);
		if (!in->dt) {
			in->err = RC_ERR_INVAL;
			return;
		}
		rc_dt_retain(in->dt);
	}
	if (!rma_span(h->count, in->dt, &lo, &hi)) {
		in->err = RC_ERR_RMA_RANGE;
		return;
	}
	ret = rma_target_addr(in->win, h->disp, lo, hi, &in->tbuf);
	if (ret) {
		in->err = ret;
		return;
	}
	if (h->h.type == RMA_ACC || h->h.type == RMA_GACC) {
		const struct rc_op *op =
			rc_op_of_kind((enum rc_op_kind)h->op);

		if (!op || !rma_acc_valid(op, in->dt)) {
			in->err = RC_ERR_INVAL;
			return;
		}
	}
	if (h->h.type == RMA_GACC) {
		in->oldlen = h->count * in->dt->size;
		in->old = malloc(in->oldlen ? in->oldlen : 1);
		if (!in->old) {
			in->err = RC_ERR_NOMEM;
			return;
		}
		/* MPI_NO_OP sends no data: the whole result now */
		if (!h->dlen)
			rc_dt_pack(in->dt, h->count, in->tbuf, 0, in->old,
				   in->oldlen);
	}
}

/* Every byte of the stream is in: answer, as the operation wants. */
static void in_finish(struct rc_rma *rma, int wsrc, struct rma_in *in)
{
	const struct rma_op_hdr *h = &in->h;
	uint32_t wid = h->h.win;
	char *old;

	switch (h->h.type) {
	case RMA_PUT:
	case RMA_ACC:
		if (in->err && in->win) {
			struct rma_hdr e = { .type = RMA_ERR, .win = wid,
					     .arg = (uint64_t)in->err };

			rc_am_send(rma->inst, wsrc, RC_AM_RMA, &e, sizeof(e),
				   NULL, 0);
		}
		break;
	case RMA_GET:
		reply_send(rma->inst, wsrc, wid, h->h.arg,
			   in->err ? in->err : (in->win ? RC_OK : RC_ERR_INVAL),
			   NULL, in->tbuf, h->count, in->dt,
			   in->dt ? h->count * in->dt->size : 0);
		break;
	case RMA_GACC:
		old = in->old;
		in->old = NULL;
		reply_send(rma->inst, wsrc, wid, h->h.arg,
			   in->err ? in->err : (in->win ? RC_OK : RC_ERR_INVAL),
			   old, NULL, 0, NULL, in->oldlen);
		break;
	case RMA_CAS:
		old = NULL;
		if (!in->err && in->win) {
			old = malloc(in->dt->size);
			if (!old)
				rc_abort(rma->inst, MPI_ERR_NO_MEM,
					 "out of memory in compare_and_swap");
			cas_apply(in->dt, in->tbuf, in->cas,
				  in->cas + in->dt->size, old);
		}
		reply_send(rma->inst, wsrc, wid, h->h.arg,
			   in->err ? in->err : (in->win ? RC_OK : RC_ERR_INVAL),
			   old, NULL, 0, NULL, old ? in->dt->size : 0);
		break;
	}
	rma_in_reset(in);
}

void rma_on_op(struct rc_rma *rma, int wsrc, const void *msg, size_t len)
{
	struct rma_in *in = &rma->in[wsrc];
	const struct rma_hdr *h = msg;
	const char *data;
	size_t n, k;

	if (h->type == RMA_DATA) {
		if (!in->active) {
			rc_log_err("one-sided data from rank %d without an "
				   "operation", wsrc);
			rc_abort(rma->inst, MPI_ERR_INTERN, "protocol error");
		}
		data = (const char *)(h + 1);
		n = len - sizeof(*h);
	} else {
		if (in->active || len < sizeof(in->h)) {
			rc_log_err("one-sided operation from rank %d out of "
				   "sequence", wsrc);
			rc_abort(rma->inst, MPI_ERR_INTERN, "protocol error");
		}
		rma_in_reset(in);
		memcpy(&in->h, msg, sizeof(in->h));
		in->active = true;
		in->win = rma_win_lookup(rma, h->win);
		if (!in->win) {
			rc_log_debug("one-sided operation from rank %d for "
				     "window %u, which is gone", wsrc, h->win);
			in->err = RC_ERR_INVAL;
		} else if (in->h.desc) {
			in->desc = malloc(in->h.desc);
			if (!in->desc)
				rc_abort(rma->inst, MPI_ERR_NO_MEM,
					 "out of memory for a datatype");
		} else {
			in_setup(in);
		}
		data = (const char *)msg + sizeof(in->h);
		n = len - sizeof(in->h);
	}
	if (in->dgot < in->h.desc) {
		k = in->h.desc - in->dgot < n ? in->h.desc - in->dgot : n;
		if (in->desc)
			memcpy(in->desc + in->dgot, data, k);
		in->dgot += k;
		data += k;
		n -= k;
		if (in->dgot == in->h.desc && in->win)
			in_setup(in);
	}
	if (n > in->h.dlen - in->got) {
		rc_log_err("one-sided operation from rank %d: %zu bytes too "
			   "many", wsrc, n - (size_t)(in->h.dlen - in->got));
		rc_abort(rma->inst, MPI_ERR_INTERN, "protocol error");
	}
	if (n && !in->err && in->win) {
		if (in->h.h.type == RMA_CAS) {
			if (in->got + n <= sizeof(in->cas))
				memcpy(in->cas + in->got, data, n);
			else
				in->err = RC_ERR_INVAL;
		} else {
			rma_apply(in->h.h.type,
				  rc_op_of_kind((enum rc_op_kind)in->h.op),
				  in->dt, in->h.count, in->tbuf, in->got, data,
				  n, in->old);
		}
	}
	in->got += n;
	if (in->dgot == in->h.desc && in->got == in->h.dlen)
		in_finish(rma, wsrc, in);
}

/* ---- the origin ---------------------------------------------------------- */

static struct rc_req *op_req_new(struct rc_win *win)
{
	struct rc_req *req = rc_req_alloc(win->inst, RC_REQ_RMA);

	if (!req)
		return NULL;
	req->state = RC_REQ_ACTIVE;
	rc_status_set_empty(&req->status);
	req->comm = win->comm;
	rc_comm_retain(win->comm);
	return req;
}

static void op_free(struct rma_op *op)
{
	if (op->odt)
		rc_dt_release(op->odt);
	if (op->rdt)
		rc_dt_release(op->rdt);
	free(op->desc);
	free(op);
}

/* Complete op if nothing of it is left: stream sent, result in. */
static void op_maybe_done(struct rma_op *op)
{
	struct rma_target *tg = &op->win->tg[op->target];

	if (op->sending || (op->want_reply && op->rgot < op->rlen))
		return;
	rc_list_del(&op->link);
	tg->nout--;
	if (op->want_reply)
		rma_of(op->inst)->nreplies--;
	if (op->req) {
		op->req->err = op->err;
		rc_req_complete(op->req);
	} else if (op->err && !tg->err) {
		/* raised by the next synchronisation */
		tg->err = op->err;
	}
	op_free(op);
}

void rma_ops_fail_target(struct rc_win *win, int t, int status)
{
	struct rc_list *pos, *n;

	/* queued streams were dropped by pt2pt already */
	rc_list_for_each_safe(pos, n, &win->ops) {
		struct rma_op *op = rc_list_entry(pos, struct rma_op, link);

		if (op->target != t)
			continue;
		if (!op->err)
			op->err = status;
		op->rgot = op->rlen;
		if (op->sending)
			continue;
		op_maybe_done(op);
	}
}

void rma_ops_probe(struct rc_rma *rma, double now)
{
	struct rc_list *w, *o;

	if (now < rma->probe_at)
		return;
	rma->probe_at = now + 1.0;
	rc_list_for_each(w, &rma->winlist) {
		struct rc_win *win = rc_list_entry(w, struct rc_win, link);

		rc_list_for_each(o, &win->ops) {
			struct rma_op *op = rc_list_entry(o, struct rma_op,
							  link);

			if (op->want_reply && op->target != win->comm->rank)
				rma_send(win, op->target, RMA_PING, 0, 0);
		}
	}
}

void rma_on_reply(struct rc_rma *rma, int wsrc, const void *msg, size_t len)
{
	const struct rma_reply *r = msg;
	struct rma_op *op = (struct rma_op *)(uintptr_t)r->h.arg;
	size_t n = len - sizeof(*r);

	if (r->status) {
		if (!op->err)
			op->err = r->status;
		op->rgot = op->rlen;
	} else {
		if (n > op->rlen - op->rgot || r->off + n > op->rlen) {
			rc_log_err("one-sided reply from rank %d: too long",
				   wsrc);
			rc_abort(rma->inst, MPI_ERR_INTERN, "protocol error");
		}
		rc_dt_unpack(op->rdt, op->rcount, op->rbuf, r->off, r + 1, n);
		op->rgot += n;
	}
	op_maybe_done(op);
}

static size_t op_room(struct rma_op *op, size_t hlen, bool stream)
{
	return rma_room(op->inst, op->st.wrank, hlen, stream);
}

/*
 * Next message of op's stream into (hdr, payload): the description's
 * bytes first, then whole elements of data. Returns the payload length.
 */
static size_t op_next(struct rma_op *op, const void **payload, size_t room)
{
	struct rc_rma *rma = rma_of(op->inst);
	size_t dlen = op->hdr.dlen, pos = op->pos, n = 0, m, dpos;
	bool contig = rc_dt_is_contig(op->odt, op->ocount);

	if (pos < op->desc_len) {
		n = op->desc_len - pos < room ? op->desc_len - pos : room;
		memcpy(rma->bounce, op->desc + pos, n);
		*payload = rma->bounce;
		pos += n;
	}
	if (pos < op->desc_len)
		return n;
	dpos = pos - op->desc_len;
	m = dlen - dpos < room - n ? dlen - dpos : room - n;
	m -= m % op->esize;
	if (!m)
		return n;
	if (!n && contig) {
		*payload = (const char *)rc_dt_contig_ptr(op->odt, op->obuf) +
			   dpos;
		return m;
	}
	if (contig)
		memcpy(rma->bounce + n,
		       (const char *)rc_dt_contig_ptr(op->odt, op->obuf) + dpos,
		       m);
	else
		rc_dt_pack(op->odt, op->ocount, op->obuf, dpos,
			   rma->bounce + n, m);
	*payload = rma->bounce;
	return n + m;
}

static int op_push(struct rc_am_stream *st)
{
	struct rma_op *op = rc_container_of(st, struct rma_op, st);
	size_t total = op->desc_len + op->hdr.dlen, n;
	struct rma_hdr d = { .type = RMA_DATA, .win = op->win->id };
	const void *payload = NULL;
	int ret;

	while (!op->hdr_sent || op->pos < total) {
		const void *h = op->hdr_sent ? (const void *)&d
					     : (const void *)&op->hdr;
		size_t hlen = op->hdr_sent ? sizeof(d) : sizeof(op->hdr);

		n = op_next(op, &payload, op_room(op, hlen, true));
		assert(n || !op->hdr_sent);
		ret = rc_am_send_now(op->inst, st->wrank, RC_AM_RMA, h, hlen,
				     payload, n);
		if (ret)
			return ret;
		op->pos += n;
		op->hdr_sent = true;
	}
	op->sending = false;
	op_maybe_done(op);
	return RC_OK;
}

static void op_drop(struct rc_am_stream *st, int status)
{
	struct rma_op *op = rc_container_of(st, struct rma_op, st);

	if (!op->err)
		op->err = status;
	op->sending = false;
	op->rgot = op->rlen;
	op_maybe_done(op);
}

/* The target datatype's description (derived types), malloc'd. */
static int desc_make(const struct rc_dtype *dt, char **out, size_t *len)
{
	struct rma_dt_desc d = { 0 };
	struct rc_dt_map m;
	size_t nlist, n;
	char *p;

	rc_dt_get_map(dt, &m);
	nlist = m.regular ? 1 : m.nblocks;
	n = sizeof(d) + nlist * sizeof(*m.blocks);
	p = malloc(n);
	if (!p)
		return RC_ERR_NOMEM;
	d.lb = m.lb;
	d.extent = m.extent;
	d.nblocks = m.nblocks;
	d.rstride = m.rstride;
	d.regular = m.regular;
	memcpy(p, &d, sizeof(d));
	memcpy(p + sizeof(d), m.blocks, nlist * sizeof(*m.blocks));
	*out = p;
	*len = n;
	return RC_OK;
}

static const uint8_t op_msg_type[] = {
	[RC_RMA_PUT] = RMA_PUT, [RC_RMA_GET] = RMA_GET,
	[RC_RMA_ACC] = RMA_ACC, [RC_RMA_GACC] = RMA_GACC,
	[RC_RMA_CAS] = RMA_CAS,
};

/* The AM path: returns RC_OK with the request completed or handed to an
 * op, or an error. */
static int am_op(struct rc_win *win, const struct rc_rma_args *a,
		 struct rc_req *req)
{
	struct rma_target *tg = &win->tg[a->target];
	struct rc_inst *inst = win->inst;
	size_t dlen = 0, rlen = 0, frag;
	bool reply = a->kind != RC_RMA_PUT && a->kind != RC_RMA_ACC;
	char casbuf[2 * 32];
	struct rma_op *op;
	int ret;

	switch (a->kind) {
	case RC_RMA_PUT:
	case RC_RMA_ACC:
		dlen = a->ocount * a->odt->size;
		break;
	case RC_RMA_GET:
		rlen = a->tcount * a->tdt->size;
		break;
	case RC_RMA_GACC:
		dlen = a->op->kind == RC_OP_NO_OP ? 0
						   : a->ocount * a->odt->size;
		rlen = a->rcount * a->rdt->size;
		break;
	case RC_RMA_CAS:
		dlen = 2 * a->odt->size;
		rlen = a->odt->size;
		break;
	}
	op = calloc(1, sizeof(*op));
	if (!op)
		return RC_ERR_NOMEM;
	op->inst = inst;
	op->win = win;
	op->target = a->target;
	op->st.wrank = tg->wrank;
	op->st.push = op_push;
	op->st.drop = op_drop;
	op->hdr.h.type = op_msg_type[a->kind];
	op->hdr.h.win = win->id;
	op->hdr.h.arg = (uint64_t)(uintptr_t)op;
	op->hdr.disp = a->disp;
	op->hdr.count = a->tcount;
	op->hdr.dlen = dlen;
	op->hdr.basic = (uint8_t)a->tdt->basic;
	op->hdr.op = a->op ? (uint8_t)a->op->kind : 0;
	if (!(a->tdt->flags & RC_DT_PREDEFINED)) {
		ret = desc_make(a->tdt, &op->desc, &op->desc_len);
		if (ret) {
			free(op);
			return ret;
		}
		op->hdr.desc = op->desc_len;
	}
	/* accumulates carry whole elements of their one basic type; a get
	 * carries no data, and its target type may mix basic types */
	op->esize = a->kind == RC_RMA_PUT || a->kind == RC_RMA_GET
			    ? 1
			    : rc_basic_size(a->tdt->basic);
	if (a->kind == RC_RMA_CAS) {
		/* value then compare value, packed, from our stack: sent
		 * before am_op returns or copied into the queue */
		rc_dt_pack(a->odt, 1, a->obuf, 0, casbuf, a->odt->size);
		rc_dt_pack(a->odt, 1, a->cbuf, 0, casbuf + a->odt->size,
			   a->odt->size);
		op->obuf = casbuf;
		op->ocount = 2 * a->odt->size;
		op->odt = &rc_mpi_byte;
	} else {
		op->obuf = a->obuf;
		op->ocount = a->ocount;
		op->odt = a->odt;
	}
	rc_dt_retain(op->odt);
	if (reply) {
		op->want_reply = true;
		op->rlen = rlen;
		op->rbuf = a->kind == RC_RMA_GET ? (void *)a->obuf : a->rbuf;
		op->rcount = a->kind == RC_RMA_GET ? a->ocount : a->rcount;
		op->rdt = a->kind == RC_RMA_GET ? a->odt : a->rdt;
		if (a->kind == RC_RMA_CAS) {
			op->rbuf = a->rbuf;
			op->rcount = 1;
			op->rdt = a->odt;
		}
		rc_dt_retain(op->rdt);
		rma_of(inst)->nreplies++;
	}
	op->sending = true;
	op->req = req;
	rc_list_add_tail(&win->ops, &op->link);
	tg->nout++;
	tg->sent++;
	frag = op_room(op, sizeof(op->hdr), false);
	if (op->desc_len + dlen <= frag) {
		/* one message: now, or a copy in the queue */
		const void *payload = NULL;
		size_t n = op_next(op, &payload, frag);

		ret = rc_am_send(inst, tg->wrank, RC_AM_RMA, &op->hdr,
				 sizeof(op->hdr), payload, n);
		op->sending = false;
		if (a->kind == RC_RMA_CAS)
			op->obuf = NULL;
		if (ret) {
			op->err = ret;
			op->rgot = op->rlen;
			/* the request takes the error; without one, the
			 * call returns it */
			if (!req) {
				op->err = RC_OK;
				op_maybe_done(op);
				return ret;
			}
		}
		op_maybe_done(op);
		return RC_OK;
	}
	assert(a->kind != RC_RMA_CAS);
	rc_am_stream_start(inst, &op->st);
	return RC_OK;
}

/* ---- the SHM path --------------------------------------------------------
 * Data: one copy by the origin, through the pack engine (straight into or
 * out of the target's memory when either side is contiguous).
 *
 * Accumulates: the agent of a shared-memory window is the CPUs of the
 * node, one target at a time. Every accumulate, get_accumulate,
 * fetch_and_op and compare_and_swap to target t runs under t's
 * accumulate lock (a word in the segment that holds its holder's rank,
 * struct rma_acclock; a waiter releases a holder that died, win.c) and
 * applies its data with plain loads and stores: the op engine's loops
 * over whole runs of elements. A long one lets the lock go every
 * RMA_ACC_SPAN bytes, so that others' small operations wait for a span,
 * not the whole. Every update of an element, whatever its op, kind or
 * alignment, happens under the one lock of the target that holds it, so
 * each element is updated atomically whatever mix of ops reaches it. An
 * origin's operations are done when its call returns, in the order
 * issued: every accumulate_ordering holds.
 *
 * Measured (bench/RESULTS.md): a CPU atomic per element, as before,
 * cost 8-10 ns an element (2 MiB of MPI_INT in 5.2 ms, of MPI_DOUBLE,
 * a compare-and-swap loop each, 4.2 ms); under the lock the same is one
 * pass of the op's loop (50 us). An uncontended lock is one
 * compare-and-swap and a store, as cheap as the one atomic a
 * fetch_and_op was.
 */

#define RMA_ACC_SPAN 65536 /* bytes applied per hold of a target's lock */

/* Is b a C or Fortran integer kind? */
bool rma_basic_is_int(enum rc_basic b)
{
	switch (b) {
	case RC_BASIC_INT:
	case RC_BASIC_UNSIGNED:
	case RC_BASIC_LONG:
	case RC_BASIC_UNSIGNED_LONG:
	case RC_BASIC_LONG_LONG:
	case RC_BASIC_UNSIGNED_LONG_LONG:
	case RC_BASIC_INT32_T:
	case RC_BASIC_INT64_T:
	case RC_BASIC_UINT32_T:
	case RC_BASIC_UINT64_T:
	case RC_BASIC_AINT:
	case RC_BASIC_OFFSET:
	case RC_BASIC_COUNT:
	case RC_BASIC_INTEGER:
	case RC_BASIC_INTEGER4:
	case RC_BASIC_INTEGER8:
		return true;
	default:
		return false;
	}
}

char *rma_walk_next(struct elem_walk *w, size_t es)
{
	const struct rc_dt_block bl = rc_dt_block_at(w->dt, w->j);
	char *p = w->buf + (ptrdiff_t)w->i * rc_dt_extent(w->dt) + bl.disp +
		  w->in;

	w->in += es;
	if (w->in >= bl.len) {
		w->in = 0;
		if (++w->j == w->dt->nblocks) {
			w->j = 0;
			w->i++;
		}
	}
	return p;
}

/* Do [p, p + n) and [q, q + n) overlap? */
static bool overlap(const char *p, const char *q, size_t n)
{
	return p < q + n && q < p + n;
}

/* Accumulate and get_accumulate on target t, every side contiguous:
 * straight between the buffers (rma_apply, as at an AM target), a span
 * per hold of the lock. The caller saw that the results do not overwrite
 * the origin's data (MPI asks for disjoint buffers, but
 * fetch_and_op(&v, &v) is common). */
static void shm_acc_contig(struct rc_win *win, int t,
			   const struct rc_rma_args *a, char *tbuf)
{
	const size_t es = rc_basic_size(rma_acc_basic(a->tdt->basic));
	const size_t len = a->tcount * a->tdt->size;
	const size_t step = RMA_ACC_SPAN / es * es;
	const int type = a->kind == RC_RMA_GACC ? RMA_GACC : RMA_ACC;
	const char *in = a->op->kind == RC_OP_NO_OP
				 ? NULL
				 : rc_dt_contig_ptr(a->odt, a->obuf);
	char *old = type == RMA_GACC ? rc_dt_contig_ptr(a->rdt, a->rbuf) : NULL;
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < step ? len - off : step;
		rma_shm_lock(win, t);
		rma_apply(type, a->op, a->tdt, a->tcount, tbuf, off,
			  in ? in + off : NULL, n, old);
		rma_shm_unlock(win, t);
	}
}

/* Accumulate and get_accumulate on target t: the origin's data packed
 * into scratch before the lock, the old values unpacked after it, a
 * chunk at a time. */
static void shm_acc(struct rc_win *win, int t, const struct rc_rma_args *a,
		    char *tbuf)
{
	const size_t es = rc_basic_size(rma_acc_basic(a->tdt->basic));
	const size_t len = a->tcount * a->tdt->size;
	const bool fetch = a->kind == RC_RMA_GACC;
	const bool noop = a->op->kind == RC_OP_NO_OP;
	struct rma_scratch s, s2;
	size_t off, n;

	if (rc_dt_is_contig(a->tdt, a->tcount) &&
	    (noop || rc_dt_is_contig(a->odt, a->ocount)) &&
	    (!fetch || rc_dt_is_contig(a->rdt, a->rcount)) &&
	    (noop || !fetch ||
	     !overlap(rc_dt_contig_ptr(a->odt, a->obuf),
		      rc_dt_contig_ptr(a->rdt, a->rbuf), len))) {
		shm_acc_contig(win, t, a, tbuf);
		return;
	}
	for (off = 0; off < len; off += n) {
		n = len - off < sizeof(s.b) ? len - off : sizeof(s.b);
		n -= n % es;
		if (!noop)
			rc_dt_pack(a->odt, a->ocount, a->obuf, off, s.b, n);
		rma_shm_lock(win, t);
		if (fetch)
			rc_dt_pack(a->tdt, a->tcount, tbuf, off, s2.b, n);
		if (!noop)
			rma_apply(RMA_ACC, a->op, a->tdt, a->tcount, tbuf, off,
				  s.b, n, NULL);
		rma_shm_unlock(win, t);
		if (fetch)
			rc_dt_unpack(a->rdt, a->rcount, a->rbuf, off, s2.b, n);
	}
}

/* Put and get: from one packed stream into the other, one copy when
 * either side is contiguous. */
/* Both sides non-contiguous: through scratch, a chunk at a time (out of
 * line: the scratch would make every caller's frame large). */
static __attribute__((noinline)) void
shm_copy_staged(const struct rc_dtype *sdt, size_t scount, const void *sbuf,
		struct rc_dtype *ddt, size_t dcount, void *dbuf, size_t len)
{
	struct rma_scratch s;
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = rc_dt_pack(sdt, scount, sbuf, off, s.b, sizeof(s.b));
		rc_dt_unpack(ddt, dcount, dbuf, off, s.b, n);
	}
}

static void shm_copy(const struct rc_dtype *sdt, size_t scount,
		     const void *sbuf, struct rc_dtype *ddt, size_t dcount,
		     void *dbuf, size_t len)
{
	bool dcontig = rc_dt_is_contig(ddt, dcount);

	if (dcontig && rc_dt_is_contig(sdt, scount)) {
		rc_copy(rc_dt_contig_ptr(ddt, dbuf),
			rc_dt_contig_ptr(sdt, sbuf), len);
		return;
	}
	if (dcontig) {
		rc_dt_pack(sdt, scount, sbuf, 0, rc_dt_contig_ptr(ddt, dbuf),
			   len);
		return;
	}
	if (rc_dt_is_contig(sdt, scount)) {
		rc_dt_unpack(ddt, dcount, dbuf, 0, rc_dt_contig_ptr(sdt, sbuf),
			     len);
		return;
	}
	shm_copy_staged(sdt, scount, sbuf, ddt, dcount, dbuf, len);
}

/* Compare-and-swap and the accumulates on the shared-memory path (out of
 * line: their scratch would make put's and get's frame large). */
static __attribute__((noinline)) void
shm_op_update(struct rc_win *win, const struct rc_rma_args *a, char *tbuf)
{
	char old[32];

	if (a->kind != RC_RMA_CAS) {
		shm_acc(win, a->target, a, tbuf);
		return;
	}
	/* (the buffers may be one another: the result is written last) */
	rma_shm_lock(win, a->target);
	cas_apply(a->tdt, tbuf, a->obuf, a->cbuf, old);
	rma_shm_unlock(win, a->target);
	memcpy(a->rbuf, old, a->tdt->size);
}

static int shm_op(struct rc_win *win, const struct rc_rma_args *a, char *tbuf)
{
	switch (a->kind) {
	case RC_RMA_PUT:
		shm_copy(a->odt, a->ocount, a->obuf, a->tdt, a->tcount, tbuf,
			 a->ocount * a->odt->size);
		return RC_OK;
	case RC_RMA_GET:
		shm_copy(a->tdt, a->tcount, tbuf, a->odt, a->ocount,
			 (void *)a->obuf, a->tcount * a->tdt->size);
		return RC_OK;
	default:
		shm_op_update(win, a, tbuf);
		return RC_OK;
	}
}

/* ---- starting an operation ----------------------------------------------- */

/* ---- the direct path: the transport's get/put into the target's memory --- */

/* One put or get the transport completes later (RC_INPROGRESS). */
struct rma_dop {
	struct rc_tp_rdma rd;
	struct rc_win *win;
	int target;
	struct rc_tp *tp;
	void *lh; /* the origin buffer, exposed; NULL: small (rdma_small) */
	struct rc_req *req;
};

static struct rma_dop *dop_new(struct rc_rma *rma)
{
	struct rma_dop *d = rc_flist_get(&rma->dops);

	return d ? d : malloc(sizeof(*d));
}

static void dop_put(struct rc_rma *rma, struct rma_dop *d)
{
	if (!rc_flist_put(&rma->dops, d))
		free(d);
}

void rma_dop_end(struct rc_win *win, int t, struct rc_req *req, int status)
{
	struct rma_target *tg = &win->tg[t];

	tg->nout--;
	if (req) {
		req->err = status;
		rc_req_complete(req);
	} else if (status && !tg->err) {
		tg->err = status; /* raised by the next synchronisation */
	}
}

static void dop_done(struct rc_tp_rdma *rd, int status)
{
	struct rma_dop *d = rc_container_of(rd, struct rma_dop, rd);
	struct rc_win *win = d->win;

	if (d->lh)
		d->tp->ops->mem_release(d->tp, d->lh);
	rma_dop_end(win, d->target, d->req, status);
	dop_put(rma_of(win->inst), d);
}

/* One device atomic on the 8-byte word at raddr of window rank t, its old
 * value copied by the transport into result (NULL: none) at the
 * completion: no exposed memory (the transport's rdma_small), a dop as a
 * small put's. RC_AGAIN: not now (the caller takes the general path). */
int rma_dop_atomic(struct rc_win *win, int t, enum rc_tp_atomic kind,
		   uint64_t operand, uint64_t compare, void *result,
		   uint64_t raddr, struct rc_req *req)
{
	struct rma_target *tg = &win->tg[t];
	struct rc_tp *tp = win->atp;
	struct rma_dop *d;
	int ret;

	if (tp->rdma_small < 8)
		return RC_AGAIN;
	d = dop_new(rma_of(win->inst));
	if (!d)
		return RC_ERR_NOMEM;
	memset(&d->rd, 0, sizeof(d->rd));
	d->rd.done = dop_done;
	d->rd.len = 8;
	d->lh = NULL;
	d->win = win;
	d->target = t;
	d->tp = tp;
	d->req = req;
	tg->nout++;
	ret = tp->ops->atomic(tp, tg->wrank, kind, operand, compare, result,
			      NULL, raddr, tg->akey, &d->rd);
	if (ret == RC_INPROGRESS)
		return RC_OK;
	if (ret == RC_AGAIN || ret == RC_ERR_UNSUPPORTED) {
		tg->nout--;
		dop_put(rma_of(win->inst), d);
		return RC_AGAIN;
	}
	dop_done(&d->rd, ret); /* failed: reported like a finished one */
	return RC_OK;
}

void rma_room_wait(struct rc_rma *rma, struct rma_room *room,
		   void (*kick)(struct rma_room *room))
{
	if (room->waiting)
		return;
	room->kick = kick;
	room->waiting = true;
	rc_list_add_tail(&rma->rooms, &room->link);
}

void rma_room_done(struct rma_room *room)
{
	if (!room->waiting)
		return;
	room->waiting = false;
	rc_list_del(&room->link);
}

unsigned rma_room_progress(struct rc_rma *rma)
{
	struct rc_list batch;
	unsigned events = 0;

	rc_list_splice_init(&rma->rooms, &batch);
	while (!rc_list_empty(&batch)) {
		struct rma_room *room =
			rc_list_first(&batch, struct rma_room, link);

		/* back on rma->rooms while it still finds none */
		rc_list_del(&room->link);
		rc_list_add_tail(&rma->rooms, &room->link);
		room->kick(room);
		events++;
	}
	return events;
}

/* ---- lists of RDMA operations: non-contiguous put and get ---------------
 * A put or get with a non-contiguous origin or target type goes to a
 * direct target as one transport put/get per run of bytes contiguous on
 * both sides (the two types' block lists zipped, runs that continue one
 * another merged), when there are at most win->list_max runs
 * (RCMPI_RMA_DIRECT_LIST), at most win->list_small if they average under
 * RMA_LIST_BIG bytes (RCMPI_RMA_DIRECT_LIST_SMALL: each run costs a work
 * request, packing costs a message and the target's CPU), a get's runs
 * counting twice (each READ is a round trip; the limits are measured in
 * bench/RESULTS.md), and they average at least the direct path's minimum
 * size; else it is packed into active messages. Each run's
 * origin bytes are exposed on their own. Runs are posted in order; one
 * that finds no room in the send queue waits on rma->rooms with the rest
 * behind it, and the operation counts in the target's nout until every
 * run is done.
 */

/* A position in the type map of `count` elements of dt at base. */
struct run_cur {
	const struct rc_dtype *dt;
	uintptr_t base;
	size_t count, i, j, off; /* element, block, bytes into the block */
};

/* The rest of the block at c: its address in *addr and its length (0:
 * the end). Elements of one block that fills the extent (MPI_BYTE,
 * MPI_INT, contiguous types) follow one another: the rest of all of them
 * is one block. */
static size_t cur_run(struct run_cur *c, uintptr_t *addr)
{
	const struct rc_dt_block *b0 = c->dt->blocks;
	ptrdiff_t ext = rc_dt_extent(c->dt);
	struct rc_dt_block b;

	if (c->dt->nblocks == 1 && (ptrdiff_t)b0->len == ext) {
		size_t rest = (c->count - c->i) * b0->len;

		if (c->off >= rest)
			return 0;
		*addr = c->base +
			(uintptr_t)((ptrdiff_t)c->i * ext + b0->disp) + c->off;
		return rest - c->off;
	}
	while (c->i < c->count) {
		b = rc_dt_block_at(c->dt, c->j);
		if (c->off < b.len) {
			*addr = c->base +
				(uintptr_t)((ptrdiff_t)c->i * ext + b.disp) +
				c->off;
			return b.len - c->off;
		}
		c->off = 0;
		if (++c->j == c->dt->nblocks) {
			c->j = 0;
			c->i++;
		}
	}
	return 0;
}

/* One run: local bytes to or from the target's raddr. */
struct rma_lseg {
	struct rc_tp_rdma rd; /* rd.len: the run's length */
	struct rma_lop *lop;
	uintptr_t local;
	uint64_t raddr;
	void *lh; /* local, exposed */
};

/* A put or get as a list of runs. */
struct rma_lop {
	struct rma_room room; /* a run met a full send queue */
	struct rc_win *win;
	int target;
	bool put;
	uint8_t rkey[RC_TP_KEY_MAX]; /* the target memory's */
	struct rc_tp *tp;
	struct rc_req *req;
	size_t n, next, nleft; /* runs, the next to post, not done */
	int err;
	struct rma_lseg seg[];
};

#define RMA_LIST_PIECES 16 /* pieces per run a list may be zipped from */
/* runs averaging less than this many bytes: at most win->list_small */
#define RMA_LIST_BIG 4096

/* Add the run [local, local + len) -> raddr to seg (when not NULL) at
 * *k, as pieces of at most cap bytes (0: any): the most one get or put of
 * the transport carries. */
static void lseg_add(struct rma_lseg *seg, size_t *k, uintptr_t local,
		     uint64_t raddr, size_t len, size_t cap)
{
	do {
		size_t m = cap && len > cap ? cap : len;

		if (seg) {
			seg[*k].local = local;
			seg[*k].raddr = raddr;
			seg[*k].rd.len = m;
		}
		(*k)++;
		local += m;
		raddr += m;
		len -= m;
	} while (len);
}

/* Zip the origin's runs (o) with the target's (t): how many runs there
 * are, max + 1 when more than max. *nseg: how many pieces of at most cap
 * bytes they make (lseg_add); with seg, each piece into it. */
static size_t zip_runs(struct run_cur *o, struct run_cur *t, size_t max,
		       size_t cap, struct rma_lseg *seg, size_t *nseg)
{
	uintptr_t oa, ta, ro = 0, rt = 0;
	size_t n = 0, on, tn, len, rlen = 0, pieces = 0;

	*nseg = 0;
	while ((on = cur_run(o, &oa)) && (tn = cur_run(t, &ta))) {
		len = on < tn ? on : tn;
		o->off += len;
		t->off += len;
		if (n && oa == ro + rlen && ta == rt + rlen) {
			/* continues the run; many small pieces that merge
			 * (blocks adjacent across elements) are not for a
			 * list either: the walk would cost more than packing */
			rlen += len;
			if (!seg && ++pieces > RMA_LIST_PIECES * (max + 1))
				return max + 1;
			continue;
		}
		if (n == max)
			return max + 1;
		if (n)
			lseg_add(seg, nseg, ro, rt, rlen, cap);
		n++;
		ro = oa;
		rt = ta;
		rlen = len;
	}
	if (n)
		lseg_add(seg, nseg, ro, rt, rlen, cap);
	return n;
}

/* Release the exposure of the first n runs, then l. */
static void lop_free(struct rma_lop *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		l->tp->ops->mem_release(l->tp, l->seg[i].lh);
	free(l);
}

static void lop_end(struct rma_lop *l)
{
	rma_room_done(&l->room);
	rma_dop_end(l->win, l->target, l->req, l->err);
	lop_free(l, l->n);
}

static void lseg_done(struct rc_tp_rdma *rd, int status)
{
	struct rma_lseg *g = rc_container_of(rd, struct rma_lseg, rd);
	struct rma_lop *l = g->lop;

	if (status && !l->err)
		l->err = status;
	if (!--l->nleft)
		lop_end(l);
}

static int lseg_post(struct rma_lop *l, struct rma_lseg *g)
{
	struct rma_target *tg = &l->win->tg[l->target];

	if (l->put)
		return l->tp->ops->put(l->tp, tg->wrank,
				       (const void *)g->local, g->lh,
				       g->rd.len, g->raddr, l->rkey, &g->rd);
	return l->tp->ops->get(l->tp, tg->wrank, (void *)g->local, g->lh,
			       g->rd.len, g->raddr, l->rkey, &g->rd);
}

/* Run l->next went out (RC_INPROGRESS) or is over (its status); false:
 * that was the last of the operation, l is gone. */
static bool lop_posted(struct rma_lop *l, int ret)
{
	l->next++;
	if (ret == RC_INPROGRESS)
		return true;
	if (ret && !l->err)
		l->err = ret;
	if (--l->nleft)
		return true;
	lop_end(l);
	return false;
}

static void lop_room(struct rma_room *room);

/* Post the runs not posted yet, in order, until one finds no room. */
static void lop_kick(struct rma_lop *l)
{
	int ret;

	while (l->next < l->n) {
		ret = lseg_post(l, &l->seg[l->next]);
		if (ret == RC_AGAIN) {
			rma_room_wait(rma_of(l->win->inst), &l->room, lop_room);
			return;
		}
		if (!lop_posted(l, ret))
			return;
	}
	rma_room_done(&l->room);
}

static void lop_room(struct rma_room *room)
{
	lop_kick(rc_container_of(room, struct rma_lop, room));
}

/* Expose l's n pieces (local, raddr, rd.len set) and post them in order:
 * direct_op's lists and its contiguous operations too big for one get or
 * put. RC_AGAIN: not for this path after all (l freed). */
static int lop_start(struct rc_win *win, const struct rc_rma_args *a,
		     struct rc_req *req, const uint8_t *rkey,
		     struct rma_lop *l, size_t n)
{
	struct rma_target *tg = &win->tg[a->target];
	struct rc_tp *tp = win->inst->procs[tg->wrank].tp;
	uint8_t key[RC_TP_KEY_MAX]; /* ours: the peer does not need it */
	size_t i;
	int ret;

	l->tp = tp;
	for (i = 0; i < n; i++) {
		struct rma_lseg *g = &l->seg[i];

		g->rd.done = lseg_done;
		g->lop = l;
		/* each run on its own: the span of a wide stride would
		 * pin every page between the runs */
		if (tp->ops->mem_expose(tp, (void *)g->local, g->rd.len, key,
					&g->lh)) {
			lop_free(l, i);
			return RC_AGAIN;
		}
	}
	l->win = win;
	l->target = a->target;
	l->put = a->kind == RC_RMA_PUT;
	memcpy(l->rkey, rkey, RC_TP_KEY_MAX);
	l->req = req;
	l->n = n;
	l->nleft = n;
	/* the first run decides, as a contiguous one does: busy, or CMA
	 * forbidden, and the whole operation takes active messages */
	tg->nout++;
	ret = lseg_post(l, &l->seg[0]);
	if (ret == RC_AGAIN || ret == RC_ERR_UNSUPPORTED) {
		tg->nout--;
		lop_free(l, n);
		return RC_AGAIN;
	}
	if (lop_posted(l, ret))
		lop_kick(l);
	return RC_OK;
}

/* direct_op's non-contiguous case (min: the direct path's minimum). */
static int direct_list(struct rc_win *win, const struct rc_rma_args *a,
		       struct rc_req *req, uint64_t tbase, const uint8_t *rkey,
		       size_t min)
{
	struct rc_tp *tp = win->inst->procs[win->tg[a->target].wrank].tp;
	size_t len = a->ocount * a->odt->size, n, nseg, w;
	struct run_cur o, t;
	struct rma_lop *l;

	if (!win->list_max || len != a->tcount * a->tdt->size)
		return RC_AGAIN;
	o = (struct run_cur){.dt = a->odt,
			     .base = (uintptr_t)a->obuf,
			     .count = a->ocount};
	t = (struct run_cur){.dt = a->tdt, .base = tbase, .count = a->tcount};
	/* a READ is a round trip of its own: a get's run counts twice */
	w = a->kind == RC_RMA_PUT ? 1 : 2;
	n = zip_runs(&o, &t, win->list_max / w, tp->rdma_max, NULL, &nseg);
	if (!n || n * w > win->list_max || len < n * min ||
	    (len < n * RMA_LIST_BIG && n * w > win->list_small))
		return RC_AGAIN;
	l = calloc(1, sizeof(*l) + nseg * sizeof(l->seg[0]));
	if (!l)
		return RC_ERR_NOMEM;
	o.i = o.j = o.off = 0;
	t.i = t.j = t.off = 0;
	zip_runs(&o, &t, n, tp->rdma_max, l->seg, &nseg);
	return lop_start(win, a, req, rkey, l, nseg);
}

/* direct_op's contiguous case when len is more than one get or put of
 * the transport carries (tp->rdma_max: a verbs port's max_msg_sz, 8 MiB
 * on rxe): pieces of rdma_max bytes, posted in order. */
static int direct_split(struct rc_win *win, const struct rc_rma_args *a,
			struct rc_req *req, uintptr_t local, uint64_t raddr,
			size_t len, const uint8_t *rkey, size_t cap)
{
	size_t nseg = 0;
	struct rma_lop *l;

	l = calloc(1, sizeof(*l) + (len / cap + 1) * sizeof(l->seg[0]));
	if (!l)
		return RC_ERR_NOMEM;
	lseg_add(l->seg, &nseg, local, raddr, len, cap);
	return lop_start(win, a, req, rkey, l, nseg);
}

/*
 * A put or get of at least win->direct_min bytes to a target whose memory
 * our transport to it reaches: contiguous on both sides, one get/put;
 * else a list of them (direct_list). No message, no target CPU.
 * Completion counts in the target's nout like an AM op's, so every
 * synchronisation waits for it (a transport completes a put only once
 * the bytes are in the target's memory: CMA at once, RC RDMA WRITE on
 * the target's acknowledgement). RC_AGAIN: not for this path (or the
 * transport is busy), take the AM path.
 */
static int direct_op(struct rc_win *win, const struct rc_rma_args *a,
		     struct rc_req *req)
{
	struct rma_target *tg = &win->tg[a->target];
	struct rc_tp *tp = win->inst->procs[tg->wrank].tp;
	bool put = a->kind == RC_RMA_PUT;
	size_t len = a->ocount * a->odt->size;
	size_t min = win->direct_auto ? tp->direct_min : win->direct_min;
	uint64_t raddr, tbase;
	uint8_t key[RC_TP_KEY_MAX]; /* ours: the peer does not need it */
	const uint8_t *rkey = tg->rkey;
	struct rma_dop *d;
	ptrdiff_t lo, hi;
	void *local;
	int ret;

	if ((!put && a->kind != RC_RMA_GET) ||
	    !(tp->caps & (put ? RC_TP_CAP_PUT : RC_TP_CAP_GET)) || len < min)
		return RC_AGAIN;
	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		/* the region's key, once the target told us of it */
		tbase = (uint64_t)a->disp;
		if (!win->dyn_direct || a->target == win->comm->rank ||
		    !rma_span(a->tcount, a->tdt, &lo, &hi))
			return RC_AGAIN;
		rkey = rma_dyn_key(win, a->target, tbase + (uint64_t)lo,
				   tbase + (uint64_t)hi);
		if (!rkey)
			return RC_AGAIN;
	} else {
		if (!tg->direct)
			return RC_AGAIN;
		tbase = rma_tg_addr(tg, a->disp);
	}
	if (!rc_dt_is_contig(a->odt, a->ocount) ||
	    !rc_dt_is_contig(a->tdt, a->tcount))
		return direct_list(win, a, req, tbase, rkey, min);
	raddr = (uint64_t)(uintptr_t)rc_dt_contig_ptr(
		a->tdt, (void *)(uintptr_t)tbase);
	local = rc_dt_contig_ptr(a->odt, a->obuf);
	if (tp->rdma_max && len > tp->rdma_max)
		return direct_split(win, a, req, (uintptr_t)local, raddr, len,
				    rkey, tp->rdma_max);
	d = dop_new(rma_of(win->inst));
	if (!d)
		return RC_ERR_NOMEM;
	memset(&d->rd, 0, sizeof(d->rd));
	d->lh = NULL;
	if (len > tp->rdma_small &&
	    tp->ops->mem_expose(tp, local, len, key, &d->lh)) {
		dop_put(rma_of(win->inst), d);
		return RC_AGAIN;
	}
	d->rd.done = dop_done;
	d->rd.len = len;
	d->win = win;
	d->target = a->target;
	d->tp = tp;
	d->req = req;
	tg->nout++;
	ret = put ? tp->ops->put(tp, tg->wrank, local, d->lh, len, raddr,
				 rkey, &d->rd)
		  : tp->ops->get(tp, tg->wrank, local, d->lh, len, raddr,
				 rkey, &d->rd);
	if (ret == RC_INPROGRESS)
		return RC_OK;
	if (ret == RC_AGAIN || ret == RC_ERR_UNSUPPORTED) {
		/* busy, or CMA forbidden after all */
		tg->nout--;
		if (d->lh)
			tp->ops->mem_release(tp, d->lh);
		dop_put(rma_of(win->inst), d);
		return RC_AGAIN;
	}
	dop_done(&d->rd, ret); /* done at once (CMA), or failed */
	return RC_OK;
}

static int check_epoch(const struct rc_win *win, int t)
{
	int i;

	switch (win->epoch) {
	case EP_FENCE:
	case EP_LOCK_ALL:
		return RC_OK;
	case EP_LOCK:
		return win->tg[t].lock ? RC_OK : RC_ERR_RMA_SYNC;
	case EP_PSCW:
		for (i = 0; i < win->ngrp; i++)
			if (win->grp[i] == t)
				return RC_OK;
		return RC_ERR_RMA_SYNC;
	default:
		return RC_ERR_RMA_SYNC;
	}
}

/* Origin-side range check where the origin knows the target's window:
 * tcount tdt at disp; *tbuf, the data there when the target's memory is
 * mapped here. */
static int check_range(const struct rc_win *win, int t, MPI_Aint disp,
		       size_t tcount, const struct rc_dtype *tdt, char **tbuf)
{
	const struct rma_target *tg = &win->tg[t];
	ptrdiff_t lo, hi, off;

	if (!rma_span(tcount, tdt, &lo, &hi))
		return RC_ERR_RMA_RANGE;
	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return RC_OK;	/* only the target knows its regions */
	if (__builtin_mul_overflow((ptrdiff_t)disp, (ptrdiff_t)tg->disp_unit,
				   &off))
		return RC_ERR_RMA_RANGE;
	if (hi > lo && (off + lo < 0 || off + hi > (ptrdiff_t)tg->size))
		return RC_ERR_RMA_RANGE;
	if (tg->local)
		*tbuf = tg->local + off;
	return RC_OK;
}

/* What every operation to window rank t checks first: an epoch open to
 * it, the target range, the target alive. */
int rma_op_check(struct rc_win *win, int t, MPI_Aint disp, size_t tcount,
		 const struct rc_dtype *tdt, char **tbuf)
{
	int ret = check_epoch(win, t);

	if (!ret)
		ret = check_range(win, t, disp, tcount, tdt, tbuf);
	if (!ret && win->tg[t].dead)
		ret = win->tg[t].err ? win->tg[t].err : RC_ERR_PEER;
	if (!ret && win->epoch == EP_FENCE)
		win->fence_ops = true;
	return ret;
}

int rc_rma_shm_put_get(struct rc_win *win, bool get, const void *obuf,
		       size_t ocount, struct rc_dtype *odt, int target,
		       MPI_Aint disp, size_t tcount, struct rc_dtype *tdt)
{
	char *tbuf = NULL;
	int ret;

	if (target == MPI_PROC_NULL)
		return RC_OK;
	ret = rma_op_check(win, target, disp, tcount, tdt, &tbuf);
	if (ret)
		return ret;
	if (get)
		shm_copy(tdt, tcount, tbuf, odt, ocount, (void *)obuf,
			 tcount * tdt->size);
	else
		shm_copy(odt, ocount, obuf, tdt, tcount, tbuf,
			 ocount * odt->size);
	return RC_OK;
}

int rc_rma_op(struct rc_win *win, const struct rc_rma_args *a,
	      struct rc_req **reqp)
{
	struct rc_req *req = NULL;
	char *tbuf = NULL;
	int ret;

	if (a->target == MPI_PROC_NULL) {
		ret = RC_OK;
		goto now;
	}
	ret = rma_op_check(win, a->target, a->disp, a->tcount, a->tdt, &tbuf);
	if (ret)
		return ret;
	if (a->tcount * a->tdt->size == 0)
		goto now; /* no data (the API matched the other sides') */
	if (win->shm_path) {
		ret = shm_op(win, a, tbuf);
		goto now;
	}
	if (reqp) {
		req = op_req_new(win);
		if (!req)
			return RC_ERR_NOMEM;
	}
	ret = a->kind == RC_RMA_PUT || a->kind == RC_RMA_GET
		      ? RC_AGAIN /* (no atomics: straight to the direct path) */
		      : rma_atomic_op(win, a, req);
	if (ret == RC_AGAIN)
		ret = direct_op(win, a, req);
	if (ret == RC_AGAIN)
		ret = am_op(win, a, req);
	if (ret) {
		if (req) {
			req->state = RC_REQ_DONE;
			rc_req_free(req);
		}
		return ret;
	}
	if (reqp)
		*reqp = req;
	return RC_OK;
now:
	/* done at once (or nothing to do): a completed request */
	if (ret || !reqp)
		return ret;
	req = op_req_new(win);
	if (!req)
		return RC_ERR_NOMEM;
	rc_req_complete(req);
	*reqp = req;
	return RC_OK;
}
