/*
 * test_verbs.c - the verbs transport without hardware.
 *
 *   rcache   the registration cache: covering lookups, overlaps, LRU
 *            eviction, invalidation of unused and in-use entries, a
 *            registration racing an invalidation, retry after eviction,
 *            and the real memory hooks (munmap, mmap MAP_FIXED, madvise,
 *            mremap, shmdt, free of a block glibc mmapped) of this process
 *   credit   credit accounting: a random flood against a model SRQ never
 *            finds it empty, windows never exceed the pool, counters wrap
 *   qpattr   QP attributes for InfiniBand (LID, no GRH, SL) and RoCE (GRH,
 *            GID, traffic class, hop limit), MTU and RDMA-read limits
 *   setup    2-rank worlds (engine + verbs transport over the fake verbs of
 *            verbs_fake.c): GID choice by type, overrides, bad settings,
 *            missing devices, and every setup call failing in turn (modex
 *            RoCE, modex InfiniBand, rdma_cm, UD handshake) with nothing
 *            left allocated
 *   data     traffic over the fakes: every size and rendezvous mode in
 *            every wiring, floods with tiny credit windows (no RNR ever),
 *            simultaneous connects (rdma_cm, UD handshake), lost and
 *            unanswered handshakes, a completion error naming both ends,
 *            device atomics (the work request, loopback to our own memory)
 */
#include <check.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
#include "comm.h"
#include "dtype.h"
#include "errhandler.h"
#include "inst.h"
#include "log.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "tp_verbs.h"
#include "verbs.h"
#include "verbs_fake.h"
#include "verbs_hooks.h"

/* ---- registration cache -------------------------------------------------- */

static int n_reg, n_dereg, reg_fail_next;
static struct rc_rcache *race_rc;

static int t_reg(void *ctx, void *addr, size_t len, void **mr, uint32_t *lkey,
		 uint32_t *rkey)
{
	if (reg_fail_next) {
		reg_fail_next--;
		return ENOMEM;
	}
	if (race_rc) /* the memory goes away while we register it */
		rc_rcache_invalidate(race_rc, (uintptr_t)addr,
				     (uintptr_t)addr + 1);
	n_reg++;
	*mr = malloc(1);
	*lkey = *rkey = (uint32_t)n_reg;
	return 0;
}

static void t_dereg(void *ctx, void *mr)
{
	n_dereg++;
	free(mr);
}

static const struct rc_rcache_reg_ops t_ops = {t_reg, t_dereg};

static struct rc_rcache *rc_new(size_t max_entries, bool enabled)
{
	n_reg = n_dereg = reg_fail_next = 0;
	race_rc = NULL;
	return rc_rcache_new(&t_ops, NULL, max_entries, 0, enabled);
}

START_TEST(rcache_cover)
{
	struct rc_rcache *rc = rc_new(16, true);
	struct rc_rcache_entry *a, *b, *c, *d;
	static char buf[64 << 10] __attribute__((aligned(4096)));
	struct rc_rcache_stats st;

	ck_assert_int_eq(rc_rcache_get(rc, buf + 100, 10000, &a), 0);
	ck_assert_uint_eq(a->start, (uintptr_t)buf);
	ck_assert_uint_eq(a->end, (uintptr_t)buf + 12288);
	/* inside: a hit */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 4096, 100, &b), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(n_reg, 1);
	/* overlapping but longer: a new registration */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 16384, &c), 0);
	ck_assert_ptr_ne(c, a);
	ck_assert_int_eq(n_reg, 2);
	/* inside the second one only */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 16384, 4096, &d), 0);
	ck_assert_ptr_eq(d, c);
	rc_rcache_put(rc, a);
	rc_rcache_put(rc, b);
	rc_rcache_put(rc, c);
	rc_rcache_put(rc, d);
	ck_assert_int_eq(n_dereg, 0); /* cached */
	rc_rcache_stats(rc, &st);
	ck_assert_uint_eq(st.hits, 2);
	ck_assert_uint_eq(st.misses, 2);
	ck_assert_uint_eq(st.entries, 2);
	rc_rcache_free(rc);
	ck_assert_int_eq(n_dereg, 2);
}
END_TEST

START_TEST(rcache_invalidate)
{
	struct rc_rcache *rc = rc_new(16, true);
	struct rc_rcache_entry *a, *b, *c;
	static char buf[64 << 10] __attribute__((aligned(4096)));

	/* unused: dropped at the next gc */
	ck_assert_int_eq(rc_rcache_get(rc, buf, 4096, &a), 0);
	rc_rcache_put(rc, a);
	rc_rcache_invalidate(rc, (uintptr_t)buf + 4095, (uintptr_t)buf + 4096);
	ck_assert(rc_rcache_gc_pending(rc));
	ck_assert_int_eq(n_dereg, 0); /* never from the invalidation */
	rc_rcache_gc(rc);
	ck_assert_int_eq(n_dereg, 1);
	ck_assert(!rc_rcache_gc_pending(rc));
	/* a range next to it is untouched */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 4096, &a), 0);
	rc_rcache_invalidate(rc, (uintptr_t)buf, (uintptr_t)buf + 8192);
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 100, &b), 0);
	ck_assert_ptr_eq(a, b);
	rc_rcache_put(rc, b);
	/* in use: forgotten now, deregistered when released */
	rc_rcache_invalidate(rc, (uintptr_t)buf + 8192, (uintptr_t)buf + 8193);
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 100, &c), 0);
	ck_assert_ptr_ne(c, a);
	ck_assert_int_eq(n_dereg, 1);
	rc_rcache_put(rc, a);
	ck_assert_int_eq(n_dereg, 2);
	rc_rcache_put(rc, c);
	rc_rcache_free(rc);
	ck_assert_int_eq(n_reg, n_dereg);
}
END_TEST

START_TEST(rcache_lru)
{
	struct rc_rcache *rc = rc_new(2, true);
	struct rc_rcache_entry *e[3], *x;
	static char buf[64 << 10] __attribute__((aligned(4096)));
	int i;

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(rc_rcache_get(rc, buf + i * 8192, 10, &e[i]),
				 0);
		rc_rcache_put(rc, e[i]);
	}
	ck_assert_int_eq(n_dereg, 1); /* the least recently used: e[0] */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 10, &x), 0);
	ck_assert_ptr_eq(x, e[1]);
	rc_rcache_put(rc, x);
	ck_assert_int_eq(rc_rcache_get(rc, buf, 10, &x), 0);
	ck_assert_int_eq(n_reg, 4);
	rc_rcache_put(rc, x); /* evicts e[2], used least recently */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 10, &x), 0);
	ck_assert_ptr_eq(x, e[1]);
	rc_rcache_put(rc, x);
	rc_rcache_free(rc);
	ck_assert_int_eq(n_reg, n_dereg);
}
END_TEST

START_TEST(rcache_race_and_retry)
{
	struct rc_rcache *rc = rc_new(16, true);
	struct rc_rcache_entry *a, *b;
	static char buf[64 << 10] __attribute__((aligned(4096)));
	struct rc_rcache_stats st;

	race_rc = rc;
	ck_assert_int_eq(rc_rcache_get(rc, buf, 100, &a), 0);
	race_rc = NULL;
	rc_rcache_put(rc, a); /* not cached: deregistered now */
	ck_assert_int_eq(n_dereg, 1);
	rc_rcache_stats(rc, &st);
	ck_assert_uint_eq(st.uncached, 1);
	ck_assert_uint_eq(st.entries, 0);

	/* a failed registration evicts unused entries and tries again */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 8192, 100, &a), 0);
	rc_rcache_put(rc, a);
	reg_fail_next = 1;
	ck_assert_int_eq(rc_rcache_get(rc, buf + 16384, 100, &b), 0);
	ck_assert_int_eq(n_dereg, 2);
	rc_rcache_put(rc, b);
	/* nothing left to evict: the error comes back */
	ck_assert_int_eq(rc_rcache_get(rc, buf + 16384, 100, &b), 0);
	reg_fail_next = 1;
	ck_assert_int_eq(rc_rcache_get(rc, buf + 32768, 100, &a), ENOMEM);
	rc_rcache_put(rc, b);
	rc_rcache_free(rc);
	ck_assert_int_eq(n_reg, n_dereg);
}
END_TEST

START_TEST(rcache_disabled)
{
	struct rc_rcache *rc = rc_new(16, false);
	struct rc_rcache_entry *a;
	static char buf[8192] __attribute__((aligned(4096)));

	ck_assert_int_eq(rc_rcache_get(rc, buf, 100, &a), 0);
	rc_rcache_put(rc, a);
	ck_assert_int_eq(rc_rcache_get(rc, buf, 100, &a), 0);
	rc_rcache_put(rc, a);
	ck_assert_int_eq(n_reg, 2);
	ck_assert_int_eq(n_dereg, 2);
	rc_rcache_free(rc);
}
END_TEST

/* Register an mmapped range, let `what` happen to it, check the entry is
 * gone. */
static void hook_case(int what)
{
	struct rc_rcache *rc = rc_new(16, true);
	size_t len = 4 * 4096;
	char *p = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rc_rcache_entry *a;
	unsigned long calls = rc_verbs_hooks_calls();
	int id = -1;

	ck_assert_ptr_ne(p, MAP_FAILED);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	if (what == 5) { /* the sanitizer's malloc replaces glibc's */
		munmap(p, 2 * len);
		rc_rcache_free(rc);
		return;
	}
#endif
	if (what == 5) { /* a block glibc's malloc mmaps */
		munmap(p, 2 * len);
		p = malloc(1 << 20);
		ck_assert_ptr_nonnull(p);
	}
	if (what == 4) { /* shared memory segment instead */
		munmap(p, 2 * len);
		id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
		ck_assert_int_ge(id, 0);
		p = shmat(id, NULL, 0);
		ck_assert_ptr_ne(p, (void *)-1);
		shmctl(id, IPC_RMID, NULL);
	}
	ck_assert_int_eq(rc_rcache_get(rc, p + 4096, 4096, &a), 0);
	rc_rcache_put(rc, a);
	switch (what) {
	case 0:
		munmap(p + 4096, 4096);
		break;
	case 1:
		ck_assert_ptr_eq(mmap(p, len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				      -1, 0),
				 p);
		break;
	case 2:
		madvise(p, len, MADV_DONTNEED);
		break;
	case 3:
		ck_assert_ptr_ne(mremap(p, len, len,
					MREMAP_MAYMOVE | MREMAP_FIXED, p + len),
				 MAP_FAILED);
		break;
	case 4:
		shmdt(p);
		break;
	case 5:
		free(p); /* glibc unmaps it with its internal __munmap */
		break;
	}
	ck_assert_uint_gt(rc_verbs_hooks_calls(), calls);
	ck_assert(rc_rcache_gc_pending(rc));
	rc_rcache_gc(rc);
	ck_assert_int_eq(n_dereg, 1);
	/* a harmless call leaves entries alone */
	ck_assert_int_eq(rc_rcache_get(rc, &n_reg, 4, &a), 0);
	rc_rcache_put(rc, a);
	madvise(&n_reg, 4, MADV_NORMAL);
	ck_assert(!rc_rcache_gc_pending(rc));
	rc_rcache_free(rc);
	if (what < 4)
		munmap(p, 2 * len);
}

START_TEST(rcache_hooks)
{
	hook_case(_i);
}
END_TEST

/* ---- credits ----------------------------------------------------------------
 */

/* P senders flood one receiver with R buffers at random; the receiver
 * reposts in random batches. A send never finds the SRQ empty. */
START_TEST(credit_flood_model)
{
	enum { P = 5, R = 40, MAXW = 16 };
	struct vb_pool pool = {.total = R, .free = R};
	struct vb_rx_credit rx[P];
	struct vb_tx_credit tx[P];
	unsigned posted = R, inflight[P] = {0}, pending_total = 0;
	unsigned long sent = 0, step;
	int p;

	srand(7);
	for (p = 0; p < P; p++)
		vb_tx_init(&tx[p], vb_rx_open(&pool, &rx[p], 4));
	ck_assert_uint_eq(pool.free, R - P * 4);
	for (step = 0; step < 200000; step++) {
		int r = rand() % 10;
		uint32_t sum = 0;

		p = rand() % P;
		if (r < 5 && vb_tx_avail(&tx[p])) { /* send */
			tx[p].sent++;
			inflight[p]++;
			sent++;
		} else if (r < 8 && inflight[p]) {    /* arrives */
			ck_assert_uint_gt(posted, 0); /* never an RNR */
			posted--;
			inflight[p]--;
			vb_rx_received(&rx[p]);
			pending_total++;
		} else if (r == 8) { /* repost all */
			int q;

			posted += pending_total;
			pending_total = 0;
			for (q = 0; q < P; q++)
				if (rx[q].pending)
					vb_rx_reposted(&pool, &rx[q], MAXW);
		} else if (vb_rx_update_due(&rx[p]) || rand() % 4 == 0) {
			vb_tx_update(&tx[p], vb_rx_advertise(&rx[p]));
		}
		for (p = 0; p < P; p++) {
			ck_assert_uint_le(rx[p].window, MAXW);
			ck_assert_uint_eq(rx[p].limit - rx[p].consumed,
					  rx[p].window);
			/* what the sender may still send fits the window */
			ck_assert_uint_le(vb_tx_avail(&tx[p]) + inflight[p] +
						  rx[p].pending,
					  rx[p].window);
			sum += rx[p].window;
		}
		ck_assert_uint_eq(sum + pool.free, R);
	}
	ck_assert_uint_gt(sent, 10000);
}
END_TEST

START_TEST(credit_wrap_and_slots)
{
	struct vb_tx_credit tx;
	struct vb_pool pool = {.total = 8, .free = 8};
	struct vb_rx_credit rx;
	uint32_t v;

	vb_tx_init(&tx, 0);
	tx.sent = tx.limit = 0xfffffffeu;
	ck_assert_uint_eq(vb_tx_avail(&tx), 0);
	vb_tx_update(&tx, 2); /* wrapped: newer */
	ck_assert_uint_eq(vb_tx_avail(&tx), 4);
	vb_tx_update(&tx, 0xffffffffu); /* stale: ignored */
	ck_assert_uint_eq(tx.limit, 2);

	vb_rx_open(&pool, &rx, 4);
	ck_assert(!vb_rx_update_due(&rx));
	vb_rx_received(&rx);
	vb_rx_reposted(&pool, &rx, 4);
	ck_assert(!vb_rx_update_due(&rx)); /* 1 owed of a window of 4 */
	vb_rx_received(&rx);
	vb_rx_reposted(&pool, &rx, 4);
	ck_assert(vb_rx_update_due(&rx)); /* half a window */
	ck_assert_uint_eq(vb_rx_advertise(&rx), 6);
	ck_assert(!vb_rx_update_due(&rx));
	/* growth from the pool up to the maximum window */
	vb_rx_received(&rx);
	vb_rx_received(&rx);
	vb_rx_reposted(&pool, &rx, 16);
	ck_assert_uint_eq(rx.window, 6);
	ck_assert_uint_eq(pool.free, 2);
	vb_rx_close(&pool, &rx);
	ck_assert_uint_eq(pool.free, 8);

	ck_assert(vb_slot_unpack(vb_slot_pack(12345), &v));
	ck_assert_uint_eq(v, 12345);
	ck_assert(!vb_slot_unpack(0, &v)); /* never written */
	ck_assert(!vb_slot_unpack(vb_slot_pack(7) ^ (1ull << 40), &v));
}
END_TEST

/* ---- QP attributes
 * ----------------------------------------------------------- */

static void attr_vt(struct vb_tp *vt, int ll)
{
	memset(vt, 0, sizeof(*vt));
	vt->port = 1;
	vt->pattr.link_layer = (uint8_t)ll;
	vt->pattr.active_mtu = IBV_MTU_2048;
	vt->pattr.lid = 5;
	vt->dattr.max_qp_rd_atom = 16;
	vt->dattr.max_qp_init_rd_atom = 8;
	vt->prm.sl = 3;
	vt->prm.tc = 106;
	vt->prm.hop_limit = 64;
	vt->prm.rd_atom = 12;
	vt->prm.timeout = 18;
	vt->prm.retry = 6;
	vt->prm.rnr_retry = 0;
	vt->gid_index = 3;
}

START_TEST(qpattr_ib)
{
	struct vb_addr pa;
	struct vb_tp vt;
	struct ibv_qp_attr a;
	int mask;

	attr_vt(&vt, IBV_LINK_LAYER_INFINIBAND);
	memset(&pa, 0, sizeof(pa));
	pa.lid = 42;
	pa.mtu = IBV_MTU_4096;
	pa.rd_atom = 4;
	vb_qp_rtr_attr(&vt, &pa, 0x1234, &a, &mask);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RTR);
	ck_assert_int_eq(a.ah_attr.is_global, 0);
	ck_assert_uint_eq(a.ah_attr.dlid, 42);
	ck_assert_uint_eq(a.ah_attr.sl, 3);
	ck_assert_uint_eq(a.ah_attr.port_num, 1);
	ck_assert_int_eq(a.path_mtu, IBV_MTU_2048); /* min of the two */
	ck_assert_uint_eq(a.dest_qp_num, 0x1234);
	ck_assert_uint_eq(a.rq_psn, vb_psn(0x1234));
	ck_assert_uint_eq(a.max_dest_rd_atomic, 12);
	ck_assert_uint_gt(a.min_rnr_timer, 0);
	ck_assert_int_eq(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER);
	vb_qp_rts_attr(&vt, &pa, 0x99, &a, &mask);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RTS);
	ck_assert_uint_eq(a.sq_psn, vb_psn(0x99));
	ck_assert_uint_eq(a.timeout, 18);
	ck_assert_uint_eq(a.retry_cnt, 6);
	ck_assert_uint_eq(a.rnr_retry, 0);
	ck_assert_uint_eq(a.max_rd_atomic, 4); /* what the peer answers */
	ck_assert_int_eq(mask, IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	pa.rd_atom = 64;
	vb_qp_rts_attr(&vt, &pa, 0x99, &a, &mask);
	ck_assert_uint_eq(a.max_rd_atomic, 8); /* our device's limit */
	ck_assert_uint_lt(vb_psn(0x1234), 1u << 24);
}
END_TEST

START_TEST(qpattr_roce)
{
	struct vb_addr pa;
	struct vb_tp vt;
	struct ibv_qp_attr a;
	int mask, i;

	attr_vt(&vt, IBV_LINK_LAYER_ETHERNET);
	memset(&pa, 0, sizeof(pa));
	pa.mtu = IBV_MTU_1024;
	for (i = 0; i < 16; i++)
		pa.gid[i] = (uint8_t)(i * 17);
	vb_qp_rtr_attr(&vt, &pa, 77, &a, &mask);
	ck_assert_int_eq(a.ah_attr.is_global, 1);
	ck_assert_uint_eq(a.ah_attr.dlid, 0);
	ck_assert_mem_eq(a.ah_attr.grh.dgid.raw, pa.gid, 16);
	ck_assert_uint_eq(a.ah_attr.grh.sgid_index, 3);
	ck_assert_uint_eq(a.ah_attr.grh.hop_limit, 64);
	ck_assert_uint_eq(a.ah_attr.grh.traffic_class, 106);
	ck_assert_int_eq(a.path_mtu, IBV_MTU_1024);
	ck_assert_uint_eq(a.dest_qp_num, 77);
	ck_assert_uint_eq(a.rq_psn, vb_psn(77));
}
END_TEST

/* ---- worlds of ranks over the fake verbs ----------------------------------
 */

#define VW_MAX 4

struct vw {
	int n;
	struct rc_inst *inst[VW_MAX];
	bool opened[VW_MAX], connected[VW_MAX];
	int status; /* first error of open/connect */
};

static jmp_buf vw_abort_jmp;
static bool vw_abort_armed;
static int vw_aborts;

static int vwb_init(struct rc_boot *b, struct rc_boot_info *info)
{
	return RC_OK;
}

static int vwb_put(struct rc_boot *b, const void *blob, size_t len)
{
	return RC_OK;
}

static int vwb_fence(struct rc_boot *b, bool collect)
{
	return RC_OK;
}

static int vwb_get(struct rc_boot *b, int rank, void **blob, size_t *len)
{
	struct vw *w = b->priv;
	struct rc_inst *p = w->inst[rank];

	if (!p || !p->modex_out)
		return RC_ERR_BOOT;
	*blob = malloc(p->modex_out_len);
	memcpy(*blob, p->modex_out, p->modex_out_len);
	*len = p->modex_out_len;
	return RC_OK;
}

static void vwb_abort(struct rc_boot *b, int code, const char *msg)
{
	vw_aborts++;
	if (vw_abort_armed)
		longjmp(vw_abort_jmp, 1);
	ck_abort_msg("rc_abort: %s", msg ? msg : "");
}

static void vwb_fini(struct rc_boot *b)
{
}

static const struct rc_boot_ops vw_boot = {
	.name = "unit",
	.init = vwb_init,
	.put = vwb_put,
	.fence = vwb_fence,
	.get = vwb_get,
	.abort = vwb_abort,
	.fini = vwb_fini,
};

/* the fakes' table vw_open uses (setup_fakes: fk_ops) */
static const struct rc_verbs_ops *vw_fake_ops = &fk_ops;

/* Open and connect n ranks with RCMPI_TRANSPORTS=verbs over the fakes;
 * never asserts (w->status says how it went). */
static void vw_open(struct vw *w, int n)
{
	int r, k, ret;

	memset(w, 0, sizeof(*w));
	w->n = n;
	rc_verbs_ops = vw_fake_ops;
	setenv("RCMPI_TRANSPORTS", "verbs", 1);
	for (r = 0; r < n; r++) {
		struct rc_inst *inst = calloc(1, sizeof(*inst));

		inst->rank = r;
		inst->size = n;
		snprintf(inst->host, sizeof(inst->host), "unit%d", r);
		snprintf(inst->nspace, sizeof(inst->nspace), "unit");
		inst->procs = calloc(n, sizeof(*inst->procs));
		for (k = 0; k < n; k++)
			snprintf(inst->procs[k].host, RC_HOST_MAX, "unit%d", k);
		inst->boot.ops = &vw_boot;
		inst->boot.priv = w;
		rc_req_pool_init(inst);
		w->inst[r] = inst;
		ret = rc_p2p_open(inst);
		w->opened[r] = true;
		if (ret && !w->status)
			w->status = ret;
	}
	if (w->status)
		return;
	for (r = 0; r < n; r++) {
		ret = rc_modex_exchange(w->inst[r]);
		if (!ret)
			ret = rc_p2p_connect(w->inst[r]);
		if (ret) {
			w->status = ret;
			return;
		}
		w->connected[r] = true;
		ck_assert_int_eq(rc_comm_init_world(w->inst[r], NULL, NULL),
				 RC_OK);
		/* failures come back as errors, not as the end of the test */
		w->inst[r]->world->errh = &rc_mpi_errors_return;
	}
}

static void vw_close(struct vw *w)
{
	int r;

	for (r = 0; r < w->n; r++) {
		struct rc_inst *inst = w->inst[r];

		if (!inst)
			continue;
		if (w->opened[r])
			rc_p2p_close(inst);
		if (w->connected[r])
			rc_comm_fini_world(inst);
		rc_modex_free(inst);
		rc_req_pool_fini(inst);
		free(inst->procs);
		free(inst);
		w->inst[r] = NULL;
	}
	rc_verbs_ops = &rc_verbs_real_ops;
}

static unsigned vw_progress(struct vw *w)
{
	unsigned ev = 0;
	int r;

	for (r = 0; r < w->n; r++)
		ev += rc_progress(w->inst[r]);
	return ev;
}

/* Progress until every request is done (or a bound). */
static bool vw_wait(struct vw *w, struct rc_req **reqs, int n)
{
	unsigned long spins;
	int i;

	for (spins = 0; spins < 2000000; spins++) {
		for (i = 0; i < n && (!reqs[i] || rc_req_done(reqs[i])); i++)
			;
		if (i == n)
			return true;
		vw_progress(w);
	}
	return false;
}

static struct rc_tp *vw_tp(struct vw *w, int r, int peer)
{
	return w->inst[r]->procs[peer].tp;
}

static void env_clear(void)
{
	static const char *const names[] = {
		"RCMPI_VERBS_DEVICE",
		"RCMPI_VERBS_GID_INDEX",
		"RCMPI_VERBS_TC",
		"RCMPI_VERBS_SL",
		"RCMPI_VERBS_CM",
		"RCMPI_VERBS_CM_AUTO_RANKS",
		"RCMPI_VERBS_CM_TIMEOUT",
		"RCMPI_VERBS_UD_TIMEOUT",
		"RCMPI_VERBS_UD_AGENT",
		"RCMPI_VERBS_CREDITS",
		"RCMPI_VERBS_IDLE_MS",
		"RCMPI_VERBS_RQ_SIZE",
		"RCMPI_VERBS_SQ_SIZE",
		"RCMPI_VERBS_SIGNAL",
		"RCMPI_VERBS_BOUNCE",
		"RCMPI_RNDV_MODE",
		"RCMPI_VERBS_RDMA_CHUNK",
		"RCMPI_VERBS_EAGER_LIMIT",
		"RCMPI_VERBS_INLINE",
		"RCMPI_NET_IF",
		"RCMPI_VERBS_SEND_CQE",
		"RCMPI_VERBS_FP_RINGS",
		"RCMPI_VERBS_FP_SLOTS",
		"RCMPI_VERBS_FP_SIZE",
		"RCMPI_VERBS_FP_THRESHOLD",
		"RCMPI_VERBS_RD_FENCE",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

static void setup_fakes(void)
{
	fk_reset();
	env_clear();
	/* the UD handshake's agent thread: the fakes are not thread-safe;
	 * ud_agent calls its step itself, ud_agent_thread runs it over
	 * fk_ops_locked */
	setenv("RCMPI_VERBS_UD_AGENT", "0", 1);
	vw_fake_ops = &fk_ops;
}

/* The QP of rank r towards rank peer. */
static uint32_t qpn_of(struct vw *w, int r, int peer)
{
	struct vb_tp *vt = (struct vb_tp *)vw_tp(w, r, peer);

	return vt->peers[peer].qp->qp_num;
}

/* ---- setup ----------------------------------------------------------------
 */

START_TEST(setup_roce_gid_by_type)
{
	struct ibv_qp_attr rtr, rts;
	int rm, sm;
	uint8_t gid1[16];
	struct vw w;

	setenv("RCMPI_VERBS_TC", "96", 1);
	fk.mtu[1] = IBV_MTU_4096;
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert(fk_qp_attrs(qpn_of(&w, 0, 1), &rtr, &rm, &rts, &sm));
	/* index 0 is link-local, 1 is RoCE v1: the RoCE v2 IPv4-mapped one */
	ck_assert_uint_eq(rtr.ah_attr.grh.sgid_index, 2);
	ck_assert_int_eq(rtr.ah_attr.is_global, 1);
	fk_ctx_gid(1, gid1);
	ck_assert_mem_eq(rtr.ah_attr.grh.dgid.raw, gid1, 16);
	ck_assert_uint_eq(rtr.ah_attr.grh.traffic_class, 96);
	ck_assert_uint_eq(rtr.ah_attr.grh.hop_limit, 64);
	ck_assert_uint_eq(rtr.dest_qp_num, qpn_of(&w, 1, 0));
	ck_assert_uint_eq(rtr.rq_psn, vb_psn(qpn_of(&w, 1, 0)));
	ck_assert_uint_eq(rts.sq_psn, vb_psn(qpn_of(&w, 0, 1)));
	ck_assert_int_eq(rtr.path_mtu, IBV_MTU_1024); /* min(1024, 4096) */
	ck_assert_uint_eq(rts.retry_cnt, 6);	      /* rxe: 7 is "forever" */
	ck_assert_uint_eq(rts.rnr_retry, 0);
	ck_assert(fk_qp_attrs(qpn_of(&w, 1, 0), &rtr, &rm, &rts, &sm));
	ck_assert_int_eq(rtr.path_mtu, IBV_MTU_1024);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

START_TEST(setup_ib_lid)
{
	struct ibv_qp_attr rtr, rts;
	int rm, sm;
	struct vw w;

	fk.link_layer = IBV_LINK_LAYER_INFINIBAND;
	setenv("RCMPI_VERBS_SL", "5", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert(fk_qp_attrs(qpn_of(&w, 0, 1), &rtr, &rm, &rts, &sm));
	ck_assert_int_eq(rtr.ah_attr.is_global, 0);
	ck_assert_uint_eq(rtr.ah_attr.dlid, fk_ctx_lid(1));
	ck_assert_uint_eq(rtr.ah_attr.sl, 5);
	ck_assert_uint_eq(rtr.dest_qp_num, qpn_of(&w, 1, 0));
	ck_assert_uint_eq(rtr.max_dest_rd_atomic, 16);
	ck_assert_uint_eq(rts.max_rd_atomic, 16);
	ck_assert(fk_qp_attrs(qpn_of(&w, 1, 0), &rtr, &rm, &rts, &sm));
	ck_assert_uint_eq(rtr.ah_attr.dlid, fk_ctx_lid(0));
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

START_TEST(setup_gid_override_and_fallback)
{
	struct ibv_qp_attr rtr, rts;
	int rm, sm;
	struct vw w;

	setenv("RCMPI_VERBS_GID_INDEX", "0", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert(fk_qp_attrs(qpn_of(&w, 0, 1), &rtr, &rm, &rts, &sm));
	ck_assert_uint_eq(rtr.ah_attr.grh.sgid_index, 0);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);

	/* no ibv_query_gid_table: GIDs one by one, same choice */
	setup_fakes();
	fk.gid_table_fails = true;
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert(fk_qp_attrs(qpn_of(&w, 0, 1), &rtr, &rm, &rts, &sm));
	ck_assert_uint_eq(rtr.ah_attr.grh.sgid_index, 2);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Settings that must stop MPI_Init, and missing hardware. */
START_TEST(setup_bad_settings)
{
	static const struct {
		const char *var, *val;
		int status;
	} bad[] = {
		{"RCMPI_VERBS_GID_INDEX", "3", RC_ERR_INVAL}, /* empty */
		{"RCMPI_VERBS_GID_INDEX", "99", RC_ERR_INVAL},
		{"RCMPI_VERBS_GID_INDEX", "one", RC_ERR_INVAL},
		{"RCMPI_VERBS_DEVICE", "mlx5_0", RC_ERR_INVAL},
		{"RCMPI_VERBS_DEVICE", "fake0:2", RC_ERR_INVAL},
		{"RCMPI_VERBS_DEVICE", "fake0:x", RC_ERR_INVAL},
		{"RCMPI_VERBS_CM", "tcp", RC_ERR_INVAL},
		{"RCMPI_VERBS_RD_FENCE", "2", RC_ERR_INVAL},
		{"RCMPI_VERBS_RD_FENCE", "yes", RC_ERR_INVAL},
	};
	struct vw w;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup_fakes();
		setenv(bad[i].var, bad[i].val, 1);
		vw_open(&w, 2);
		ck_assert_msg(w.status == bad[i].status, "%s=%s: status %d",
			      bad[i].var, bad[i].val, w.status);
		vw_close(&w);
		ck_assert_int_eq(fk_live_total(), 0);
	}
	/* a named device whose port is down */
	setup_fakes();
	fk.port_state = IBV_PORT_DOWN;
	setenv("RCMPI_VERBS_DEVICE", "fake0", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_ERR_INVAL);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
	/* no device, no active port: a peer needs verbs, none reaches it */
	setup_fakes();
	fk.ndevices = 0;
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_ERR_UNREACH);
	vw_close(&w);
	setup_fakes();
	fk.port_state = IBV_PORT_DOWN;
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_ERR_UNREACH);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* One message each way (the rdma_cm wiring connects on it). */
static bool vw_exchange(struct vw *w)
{
	struct rc_req *r[4] = {NULL};
	int a = 1, b = 2, x = 0, y = 0;

	/* (a request left unfreed when a start fails: the test fails anyway) */
	if (rc_p2p_isend(w->inst[0]->world, 0, &a, 1, &rc_mpi_int, 1, 3,
			 RC_SEND_STD, &r[0]) ||
	    rc_p2p_isend(w->inst[1]->world, 0, &b, 1, &rc_mpi_int, 0, 3,
			 RC_SEND_STD, &r[1]) ||
	    rc_p2p_irecv(w->inst[0]->world, 0, &x, 1, &rc_mpi_int, 1, 3,
			 &r[2]) ||
	    rc_p2p_irecv(w->inst[1]->world, 0, &y, 1, &rc_mpi_int, 0, 3, &r[3]))
		return false;
	bool ok;
	int i;

	if (!vw_wait(w, r, 4))
		return false;
	ok = x == 2 && y == 1 && !r[0]->err && !r[1]->err && !r[2]->err &&
	     !r[3]->err;
	for (i = 0; i < 4; i++)
		rc_req_free(r[i]);
	return ok;
}

/* Fail the n-th verbs call of a 2-rank setup, for every n: nothing leaks,
 * nothing crashes, and success needs every call to succeed. */
static void fail_every_call(int link_layer, const char *cm, bool atomic)
{
	unsigned long n, total;
	volatile int failures = 0;
	struct vw w;

	/* a clean run: how many calls? */
	setup_fakes();
	fk.link_layer = link_layer;
	if (atomic)
		fk.atomic_cap = IBV_ATOMIC_HCA; /* and a loopback QP */
	if (cm)
		setenv("RCMPI_VERBS_CM", cm, 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	if (cm)
		ck_assert(vw_exchange(&w));
	total = fk.calls;
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
	ck_assert_uint_gt(total, 10);

	for (n = 1; n <= total; n++) {
		bool ok;

		setup_fakes();
		fk.link_layer = link_layer;
		if (atomic)
			fk.atomic_cap = IBV_ATOMIC_HCA;
		if (cm)
			setenv("RCMPI_VERBS_CM", cm, 1);
		fk.fail_at = n;
		vw_abort_armed = true;
		if (setjmp(vw_abort_jmp)) {
			/* ended by rc_abort (a fatal error): release */
			w.inst[0]->in_progress = 0;
			w.inst[1]->in_progress = 0;
			ok = false;
		} else {
			vw_open(&w, 2);
			ok = w.status == RC_OK && (!cm || vw_exchange(&w));
		}
		vw_abort_armed = false;
		failures += !ok;
		vw_close(&w);
		ck_assert_msg(
			fk_live_total() == 0,
			"failing call %lu of %lu leaves %d objects "
			"(devlist %d ctx %d pd %d cq %d srq %d qp %d mr %d "
			"chan %d id %d event %d ah %d)",
			n, total, fk_live_total(), fk.live[FK_DEVLIST],
			fk.live[FK_CTX], fk.live[FK_PD], fk.live[FK_CQ],
			fk.live[FK_SRQ], fk.live[FK_QP], fk.live[FK_MR],
			fk.live[FK_CHAN], fk.live[FK_ID], fk.live[FK_EVENT],
			fk.live[FK_AH]);
	}
	/* most failures must be failures (a few calls are best effort:
	 * ibv_fork_init, rdma_set_option) */
	ck_assert_int_ge(failures, (int)total * 2 / 3);
}

START_TEST(setup_fail_every_call_roce)
{
	fail_every_call(IBV_LINK_LAYER_ETHERNET, NULL, true);
}
END_TEST

START_TEST(setup_fail_every_call_ib)
{
	fail_every_call(IBV_LINK_LAYER_INFINIBAND, NULL, false);
}
END_TEST

START_TEST(setup_fail_every_call_rdmacm)
{
	fail_every_call(IBV_LINK_LAYER_ETHERNET, "rdmacm", true);
}
END_TEST

START_TEST(setup_fail_every_call_ud)
{
	fail_every_call(IBV_LINK_LAYER_INFINIBAND, "ud", true);
}
END_TEST

/* ---- traffic ------------------------------------------------------------- */

static unsigned char pat(size_t i, int s)
{
	return (unsigned char)(i * 131 + (size_t)s * 7 + (i >> 9));
}

/* Every rank sends each size to every other rank at once. */
static void all_pairs(struct vw *w, const size_t *sizes, int nsizes)
{
	int s, a, b;

	for (s = 0; s < nsizes; s++) {
		size_t len = sizes[s];
		struct rc_req *r[VW_MAX * VW_MAX * 2];
		unsigned char *sb[VW_MAX][VW_MAX], *rb[VW_MAX][VW_MAX];
		int nr = 0;
		size_t i;

		for (a = 0; a < w->n; a++)
			for (b = 0; b < w->n; b++) {
				sb[a][b] = rb[a][b] = NULL;
				if (a == b)
					continue;
				sb[a][b] = malloc(len + 1);
				rb[a][b] = calloc(1, len + 1);
				for (i = 0; i < len; i++)
					sb[a][b][i] = pat(i, a * 10 + b + s);
				ck_assert_int_eq(rc_p2p_irecv(w->inst[b]->world,
							      0, rb[a][b], len,
							      &rc_mpi_byte, a,
							      s, &r[nr++]),
						 RC_OK);
			}
		for (a = 0; a < w->n; a++)
			for (b = 0; b < w->n; b++)
				if (a != b)
					ck_assert_int_eq(
						rc_p2p_isend(w->inst[a]->world,
							     0, sb[a][b], len,
							     &rc_mpi_byte, b, s,
							     RC_SEND_STD,
							     &r[nr++]),
						RC_OK);
		ck_assert_msg(vw_wait(w, r, nr), "size %zu: stuck", len);
		for (i = 0; i < (size_t)nr; i++) {
			ck_assert_int_eq(r[i]->err, RC_OK);
			rc_req_free(r[i]);
		}
		for (a = 0; a < w->n; a++)
			for (b = 0; b < w->n; b++) {
				if (a == b)
					continue;
				for (i = 0; i < len; i++)
					if (rb[a][b][i] !=
					    pat(i, a * 10 + b + s))
						break;
				ck_assert_msg(i == len,
					      "size %zu %d->%d: byte %zu", len,
					      a, b, i);
				free(sb[a][b]);
				free(rb[a][b]);
			}
	}
}

static const size_t sizes[] = {0,   1,	  100,	400,   497,   498,
			       600, 8192, 8193, 70000, 300001};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static void data_check_clean(void)
{
	ck_assert_uint_eq(fk.rnr, 0);
	ck_assert_uint_eq(fk.bad_key, 0);
	ck_assert_uint_eq(fk.cq_overflow, 0);
}

START_TEST(data_sizes)
{
	static const char *const modes[] = {"get", "put", "frag"};
	struct vw w;

	static const char *const wiring[] = {"modex", "rdmacm", "ud"};

	setenv("RCMPI_RNDV_MODE", modes[_i % 3], 1);
	setenv("RCMPI_VERBS_RDMA_CHUNK", "65536", 1);
	setenv("RCMPI_VERBS_CM", wiring[_i / 3], 1);
	if (_i == 8) /* the UD handshake on InfiniBand: LIDs, no GRH */
		fk.link_layer = IBV_LINK_LAYER_INFINIBAND;
	vw_open(&w, 3);
	ck_assert_int_eq(w.status, RC_OK);
	all_pairs(&w, sizes, NSIZES);
	data_check_clean();
	ck_assert_uint_gt(fk.inline_sends, 0);
	ck_assert_uint_gt(fk.sends, fk.inline_sends); /* bounce buffers */
	if (_i % 3 == 0)
		ck_assert_uint_gt(fk.reads, 0);
	if (_i % 3 == 1)
		ck_assert_uint_gt(fk.writes, 0);
	ck_assert_uint_eq(fk.ud_misaddressed, 0);
	if (_i >= 6) /* 3 pairs that both send first: 2 REQs, a REP and an
		      * RTU each; nothing lost, nothing repeated */
		ck_assert_uint_eq(fk.ud_sends, 12);
	if (_i == 8) {
		struct ibv_qp_attr rtr, rts;
		int rm, sm;

		ck_assert(fk_qp_attrs(qpn_of(&w, 0, 1), &rtr, &rm, &rts, &sm));
		ck_assert_int_eq(rtr.ah_attr.is_global, 0);
		ck_assert_uint_eq(rtr.ah_attr.dlid, fk_ctx_lid(1));
		ck_assert_uint_eq(rtr.dest_qp_num, qpn_of(&w, 1, 0));
	}
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Tiny windows and queues, one side silent for a while: RC_AGAIN, credit
 * writes, never an RNR. */
START_TEST(data_flood_tiny_credits)
{
	enum { N = 3000 };
	struct rc_req **r = calloc(4 * N, sizeof(*r));
	static int sb[2][N], rb[2][N];
	struct vb_tp *vt0, *vt1;
	struct vw w;
	int i, nr = 0, k;

	setenv("RCMPI_VERBS_CREDITS", "2", 1);
	setenv("RCMPI_VERBS_RQ_SIZE", "16", 1);
	setenv("RCMPI_VERBS_SQ_SIZE", "8", 1);
	setenv("RCMPI_VERBS_SIGNAL", "2", 1);
	setenv("RCMPI_VERBS_BOUNCE", "2", 1);
	setenv("RCMPI_VERBS_SEND_CQE", "16", 1);
	setenv("RCMPI_VERBS_FP_RINGS", "0", 1); /* the SRQ's credits only */
	if (_i)
		setenv("RCMPI_VERBS_CM", _i == 1 ? "rdmacm" : "ud", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	/* both send everything before anyone receives */
	for (k = 0; k < 2; k++)
		for (i = 0; i < N; i++) {
			sb[k][i] = i * 3 + k;
			ck_assert_int_eq(rc_p2p_isend(w.inst[k]->world, 0,
						      &sb[k][i], 1, &rc_mpi_int,
						      1 - k, 9, RC_SEND_STD,
						      &r[nr++]),
					 RC_OK);
		}
	for (i = 0; i < 20000; i++) /* rank 1 computes; rank 0 floods */
		rc_progress(w.inst[0]);
	for (k = 0; k < 2; k++)
		for (i = 0; i < N; i++)
			ck_assert_int_eq(rc_p2p_irecv(w.inst[1 - k]->world, 0,
						      &rb[k][i], 1, &rc_mpi_int,
						      k, 9, &r[nr++]),
					 RC_OK);
	ck_assert(vw_wait(&w, r, nr));
	for (k = 0; k < 2; k++)
		for (i = 0; i < N; i++)
			ck_assert_int_eq(rb[k][i], i * 3 + k);
	data_check_clean();
	vt0 = (struct vb_tp *)vw_tp(&w, 0, 1);
	vt1 = (struct vb_tp *)vw_tp(&w, 1, 0);
	ck_assert_uint_gt(vt0->n_again, 0);
	ck_assert_uint_gt(vt0->n_credit_writes + vt1->n_credit_writes, 0);
	for (i = 0; i < nr; i++)
		rc_req_free(r[i]);
	free(r);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* stderr into a pipe while a failure is provoked (its message is what the
 * test checks); err_end puts stderr back and returns what was written. */
struct err_cap {
	int fd[2];
	int saved;
};

static void err_begin(struct err_cap *c)
{
	ck_assert_int_eq(pipe(c->fd), 0);
	c->saved = dup(2);
	dup2(c->fd[1], 2);
}

static void err_end(struct err_cap *c, char *out, size_t len)
{
	ssize_t n;

	dup2(c->saved, 2);
	close(c->saved);
	close(c->fd[1]);
	n = read(c->fd[0], out, len - 1);
	close(c->fd[0]);
	ck_assert_int_gt(n, 0);
	out[n] = 0;
}

/* ---- the UD handshake (RCMPI_VERBS_CM=ud) ---- */

static double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress until every request is done or secs have passed (the
 * handshake's timers run on the clock, not on progress calls). */
static bool vw_wait_s(struct vw *w, struct rc_req **reqs, int n, double secs)
{
	double t0 = t_now();
	int i;

	while (t_now() - t0 < secs) {
		for (i = 0; i < n && (!reqs[i] || rc_req_done(reqs[i])); i++)
			;
		if (i == n)
			return true;
		vw_progress(w);
	}
	return false;
}

/* Both ranks send first; one RC QP per rank carries the traffic either
 * way, and later traffic connects nothing more. rdma_cm (_i 0, 1): loop
 * 0, rank 0's request reaches rank 1 before rank 1 connects (rank 1
 * accepts it and drops its own attempt); loop 1, both requests cross
 * (rank 0 rejects rank 1's, "tie", and rank 1 accepts rank 0's). The UD
 * handshake (_i 2, 3): rank 0's REQ first; then both cross (rank 0, the
 * lower, ignores rank 1's; rank 1 drops its attempt for rank 0's). */
START_TEST(data_simultaneous)
{
	struct rc_req *r[4] = {NULL};
	int a = 1, b = 2, x = 0, y = 0, i;
	bool ud = _i >= 2, crossed = _i % 2;
	unsigned long sends;
	uint32_t q[16];
	struct vw w;

	setenv("RCMPI_VERBS_CM", ud ? "ud" : "rdmacm", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert_int_eq(fk_qp_list(q, 16), 0); /* none before first use */
	ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1, &rc_mpi_int,
				      1, 3, RC_SEND_STD, &r[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_isend(w.inst[1]->world, 0, &b, 1, &rc_mpi_int,
				      0, 3, RC_SEND_STD, &r[1]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[0]->world, 0, &x, 1, &rc_mpi_int,
				      1, 3, &r[2]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &y, 1, &rc_mpi_int,
				      0, 3, &r[3]),
			 RC_OK);
	if (crossed)
		rc_progress(w.inst[1]); /* rank 1's request goes out first */
	ck_assert(vw_wait_s(&w, r, 4, 10));
	ck_assert_int_eq(x, 2);
	ck_assert_int_eq(y, 1);
	if (!ud) {
		ck_assert_uint_eq(fk.cm_connects, crossed ? 2 : 1);
		ck_assert_uint_eq(fk.cm_rejects, crossed ? 1 : 0);
	}
	for (i = 0; i < 20; i++) /* let the losing attempt go */
		vw_progress(&w);
	ck_assert_int_eq(fk_qp_list(q, 16), 2);
	for (i = 0; i < 4; i++)
		rc_req_free(r[i]);
	sends = fk.ud_sends;
	ck_assert(vw_exchange(&w));
	ck_assert_uint_eq(fk.cm_connects, ud ? 0 : crossed ? 2 : 1);
	ck_assert_uint_eq(fk.ud_sends, sends); /* no new handshake */
	ck_assert_uint_eq(fk.ud_misaddressed, 0);
	ck_assert_int_eq(fk_qp_list(q, 16), 2);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* The end of a UD handshake case: rank 0's send of 7 arrived (x), the
 * pair holds one QP each, later traffic flows, nothing is left. */
static void ud_case_end(struct vw *w, struct rc_req **r, int x)
{
	uint32_t q[16];

	ck_assert_int_eq(r[0]->err, RC_OK);
	ck_assert_int_eq(x, 7);
	ck_assert_int_eq(fk_qp_list(q, 16), 2);
	rc_req_free(r[0]);
	rc_req_free(r[1]);
	ck_assert(vw_exchange(w));
	data_check_clean();
	vw_close(w);
	ck_assert_int_eq(fk_live_total(), 0);
}

/* Lost datagrams: loop 0 loses the first REQ, loop 1 the REQ and the
 * REP, loop 2 the first five (REQ, its repeat, REP...): the timers send
 * again, and the connection comes up once. */
START_TEST(ud_lost)
{
	struct rc_req *r[2] = {NULL};
	int a = 7, x = 0;
	struct vw w;

	setenv("RCMPI_VERBS_CM", "ud", 1);
	setenv("RCMPI_VERBS_UD_TIMEOUT", "6000", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	fk.ud_drop = _i == 0 ? 1 : _i == 1 ? 2 : 5;
	ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1, &rc_mpi_int,
				      1, 3, RC_SEND_STD, &r[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1, &rc_mpi_int,
				      0, 3, &r[1]),
			 RC_OK);
	ck_assert(vw_wait_s(&w, r, 2, 10));
	ck_assert_uint_eq(fk.ud_drop, 0);
	ck_assert_uint_ge(fk.ud_sends, 3 + (_i == 0 ? 1 : _i == 1 ? 2 : 5));
	ud_case_end(&w, r, x);
}
END_TEST

/* A rank that computes outside MPI while its peer connects: its agent
 * answers every REQ (loop 0: rank 1 computes) or REP (loop 1: rank 0
 * computes after its REQ, rank 1 waits for the RTU) with BUSY, so the
 * peer waits five timeouts without failing; the agent takes nothing
 * while progress looks itself; and once the rank calls MPI again, the
 * connection comes up and the data arrives. */
START_TEST(ud_agent)
{
	struct rc_req *r[2] = {NULL};
	int a = 7, x = 0, busy = 0, i, comp = _i == 0 ? 1 : 0;
	struct vb_tp *vc, *vo;
	double t0, tstep = 0;
	struct vw w;

	setenv("RCMPI_VERBS_CM", "ud", 1);
	setenv("RCMPI_VERBS_UD_TIMEOUT", "300", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	vc = (struct vb_tp *)vw_tp(&w, comp, 1 - comp); /* computes */
	vo = (struct vb_tp *)vw_tp(&w, 1 - comp, comp); /* waits on it */
	if (_i == 0) {
		ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1,
					      &rc_mpi_int, 1, 3, RC_SEND_STD,
					      &r[0]),
				 RC_OK);
	} else {
		ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1,
					      &rc_mpi_int, 0, 3, &r[1]),
				 RC_OK);
		ck_assert_int_eq(vb_ud_start(vc, &vc->peers[1]), RC_OK);
		for (i = 0;
		     i < 1000 && vo->peers[0].state != VB_PEER_CONNECTING; i++)
			rc_progress(w.inst[1]);
		ck_assert_int_eq(vo->peers[0].state, VB_PEER_CONNECTING);
	}
	ck_assert_int_eq(vb_ud_agent_step(vc), -1); /* progress looked */
	t0 = t_now();
	while (t_now() - t0 < 1.5) {
		rc_progress(w.inst[1 - comp]);
		if (t_now() - tstep >= 0.02) {
			i = vb_ud_agent_step(vc);
			ck_assert_int_ge(i, 0);
			busy += i;
			tstep = t_now();
		}
	}
	ck_assert_int_eq(vo->peers[comp].state, VB_PEER_CONNECTING);
	ck_assert_msg(busy >= 5, "%d BUSY answers", busy);
	ck_assert(!r[0] || !rc_req_done(r[0]));
	ck_assert(!r[1] || !rc_req_done(r[1]));
	/* the agent stands aside while progress looks at the UD QP */
	for (i = 0; i < 300; i++)
		rc_progress(w.inst[comp]);
	ck_assert_int_eq(vb_ud_agent_step(vc), -1);
	if (_i == 0)
		ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1,
					      &rc_mpi_int, 0, 3, &r[1]),
				 RC_OK);
	else
		ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1,
					      &rc_mpi_int, 1, 3, RC_SEND_STD,
					      &r[0]),
				 RC_OK);
	ck_assert(vw_wait_s(&w, r, 2, 10));
	ck_assert_int_eq(r[1]->err, RC_OK);
	ck_assert_uint_eq(fk.ud_misaddressed, 0);
	ud_case_end(&w, r, x);
}
END_TEST

/* The agent as a thread (ThreadSanitizer runs this case): rank 1
 * computes for five timeouts while rank 0 connects to it, its agent
 * thread answers, and the connection comes up once rank 1 calls MPI.
 * Every fake call is under fk_lock (fk_ops_locked). */
START_TEST(ud_agent_thread)
{
	struct rc_req *r[2] = {NULL};
	int a = 7, x = 0;
	unsigned long sends;
	struct vb_tp *vt;
	double t0;
	struct vw w;

	setenv("RCMPI_VERBS_CM", "ud", 1);
	setenv("RCMPI_VERBS_UD_TIMEOUT", "300", 1);
	setenv("RCMPI_VERBS_UD_AGENT", "1", 1);
	vw_fake_ops = &fk_ops_locked;
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	vt = (struct vb_tp *)vw_tp(&w, 0, 1);
	ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1, &rc_mpi_int,
				      1, 3, RC_SEND_STD, &r[0]),
			 RC_OK);
	t0 = t_now();
	while (t_now() - t0 < 1.5)
		rc_progress(w.inst[0]);
	ck_assert_int_eq(vt->peers[1].state, VB_PEER_CONNECTING);
	ck_assert(!rc_req_done(r[0]));
	fk_lock();
	sends = fk.ud_sends; /* REQ and its repeats, BUSY answers */
	fk_unlock();
	ck_assert_msg(sends >= 10, "%lu datagrams", sends);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1, &rc_mpi_int,
				      0, 3, &r[1]),
			 RC_OK);
	ck_assert(vw_wait_s(&w, r, 2, 10));
	ck_assert_int_eq(r[0]->err, RC_OK);
	ck_assert_int_eq(x, 7);
	rc_req_free(r[0]);
	rc_req_free(r[1]);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* The handshake fails within RCMPI_VERBS_UD_TIMEOUT with a message that
 * names the peer, and what waited on it fails (MPI_ERRORS_RETURN):
 * loop 0, every datagram lost (no answer to the REQ: a peer gone, or one
 * that never posted its UD QP); loop 1, rank 0 dies after its REQ (rank
 * 1 answered, never gets the RTU: the passive side's timer). Nothing is
 * left of the attempt. */
START_TEST(ud_no_answer)
{
	struct rc_req *r = NULL;
	int a = 7, x = 0, side = _i == 0 ? 0 : 1, i;
	struct vb_tp *vt;
	char out[4096];
	struct err_cap ec;
	double t0, dt;
	uint32_t q[16];
	struct vw w;

	rc_log_set_identity(side, side ? "unit1" : "unit0");
	setenv("RCMPI_VERBS_CM", "ud", 1);
	setenv("RCMPI_VERBS_UD_TIMEOUT", "300", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	vt = (struct vb_tp *)vw_tp(&w, side, 1 - side);
	if (_i == 0) {
		fk.ud_drop_all = true;
		ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1,
					      &rc_mpi_int, 1, 3, RC_SEND_STD,
					      &r),
				 RC_OK);
	} else {
		ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1,
					      &rc_mpi_int, 0, 3, &r),
				 RC_OK);
		/* rank 0 sends: its REQ goes out (no progress needed) */
		ck_assert_int_eq(
			vb_ud_start(
				(struct vb_tp *)vw_tp(&w, 0, 1),
				&((struct vb_tp *)vw_tp(&w, 0, 1))->peers[1]),
			RC_OK);
		/* the REP (an idle rank looks at its UD QP every few calls) */
		for (i = 0;
		     i < 1000 && vt->peers[0].state != VB_PEER_CONNECTING; i++)
			rc_progress(w.inst[1]);
		fk.ud_drop_all = true; /* rank 0 is gone */
		ck_assert_int_eq(vt->peers[0].state, VB_PEER_CONNECTING);
	}
	err_begin(&ec);
	t0 = t_now();
	while (!rc_req_done(r) && t_now() - t0 < 5)
		rc_progress(w.inst[side]);
	dt = t_now() - t0;
	err_end(&ec, out, sizeof(out));
	ck_assert(rc_req_done(r));
	ck_assert_int_ne(r->err, RC_OK);
	ck_assert_msg(dt >= 0.25 && dt < 2, "failed after %.2f s", dt);
	ck_assert_msg(strstr(out, side ? "rank 0 on unit0" : "rank 1 on unit1"),
		      "message: %s", out);
	ck_assert_msg(
		strstr(out, _i == 0 ? "no answer to our connection "
				      "request over UD, and no word from it, "
				      "within 300 ms"
				    : "no confirmation of our answer over "
				      "UD, and no word from it, within 300 ms"),
		"message: %s", out);
	ck_assert_int_eq(vt->peers[1 - side].state, VB_PEER_FAILED);
	ck_assert(!vt->peers[1 - side].qp);
	ck_assert_uint_eq(vt->nconnecting, 0);
	ck_assert_int_eq(fk_qp_list(q, 16), _i == 0 ? 0 : 1); /* rank 0's */
	rc_req_free(r);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Rank `from` sends rank 0 `n` ints (tag 4), rank 0 receives and checks
 * them. */
static void send_round(struct vw *w, int from, int n, int base)
{
	struct rc_req *r[2 * 64];
	static int sb[64], rb[64];
	int i;

	ck_assert_int_le(n, 64);
	for (i = 0; i < n; i++) {
		sb[i] = base + i;
		rb[i] = -1;
		ck_assert_int_eq(rc_p2p_isend(w->inst[from]->world, 0, &sb[i],
					      1, &rc_mpi_int, 0, 4, RC_SEND_STD,
					      &r[2 * i]),
				 RC_OK);
		ck_assert_int_eq(rc_p2p_irecv(w->inst[0]->world, 0, &rb[i], 1,
					      &rc_mpi_int, from, 4,
					      &r[2 * i + 1]),
				 RC_OK);
	}
	ck_assert(vw_wait(w, r, 2 * n));
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(rb[i], base + i);
		rc_req_free(r[2 * i]);
		rc_req_free(r[2 * i + 1]);
	}
}

/* Credits taken back from a silent peer (verbs_credit.h): 3 ranks, 16
 * receive buffers, first windows of 8, none left in the pool. Rank 2
 * keeps sending to rank 0 and rank 1 says nothing: rank 0 asks rank 1
 * for its window down to 4, rank 1 spends its 8 unused credits in one
 * message, and the 4 taken go to rank 2's window (8 -> 12) without a
 * receive buffer more. Rank 1 then sends again on the 4 it kept, in
 * order, and no send ever finds the SRQ empty (no RNR). */
START_TEST(data_reclaim)
{
	struct vb_tp *vt0, *vt1;
	uint32_t sum, lim;
	int i, round;
	struct vw w;

	setenv("RCMPI_VERBS_RQ_SIZE", "16", 1);
	setenv("RCMPI_VERBS_CREDITS", "12", 1);
	setenv("RCMPI_VERBS_FP_RINGS", "0", 1); /* the SRQ's credits only */
	setenv("RCMPI_VERBS_IDLE_MS", "1", 1);
	vw_open(&w, 3);
	ck_assert_int_eq(w.status, RC_OK);
	vt0 = (struct vb_tp *)vw_tp(&w, 0, 1);
	vt1 = (struct vb_tp *)vw_tp(&w, 1, 0);
	ck_assert_uint_eq(vt0->pool.total, 16);
	ck_assert_uint_eq(vt0->peers[1].rx.window, 8);
	ck_assert_uint_eq(vt0->peers[2].rx.window, 8);
	ck_assert_uint_eq(vt0->pool.free, 0);
	for (round = 0; round < 20000 && vt0->peers[1].rx.window > 4; round++)
		send_round(&w, 2, 16, round);
	ck_assert_uint_eq(vt0->peers[1].rx.window, 4);
	ck_assert_uint_eq(vt1->n_returned, 7); /* and the message's own */
	ck_assert_uint_eq(vt0->pool.taken, 4);
	for (i = 0; i < 20; i++) /* the taken credits go to rank 2 */
		send_round(&w, 2, 64, i);
	ck_assert_uint_eq(vt0->peers[2].rx.window, 12);
	ck_assert_uint_eq(vt0->pool.total, 16); /* no buffer more */
	sum = vt0->pool.free + vt0->peers[1].rx.window +
	      vt0->peers[2].rx.window;
	ck_assert_uint_eq(sum, vt0->pool.total);
	/* rank 1 holds the 4 it kept, and sends again */
	for (i = 0; i < 200; i++)
		vw_progress(&w);
	if (vb_slot_unpack(vt1->slots[0], &lim)) /* (written to its slot) */
		vb_tx_update(&vt1->peers[0].tx, lim);
	ck_assert_uint_eq(vb_tx_avail(&vt1->peers[0].tx), 4);
	for (i = 0; i < 20; i++)
		send_round(&w, 1, 64, 1000 * i);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* A peer that connects on demand when rank 0's pool is empty and its SRQ
 * cannot grow (a CQ with no room: max_cqe 176, 160 send completions) gets
 * a first window of 0. Ranks 1 and 2 have grown theirs to 8 each out of
 * 16 buffers and fall silent; rank 3's window is topped up to 4 from
 * what they give back (before, rank 3 could never send), and its
 * messages arrive in order with no RNR. Over rdma_cm (_i 0) and the UD
 * handshake (_i 1). */
START_TEST(data_short_window)
{
	struct vb_tp *vt0;
	int i;
	struct vw w;

	fk.max_cqe = 176; /* (the UD QP's CQ takes 160) */
	setenv("RCMPI_VERBS_CM", _i ? "ud" : "rdmacm", 1);
	setenv("RCMPI_VERBS_RQ_SIZE", "16", 1);
	setenv("RCMPI_VERBS_SEND_CQE", "160", 1);
	setenv("RCMPI_VERBS_CREDITS", "8", 1);
	setenv("RCMPI_VERBS_FP_RINGS", "0", 1); /* the SRQ's credits only */
	setenv("RCMPI_VERBS_IDLE_MS", "1", 1);
	vw_open(&w, 4);
	ck_assert_int_eq(w.status, RC_OK);
	vt0 = (struct vb_tp *)vw_tp(&w, 0, 1);
	ck_assert_uint_eq(vt0->pool.total, 16);
	for (i = 0; i < 10; i++) {
		send_round(&w, 1, 32, 100 * i);
		send_round(&w, 2, 32, 100 * i);
	}
	ck_assert_uint_eq(vt0->peers[1].rx.window, 8);
	ck_assert_uint_eq(vt0->peers[2].rx.window, 8);
	ck_assert_uint_eq(vt0->pool.free, 0);
	for (i = 0; i < 10; i++)
		send_round(&w, 3, 32, 1000 * i);
	ck_assert_uint_ge(vt0->peers[3].rx.window, 4);
	ck_assert_uint_gt(vt0->pool.taken, 0);
	ck_assert_uint_eq(vt0->pool.total, 16); /* no buffer more */
	ck_assert_uint_eq(vt0->pool.free + vt0->peers[1].rx.window +
				  vt0->peers[2].rx.window +
				  vt0->peers[3].rx.window,
			  vt0->pool.total);
	ck_assert(!vt0->short_windows);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* An eager ring taken back from a silent peer for a busy one: one ring
 * at rank 0 (RCMPI_VERBS_FP_RINGS=1). Rank 1 talks first and gets it;
 * then rank 2 talks while rank 1 is silent: the ring goes to rank 2
 * (rank 1 stops writing, acknowledges, and sends through the SRQ); then
 * back to rank 1, whose new ring counts on from where its first one
 * stopped. Every message arrives, in order, and no RNR. */
START_TEST(fp_take_back)
{
	struct vb_tp *vt0, *vt1, *vt2;
	unsigned long rx0;
	uint32_t base;
	int i, round;
	struct vw w;

	setenv("RCMPI_VERBS_FP_RINGS", "1", 1);
	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	setenv("RCMPI_VERBS_FP_SLOTS", "4", 1);
	setenv("RCMPI_VERBS_FP_SIZE", "256", 1);
	setenv("RCMPI_VERBS_IDLE_MS", "1", 1);
	vw_open(&w, 3);
	ck_assert_int_eq(w.status, RC_OK);
	vt0 = (struct vb_tp *)vw_tp(&w, 0, 1);
	vt1 = (struct vb_tp *)vw_tp(&w, 1, 0);
	vt2 = (struct vb_tp *)vw_tp(&w, 2, 0);
	for (i = 0; i < 4; i++)
		send_round(&w, 1, 16, 100 * i);
	ck_assert(vt0->peers[1].fprx && vt1->peers[0].fptx);
	for (round = 0; round < 20000 && !vt2->peers[0].fptx; round++)
		send_round(&w, 2, 16, round);
	ck_assert(vt0->peers[2].fprx && vt2->peers[0].fptx);
	ck_assert(!vt0->peers[1].fprx && !vt1->peers[0].fptx);
	ck_assert_uint_eq(vt0->n_unring, 1);
	base = vt0->peers[1].fp_base;
	ck_assert_uint_gt(base, 0);
	rx0 = vt0->n_ring_rx;
	for (i = 0; i < 8; i++)
		send_round(&w, 2, 16, 1000 + i);
	ck_assert_uint_gt(vt0->n_ring_rx, rx0); /* rank 2's ring in use */
	/* and back to rank 1 */
	for (round = 0; round < 20000 && !vt1->peers[0].fptx; round++)
		send_round(&w, 1, 16, round);
	ck_assert(vt0->peers[1].fprx && !vt0->peers[2].fprx);
	ck_assert_uint_eq(vt0->n_unring, 2);
	/* (counting on from base; the round that got it may have used it) */
	ck_assert_uint_ge(vt1->peers[0].fptx->written, base);
	ck_assert_uint_le(vt1->peers[0].fptx->written - base, 16);
	rx0 = vt0->n_ring_rx;
	for (i = 0; i < 8; i++)
		send_round(&w, 1, 16, 5000 + i);
	ck_assert_uint_gt(vt0->n_ring_rx, rx0);
	ck_assert_uint_gt(vt0->peers[1].fprx->consumed, base);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* RCMPI_VERBS_CM=auto (the default) chooses the wiring by job size and
 * link layer: past RCMPI_VERBS_CM_AUTO_RANKS ranks on RoCE, rdma_cm (no
 * QP before first use, one per rank after it, through rdma_cm's
 * connect); on InfiniBand (_i 2) the UD handshake (no IP needed: no
 * rdma_cm connect, datagrams instead); at or below the size (_i 1),
 * modex (a QP per peer at open). */
START_TEST(wiring_auto)
{
	struct rc_req *r[2] = {NULL};
	int a = 5, x = 0;
	uint32_t q[16];
	bool cm = _i != 1, ud = _i == 2;
	struct vw w;

	if (_i == 2)
		fk.link_layer = IBV_LINK_LAYER_INFINIBAND;
	setenv("RCMPI_VERBS_CM_AUTO_RANKS", _i == 1 ? "2" : "1", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	ck_assert_int_eq(((struct vb_tp *)vw_tp(&w, 0, 1))->prm.cm, cm);
	ck_assert_int_eq(((struct vb_tp *)vw_tp(&w, 0, 1))->prm.ud, ud);
	ck_assert_int_eq(rc_tp_verbs_on_demand(w.inst[0]), _i != 1);
	ck_assert_int_eq(fk_qp_list(q, 16), cm ? 0 : 2);
	ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1, &rc_mpi_int,
				      1, 3, RC_SEND_STD, &r[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1, &rc_mpi_int,
				      0, 3, &r[1]),
			 RC_OK);
	ck_assert(vw_wait(&w, r, 2));
	ck_assert_int_eq(x, 5);
	ck_assert_int_eq(fk_qp_list(q, 16), 2);
	ck_assert_uint_eq(fk.cm_connects, cm && !ud ? 1 : 0);
	ck_assert_uint_eq(fk.ud_sends, ud ? 3 : 0); /* REQ, REP, RTU */
	ck_assert_uint_eq(fk.ud_misaddressed, 0);
	rc_req_free(r[0]);
	rc_req_free(r[1]);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* The memory report (vb_mem_get) against the peers that talk: over
 * rdma_cm (_i 1), 4 ranks of which only 0 and 1 exchange messages hold
 * one RC QP each and ranks 2 and 3 none, with the same receive and
 * bounce buffers as at open; over modex (_i 0) every rank holds 3 (and
 * its loopback QP when device atomics are there). What the job's size
 * decides is reported apart (peer table, credit slots, QP numbers). */
START_TEST(data_mem_report)
{
	struct rc_req *r[2] = {NULL};
	struct vb_mem m[4], m0;
	int a = 7, x = 0, k;
	struct vw w;

	if (_i)
		setenv("RCMPI_VERBS_CM", "rdmacm", 1);
	vw_open(&w, 4);
	ck_assert_int_eq(w.status, RC_OK);
	vb_mem_get((struct vb_tp *)vw_tp(&w, 2, 0), &m0);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[1]->world, 0, &x, 1, &rc_mpi_int,
				      0, 5, &r[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &a, 1, &rc_mpi_int,
				      1, 5, RC_SEND_STD, &r[1]),
			 RC_OK);
	ck_assert(vw_wait(&w, r, 2));
	ck_assert_int_eq(x, 7);
	for (k = 0; k < 4; k++) {
		struct vb_tp *vt = (struct vb_tp *)vw_tp(&w, k, (k + 1) % 4);

		vb_mem_get(vt, &m[k]);
		ck_assert_uint_eq(m[k].connected, _i ? (k < 2 ? 1 : 0) : 3);
		ck_assert_uint_ge(m[k].qps, m[k].connected);
		ck_assert_uint_le(m[k].qps, m[k].connected + 1);
		ck_assert_uint_eq(m[k].sq_bytes,
				  m[k].qps * vt->prm.sq_size *
					  sizeof(struct vb_swr));
		ck_assert_uint_eq(m[k].rx_bytes, m[k].rx_bufs * vt->buf_size);
		ck_assert_uint_gt(m[k].rx_bufs, 0);
		ck_assert_uint_gt(m[k].tx_bufs, 0);
		ck_assert_uint_ge(m[k].job_bytes,
				  4 * (sizeof(struct vb_peer) +
				       4 * sizeof(uint64_t)));
	}
	/* over rdma_cm the silent ranks hold what they held at open */
	if (_i) {
		ck_assert_uint_eq(m[2].qps, 0);
		ck_assert_uint_eq(m[2].rx_bufs, m0.rx_bufs);
		ck_assert_uint_eq(m[2].sq_bytes, 0);
	}
	rc_req_free(r[0]);
	rc_req_free(r[1]);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

static int op_status = -1;

static void op_done(struct rc_tp_rdma *op, int status)
{
	op_status = status;
}

/* A put of at most the inline limit (RCMPI_VERBS_INLINE) carries its
 * bytes in the WQE; a larger one is read from its registered buffer;
 * both land whole. */
START_TEST(data_put_inline)
{
	static char src[4096], dst[4096];
	struct rc_tp_rdma op = {.done = op_done};
	uint8_t key[RC_TP_KEY_MAX], lkey[RC_TP_KEY_MAX];
	struct rc_tp *tp, *peer;
	unsigned long w0, i0;
	size_t len[] = {8, sizeof(src)};
	void *h, *lh;
	struct vw w;
	int i, k;

	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	peer = vw_tp(&w, 1, 0);
	ck_assert_int_eq(peer->ops->mem_expose(peer, dst, sizeof(dst), key, &h),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, src, sizeof(src), lkey, &lh),
			 RC_OK);
	for (k = 0; k < 2; k++) {
		memset(src, 'a' + k, sizeof(src));
		memset(dst, 0, sizeof(dst));
		w0 = fk.writes;
		i0 = fk.inline_writes;
		op_status = -1;
		ck_assert_int_eq(tp->ops->put(tp, 1, src, lh, len[k],
					      (uintptr_t)dst, key, &op),
				 RC_INPROGRESS);
		for (i = 0; i < 100 && op_status < 0; i++)
			vw_progress(&w);
		ck_assert_int_eq(op_status, RC_OK);
		ck_assert_uint_eq(fk.writes, w0 + 1);
		ck_assert_uint_eq(fk.inline_writes, i0 + (k == 0));
		ck_assert(!memcmp(dst, src, len[k]));
		ck_assert(k == 1 || !dst[len[k]]);
	}
	tp->ops->mem_release(tp, lh);
	peer->ops->mem_release(peer, h);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* A port whose max_msg_sz is 16 KiB (rxe's 8 MiB): the transport carries
 * at most that in one get or put (rdma_max, rdma_chunk cut to it) and
 * refuses more with a message instead of posting what the device would
 * refuse; rendezvous messages of many chunks go through in every mode. */
START_TEST(data_max_msg)
{
	static const char *const modes[] = {"get", "put"};
	static const size_t big[] = {16384, 70000};
	static char src[32768], dst[32768];
	struct rc_tp_rdma op = {.done = op_done};
	uint8_t key[RC_TP_KEY_MAX], lkey[RC_TP_KEY_MAX];
	struct rc_tp *tp, *peer;
	struct err_cap cap;
	char msg[512];
	void *h, *lh;
	struct vw w;
	int i;

	fk.max_msg_sz = 16384;
	setenv("RCMPI_RNDV_MODE", modes[_i], 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	peer = vw_tp(&w, 1, 0);
	ck_assert_uint_eq(tp->rdma_max, 16384);
	ck_assert_uint_le(tp->rdma_chunk, 16384);
	ck_assert_int_eq(peer->ops->mem_expose(peer, dst, sizeof(dst), key, &h),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, src, sizeof(src), lkey, &lh),
			 RC_OK);
	memset(src, 'm', sizeof(src));
	op_status = -1;
	ck_assert_int_eq(tp->ops->put(tp, 1, src, lh, 16384, (uintptr_t)dst,
				      key, &op),
			 RC_INPROGRESS);
	for (i = 0; i < 100 && op_status < 0; i++)
		vw_progress(&w);
	ck_assert_int_eq(op_status, RC_OK);
	ck_assert(!memcmp(dst, src, 16384));
	err_begin(&cap);
	i = tp->ops->get(tp, 1, src, lh, 16385, (uintptr_t)dst, key, &op);
	err_end(&cap, msg, sizeof(msg));
	ck_assert_int_eq(i, RC_ERR_INTERN);
	ck_assert_msg(strstr(msg, "RDMA READ of 16385 bytes to rank 1") &&
			      strstr(msg, "max_msg_sz (16384)"),
		      "%s", msg);
	tp->ops->mem_release(tp, lh);
	peer->ops->mem_release(peer, h);
	all_pairs(&w, big, 2);
	data_check_clean();
	ck_assert_uint_gt(_i ? fk.writes : fk.reads, 70000 / 16384);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* A completion error: the message names both ranks, the device, the QPs
 * and the status; with MPI_ERRORS_RETURN the operation fails with
 * RC_ERR_PEER and so does everything after it. */
START_TEST(data_completion_error)
{
	static char src[4096], dst[4096], out[4096];
	struct rc_tp_rdma op = {.done = op_done};
	uint8_t key[RC_TP_KEY_MAX], lkey[RC_TP_KEY_MAX];
	void *h, *lh;
	struct rc_tp *tp;
	struct err_cap ec;
	struct vw w;
	int i;

	rc_log_set_identity(0, "unit0");
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	ck_assert_int_eq(vw_tp(&w, 1, 0)->ops->mem_expose(vw_tp(&w, 1, 0), src,
							  sizeof(src), key, &h),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, dst, sizeof(dst), lkey, &lh),
			 RC_OK);
	err_begin(&ec);
	fk.fail_wr_at = fk.wrs + 1;
	op_status = -1;
	ck_assert_int_eq(tp->ops->get(tp, 1, dst, lh, sizeof(dst),
				      (uintptr_t)src, key, &op),
			 RC_INPROGRESS);
	for (i = 0; i < 100 && op_status < 0; i++)
		vw_progress(&w);
	err_end(&ec, out, sizeof(out));
	ck_assert_int_eq(op_status, RC_ERR_PEER);
	ck_assert_msg(strstr(out, "rank 0 on unit0") &&
			      strstr(out, "rank 1 on unit1") &&
			      strstr(out, "RDMA READ") &&
			      strstr(out, "transport retry counter exceeded") &&
			      strstr(out, "fake0") && strstr(out, "QP 0x"),
		      "message: %s", out);
	ck_assert_int_eq(tp->ops->am_send(tp, 1, "x", 1, NULL, 0), RC_ERR_PEER);
	tp->ops->mem_release(tp, lh);
	vw_tp(&w, 1, 0)->ops->mem_release(vw_tp(&w, 1, 0), h);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Small gets, puts and atomics with the local side unexposed (lh NULL,
 * at most rdma_small bytes): a put's bytes are taken when it is posted
 * (inline, or copied to a bounce buffer), a get's and an atomic's land in
 * the caller's memory only at the completion, and every bounce buffer
 * comes back, after a failed completion too. */
START_TEST(data_unexposed)
{
	static char src[2048], dst[2048], out[4096];
	static uint64_t word[1];
	struct rc_tp_rdma op = {.done = op_done};
	uint8_t key[RC_TP_KEY_MAX], wkey[RC_TP_KEY_MAX];
	size_t len[] = {8, 1500};
	struct rc_tp *tp, *peer;
	struct vb_tp *vt;
	uint64_t res;
	unsigned nb;
	struct err_cap ec;
	void *h, *wh;
	struct vw w;
	int i, k;

	rc_log_set_identity(0, "unit0");
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	peer = vw_tp(&w, 1, 0);
	vt = (struct vb_tp *)tp;
	ck_assert_uint_ge(tp->rdma_small, len[1]);
	ck_assert_uint_le(tp->rdma_small, vt->buf_size);
	ck_assert_int_eq(peer->ops->mem_expose(peer, dst, sizeof(dst), key, &h),
			 RC_OK);
	ck_assert_int_eq(
		peer->ops->mem_expose(peer, word, sizeof(word), wkey, &wh),
		RC_OK);
	nb = vt->nbounce;
	for (k = 0; k < 2; k++) {
		/* put: src changed after the post does not reach dst */
		memset(src, 'a' + k, sizeof(src));
		memset(dst, 0, sizeof(dst));
		op_status = -1;
		ck_assert_int_eq(tp->ops->put(tp, 1, src, NULL, len[k],
					      (uintptr_t)dst, key, &op),
				 RC_INPROGRESS);
		memset(src, 'z', sizeof(src));
		for (i = 0; i < 100 && op_status < 0; i++)
			vw_progress(&w);
		ck_assert_int_eq(op_status, RC_OK);
		for (i = 0; i < (int)len[k]; i++)
			ck_assert_int_eq(dst[i], 'a' + k);
		ck_assert_int_eq(dst[len[k]], 0);
		ck_assert_uint_eq(vt->nbounce, nb);

		/* get: src untouched until the completion, then exact */
		memset(dst, 'm' + k, sizeof(dst));
		memset(src, 0, sizeof(src));
		op_status = -1;
		ck_assert_int_eq(tp->ops->get(tp, 1, src, NULL, len[k],
					      (uintptr_t)dst, key, &op),
				 RC_INPROGRESS);
		ck_assert_int_eq(src[0], 0);
		for (i = 0; i < 100 && op_status < 0; i++)
			vw_progress(&w);
		ck_assert_int_eq(op_status, RC_OK);
		for (i = 0; i < (int)len[k]; i++)
			ck_assert_int_eq(src[i], 'm' + k);
		ck_assert_int_eq(src[len[k]], 0);
		ck_assert_uint_eq(vt->nbounce, nb);
	}
	/* an atomic's old value, through the transport's buffer */
	if (tp->caps & RC_TP_CAP_ATOMIC) {
		word[0] = 40;
		res = 0;
		op_status = -1;
		ck_assert_int_eq(tp->ops->atomic(tp, 1, RC_TP_FADD, 2, 0, &res,
						 NULL, (uintptr_t)word, wkey,
						 &op),
				 RC_INPROGRESS);
		for (i = 0; i < 100 && op_status < 0; i++)
			vw_progress(&w);
		ck_assert_int_eq(op_status, RC_OK);
		ck_assert_uint_eq(res, 40);
		ck_assert_uint_eq(word[0], 42);
		ck_assert_uint_eq(vt->nbounce, nb);
	}
	/* a failed get: nothing lands, the bounce buffer comes back */
	memset(src, 0, sizeof(src));
	err_begin(&ec);
	fk.fail_wr_at = fk.wrs + 1;
	op_status = -1;
	ck_assert_int_eq(
		tp->ops->get(tp, 1, src, NULL, 64, (uintptr_t)dst, key, &op),
		RC_INPROGRESS);
	for (i = 0; i < 100 && op_status < 0; i++)
		vw_progress(&w);
	err_end(&ec, out, sizeof(out));
	ck_assert_int_eq(op_status, RC_ERR_PEER);
	ck_assert_int_eq(src[0], 0);
	ck_assert_uint_eq(vt->nbounce, nb);
	peer->ops->mem_release(peer, wh);
	peer->ops->mem_release(peer, h);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* ---- eager rings (verbs_fp.c) ------------------------------------------- */

static const size_t fp_sizes[] = {1, 8, 0, 100, 180, 300, 1000, 5000, 40};
#define FP_NSIZES (sizeof(fp_sizes) / sizeof(fp_sizes[0]))

/* Both ranks send n messages of mixed sizes to each other on one tag
 * before either receives (rank `quiet` only progresses after its sends),
 * then receive them into buffers of exactly their sizes: a message out
 * of order is a truncation or wrong bytes. */
static void fp_exchange(struct vw *w, int n, int quiet)
{
	struct rc_req **r = calloc(4 * (size_t)n, sizeof(*r));
	unsigned char *sb[2], *rb[2];
	size_t off[2] = {0, 0}, total = 0, j;
	int i, k, nr = 0;

	for (i = 0; i < n; i++)
		total += fp_sizes[i % FP_NSIZES];
	for (k = 0; k < 2; k++) {
		sb[k] = malloc(total + 1);
		rb[k] = calloc(1, total + 1);
		for (j = 0; j < total; j++)
			sb[k][j] = pat(j, k);
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < n; i++) {
			size_t len = fp_sizes[i % FP_NSIZES];

			ck_assert_int_eq(rc_p2p_isend(w->inst[k]->world, 0,
						      sb[k] + off[k], len,
						      &rc_mpi_byte, 1 - k, 4,
						      RC_SEND_STD, &r[nr++]),
					 RC_OK);
			off[k] += len;
			if (k != quiet && i % 7 == 0)
				rc_progress(w->inst[k]);
		}
	for (i = 0; i < 2000; i++)
		rc_progress(w->inst[1 - quiet]);
	off[0] = off[1] = 0;
	for (k = 0; k < 2; k++)
		for (i = 0; i < n; i++) {
			size_t len = fp_sizes[i % FP_NSIZES];

			ck_assert_int_eq(rc_p2p_irecv(w->inst[1 - k]->world, 0,
						      rb[k] + off[k], len,
						      &rc_mpi_byte, k, 4,
						      &r[nr++]),
					 RC_OK);
			off[k] += len;
		}
	ck_assert(vw_wait(w, r, nr));
	for (i = 0; i < nr; i++) {
		ck_assert_msg(r[i]->err == RC_OK, "request %d: error %d", i,
			      r[i]->err);
		rc_req_free(r[i]);
	}
	for (k = 0; k < 2; k++) {
		for (j = 0; j < total && rb[k][j] == sb[k][j]; j++)
			;
		ck_assert_msg(j == total, "from rank %d: byte %zu of %zu", k, j,
			      total);
		free(sb[k]);
		free(rb[k]);
	}
	free(r);
}

/* The eager rings carry what fits once a peer is busy; messages that do
 * not fit, and those sent while the ring is full, take the SRQ; the
 * receiver delivers all of them in order. Tiny rings (4 slots of 256
 * bytes), both directions, a receiver that does not progress for a
 * while; loops: modex or rdma_cm wiring, inline limit 512 or 64 (ring
 * writes from bounce buffers). */
START_TEST(fp_order_mixed)
{
	struct vb_tp *vt[2];
	struct vb_peer *p[2];
	unsigned long sends0;
	struct vw w;
	int k;

	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	setenv("RCMPI_VERBS_FP_SLOTS", "4", 1);
	setenv("RCMPI_VERBS_FP_SIZE", "256", 1);
	setenv("RCMPI_VERBS_CREDITS", "8", 1);
	if (_i & 1)
		setenv("RCMPI_VERBS_CM", "rdmacm", 1);
	if (_i & 2)
		setenv("RCMPI_VERBS_INLINE", "64", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	fp_exchange(&w, 30, 1); /* past the threshold: rings offered */
	for (k = 0; k < 2; k++) {
		vt[k] = (struct vb_tp *)vw_tp(&w, k, 1 - k);
		p[k] = &vt[k]->peers[1 - k];
		ck_assert_msg(p[k]->fptx && p[k]->fprx, "rank %d: no rings", k);
		ck_assert_uint_eq(p[k]->fprx->nslots, 4);
	}
	sends0 = fk.sends;
	fp_exchange(&w, 600, 0);
	fp_exchange(&w, 600, 1);
	for (k = 0; k < 2; k++) {
		ck_assert_uint_gt(vt[k]->n_ring, 100);
		ck_assert_uint_gt(vt[1 - k]->n_ring_rx, 100);
	}
	/* the 5000-byte ones and the overflow went through the SRQ */
	ck_assert_uint_gt(fk.sends - sends0, 2 * 2 * 600 / FP_NSIZES);
	if (_i & 2)
		ck_assert_uint_gt(fk.writes - fk.inline_writes, 100);
	/* A signaled completion retires the unsignaled WRs before it in one
	 * step (on_send): once idle, every signaled WR has come back, and
	 * what the SQ still holds is unsignaled and holds nothing. */
	for (k = 0; k < 100; k++) {
		rc_progress(w.inst[0]);
		rc_progress(w.inst[1]);
	}
	for (k = 0; k < 2; k++) {
		uint32_t j;

		ck_assert_uint_eq(vt[k]->scq_avail, vt[k]->prm.send_cqe);
		ck_assert_uint_lt(p[k]->sq_head - p[k]->sq_tail,
				  vt[k]->prm.signal_every);
		for (j = p[k]->sq_tail; j != p[k]->sq_head; j++) {
			const struct vb_swr *s =
				&p[k]->sq[j % vt[k]->prm.sq_size];

			ck_assert(!s->signaled);
			ck_assert(s->kind == VB_SWR_SEND ||
				  s->kind == VB_SWR_RING ||
				  s->kind == VB_SWR_CREDIT);
		}
	}
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Two ranks with tiny eager rings (4 slots of 256 bytes) each way, past
 * the threshold, credits and completions settled. */
static void fp_open_settled(struct vw *w)
{
	int i;

	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	setenv("RCMPI_VERBS_FP_SLOTS", "4", 1);
	setenv("RCMPI_VERBS_FP_SIZE", "256", 1);
	vw_open(w, 2);
	ck_assert_int_eq(w->status, RC_OK);
	fp_exchange(w, 30, 1);
	for (i = 0; i < 200; i++)
		vw_progress(w);
}

/* A progress call that delivered from a ring leaves the CQ to the next
 * call, never two in a row: a ring message and an SRQ message behind it
 * (too big for a 256-byte slot) reach rank 0 together; its first call
 * completes the ring's, its second the SRQ's, in order. */
START_TEST(fp_cq_later)
{
	static char small[8] = "ring", big[300], rs[8], rb[300];
	struct rc_req *r[4] = {NULL};
	struct vb_tp *vt0, *vt1;
	struct rc_tp *tp0;
	unsigned long sends0;
	uint32_t written0;
	struct vw w;
	int i;

	fp_open_settled(&w);
	tp0 = vw_tp(&w, 0, 1);
	vt0 = (struct vb_tp *)tp0;
	vt1 = (struct vb_tp *)vw_tp(&w, 1, 0);
	ck_assert(vt1->peers[0].fptx);
	memset(big, 'b', sizeof(big));
	ck_assert_int_eq(rc_p2p_irecv(w.inst[0]->world, 0, rs, sizeof(rs),
				      &rc_mpi_byte, 1, 5, &r[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_irecv(w.inst[0]->world, 0, rb, sizeof(rb),
				      &rc_mpi_byte, 1, 6, &r[1]),
			 RC_OK);
	written0 = vt1->peers[0].fptx->written;
	sends0 = fk.sends;
	ck_assert_int_eq(rc_p2p_isend(w.inst[1]->world, 0, small, sizeof(small),
				      &rc_mpi_byte, 0, 5, RC_SEND_STD, &r[2]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_isend(w.inst[1]->world, 0, big, sizeof(big),
				      &rc_mpi_byte, 0, 6, RC_SEND_STD, &r[3]),
			 RC_OK);
	/* one ring write, one SEND, both placed (the fakes place at post) */
	ck_assert_uint_eq(vt1->peers[0].fptx->written, written0 + 1);
	ck_assert_uint_eq(fk.sends, sends0 + 1);
	ck_assert(rc_p2p_poll_tp(w.inst[0], tp0) > 0);
	ck_assert(rc_req_done(r[0]) && !rc_req_done(r[1]));
	ck_assert(vt0->cq_later);
	ck_assert(rc_p2p_poll_tp(w.inst[0], tp0) > 0);
	ck_assert(rc_req_done(r[1]));
	ck_assert(!vt0->cq_later);
	ck_assert_mem_eq(rs, small, sizeof(small));
	ck_assert_mem_eq(rb, big, sizeof(big));
	ck_assert(vw_wait(&w, r, 4));
	for (i = 0; i < 4; i++)
		rc_req_free(r[i]);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/*
 * A blocking receive's looks at its peer's ring (poll_fast,
 * rc_progress_spin): they deliver what the ring holds and nothing else.
 * No ring from a rank, or a message that would not fit its slots: nothing
 * to look at. A ring message behind an SRQ message waits for the progress
 * call that polls the CQ (order across the two paths). An empty spin
 * counts towards the wait's yield; a receive already matched, or from
 * MPI_ANY_SOURCE, does not spin.
 */
START_TEST(fp_poll_fast)
{
	static char small[8] = "ring", big[300], rs[8], rb[300];
	struct rc_req *r[4] = {NULL};
	struct rc_inst *i0;
	struct vb_tp *vt1;
	struct rc_tp *tp0;
	struct vw w;
	unsigned idle;
	int i, tag;

	fp_open_settled(&w);
	i0 = w.inst[0];
	tp0 = vw_tp(&w, 0, 1);
	vt1 = (struct vb_tp *)vw_tp(&w, 1, 0);
	ck_assert(vt1->peers[0].fptx);
	ck_assert_ptr_nonnull(tp0->ops->poll_fast);
	ck_assert(i0->spin != NULL); /* a transport with poll_fast */
	i0->spin_polls = 16;	     /* (init.c reads RCMPI_SPIN_POLLS) */
	/* rank 0 writes no ring into itself; rank 1's ring is empty; 256-byte
	 * slots hold 256 - 8 (tail) - 8 (transport header) bytes */
	ck_assert_uint_eq(tp0->ops->poll_fast(tp0, 0, 8, 1), RC_TP_NO_FAST);
	ck_assert_uint_eq(tp0->ops->poll_fast(tp0, 1, 8, 16), 0);
	ck_assert_uint_eq(tp0->ops->poll_fast(tp0, 1, 240, 1), 0);
	ck_assert_uint_eq(tp0->ops->poll_fast(tp0, 1, 241, 1), RC_TP_NO_FAST);
	memset(big, 'b', sizeof(big));
	/* i 0: ring then SRQ; i 1: SRQ then ring (the ring's message waits) */
	for (i = 0; i < 2; i++) {
		tag = 10 + 2 * i;
		ck_assert_int_eq(rc_p2p_irecv(i0->world, 0, rs, sizeof(rs),
					      &rc_mpi_byte, 1, tag, &r[0]),
				 RC_OK);
		ck_assert_int_eq(rc_p2p_irecv(i0->world, 0, rb, sizeof(rb),
					      &rc_mpi_byte, 1, tag + 1, &r[1]),
				 RC_OK);
		ck_assert_int_eq(
			rc_p2p_isend(w.inst[1]->world, 0, i ? big : small,
				     i ? sizeof(big) : sizeof(small),
				     &rc_mpi_byte, 0, i ? tag + 1 : tag,
				     RC_SEND_STD, &r[2]),
			RC_OK);
		ck_assert_int_eq(
			rc_p2p_isend(w.inst[1]->world, 0, i ? small : big,
				     i ? sizeof(small) : sizeof(big),
				     &rc_mpi_byte, 0, i ? tag : tag + 1,
				     RC_SEND_STD, &r[3]),
			RC_OK);
		/* the big receive's buffer does not fit a slot: no look */
		idle = i0->idle;
		ck_assert_uint_eq(rc_progress_spin(i0, r[1]), RC_SPIN_NONE);
		ck_assert_uint_eq(i0->idle, idle);
		ck_assert(!rc_req_done(r[1]));
		if (i == 0) {
			ck_assert_uint_eq(rc_progress_spin(i0, r[0]), 1);
			ck_assert(rc_req_done(r[0]));
			ck_assert_mem_eq(rs, small, sizeof(small));
			/* matched: nothing more to look at */
			ck_assert_uint_eq(rc_progress_spin(i0, r[0]),
					  RC_SPIN_NONE);
			ck_assert_uint_eq(i0->idle, 0);
		} else {
			/* the ring's message waits behind the SRQ's: 16
			 * empty looks, 16 / 4 more idle polls */
			ck_assert_uint_eq(rc_progress_spin(i0, r[0]), 0);
			ck_assert_uint_eq(i0->idle, idle + 16 / 4);
			ck_assert(!rc_req_done(r[0]));
		}
		ck_assert(!rc_req_done(r[1]));
		ck_assert(vw_wait(&w, r, 4));
		ck_assert_mem_eq(rs, small, sizeof(small));
		ck_assert_mem_eq(rb, big, sizeof(big));
		memset(rs, 0, sizeof(rs));
		memset(rb, 0, sizeof(rb));
		for (tag = 0; tag < 4; tag++)
			rc_req_free(r[tag]);
	}
	/* no named peer: nothing to look at, no idle counted */
	ck_assert_int_eq(rc_p2p_irecv(i0->world, 0, rs, sizeof(rs),
				      &rc_mpi_byte, MPI_ANY_SOURCE, 99, &r[0]),
			 RC_OK);
	idle = i0->idle;
	ck_assert_uint_eq(rc_progress_spin(i0, r[0]), RC_SPIN_NONE);
	ck_assert_uint_eq(i0->idle, idle);
	ck_assert_int_eq(rc_p2p_isend(w.inst[1]->world, 0, small, sizeof(small),
				      &rc_mpi_byte, 0, 99, RC_SEND_STD, &r[2]),
			 RC_OK);
	ck_assert(vw_wait(&w, (struct rc_req *[]){r[0], r[2]}, 2));
	rc_req_free(r[0]);
	rc_req_free(r[2]);
	data_check_clean();
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* No ring: the fast path off (RCMPI_VERBS_FP_RINGS=0), or the ring's
 * registration refused; everything goes through the SRQ, in order. */
START_TEST(fp_none)
{
	struct vb_tp *vt;
	struct vw w;

	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	setenv("RCMPI_VERBS_FP_SLOTS", "4", 1);
	setenv("RCMPI_VERBS_FP_SIZE", "256", 1);
	if (_i == 0)
		setenv("RCMPI_VERBS_FP_RINGS", "0", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	if (_i == 1)
		fk.fail_reg_len = 4096; /* 4 x 256 bytes, a page */
	fp_exchange(&w, 200, 1);
	vt = (struct vb_tp *)vw_tp(&w, 1, 0);
	ck_assert_ptr_null(vt->peers[0].fprx);
	ck_assert_ptr_null(vt->peers[0].fptx);
	ck_assert_int_eq(vt->peers[0].fp_refused, _i == 1);
	ck_assert_uint_eq(vt->n_ring + vt->n_ring_rx, 0);
	/* RDMA WRITEs: credit updates only */
	ck_assert_uint_eq(
		fk.writes,
		vt->n_credit_writes +
			((struct vb_tp *)vw_tp(&w, 0, 1))->n_credit_writes);
	data_check_clean();
	fk.fail_reg_len = 0;
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* A ring write that fails: the peer is reported like any completion error
 * (naming the eager ring) and later sends fail with RC_ERR_PEER. */
START_TEST(fp_write_error)
{
	struct rc_req *r[3];
	char out[4096];
	struct rc_tp *tp;
	struct vb_tp *vt;
	unsigned long w0;
	struct err_cap ec;
	struct vw w;
	int i;

	rc_log_set_identity(0, "unit0");
	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	fp_exchange(&w, 20, 1);
	for (i = 0; i < 10; i++) /* rank 1's offer reaches rank 0 */
		vw_progress(&w);
	tp = vw_tp(&w, 0, 1);
	vt = (struct vb_tp *)tp;
	ck_assert_ptr_nonnull(vt->peers[1].fptx);
	err_begin(&ec);
	w0 = fk.writes;
	fk.fail_wr_at = fk.wrs + 2; /* the second of three ring writes */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(rc_p2p_isend(w.inst[0]->world, 0, &i, 1,
					      &rc_mpi_int, 1, 9, RC_SEND_STD,
					      &r[i]),
				 RC_OK);
	for (i = 0; i < 100; i++)
		vw_progress(&w);
	for (i = 0; i < 3; i++)
		rc_req_free(r[i]);
	err_end(&ec, out, sizeof(out));
	ck_assert_uint_eq(fk.writes, w0 + 1); /* the third was flushed */
	ck_assert_msg(strstr(out, "rank 1 on unit1") &&
			      strstr(out, "eager-ring RDMA WRITE") &&
			      strstr(out, "transport retry counter exceeded"),
		      "message: %s", out);
	ck_assert_int_eq(tp->ops->am_send(tp, 1, "x", 1, NULL, 0), RC_ERR_PEER);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* The peer whose ring is being taken back fails before it answers (the
 * VB_MSG_UNRING completes in error): the peer fails with a message
 * naming it, its ring is freed, and the peer waiting for one gets it. */
START_TEST(fp_take_back_peer_fails)
{
	struct vb_tp *vt0;
	unsigned long rx0;
	char out[4096];
	struct err_cap ec;
	struct vw w;
	int i;

	rc_log_set_identity(0, "unit0");
	setenv("RCMPI_VERBS_FP_RINGS", "1", 1);
	setenv("RCMPI_VERBS_FP_THRESHOLD", "4", 1);
	setenv("RCMPI_VERBS_IDLE_MS", "0", 1); /* asked by hand below */
	vw_open(&w, 3);
	ck_assert_int_eq(w.status, RC_OK);
	vt0 = (struct vb_tp *)vw_tp(&w, 0, 1);
	for (i = 0; i < 2; i++)
		send_round(&w, 1, 16, 100 * i);
	for (i = 0; i < 2; i++)
		send_round(&w, 2, 16, 100 * i);
	ck_assert(vt0->peers[1].fprx && !vt0->peers[2].fprx);
	ck_assert_uint_eq(vt0->fp_waiting, 1);
	err_begin(&ec);
	fk.fail_wr_at = fk.wrs + 1; /* the VB_MSG_UNRING */
	vb_fp_revoke(vt0, &vt0->peers[1]);
	ck_assert(vt0->peers[1].fprx->revoking);
	for (i = 0; i < 100; i++)
		vw_progress(&w);
	err_end(&ec, out, sizeof(out));
	ck_assert_msg(strstr(out, "rank 1 on unit1"), "message: %s", out);
	ck_assert_int_eq(vt0->peers[1].state, VB_PEER_FAILED);
	ck_assert(!vt0->peers[1].fprx);
	ck_assert(vt0->peers[2].fprx); /* the waiting peer has it */
	ck_assert_uint_eq(vt0->fp_waiting, 0);
	rx0 = vt0->n_ring_rx;
	for (i = 0; i < 4; i++)
		send_round(&w, 2, 16, 1000 + i);
	ck_assert_uint_gt(vt0->n_ring_rx, rx0);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

/* Post one atomic from rank 0 (again while the transport says RC_AGAIN:
 * rdma_cm connecting) and progress until it completes. */
static int atomic_run(struct vw *w, int to, enum rc_tp_atomic kind,
		      uint64_t operand, uint64_t compare, uint64_t *res,
		      void *lh, uint64_t *target, const void *key)
{
	struct rc_tp_rdma op = {.done = op_done};
	struct rc_tp *tp = vw_tp(w, 0, 1);
	int ret, i;

	op_status = -1;
	for (i = 0; i < 1000; i++) {
		ret = tp->ops->atomic(tp, to, kind, operand, compare, res, lh,
				      (uintptr_t)target, key, &op);
		if (ret != RC_AGAIN)
			break;
		vw_progress(w);
	}
	if (ret != RC_INPROGRESS)
		return ret;
	for (i = 0; i < 100 && op_status < 0; i++)
		vw_progress(w);
	return op_status;
}

/* Device atomics: the work request (opcode, remote address, rkey, add or
 * compare and swap fields, one signaled 8-byte result), their effect, a
 * loopback QP for this rank's own memory, misaligned words refused; no
 * capability (and no remote-atomic access) without device atomics. Over
 * rdma_cm a peer not connected yet is reached all the same: the first
 * atomic connects it. _i: 0 HCA modex, 1 no atomics, 2 rdma_cm. */
START_TEST(data_atomics)
{
	static uint64_t win[4], mine[2], res[2];
	uint8_t key[RC_TP_KEY_MAX], mkey[RC_TP_KEY_MAX], lkey[RC_TP_KEY_MAX];
	uint32_t rkey; /* a verbs key starts with it */
	struct rc_tp *tp, *tp1;
	void *h, *mh, *lh;
	struct vw w;

	if (_i != 1)
		fk.atomic_cap = IBV_ATOMIC_HCA;
	if (_i == 2)
		setenv("RCMPI_VERBS_CM", "rdmacm", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	tp1 = vw_tp(&w, 1, 0);
	if (_i == 1) {
		ck_assert_uint_eq(tp->caps & RC_TP_CAP_ATOMIC, 0);
		ck_assert(!tp->ops->atomic_reach(tp, 1));
		vw_close(&w);
		ck_assert_int_eq(fk_live_total(), 0);
		return;
	}
	ck_assert_uint_ne(tp->caps & RC_TP_CAP_ATOMIC, 0);
	ck_assert_uint_ne(tp1->caps & RC_TP_CAP_ATOMIC, 0);
	ck_assert(tp->ops->atomic_reach(tp, 0)); /* loopback */
	ck_assert(tp->ops->atomic_reach(tp, 1));
	ck_assert(!tp->ops->atomic_reach(tp, 2));
	ck_assert_int_eq(tp1->ops->mem_expose(tp1, win, sizeof(win), key, &h),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, mine, sizeof(mine), mkey, &mh),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, res, sizeof(res), lkey, &lh),
			 RC_OK);
	memcpy(&rkey, key, sizeof(rkey));
	win[1] = 40;
	ck_assert_int_eq(
		atomic_run(&w, 1, RC_TP_FADD, 2, 99, &res[0], lh, &win[1], key),
		RC_OK);
	ck_assert_int_eq(fk.last_atomic.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	ck_assert_uint_eq(fk.last_atomic.wr.atomic.remote_addr,
			  (uintptr_t)&win[1]);
	ck_assert_uint_eq(fk.last_atomic.wr.atomic.rkey, rkey);
	ck_assert_uint_eq(fk.last_atomic.wr.atomic.compare_add, 2);
	ck_assert(fk.last_atomic.send_flags & IBV_SEND_SIGNALED);
	ck_assert_int_eq(fk.last_atomic.num_sge, 1);
	ck_assert_uint_eq(fk.last_atomic_sge.addr, (uintptr_t)&res[0]);
	ck_assert_uint_eq(fk.last_atomic_sge.length, 8);
	ck_assert_uint_eq(res[0], 40);
	ck_assert_uint_eq(win[1], 42);
	/* compare-and-swap: a miss leaves the word, a hit swaps it */
	ck_assert_int_eq(atomic_run(&w, 1, RC_TP_CSWAP, 7, 41, &res[1], lh,
				    &win[1], key),
			 RC_OK);
	ck_assert_int_eq(fk.last_atomic.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	ck_assert_uint_eq(fk.last_atomic.wr.atomic.compare_add, 41);
	ck_assert_uint_eq(fk.last_atomic.wr.atomic.swap, 7);
	ck_assert_uint_eq(res[1], 42);
	ck_assert_uint_eq(win[1], 42);
	ck_assert_int_eq(atomic_run(&w, 1, RC_TP_CSWAP, 7, 42, &res[1], lh,
				    &win[1], key),
			 RC_OK);
	ck_assert_uint_eq(res[1], 42);
	ck_assert_uint_eq(win[1], 7);
	/* our own memory, through the loopback QP */
	mine[1] = 5;
	ck_assert_int_eq(atomic_run(&w, 0, RC_TP_FADD, (uint64_t)-1, 0, &res[0],
				    lh, &mine[1], mkey),
			 RC_OK);
	ck_assert_uint_eq(res[0], 5);
	ck_assert_uint_eq(mine[1], 4);
	/* not 8-byte aligned: refused before anything is posted */
	ck_assert_int_eq(atomic_run(&w, 1, RC_TP_FADD, 1, 0, &res[0], lh,
				    (uint64_t *)((char *)win + 4), key),
			 RC_ERR_UNSUPPORTED);
	ck_assert_uint_eq(fk.atomics, 4);
	ck_assert_uint_eq(fk.bad_key, 0);
	ck_assert_uint_eq(fk.cm_connects, _i == 2 ? 1 : 0);
	tp->ops->mem_release(tp, lh);
	tp->ops->mem_release(tp, mh);
	tp1->ops->mem_release(tp1, h);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

struct fence_op {
	struct rc_tp_rdma op;
	int status;
};

static void fence_op_done(struct rc_tp_rdma *op, int status)
{
	rc_container_of(op, struct fence_op, op)->status = status;
}

static void fence_op_init(struct fence_op *f)
{
	memset(f, 0, sizeof(*f));
	f->op.done = fence_op_done;
	f->status = -1;
}

static void fence_wait(struct vw *w, struct fence_op *f)
{
	int i;

	for (i = 0; i < 100 && f->status < 0; i++)
		vw_progress(w);
	ck_assert_int_eq(f->status, RC_OK);
}

/* A software device (Soft-RoCE's or siw's vendor ID) tells the instance
 * so: its long waits then yield to the kernel's work for the device
 * after 1000 empty polls (rc_inst_yield_after, RCMPI_POLLS_BEFORE_YIELD's
 * auto); a hardware device does not, and never yields by default. A
 * number set in the environment holds for both. */
START_TEST(soft_device)
{
	static const unsigned vendor[] = {0x02c9, 0xffffff, 0x626d74};
	struct vw w;
	bool soft;

	fk.vendor_id = vendor[_i];
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	soft = w.inst[0]->soft_device;
	ck_assert(soft == (_i != 0));
	ck_assert(w.inst[1]->soft_device == (_i != 0));
	unsetenv("RCMPI_POLLS_BEFORE_YIELD");
	ck_assert_uint_eq(rc_inst_yield_after(soft), _i ? 1000 : 0);
	setenv("RCMPI_POLLS_BEFORE_YIELD", "auto", 1);
	ck_assert_uint_eq(rc_inst_yield_after(soft), _i ? 1000 : 0);
	setenv("RCMPI_POLLS_BEFORE_YIELD", "50", 1);
	ck_assert_uint_eq(rc_inst_yield_after(soft), 50);
	setenv("RCMPI_POLLS_BEFORE_YIELD", "0", 1);
	ck_assert_uint_eq(rc_inst_yield_after(soft), 0);
	unsetenv("RCMPI_POLLS_BEFORE_YIELD");
	vw_close(&w);
}
END_TEST

/* The READ and atomic fence (vb_rd_fence_wanted): on a device that asks
 * for it, an atomic or RDMA READ to a peer on another device goes alone.
 * A get, put or atomic that cannot go yet is accepted (RC_INPROGRESS) but
 * held back, and posted in order once the completions it waits for have
 * been polled: behind an atomic or a READ nothing is posted until it
 * completes, and an atomic or READ waits for what is out before it (its
 * unsignaled sends retired by a signaled write it asks for). Results and
 * memory as without. A peer that fails fails what it holds back. _i: 0 a
 * device not rxe (auto: no fence), 1 rxe's vendor ID (auto: fenced), 2
 * RCMPI_VERBS_RD_FENCE=1 but both ranks on one device (its loopback: no
 * fence), 3 rxe's vendor ID with RCMPI_VERBS_RD_FENCE=0. */
START_TEST(data_rd_fence)
{
	static uint64_t win[4], res[2], src = 7, dst;
	uint8_t key[RC_TP_KEY_MAX], lkey[RC_TP_KEY_MAX], skey[RC_TP_KEY_MAX];
	bool fenced = _i == 1;
	struct fence_op a, b, c;
	struct rc_tp *tp, *tp1;
	unsigned long n0;
	void *h, *lh, *sh;
	struct vw w;
	int i;

	fk.atomic_cap = IBV_ATOMIC_HCA;
	fk.vendor_id = _i == 1 || _i == 3 ? 0xffffff : 0x02c9;
	fk.one_guid = _i == 2;
	if (_i >= 2)
		setenv("RCMPI_VERBS_RD_FENCE", _i == 2 ? "1" : "0", 1);
	vw_open(&w, 2);
	ck_assert_int_eq(w.status, RC_OK);
	tp = vw_tp(&w, 0, 1);
	tp1 = vw_tp(&w, 1, 0);
	ck_assert_int_eq(tp1->ops->mem_expose(tp1, win, sizeof(win), key, &h),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, res, sizeof(res), lkey, &lh),
			 RC_OK);
	ck_assert_int_eq(tp->ops->mem_expose(tp, &src, 8, skey, &sh), RC_OK);
	win[0] = 40;
	/* an atomic out: a put behind it is held until its completion */
	fence_op_init(&a);
	fence_op_init(&b);
	n0 = fk.writes;
	ck_assert_int_eq(tp->ops->atomic(tp, 1, RC_TP_FADD, 2, 0, &res[0], lh,
					 (uintptr_t)&win[0], key, &a.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[1],
				      key, &b.op),
			 RC_INPROGRESS);
	ck_assert_uint_eq(fk.writes, n0 + !fenced);
	fence_wait(&w, &a);
	fence_wait(&w, &b);
	ck_assert_uint_eq(fk.writes, n0 + 1);
	ck_assert_uint_eq(res[0], 40);
	ck_assert_uint_eq(win[0], 42);
	ck_assert_uint_eq(win[1], 7);
	/* a get out: an atomic and a put behind it wait, in order */
	fence_op_init(&a);
	fence_op_init(&b);
	fence_op_init(&c);
	n0 = fk.atomics;
	ck_assert_int_eq(tp->ops->get(tp, 1, &dst, NULL, 8, (uintptr_t)&win[0],
				      key, &a.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->atomic(tp, 1, RC_TP_CSWAP, 9, 42, &res[1], lh,
					 (uintptr_t)&win[0], key, &b.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[2],
				      key, &c.op),
			 RC_INPROGRESS);
	ck_assert_uint_eq(fk.atomics, n0 + !fenced);
	fence_wait(&w, &a);
	fence_wait(&w, &b);
	fence_wait(&w, &c);
	ck_assert_uint_eq(fk.atomics, n0 + 1);
	ck_assert_uint_eq(dst, 42);
	ck_assert_uint_eq(res[1], 42);
	ck_assert_uint_eq(win[0], 9);
	ck_assert_uint_eq(win[2], 7);
	/* a put out: an atomic waits until it has completed (alone) */
	fence_op_init(&a);
	fence_op_init(&b);
	n0 = fk.atomics;
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[1],
				      key, &a.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->atomic(tp, 1, RC_TP_FADD, 1, 0, &res[0], lh,
					 (uintptr_t)&win[0], key, &b.op),
			 RC_INPROGRESS);
	ck_assert_uint_eq(fk.atomics, n0 + !fenced);
	fence_wait(&w, &a);
	fence_wait(&w, &b);
	ck_assert_uint_eq(res[0], 9);
	ck_assert_uint_eq(win[0], 10);
	/* writes do not fence: two puts in a row go at once */
	fence_op_init(&a);
	fence_op_init(&b);
	n0 = fk.writes;
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[2],
				      key, &a.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[3],
				      key, &b.op),
			 RC_INPROGRESS);
	ck_assert_uint_eq(fk.writes, n0 + 2);
	fence_wait(&w, &a);
	fence_wait(&w, &b);
	/* messages flow as before; their sends are unsignaled, so an atomic
	 * behind them asks for a signaled write that retires them */
	ck_assert(vw_exchange(&w));
	fence_op_init(&a);
	n0 = fk.writes;
	ck_assert_int_eq(tp->ops->atomic(tp, 1, RC_TP_FADD, 1, 0, &res[0], lh,
					 (uintptr_t)&win[0], key, &a.op),
			 RC_INPROGRESS);
	ck_assert_uint_eq(fk.writes, n0 + fenced);
	fence_wait(&w, &a);
	ck_assert_uint_eq(res[0], 10);
	ck_assert_uint_eq(win[0], 11);
	/* the peer fails with a get out and a put held back: both fail */
	fence_op_init(&a);
	fence_op_init(&b);
	fk.fail_wr_at = fk.wrs + 1;
	ck_assert_int_eq(tp->ops->get(tp, 1, &dst, NULL, 8, (uintptr_t)&win[0],
				      key, &a.op),
			 RC_INPROGRESS);
	ck_assert_int_eq(tp->ops->put(tp, 1, &src, sh, 8, (uintptr_t)&win[1],
				      key, &b.op),
			 RC_INPROGRESS);
	for (i = 0; i < 100 && (a.status < 0 || b.status < 0); i++)
		vw_progress(&w);
	ck_assert_int_eq(a.status, RC_ERR_PEER);
	ck_assert_int_eq(b.status, RC_ERR_PEER);
	tp->ops->mem_release(tp, sh);
	tp->ops->mem_release(tp, lh);
	tp1->ops->mem_release(tp1, h);
	vw_close(&w);
	ck_assert_int_eq(fk_live_total(), 0);
}
END_TEST

static Suite *verbs_suite(void)
{
	Suite *s = suite_create("verbs");
	TCase *tc;

	tc = tcase_create("rcache");
	tcase_add_test(tc, rcache_cover);
	tcase_add_test(tc, rcache_invalidate);
	tcase_add_test(tc, rcache_lru);
	tcase_add_test(tc, rcache_race_and_retry);
	tcase_add_test(tc, rcache_disabled);
	tcase_add_loop_test(tc, rcache_hooks, 0, 6);
	suite_add_tcase(s, tc);

	tc = tcase_create("credit");
	tcase_add_test(tc, credit_flood_model);
	tcase_add_test(tc, credit_wrap_and_slots);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("qpattr");
	tcase_add_test(tc, qpattr_ib);
	tcase_add_test(tc, qpattr_roce);
	suite_add_tcase(s, tc);

	tc = tcase_create("setup");
	tcase_add_checked_fixture(tc, setup_fakes, NULL);
	tcase_add_test(tc, setup_roce_gid_by_type);
	tcase_add_test(tc, setup_ib_lid);
	tcase_add_test(tc, setup_gid_override_and_fallback);
	tcase_add_test(tc, setup_bad_settings);
	tcase_add_test(tc, setup_fail_every_call_roce);
	tcase_add_test(tc, setup_fail_every_call_ib);
	tcase_add_test(tc, setup_fail_every_call_rdmacm);
	tcase_add_test(tc, setup_fail_every_call_ud);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("data");
	tcase_add_checked_fixture(tc, setup_fakes, NULL);
	tcase_add_loop_test(tc, data_sizes, 0, 9);
	tcase_add_loop_test(tc, data_flood_tiny_credits, 0, 3);
	tcase_add_loop_test(tc, data_simultaneous, 0, 4);
	tcase_add_loop_test(tc, ud_lost, 0, 3);
	tcase_add_loop_test(tc, ud_no_answer, 0, 2);
	tcase_add_loop_test(tc, ud_agent, 0, 2);
	tcase_add_test(tc, data_put_inline);
	tcase_add_loop_test(tc, data_max_msg, 0, 2);
	tcase_add_loop_test(tc, data_mem_report, 0, 2);
	tcase_add_loop_test(tc, wiring_auto, 0, 3);
	tcase_add_test(tc, data_reclaim);
	tcase_add_loop_test(tc, data_short_window, 0, 2);
	tcase_add_test(tc, fp_take_back);
	tcase_add_test(tc, fp_take_back_peer_fails);
	tcase_add_test(tc, data_completion_error);
	tcase_add_test(tc, data_unexposed);
	tcase_add_loop_test(tc, data_atomics, 0, 3);
	tcase_add_loop_test(tc, data_rd_fence, 0, 4);
	tcase_add_loop_test(tc, soft_device, 0, 3);
	tcase_add_loop_test(tc, fp_order_mixed, 0, 4);
	tcase_add_test(tc, fp_cq_later);
	tcase_add_test(tc, fp_poll_fast);
	tcase_add_loop_test(tc, fp_none, 0, 2);
	tcase_add_test(tc, fp_write_error);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	/* a thread of the transport's own (the TSan stage runs this case) */
	tc = tcase_create("agent");
	tcase_add_checked_fixture(tc, setup_fakes, NULL);
	tcase_add_test(tc, ud_agent_thread);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

/* The whole run's limit without fork (CK_FORK=no), where Check times no
 * case: the ASan stage runs this binary so (Makefile.am). Every case
 * opens its own fake devices and ranks, so they pass in one process. */
#define NOFORK_TMO 600

int main(void)
{
	SRunner *sr = srunner_create(verbs_suite());
	int failed;

	/* quiet: the bad-settings cases log errors by design */
	if (!getenv("RCMPI_VERBOSE") && !freopen("/dev/null", "w", stderr))
		return 1;
	if (srunner_fork_status(sr) == CK_NOFORK)
		alarm(NOFORK_TMO);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
