/*
 * tp_shm.c - the shared-memory transport, between ranks of one node (one
 * kernel: same boot id).
 *
 * Each rank owns one POSIX shared-memory segment, "/rcmpi.<nspace>.<rank>",
 * mode 0600, holding one single-producer/single-consumer ring per local
 * sender. A sender writes records into its ring in the receiver's segment;
 * the receiver polls its rings in progress. The last local peer to attach
 * unlinks the segment, so nothing is left in /dev/shm once the job is up,
 * even if it later crashes (the launcher sweeps the name too).
 *
 * Ring: `nlines` cache lines of data and, in a line of its own, `head`, the
 * count of lines the consumer has released. A record starts on a line:
 *     u64 stamp | u32 len | u32 flags | payload (len bytes)
 * and spans ceil((16 + len) / 64) lines. The producer writes the payload,
 * then stores stamp = (its line position + 1) with release; the consumer
 * polls the stamp of the line at its head, so a message costs one cache-line
 * transfer when it fits in 48 bytes (the fast path of the smallest
 * messages) and no shared counter is touched per message. Stamps grow
 * without bound, so a stale record start never looks ready; the consumer
 * zeroes the first word of every other line of a record before it releases
 * them, so payload bytes are never mistaken for a stamp. A record that
 * would cross the end of the ring is preceded by a SKIP record. The producer
 * re-reads `head` only when its cached copy says the ring is full; then it
 * answers RC_AGAIN and pt2pt retries after progress (never drop, never
 * block). A record is at most half a ring, so an empty ring always has room.
 *
 * Prefetching for ownership. A line the producer writes was last read by
 * the consumer, so the store needs it back from the consumer's cache. A
 * stream of small messages then stalls the producer on every record: its
 * stores queue behind the one waiting for the line, until the CPU's store
 * buffer is full (a send path makes dozens of stores: the request, the
 * header, the registers its calls save). So after a small record the
 * producer asks for the lines the next one will use, with PREFETCHW,
 * starting two lines past its end: the line right after it is the one a
 * consumer that has caught up polls, and taking that one away from it would
 * only make it come back. Only in a stream: when this record follows
 * another one to the same peer with no progress call between them (a
 * ping-pong receives between its sends, and there an always-on prefetch
 * cost 0.02-0.05 µs of 0.38). Only lines the cached head says are free,
 * and only after records of at most SHM_PREFETCH_LINES lines (messages up
 * to 224 bytes): ten lines prefetched after a 512-byte message cost its
 * ping-pong 0.01-0.02 µs of 0.17, and 32 after a 4-8 KiB one 0.1-0.3 µs.
 * Where the two cores pass lines slowly (a 2-core AMD EPYC VM at some
 * placements) osu_mbw_mr at 8-128 B went from 4.3-4.8 to 9.3-10.8 million
 * messages/s; where they pass them fast it changed nothing
 * (bench/RESULTS.md).
 *
 * Threads: the producer end of a ring is that peer's sending state alone,
 * so senders to different peers may run at once (RC_TP_CAP_SEND_MT;
 * pt2pt serialises senders to one peer with its send lock).
 *
 * Rendezvous: get/put are single copies with process_vm_readv/writev (CMA)
 * into the peer's exposed buffer (key: its pid). Where the kernel forbids
 * CMA (ptrace scope, seccomp) the first EPERM turns get/put off and pt2pt
 * streams fragments through the rings instead (two copies); RCMPI_SHM_CMA=0
 * selects that fallback from the start.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "compiler.h"
#include "inst.h"
#include "log.h"
#include "param.h"
#include "pt2pt.h"
#include "status.h"
#include "tp.h"

#define SHM_MAGIC 0x72636d7069736d31ull
#define SHM_REC_HDR 16u
#define SHM_REC_SKIP 0x1u
#define SHM_ATTACH_TIMEOUT_S 60
/* prefetch for ownership after records of at most this many lines */
#define SHM_PREFETCH_LINES 4

struct shm_seg_hdr {
	_Atomic uint64_t magic;		/* written last, with release */
	uint32_t nrings;
	uint32_t ring_bytes;
	_Atomic uint32_t attached;
	uint32_t expected;
	char pad[RC_CACHELINE - 24];
};

struct shm_ring_ctl {
	_Alignas(RC_CACHELINE) _Atomic uint64_t head;
	char pad[RC_CACHELINE - 8];
};

struct shm_rec {
	_Atomic uint64_t stamp;
	uint32_t len;
	uint32_t flags;
};

/* Our side of the ring we write into (in a peer's segment). */
struct shm_out {
	struct shm_ring_ctl *ctl;
	char *data;
	uint64_t tail;		/* next line to write */
	uint64_t cached_head;
	uint64_t last_polls; /* st->polls at our last record */
};

/* A ring in our segment that a peer writes into. */
struct shm_in {
	struct shm_ring_ctl *ctl;
	char *data;
	uint64_t head;
	int wrank;
};

struct shm_tp {
	struct rc_tp tp;
	int nlocal;		/* ranks of this node, me included */
	int myidx;
	int *lidx;		/* world rank -> local index or -1 */
	int *lranks;		/* local index -> world rank */
	uint32_t ring_bytes;
	uint32_t nlines;
	size_t seg_len;
	char name[256];
	void *seg;		/* our segment */
	void **peer_seg;	/* by local index */
	struct shm_in *in;	/* nlocal - 1 rings we read */
	struct shm_out *out;	/* by local index */
	bool cma;
	/* shm_progress calls (written by progress, read by senders that may
	 * run beside it: relaxed atomics, plain moves on x86) */
	uint64_t polls;
};

static inline uint32_t rec_lines(size_t len)
{
	return (uint32_t)((SHM_REC_HDR + len + RC_CACHELINE - 1) / RC_CACHELINE);
}

/* Ring slot in a receiver's segment for a sender (own index skipped). */
static inline int ring_slot(int sender_idx, int receiver_idx)
{
	return sender_idx < receiver_idx ? sender_idx : sender_idx - 1;
}

static inline struct shm_ring_ctl *seg_ring(void *seg, uint32_t ring_bytes,
					    int slot)
{
	char *base = (char *)seg + sizeof(struct shm_seg_hdr);

	return (struct shm_ring_ctl *)(base + (size_t)slot *
					(sizeof(struct shm_ring_ctl) + ring_bytes));
}

void rc_shm_seg_name(char *out, size_t len, const char *nspace,
		     const char *what)
{
	char ns[200];
	size_t i;

	for (i = 0; nspace[i] && i < sizeof(ns) - 1; i++) {
		char c = nspace[i];

		ns[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') || c == '.' || c == '-' ||
				c == '_' || c == '@'
			? c : '_';
	}
	ns[i] = 0;
	snprintf(out, len, "/rcmpi.%s.%s", ns, what);
}

int rc_shm_reserve(int fd, size_t len)
{
	sigset_t all, old;
	int ret;

	/* tmpfs gives up with EINTR when a signal comes while it allocates,
	 * and undoes what it allocated: a program's interval timer faster
	 * than one allocation would make a retry loop spin for ever. The
	 * signals wait until it is done instead. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	do
		ret = posix_fallocate(fd, 0, (off_t)len);
	while (ret == EINTR);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void seg_name(char *out, size_t len, const char *nspace, int rank)
{
	char r[16];

	snprintf(r, sizeof(r), "%d", rank);
	rc_shm_seg_name(out, len, nspace, r);
}

static int shm_open_tp(struct rc_inst *inst, struct rc_tp **tpp)
{
	struct shm_tp *st = calloc(1, sizeof(*st));
	uint8_t present = 1;
	int ret;

	if (!st)
		return RC_ERR_NOMEM;
	st->tp.ops = &rc_tp_shm_ops;
	st->tp.inst = inst;
	st->tp.name = "shm";
	st->cma = rc_param_bool(RC_P_SHM_CMA);
	st->tp.caps = RC_TP_CAP_SEND_MT |
		      (st->cma ? RC_TP_CAP_GET | RC_TP_CAP_PUT : 0);
	st->tp.rdma_chunk = (size_t)rc_param_int(RC_P_SHM_CMA_CHUNK);
	st->tp.max_rdma = 1;
	/* Presence of the section tells peers we speak shm. */
	ret = rc_modex_add(inst, RC_MODEX_SHM, &present, sizeof(present));
	if (ret) {
		free(st);
		return ret;
	}
	*tpp = &st->tp;
	return RC_OK;
}

static bool shm_reachable(struct rc_tp *tp, int wrank)
{
	const void *data;
	size_t len;

	if (!tp->inst->procs[wrank].local)
		return false;
	return rc_modex_get(tp->inst, wrank, RC_MODEX_SHM, &data, &len) == RC_OK;
}

/* Map pages with a write now, in this process's page tables: a first write
 * to a page costs tens of microseconds on some virtual machines (even after
 * MAP_POPULATE, which maps shared pages for reading only), and the first
 * pass over a fresh ring would take one every 64 small messages. Callers
 * touch a range before anything has been written into it (our segment
 * before its magic is published, our ring in a peer's segment before we
 * send), so rewriting each page's first byte is safe. */
static void shm_prefault(char *data, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += 4096)
		((volatile char *)data)[off] = ((volatile char *)data)[off];
}

static int shm_create(struct shm_tp *st)
{
	struct rc_inst *inst = st->tp.inst;
	struct shm_seg_hdr *hdr;
	int fd, ret;

	seg_name(st->name, sizeof(st->name), inst->nspace, inst->rank);
	fd = shm_open(st->name, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0) {
		rc_log_err("shm_open(%s): %s", st->name, strerror(errno));
		return RC_ERR_IO;
	}
	ret = rc_shm_reserve(fd, st->seg_len);
	if (ret) {
		rc_log_err("cannot allocate %zu bytes in /dev/shm for %s: %s",
			   st->seg_len, st->name, strerror(ret));
		goto err_unlink;
	}
	st->seg = mmap(NULL, st->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	if (st->seg == MAP_FAILED) {
		st->seg = NULL;
		rc_log_err("mmap(%s): %s", st->name, strerror(errno));
		goto err_unlink;
	}
	close(fd);
	/* the rings we read: we clear stale stamps in them */
	shm_prefault(st->seg, st->seg_len);
	hdr = st->seg;
	hdr->nrings = (uint32_t)(st->nlocal - 1);
	hdr->ring_bytes = st->ring_bytes;
	hdr->expected = (uint32_t)(st->nlocal - 1);
	atomic_store_explicit(&hdr->attached, 0, memory_order_relaxed);
	atomic_store_explicit(&hdr->magic, SHM_MAGIC, memory_order_release);
	return RC_OK;

err_unlink:
	close(fd);
	shm_unlink(st->name);
	return RC_ERR_IO;
}

/* Map a local peer's segment, waiting for it to be created. */
static int shm_attach(struct shm_tp *st, int idx)
{
	struct rc_inst *inst = st->tp.inst;
	int wrank = st->lranks[idx];
	struct timespec t0, now;
	struct shm_seg_hdr *hdr;
	char name[256];
	struct stat sb;
	void *seg;
	int fd;

	seg_name(name, sizeof(name), inst->nspace, wrank);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		fd = shm_open(name, O_RDWR, 0);
		if (fd >= 0 && !fstat(fd, &sb) && (size_t)sb.st_size >= st->seg_len)
			break;
		if (fd >= 0)
			close(fd);
		else if (errno != ENOENT) {
			rc_log_err("shm_open(%s) of rank %d: %s", name, wrank,
				   strerror(errno));
			return RC_ERR_IO;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > SHM_ATTACH_TIMEOUT_S) {
			rc_log_err("rank %d on %s did not create its shared "
				   "memory segment %s within %d s", wrank,
				   inst->procs[wrank].host, name,
				   SHM_ATTACH_TIMEOUT_S);
			return RC_ERR_PEER;
		}
		usleep(1000);
	}
	seg = mmap(NULL, st->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (seg == MAP_FAILED) {
		rc_log_err("mmap(%s): %s", name, strerror(errno));
		return RC_ERR_IO;
	}
	hdr = seg;
	while (atomic_load_explicit(&hdr->magic, memory_order_acquire) !=
	       SHM_MAGIC)
		usleep(100);
	if (hdr->ring_bytes != st->ring_bytes ||
	    hdr->nrings != (uint32_t)(st->nlocal - 1)) {
		rc_log_err("shared memory segment %s of rank %d has another "
			   "shape (ring %u, %u rings): mixed RCMPI_SHM_* settings?",
			   name, wrank, hdr->ring_bytes, hdr->nrings);
		munmap(seg, st->seg_len);
		return RC_ERR_INVAL;
	}
	st->peer_seg[idx] = seg;
	/* the last to attach removes the name */
	if (atomic_fetch_add(&hdr->attached, 1) + 1 == hdr->expected)
		shm_unlink(name);
	return RC_OK;
}

/*
 * The eager limit when RCMPI_SHM_EAGER_LIMIT is "auto". Eager costs two
 * copies (into the ring, out of it); a CMA rendezvous costs one
 * process_vm_readv, which has a fixed price (the syscall, pinning the
 * peer's pages) and a price per byte. Eager wins below
 *	len = fixed / (2 / memcpy_bandwidth - cma_per_byte),
 * and everywhere when one CMA byte costs more than two copied ones (a
 * virtual machine whose page pinning is slow). Measured once here, on our
 * own pages (the best of a few tries: a preemption only slows one), and
 * kept between 4 KiB and max (half a ring less a header). A ring's bytes
 * are never in the copying core's cache: the sender writes lines the
 * receiver read last, the receiver reads lines the sender just wrote. So
 * the copy is timed from a source out of this core's cache (flushed; or
 * a span of twice its L2 read in order after writing it all): in cache,
 * memcpy is three times faster, which put the limit at the cap (128 KiB)
 * where 64 KiB messages took twice as long as with CMA
 * (bench/RESULTS.md). Where CMA is cheap (a few hundred ns a call) the
 * limit lands lower.
 */
#define SHM_PROBE_LEN (64 << 10)
#define SHM_PROBE_TRIES 8
#define SHM_PROBE_SPAN_MIN (1L << 20)
#define SHM_PROBE_SPAN_MAX (16L << 20)

static double shm_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* best time of one copy of len bytes (CMA from ourselves, or memcpy);
 * a negative time when CMA fails */
static double shm_probe(char *dst, char *src, size_t len, bool cma)
{
	double best = 1e30;
	int i;

	for (i = 0; i < SHM_PROBE_TRIES; i++) {
		struct iovec l = {dst, len}, r = {src, len};
		double t = shm_now_ns();

		if (cma) {
			if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) !=
			    (ssize_t)len)
				return -1;
		} else {
			memcpy(dst, src, len);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		t = shm_now_ns() - t;
		if (t < best)
			best = t;
	}
	return best;
}

/* Best time per byte of a memcpy of SHM_PROBE_LEN bytes from memory out
 * of this core's cache; a negative time when there is no memory for it.
 * On x86, from src with its lines flushed before each try (no more memory
 * to touch: start-up pays ~0.1 ms); elsewhere from the oldest chunks of a
 * span larger than the core's L2, written in order. */
static double shm_probe_cold(char *dst, char *src)
{
	double best = 1e30;
	int i;
#if defined(__x86_64__) || defined(__i386__)
	size_t k;

	for (i = 0; i < SHM_PROBE_TRIES; i++) {
		double t;

		for (k = 0; k < SHM_PROBE_LEN; k += 64)
			__builtin_ia32_clflush(src + k);
		__builtin_ia32_mfence();
		t = shm_now_ns();
		memcpy(dst, src, SHM_PROBE_LEN);
		__asm__ volatile("" : : "r"(dst) : "memory");
		t = shm_now_ns() - t;
		if (t < best)
			best = t;
	}
#else
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	long span = l2 > 0 ? 2 * l2 : 4L << 20;
	char *big;

	if (span < SHM_PROBE_SPAN_MIN)
		span = SHM_PROBE_SPAN_MIN;
	if (span > SHM_PROBE_SPAN_MAX)
		span = SHM_PROBE_SPAN_MAX;
	big = malloc((size_t)span);
	if (!big)
		return -1;
	memset(big, 1, (size_t)span);
	for (i = 0; i < SHM_PROBE_TRIES &&
		    (long)(i + 1) * SHM_PROBE_LEN <= span / 2;
	     i++) {
		double t = shm_now_ns();

		memcpy(dst, big + (size_t)i * SHM_PROBE_LEN, SHM_PROBE_LEN);
		__asm__ volatile("" : : "r"(dst) : "memory");
		t = shm_now_ns() - t;
		if (t < best)
			best = t;
	}
	free(big);
	(void)src;
#endif
	return best / SHM_PROBE_LEN;
}

size_t rc_shm_eager_model(double fixed_ns, double cma_ns_per_byte,
			  double copy_ns_per_byte, size_t max)
{
	double gain = 2 * copy_ns_per_byte - cma_ns_per_byte;

	if (max <= RC_SHM_EAGER_FLOOR)
		return max;
	if (gain <= 0 || fixed_ns / gain >= (double)max)
		return max;
	if (fixed_ns / gain <= RC_SHM_EAGER_FLOOR)
		return RC_SHM_EAGER_FLOOR;
	return (size_t)(fixed_ns / gain);
}

static size_t shm_auto_eager(struct shm_tp *st, size_t max)
{
	char *src = malloc(SHM_PROBE_LEN), *dst = malloc(SHM_PROBE_LEN);
	double small, big, copy, per_byte;
	size_t limit = max < RC_SHM_EAGER_FLOOR ? max : RC_SHM_EAGER_FLOOR;

	if (!st->cma || !src || !dst)
		goto out_free;
	memset(src, 1, SHM_PROBE_LEN);
	memset(dst, 2, SHM_PROBE_LEN);
	small = shm_probe(dst, src, 64, true);
	big = shm_probe(dst, src, SHM_PROBE_LEN, true);
	copy = shm_probe_cold(dst, src);
	if (copy < 0)
		copy = shm_probe(dst, src, SHM_PROBE_LEN, false) / SHM_PROBE_LEN;
	if (small < 0 || big < 0)
		goto out_free; /* no CMA: rendezvous goes through the rings */
	per_byte = (big - small) / (SHM_PROBE_LEN - 64);
	limit = rc_shm_eager_model(small, per_byte, copy, max);
	rc_log_debug("shm: CMA %.0f ns + %.3f ns/B, memcpy %.3f ns/B: eager "
		     "limit %zu",
		     small, per_byte, copy, limit);
out_free:
	free(src);
	free(dst);
	return limit;
}

static int shm_connect(struct rc_tp *tp)
{
	struct shm_tp *st = (struct shm_tp *)tp;
	struct rc_inst *inst = tp->inst;
	const char *eager;
	long ring;
	int w, i, ret;

	st->lidx = malloc(inst->size * sizeof(int));
	st->lranks = malloc(inst->size * sizeof(int));
	if (!st->lidx || !st->lranks)
		return RC_ERR_NOMEM;
	for (w = 0; w < inst->size; w++) {
		st->lidx[w] = -1;
		if (w == inst->rank || inst->procs[w].tp == tp) {
			if (w == inst->rank)
				st->myidx = st->nlocal;
			st->lidx[w] = st->nlocal;
			st->lranks[st->nlocal++] = w;
		}
	}
	if (st->nlocal < 2)
		return RC_OK;	/* nobody to talk to here */

	/* Ring size: 256 KiB per sender for small nodes, shrinking so a
	 * rank's segment stays near 16 MiB. */
	ring = (16L << 20) / (st->nlocal - 1);
	if (ring > (256L << 10))
		ring = 256L << 10;
	if (ring < (32L << 10))
		ring = 32L << 10;
	ring = rc_param_int_at(RC_P_SHM_RING_SIZE, ring, 1L << 30);
	/* power of two lines */
	st->nlines = 1;
	while ((long)st->nlines * RC_CACHELINE < ring)
		st->nlines <<= 1;
	st->ring_bytes = st->nlines * RC_CACHELINE;
	st->seg_len = sizeof(struct shm_seg_hdr) +
		      (size_t)(st->nlocal - 1) *
			      (sizeof(struct shm_ring_ctl) + st->ring_bytes);
	tp->max_am = st->ring_bytes / 2 - SHM_REC_HDR;
	eager = rc_param_raw(RC_P_SHM_EAGER_LIMIT);
	if (eager && strcmp(eager, "auto"))
		tp->eager_limit = (size_t)rc_param_int_at(
			RC_P_SHM_EAGER_LIMIT, RC_SHM_EAGER_FLOOR,
			(long)tp->max_am - 64);
	else
		tp->eager_limit = shm_auto_eager(st, tp->max_am - 64);
	/* below it a copy through the rings beats a CMA system call */
	tp->direct_min = tp->eager_limit;

	st->peer_seg = calloc(st->nlocal, sizeof(void *));
	st->in = calloc(st->nlocal, sizeof(*st->in));
	st->out = calloc(st->nlocal, sizeof(*st->out));
	if (!st->peer_seg || !st->in || !st->out)
		return RC_ERR_NOMEM;
	ret = shm_create(st);
	if (ret)
		return ret;
	for (i = 0; i < st->nlocal; i++) {
		struct shm_ring_ctl *ctl;

		if (i == st->myidx)
			continue;
		ret = shm_attach(st, i);
		if (ret)
			return ret;
		ctl = seg_ring(st->peer_seg[i], st->ring_bytes,
			       ring_slot(st->myidx, i));
		st->out[i].ctl = ctl;
		st->out[i].data = (char *)(ctl + 1);
		shm_prefault(st->out[i].data, st->ring_bytes);
		ctl = seg_ring(st->seg, st->ring_bytes, ring_slot(i, st->myidx));
		st->in[ring_slot(i, st->myidx)].ctl = ctl;
		st->in[ring_slot(i, st->myidx)].data = (char *)(ctl + 1);
		st->in[ring_slot(i, st->myidx)].wrank = st->lranks[i];
	}
	return RC_OK;
}

static void shm_close(struct rc_tp *tp)
{
	struct shm_tp *st = (struct shm_tp *)tp;
	int i;

	if (st->peer_seg)
		for (i = 0; i < st->nlocal; i++)
			if (st->peer_seg[i])
				munmap(st->peer_seg[i], st->seg_len);
	if (st->seg) {
		struct shm_seg_hdr *hdr = st->seg;

		/* peers that never attached (a failed start): unlink here */
		if (atomic_load(&hdr->attached) < hdr->expected)
			shm_unlink(st->name);
		munmap(st->seg, st->seg_len);
	}
	free(st->peer_seg);
	free(st->in);
	free(st->out);
	free(st->lidx);
	free(st->lranks);
	free(st);
}

/* Take the lines of the next record of about `lines` lines from the
 * consumer's cache now (see "Prefetching for ownership" above). */
static inline void shm_prefetch_next(struct shm_tp *st, struct shm_out *o,
				     uint32_t lines)
{
	uint64_t from = o->tail + 2, to = from + lines + 1, l;

	if (to - o->cached_head > st->nlines)
		return; /* not known to be free */
	for (l = from; l < to; l++)
		rc_prefetch_w(o->data +
			      (size_t)(l & (st->nlines - 1)) * RC_CACHELINE);
}

static int shm_am_send(struct rc_tp *tp, int wrank, const void *hdr,
		       size_t hlen, const void *payload, size_t len)
{
	struct shm_tp *st = (struct shm_tp *)tp;
	struct shm_out *o = &st->out[st->lidx[wrank]];
	uint32_t need = rec_lines(hlen + len);
	uint32_t pos = (uint32_t)(o->tail & (st->nlines - 1));
	uint32_t skip = pos + need > st->nlines ? st->nlines - pos : 0;
	struct shm_rec *rec;
	uint64_t polls = __atomic_load_n(&st->polls, __ATOMIC_RELAXED);
	/* a record right behind another one to this peer, no progress call
	 * between them: a stream, not a ping-pong */
	bool stream = o->last_polls == polls;

	o->last_polls = polls;
	if (o->tail + skip + need - o->cached_head > st->nlines) {
		o->cached_head = atomic_load_explicit(&o->ctl->head,
						      memory_order_acquire);
		if (o->tail + skip + need - o->cached_head > st->nlines)
			return RC_AGAIN;
	}
	if (skip) {
		rec = (struct shm_rec *)(o->data + (size_t)pos * RC_CACHELINE);
		rec->len = 0;
		rec->flags = SHM_REC_SKIP;
		atomic_store_explicit(&rec->stamp, o->tail + 1,
				      memory_order_release);
		o->tail += skip;
		pos = 0;
	}
	rec = (struct shm_rec *)(o->data + (size_t)pos * RC_CACHELINE);
	memcpy(rec + 1, hdr, hlen);
	if (len)
		memcpy((char *)(rec + 1) + hlen, payload, len);
	rec->len = (uint32_t)(hlen + len);
	rec->flags = 0;
	atomic_store_explicit(&rec->stamp, o->tail + 1, memory_order_release);
	o->tail += need;
	if (stream && need <= SHM_PREFETCH_LINES)
		shm_prefetch_next(st, o, need);
	return RC_OK;
}

/* Drain one ring: deliver ready records, then release their lines. */
static unsigned shm_poll_ring(struct shm_tp *st, struct shm_in *in)
{
	uint32_t mask = st->nlines - 1;
	unsigned events = 0;
	uint64_t head = in->head;

	for (;;) {
		uint32_t pos = (uint32_t)(head & mask);
		struct shm_rec *rec =
			(struct shm_rec *)(in->data + (size_t)pos * RC_CACHELINE);
		uint32_t lines, i;

		if (atomic_load_explicit(&rec->stamp, memory_order_acquire) !=
		    head + 1)
			break;
		if (RC_UNLIKELY(rec->flags & SHM_REC_SKIP)) {
			lines = st->nlines - pos;
		} else {
			lines = rec_lines(rec->len);
			st->tp.recv(st->tp.inst, in->wrank, rec + 1, rec->len);
			events++;
		}
		for (i = 1; i < lines; i++)
			*(uint64_t *)(in->data +
				      (size_t)(pos + i) * RC_CACHELINE) = 0;
		head += lines;
		if (events >= 64)
			break;
	}
	if (head != in->head) {
		in->head = head;
		atomic_store_explicit(&in->ctl->head, head,
				      memory_order_release);
	}
	return events;
}

/* Is the record at the ring's head there? */
static inline bool shm_ring_ready(const struct shm_tp *st,
				  const struct shm_in *in)
{
	const struct shm_rec *rec =
		(const struct shm_rec *)(in->data +
					 (size_t)(in->head & (st->nlines - 1)) *
						 RC_CACHELINE);

	return atomic_load_explicit(&rec->stamp, memory_order_acquire) ==
	       in->head + 1;
}

/* Drain rings i.. (out of line: an idle poll then sets up no frame). */
static __attribute__((noinline)) unsigned shm_drain_from(struct shm_tp *st,
							 int i)
{
	unsigned events = 0;

	for (; i < st->nlocal - 1; i++)
		events += shm_poll_ring(st, &st->in[i]);
	return events;
}

static unsigned shm_progress(struct rc_tp *tp)
{
	struct shm_tp *st = (struct shm_tp *)tp;
	int i;

	__atomic_store_n(&st->polls,
			 __atomic_load_n(&st->polls, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	for (i = 0; i < st->nlocal - 1; i++)
		if (shm_ring_ready(st, &st->in[i]))
			return shm_drain_from(st, i);
	return 0;
}

static int shm_mem_expose(struct rc_tp *tp, void *addr, size_t len,
			  void *key, void **handle)
{
	int32_t pid = (int32_t)getpid();

	memset(key, 0, RC_TP_KEY_MAX);
	memcpy(key, &pid, sizeof(pid));
	*handle = addr;
	return RC_OK;
}

static void shm_mem_release(struct rc_tp *tp, void *handle)
{
}

static int shm_cma(struct shm_tp *st, int wrank, void *local, size_t len,
		   uint64_t raddr, const void *rkey, bool write)
{
	int32_t pid;
	size_t done = 0;

	memcpy(&pid, rkey, sizeof(pid));
	while (done < len) {
		struct iovec l = { (char *)local + done, len - done };
		struct iovec r = { (void *)(uintptr_t)(raddr + done), len - done };
		ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
				  : process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
			if (st->cma)
				rc_log_debug("process_vm_%s: %s; shared memory "
					     "falls back to two copies",
					     write ? "writev" : "readv",
					     strerror(errno));
			st->cma = false;
			st->tp.caps &= ~(RC_TP_CAP_GET | RC_TP_CAP_PUT);
			return RC_ERR_UNSUPPORTED;
		}
		rc_log_err("process_vm_%s from rank %d (pid %d): %s",
			   write ? "writev" : "readv", wrank, pid,
			   n < 0 ? strerror(errno) : "no progress");
		return RC_ERR_PEER;
	}
	return RC_OK;
}

static int shm_get(struct rc_tp *tp, int wrank, void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op)
{
	return shm_cma((struct shm_tp *)tp, wrank, local, len, raddr, rkey,
		       false);
}

static int shm_put(struct rc_tp *tp, int wrank, const void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op)
{
	return shm_cma((struct shm_tp *)tp, wrank, (void *)local, len, raddr,
		       rkey, true);
}

const struct rc_tp_ops rc_tp_shm_ops = {
	.name = "shm",
	.open = shm_open_tp,
	.reachable = shm_reachable,
	.connect = shm_connect,
	.close = shm_close,
	.am_send = shm_am_send,
	.mem_expose = shm_mem_expose,
	.mem_release = shm_mem_release,
	.get = shm_get,
	.put = shm_put,
	.progress = shm_progress,
};
