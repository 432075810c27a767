/*
 * test_handle.c - the handle table (runtime/handle.[ch]): pools of slots,
 * tombstones and their FIFO quarantine, stable indices, the predefined
 * objects' fixed indices, MPI_*_c2f / _f2c and MPI_Status_c2f / _f2c, and
 * stale handles of every kind that exists, used after MPI freed them: the
 * right error class, and (under ASan) no read of freed memory.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "comm.h"
#include "dtype.h"
#include "fake_mpi.h"
#include "handle.h"
#include "op.h"
#include "pt2pt.h"
#include "request.h"
#include "thread.h"

#define TMO 30

struct obj {
	struct rc_hobj h;
	int payload[5];
};

static struct obj *get(struct rc_hpool *p)
{
	struct obj *o = rc_hpool_get(p, sizeof(*o));

	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->h.magic, RC_H_LIVE(RC_HK_WIN));
	return o;
}

/* A freed slot comes back only after `quarantine` later frees, oldest
 * first; until then its index names nothing. */
START_TEST(pool_fifo)
{
	struct rc_hpool p;
	struct obj *o[8], *a, *b, *c;
	int i;

	rc_hpool_init(&p, RC_HK_WIN);
	p.quarantine = 4;
	for (i = 0; i < 8; i++) {
		o[i] = get(&p);
		ck_assert_int_eq(o[i]->h.idx, i + 1);
		ck_assert_ptr_eq(rc_hpool_at(&p, i + 1), o[i]);
	}
	ck_assert_uint_eq(rc_hpool_nlive(&p), 8);
	for (i = 0; i < 6; i++) {
		rc_hpool_put(&p, o[i]);
		ck_assert_uint_eq(o[i]->h.magic, RC_H_FREED(RC_HK_WIN));
		ck_assert_ptr_null(rc_hpool_at(&p, o[i]->h.idx));
	}
	ck_assert_uint_eq(rc_hpool_nlive(&p), 2);
	/* six wait, four must stay: o[0] then o[1] come back, index kept */
	a = get(&p);
	b = get(&p);
	c = get(&p);
	ck_assert_ptr_eq(a, o[0]);
	ck_assert_ptr_eq(b, o[1]);
	ck_assert_int_eq(a->h.idx, 1);
	ck_assert_int_eq(c->h.idx, 9); /* a fresh slot, not o[2] */
	ck_assert_ptr_eq(rc_hpool_at(&p, 1), a);
	ck_assert_ptr_null(rc_hpool_at(&p, o[2]->h.idx));
	ck_assert_uint_eq(rc_hpool_nlive(&p), 5);
	rc_hpool_fini(&p);
}
END_TEST

/* Quarantine 0: immediate reuse, oldest first, the queue emptying and
 * filling again (a queue left with a stale tail once crashed here). */
START_TEST(pool_no_quarantine)
{
	struct rc_hpool p;
	struct obj *a, *b, *c;
	int i;

	rc_hpool_init(&p, RC_HK_WIN);
	p.quarantine = 0;
	a = get(&p);
	for (i = 0; i < 3; i++) {
		rc_hpool_put(&p, a);
		ck_assert_ptr_eq(get(&p), a);
	}
	b = get(&p);
	c = get(&p);
	rc_hpool_put(&p, b);
	rc_hpool_put(&p, c);
	ck_assert_ptr_eq(get(&p), b);
	ck_assert_ptr_eq(get(&p), c);
	ck_assert_int_eq(get(&p)->h.idx, 4);
	rc_hpool_fini(&p);
}
END_TEST

/* Several chunks: indices distinct and found again; freed ones not. */
START_TEST(pool_grow)
{
	enum { M = 300 };
	struct rc_hpool p;
	struct obj **o = calloc(M, sizeof(*o));
	int i;

	ck_assert_ptr_nonnull(o);
	rc_hpool_init(&p, RC_HK_WIN);
	for (i = 0; i < M; i++) {
		o[i] = get(&p);
		o[i]->payload[0] = i;
	}
	for (i = 0; i < M; i++) {
		struct obj *x = rc_hpool_at(&p, o[i]->h.idx);

		ck_assert_ptr_eq(x, o[i]);
		ck_assert_int_eq(x->payload[0], i);
	}
	for (i = 0; i < M; i += 2)
		rc_hpool_put(&p, o[i]);
	ck_assert_uint_eq(rc_hpool_nlive(&p), M / 2);
	for (i = 0; i < M; i++)
		ck_assert_ptr_eq(rc_hpool_at(&p, o[i]->h.idx),
				 i % 2 ? o[i] : NULL);
	ck_assert_ptr_null(rc_hpool_at(&p, 0));
	ck_assert_ptr_null(rc_hpool_at(&p, -1));
	ck_assert_ptr_null(rc_hpool_at(&p, INT32_MAX));
	rc_hpool_fini(&p);
	free(o);
}
END_TEST

/* The predefined objects' fixed indices, and f2c/c2f of each. */
START_TEST(predefined_indices)
{
	size_t i;

	ck_assert_int_eq(MPI_Comm_c2f(MPI_COMM_NULL), 0);
	ck_assert_int_eq(MPI_Comm_c2f(MPI_COMM_WORLD), 1);
	ck_assert_int_eq(MPI_Comm_c2f(MPI_COMM_SELF), 2);
	ck_assert_ptr_eq(MPI_Comm_f2c(1), MPI_COMM_WORLD);
	ck_assert_ptr_eq(MPI_Comm_f2c(2), MPI_COMM_SELF);
	ck_assert_ptr_null(MPI_Comm_f2c(0));
	ck_assert_ptr_null(MPI_Comm_f2c(-1));
	ck_assert_ptr_null(MPI_Comm_f2c(1 << 30));
	ck_assert_int_eq(MPI_Group_c2f(MPI_GROUP_EMPTY), 1);
	ck_assert_ptr_eq(MPI_Group_f2c(1), MPI_GROUP_EMPTY);
	ck_assert_int_eq(MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL), 1);
	ck_assert_int_eq(MPI_Errhandler_c2f(MPI_ERRORS_RETURN), 2);
	ck_assert_ptr_eq(MPI_Errhandler_f2c(2), MPI_ERRORS_RETURN);
	ck_assert_int_eq(MPI_Message_c2f(MPI_MESSAGE_NO_PROC), 1);
	ck_assert_int_eq(MPI_Message_c2f(MPI_MESSAGE_NULL), 0);
	ck_assert_ptr_eq(MPI_Message_f2c(1), MPI_MESSAGE_NO_PROC);
	ck_assert_int_eq(MPI_Request_c2f(MPI_REQUEST_NULL), 0);
	ck_assert_ptr_null(MPI_Request_f2c(1));
	ck_assert_int_eq(MPI_Type_c2f(MPI_CHAR), 1);
	ck_assert_int_eq(MPI_Type_c2f(MPI_DATATYPE_NULL), 0);
	for (i = 0; i < rc_dt_npredefined; i++) {
		MPI_Datatype t = rc_dt_predefined[i];

		ck_assert_int_eq(MPI_Type_c2f(t), (int)i + 1);
		ck_assert_ptr_eq(MPI_Type_f2c((MPI_Fint)i + 1), t);
	}
	ck_assert_int_eq(MPI_Op_c2f(MPI_MAX), 1);
	for (i = 0; i < rc_op_npredefined; i++)
		ck_assert_ptr_eq(MPI_Op_f2c(MPI_Op_c2f(rc_op_predefined[i])),
				 rc_op_predefined[i]);
	/* a handle of the wrong kind converts to no index */
	ck_assert_int_eq(MPI_Comm_c2f((MPI_Comm)(void *)MPI_INT), -1);
}
END_TEST

/* What an error says about a bad handle. */
START_TEST(explain)
{
	struct obj garbage = {.h = {.magic = 0x12345678u}};
	MPI_Datatype t;
	char buf[160], want[160];

	ck_assert_str_eq(rc_handle_explain(RC_HK_COMM, NULL, buf, sizeof(buf)),
			 "MPI_COMM_NULL");
	ck_assert_str_eq(
		rc_handle_explain(RC_HK_KEYVAL, NULL, buf, sizeof(buf)),
		"MPI_KEYVAL_INVALID");
	snprintf(want, sizeof(want),
		 "%p is a datatype handle, not a "
		 "communicator",
		 (void *)MPI_INT);
	ck_assert_str_eq(
		rc_handle_explain(RC_HK_COMM, MPI_INT, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "%p is not a group handle",
		 (void *)&garbage);
	ck_assert_str_eq(
		rc_handle_explain(RC_HK_GROUP, &garbage, buf, sizeof(buf)),
		want);
	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
	t = MPI_Type_f2c(0);
	ck_assert_ptr_null(t);
}
END_TEST

/*
 * A stale handle of every kind, used after its object was freed: the
 * kind's error class (the world handler returns errors), f2c of its old
 * index gives the null handle; under ASan the checks read only the
 * tombstone, never freed memory.
 */
START_TEST(stale_handles)
{
	MPI_Comm c, cs;
	MPI_Group g, g1, gs;
	MPI_Datatype t, ts;
	MPI_Op op, ops;
	MPI_Request r, rs;
	MPI_Fint f;
	int n, flag, zero = 0, v = 1;
	char buf[160], want[160];

	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &c), MPI_SUCCESS);
	cs = c;
	f = MPI_Comm_c2f(c);
	ck_assert_int_gt(f, 2);
	ck_assert_ptr_eq(MPI_Comm_f2c(f), c);
	ck_assert_int_eq(MPI_Comm_free(&c), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_size(cs, &n), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Barrier(cs), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Send(&v, 1, MPI_INT, 0, 0, cs), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_free(&cs), MPI_ERR_COMM);
	ck_assert_ptr_null(MPI_Comm_f2c(f));
	ck_assert_int_eq(MPI_Comm_c2f(cs), f);
	snprintf(want, sizeof(want), "communicator handle %p was freed",
		 (void *)cs);
	ck_assert_str_eq(rc_handle_explain(RC_HK_COMM, cs, buf, sizeof(buf)),
			 want);

	ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &g), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_incl(g, 1, &zero, &g1), MPI_SUCCESS);
	gs = g1;
	ck_assert_int_eq(MPI_Group_free(&g1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(gs, &n), MPI_ERR_GROUP);
	ck_assert_int_eq(MPI_Group_free(&gs), MPI_ERR_GROUP);
	ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);

	ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	ts = t;
	f = MPI_Type_c2f(t);
	ck_assert_ptr_eq(MPI_Type_f2c(f), t);
	ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(MPI_Type_size(ts, &n), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_free(&ts), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Send(&v, 1, ts, 0, 0, MPI_COMM_SELF),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Bcast(&v, 1, ts, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
	ck_assert_ptr_null(MPI_Type_f2c(f));
	snprintf(want, sizeof(want), "datatype handle %p was freed",
		 (void *)ts);
	ck_assert_str_eq(rc_handle_explain(RC_HK_DTYPE, ts, buf, sizeof(buf)),
			 want);

	ck_assert_int_eq(MPI_Op_create((MPI_User_function *)1, 1, &op),
			 MPI_SUCCESS);
	ops = op;
	ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Op_commutative(ops, &flag), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Allreduce(&v, &n, 1, MPI_INT, ops, MPI_COMM_SELF),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Op_free(&ops), MPI_ERR_OP);

	/* a persistent request to MPI_PROC_NULL lives in the pool */
	ck_assert_int_eq(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0,
				       MPI_COMM_WORLD, &r),
			 MPI_SUCCESS);
	rs = r;
	f = MPI_Request_c2f(r);
	ck_assert_int_gt(f, 0);
	ck_assert_ptr_eq(MPI_Request_f2c(f), r);
	ck_assert_int_eq(MPI_Request_free(&r), MPI_SUCCESS);
	ck_assert_ptr_null(MPI_Request_f2c(f));
	ck_assert_int_eq(MPI_Start(&rs), MPI_ERR_REQUEST);
	ck_assert_int_eq(MPI_Wait(&rs, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
	ck_assert_int_eq(MPI_Test(&rs, &flag, MPI_STATUS_IGNORE),
			 MPI_ERR_REQUEST);
	ck_assert_int_eq(MPI_Request_free(&rs), MPI_ERR_REQUEST);
	ck_assert_int_eq(MPI_Waitall(1, &rs, MPI_STATUSES_IGNORE),
			 MPI_ERR_REQUEST);
}
END_TEST

/* Message handles: a slot from the message pool, freed when received. */
START_TEST(stale_message)
{
	struct rc_message *m = rc_hobj_new(RC_HK_MSG, sizeof(*m));
	MPI_Message ms = m;
	MPI_Fint f;
	int v;

	ck_assert_ptr_nonnull(m);
	m->comm = MPI_COMM_SELF;
	f = MPI_Message_c2f(m);
	ck_assert_int_gt(f, 1);
	ck_assert_ptr_eq(MPI_Message_f2c(f), m);
	rc_hobj_free(RC_HK_MSG, m);
	ck_assert_ptr_null(MPI_Message_f2c(f));
	ck_assert_int_eq(MPI_Mrecv(&v, 1, MPI_INT, &ms, MPI_STATUS_IGNORE),
			 MPI_ERR_REQUEST);
	ms = MPI_MESSAGE_NULL;
	ck_assert_int_eq(MPI_Mrecv(&v, 1, MPI_INT, &ms, MPI_STATUS_IGNORE),
			 MPI_ERR_REQUEST);
}
END_TEST

/* Fortran statuses: the standard's fields at MPI_F_*, a count past 2^32
 * and the cancelled flag survive the round trip. */
START_TEST(status_conv)
{
	MPI_Status s = {.MPI_SOURCE = 3,
			.MPI_TAG = 77,
			.MPI_ERROR = MPI_ERR_TRUNCATE},
		   t;
	MPI_Fint f[MPI_F_STATUS_SIZE + 1];
	MPI_Count n;
	int flag;

	s.rc_count = ((MPI_Count)5 << 32) + 12;
	s.rc_cancelled = 1;
	f[MPI_F_STATUS_SIZE] = 0x5a5a;
	ck_assert_int_eq(MPI_Status_c2f(&s, f), MPI_SUCCESS);
	ck_assert_int_eq(f[MPI_F_SOURCE], 3);
	ck_assert_int_eq(f[MPI_F_TAG], 77);
	ck_assert_int_eq(f[MPI_F_ERROR], MPI_ERR_TRUNCATE);
	ck_assert_int_eq(f[MPI_F_STATUS_SIZE], 0x5a5a);
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(MPI_Status_f2c(f, &t), MPI_SUCCESS);
	ck_assert_int_eq(t.MPI_SOURCE, 3);
	ck_assert_int_eq(t.MPI_TAG, 77);
	ck_assert_int_eq(t.MPI_ERROR, MPI_ERR_TRUNCATE);
	ck_assert_int_eq(MPI_Get_elements_x(&t, MPI_BYTE, &n), MPI_SUCCESS);
	ck_assert(n == ((MPI_Count)5 << 32) + 12);
	ck_assert_int_eq(MPI_Test_cancelled(&t, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_c2f(&s, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_f2c(NULL, &t), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_f2c(f, MPI_STATUS_IGNORE), MPI_ERR_ARG);
	/* Fortran's ignore values: two distinct addresses, no status */
	ck_assert_ptr_nonnull(MPI_F_STATUS_IGNORE);
	ck_assert_ptr_ne(MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE);
	ck_assert_int_eq(MPI_Status_c2f(&s, MPI_F_STATUS_IGNORE), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_c2f(&s, MPI_F_STATUSES_IGNORE),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &t), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &t),
			 MPI_ERR_ARG);
}
END_TEST

/*
 * The global pools at MPI_THREAD_MULTIPLE: threads allocate, convert and
 * free objects of one kind at once (calls outside the critical section do,
 * thread.h): every object is its thread's alone, f2c finds it while the
 * table grows, and none is lost.
 */
#define PT_THREADS 4
#define PT_ROUNDS 2000
#define PT_HELD 6

static void *pool_thread(void *arg)
{
	int t = (int)(long)arg, i, j;

	for (i = 0; i < PT_ROUNDS; i++) {
		struct rc_group *g[PT_HELD];

		for (j = 0; j < PT_HELD; j++) {
			g[j] = rc_hobj_new(RC_HK_GROUP, sizeof(*g[j]));
			ck_assert_ptr_nonnull(g[j]);
			g[j]->size = t * 1000000 + i * 10 + j;
		}
		for (j = 0; j < PT_HELD; j++) {
			ck_assert_ptr_eq(MPI_Group_f2c(MPI_Group_c2f(g[j])),
					 g[j]);
			ck_assert_int_eq(g[j]->size, t * 1000000 + i * 10 + j);
		}
		for (j = 0; j < PT_HELD; j++)
			rc_hobj_free(RC_HK_GROUP, g[j]);
	}
	return NULL;
}

/* PT_THREADS threads running fn, each given its index; and joined. */
static void threads_start(pthread_t th[], void *(*fn)(void *))
{
	long i;

	for (i = 0; i < PT_THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, fn, (void *)i),
				 0);
}

static void threads_join(pthread_t th[])
{
	int i;

	for (i = 0; i < PT_THREADS; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
}

START_TEST(global_pools_threads)
{
	unsigned before = rc_hpool_nlive(&rc_hpools[RC_HK_GROUP]);
	pthread_t th[PT_THREADS];

	rc_thread_multiple = true;
	threads_start(th, pool_thread);
	threads_join(th);
	rc_thread_multiple = false;
	ck_assert_uint_eq(rc_hpool_nlive(&rc_hpools[RC_HK_GROUP]), before);
	ck_assert_int_eq(rc_hpools[RC_HK_GROUP].lock.word, 0);
}
END_TEST

static void setup(void)
{
	fake_mpi_setup(0, 4);
}

/* Done requests r[0..2], tagged tag, tag + 1, ...: finished by MPI_Wait,
 * MPI_Test and MPI_Request_free, the statuses checked. */
static void finish_three(MPI_Request r[], int tag)
{
	MPI_Status st;
	int flag;

	ck_assert_int_eq(MPI_Wait(&r[0], &st), MPI_SUCCESS);
	ck_assert_int_eq(st.MPI_TAG, tag);
	ck_assert_int_eq(MPI_Test(&r[1], &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(st.MPI_TAG, tag + 1);
	ck_assert_int_eq(MPI_Request_free(&r[2]), MPI_SUCCESS);
}

/*
 * The pool of eager sends done outside the section (request.h) the same
 * way, in a process with shared-memory peers: MPI_Isend's path outside
 * allocates done requests (RC_REQ_SENT) that MPI_Wait, MPI_Test, their
 * _all forms and MPI_Request_free finish outside it too, and that f2c
 * finds in their own pool.
 */
static void *req_pool_thread(void *arg)
{
	int t = (int)(long)arg, i, j, flag;

	for (i = 0; i < PT_ROUNDS; i++) {
		MPI_Request r[PT_HELD];

		for (j = 0; j < PT_HELD; j++) {
			r[j] = rc_req_alloc_out(&rc_g, RC_REQ_SENT);
			ck_assert_ptr_nonnull(r[j]);
			ck_assert_int_gt(MPI_Request_c2f(r[j]),
					 (MPI_Fint)RC_REQ_OUT_BASE);
			r[j]->status.MPI_TAG = t * 1000000 + i * 10 + j;
		}
		for (j = 0; j < PT_HELD; j++)
			ck_assert_ptr_eq(MPI_Request_f2c(MPI_Request_c2f(r[j])),
					 r[j]);
		finish_three(r, t * 1000000 + i * 10);
		ck_assert_int_eq(MPI_Waitall(3, r, MPI_STATUSES_IGNORE),
				 MPI_SUCCESS);
		ck_assert_int_eq(
			MPI_Testall(PT_HELD, r, &flag, MPI_STATUSES_IGNORE),
			MPI_SUCCESS);
		ck_assert_int_eq(flag, 1);
		for (j = 0; j < PT_HELD; j++)
			ck_assert_ptr_null(r[j]);
	}
	return NULL;
}

START_TEST(request_pool_threads)
{
	unsigned before = rc_hpool_nlive_scan(&rc_g.out_pool);
	pthread_t th[PT_THREADS];

	/* as in a process with shared-memory peers, where they are made */
	rc_g.send_mt_any = true;
	rc_thread_multiple = true;
	threads_start(th, req_pool_thread);
	threads_join(th);
	rc_thread_multiple = false;
	rc_g.send_mt_any = false;
	ck_assert_uint_eq(rc_hpool_nlive_scan(&rc_g.out_pool), before);
	ck_assert_int_eq(rc_g.out_pool.lock.word, 0);
}
END_TEST

/*
 * Requests that the engine completed, finished outside the section
 * (request.h): the thread that holds the section makes sends and
 * receives in req_pool and completes them, while PT_THREADS threads
 * finish them by MPI_Wait, MPI_Test, MPI_Waitall, MPI_Testany and
 * MPI_Request_free, outside it. Those retire the requests onto a
 * lock-free stack that each allocation in the section reaps, at the same
 * time. Every status arrives; every slot comes back.
 */
static struct rc_req *mailbox[PT_THREADS][PT_HELD];
static int mail_full[PT_THREADS];

static void *retire_thread(void *arg)
{
	int t = (int)(long)arg, i, j, flag, idx;

	for (i = 0; i < PT_ROUNDS; i++) {
		MPI_Request r[PT_HELD];
		MPI_Status st;

		while (!__atomic_load_n(&mail_full[t], __ATOMIC_ACQUIRE))
			sched_yield();
		for (j = 0; j < PT_HELD; j++)
			r[j] = mailbox[t][j];
		__atomic_store_n(&mail_full[t], 0, __ATOMIC_RELEASE);
		finish_three(r, t * 1000000 + i * 10);
		ck_assert_int_eq(MPI_Testany(PT_HELD, r, &idx, &flag, &st),
				 MPI_SUCCESS);
		ck_assert_int_eq(flag, 1);
		ck_assert_int_eq(idx, 3);
		ck_assert_int_eq(st.MPI_TAG, t * 1000000 + i * 10 + 3);
		ck_assert_int_eq(MPI_Waitall(PT_HELD, r, MPI_STATUSES_IGNORE),
				 MPI_SUCCESS);
		for (j = 0; j < PT_HELD; j++)
			ck_assert_ptr_null(r[j]);
	}
	return NULL;
}

START_TEST(retired_threads)
{
	unsigned before = rc_hpool_nlive(&rc_g.req_pool), left = PT_THREADS;
	unsigned rounds[PT_THREADS] = {0};
	pthread_t th[PT_THREADS];
	long i;
	int j;

	rc_thread_multiple = true;
	threads_start(th, retire_thread);
	while (left) {
		rc_cs_lock(&rc_cs_big);
		for (i = 0; i < PT_THREADS; i++) {
			if (rounds[i] == PT_ROUNDS ||
			    __atomic_load_n(&mail_full[i], __ATOMIC_ACQUIRE))
				continue;
			for (j = 0; j < PT_HELD; j++) {
				struct rc_req *r = rc_req_alloc(
					&rc_g,
					j & 1 ? RC_REQ_SEND : RC_REQ_RECV);

				ck_assert_ptr_nonnull(r);
				r->state = RC_REQ_ACTIVE;
				r->status.MPI_TAG =
					(int)i * 1000000 + rounds[i] * 10 + j;
				rc_req_complete(r);
				mailbox[i][j] = r;
			}
			__atomic_store_n(&mail_full[i], 1, __ATOMIC_RELEASE);
			left -= ++rounds[i] == PT_ROUNDS;
		}
		rc_cs_unlock(&rc_cs_big);
		sched_yield();
	}
	threads_join(th);
	rc_cs_lock(&rc_cs_big);
	rc_req_reap(&rc_g);
	rc_cs_unlock(&rc_cs_big);
	rc_thread_multiple = false;
	ck_assert_ptr_null(rc_g.retired);
	ck_assert_uint_eq(rc_hpool_nlive(&rc_g.req_pool), before);
}
END_TEST

/*
 * The threads' caches of out-pool slots (request.c). How many slots of p
 * are off the pool's own lists (quarantine, fresh): live, or in a cache?
 */
static unsigned off_pool(const struct rc_hpool *p)
{
	const struct rc_hobj *o;
	unsigned n = p->nquar;

	if (!p->ntab)
		return 0;
	for (o = p->fresh; o; o = o->next)
		n++;
	return p->ntab - 1 - p->npredef - n;
}

#define RC_N 200
static struct rc_inst cache_inst; /* a second instance: its pools only */
static pthread_barrier_t cache_bar;
static unsigned cache_off; /* off_pool(rc_g's) before: the main thread's */

/* Make and free n out-pool requests of inst, one at a time; their slots
 * in slot[]. */
static void cache_churn(struct rc_inst *inst, struct rc_req *slot[], int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct rc_req *r = rc_req_alloc_out(inst, RC_REQ_SENT);
		MPI_Fint f;

		ck_assert_ptr_nonnull(r);
		f = r->h.idx;
		ck_assert_ptr_eq(rc_hpool_at(&inst->out_pool, f), r);
		ck_assert_int_eq(r->state, RC_REQ_DONE);
		rc_req_free(r);
		/* a tombstone at once, though not back in the pool yet */
		ck_assert_ptr_null(rc_hpool_at(&inst->out_pool, f));
		slot[i] = r;
	}
}

static void *cache_thread(void *arg)
{
	static struct rc_req *slot[RC_N];
	struct rc_req *held[5];
	int i, j, q = (int)rc_g.out_pool.quarantine;

	(void)arg;
	/* a freed slot comes back only after `quarantine` later frees,
	 * though slots leave and return to the pool in batches */
	cache_churn(&rc_g, slot, RC_N);
	for (i = 0; i < RC_N; i++)
		for (j = i - 1; j >= 0 && j >= i - q; j--)
			ck_assert_ptr_ne(slot[i], slot[j]);
	ck_assert_uint_gt(off_pool(&rc_g.out_pool), cache_off); /* here */

	/* turning to another instance gives the first its slots back */
	cache_churn(&cache_inst, slot, 20);
	ck_assert_uint_gt(off_pool(&cache_inst.out_pool), 0);
	held[0] = rc_req_alloc_out(&rc_g, RC_REQ_RECV);
	ck_assert_ptr_nonnull(held[0]);
	ck_assert_uint_eq(off_pool(&cache_inst.out_pool), 0);
	rc_req_free(held[0]);

	/* an instance closed while this cache holds its slots: forgotten,
	 * not touched (ASan's stage checks) */
	cache_churn(&cache_inst, slot, 3);
	pthread_barrier_wait(&cache_bar); /* main: rc_req_pool_fini */
	pthread_barrier_wait(&cache_bar);
	for (i = 0; i < 5; i++) {
		held[i] = rc_req_alloc_out(&rc_g, RC_REQ_SENT);
		ck_assert_ptr_nonnull(held[i]);
	}
	for (i = 0; i < 5; i++)
		rc_req_free(held[i]);
	return NULL; /* the cache goes back as the thread exits */
}

START_TEST(request_cache)
{
	unsigned before = rc_hpool_nlive_scan(&rc_g.out_pool);
	pthread_t th;

	cache_off = off_pool(&rc_g.out_pool);
	rc_req_pool_init(&cache_inst);
	ck_assert_int_eq(pthread_barrier_init(&cache_bar, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, cache_thread, NULL), 0);
	pthread_barrier_wait(&cache_bar);
	ck_assert_uint_eq(rc_hpool_nlive_scan(&cache_inst.out_pool), 0);
	ck_assert_uint_gt(off_pool(&cache_inst.out_pool), 0);
	rc_req_pool_fini(&cache_inst);
	pthread_barrier_wait(&cache_bar);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	pthread_barrier_destroy(&cache_bar);
	ck_assert_uint_eq(off_pool(&rc_g.out_pool), cache_off);
	ck_assert_uint_eq(rc_hpool_nlive_scan(&rc_g.out_pool), before);
}
END_TEST

/* A second pool of one kind numbers its slots from its base: indices of
 * the first pool (or the base itself) name nothing in it. */
START_TEST(pool_base)
{
	enum { M = 300, BASE = 1 << 30 };
	struct rc_hpool p;
	struct obj *o[M];
	int i;

	rc_hpool_init_at(&p, RC_HK_WIN, BASE);
	for (i = 0; i < M; i++) {
		o[i] = get(&p);
		ck_assert_int_eq(o[i]->h.idx, BASE + i + 1);
		ck_assert_ptr_eq(rc_hpool_at(&p, o[i]->h.idx), o[i]);
		ck_assert_ptr_eq(rc_hpool_slot(&p, o[i]->h.idx), &o[i]->h);
		ck_assert_ptr_null(rc_hpool_at(&p, i + 1));
	}
	ck_assert_ptr_null(rc_hpool_at(&p, BASE));
	ck_assert_ptr_null(rc_hpool_at(&p, BASE + M + 100));
	ck_assert_ptr_null(rc_hpool_at(&p, -BASE));
	rc_hpool_put(&p, o[0]);
	ck_assert_ptr_null(rc_hpool_at(&p, BASE + 1));
	ck_assert_uint_eq(rc_hpool_nlive(&p), M - 1);
	rc_hpool_fini(&p);
}
END_TEST

static Suite *handle_suite(void)
{
	Suite *s = suite_create("handle");
	TCase *tc = fake_mpi_tcase("pool", TMO, NULL, NULL);

	tcase_add_test(tc, pool_fifo);
	tcase_add_test(tc, pool_no_quarantine);
	tcase_add_test(tc, pool_grow);
	tcase_add_test(tc, pool_base);
	suite_add_tcase(s, tc);

	tc = fake_mpi_tcase("api", TMO, setup, fake_mpi_teardown);
	tcase_add_test(tc, predefined_indices);
	tcase_add_test(tc, explain);
	tcase_add_test(tc, stale_handles);
	tcase_add_test(tc, stale_message);
	tcase_add_test(tc, status_conv);
	tcase_add_test(tc, global_pools_threads);
	tcase_add_test(tc, request_pool_threads);
	tcase_add_test(tc, retired_threads);
	tcase_add_test(tc, request_cache);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(handle_suite());
}
