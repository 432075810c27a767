/*
 * verbs_credit.h - credit flow control over a shared receive queue.
 *
 * A send on an RC QP consumes one receive buffer of the peer's SRQ; with no
 * buffer posted the peer answers RNR and, with rnr_retry 0, the QP fails.
 * Credits make that impossible: a sender sends only while it holds a
 * credit, and every credit stands for a buffer really posted.
 *
 * Receiver (per process): R buffers in all (posted, or received and waiting
 * to be reposted). Each peer p has a window w_p: the credits it may hold or
 * have in flight. The windows come out of one pool, free = R - sum(w_p) >= 0,
 * which is the whole invariant: at most sum(w_p) <= R messages can be
 * outstanding, so the SRQ never runs dry whatever the peers do.
 *
 * Counters are cumulative and 32-bit (compared modulo 2^32):
 *   rx.limit      credits granted to p so far (initial window + returns)
 *   rx.consumed   p's messages received whose buffers were reposted
 *   rx.window     = rx.limit - rx.consumed
 *   tx.sent       messages sent to p; tx.limit: p's latest rx.limit for us
 * After a batch of buffers is reposted, each peer whose messages used them
 * gets them back (limit += n); a busy peer also grows its window from the
 * pool, up to the per-peer maximum. The new limit travels to the sender in
 * the header of every message going its way (piggy-backed) or, when half a
 * window is owed and no message is going that way, by an RDMA WRITE of the
 * limit into the sender's credit slot (verbs.h): a credit update never
 * needs a credit itself, so two peers that have both run dry cannot
 * deadlock.
 *
 * Taking credits back. A window shrinks only by withholding: credits the
 * peer consumed are not returned (rx.reclaim of them), and go back to the
 * pool instead. That is always safe (nothing granted is revoked), but an
 * idle peer consumes nothing, so the receiver asks it (VB_MSG_RECLAIM) and
 * the peer spends its unused credits at once: one VB_MSG_RETURN message
 * carrying k, after which it counts k more as sent (tx.sent += k) without
 * sending them. The receiver counts those k as consumed and withholds
 * them like any other. Every counter stays cumulative, so a credit update
 * still in flight with an older limit changes nothing. A peer whose
 * messages come again before it answered keeps its window (the request
 * is dropped, rx.reclaim = 0); the floor a window keeps is the first
 * window every peer gets (credits_min).
 *
 * Short windows. A peer that connects on demand when the pool is empty
 * and the SRQ cannot grow (its CQ is full) gets less than credits_min,
 * even 0, and could never send. Such windows are topped up to the floor
 * from what the pool gets back (credits taken back, peers gone), and the
 * new limit written to the peer's credit slot.
 */
#ifndef RC_VERBS_CREDIT_H
#define RC_VERBS_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

struct vb_tx_credit {
	uint32_t sent;
	uint32_t limit;
};

struct vb_rx_credit {
	uint32_t limit;
	uint32_t consumed;
	uint32_t advertised; /* the last limit sent to the peer */
	uint32_t window;
	uint32_t pending; /* received, buffer not yet reposted */
	uint32_t reclaim; /* credits to withhold: being taken back */
};

struct vb_pool {
	uint32_t total;	     /* receive buffers (R) */
	uint32_t free;	     /* R - sum of windows */
	unsigned long taken; /* credits taken back so far (statistics) */
};

/* Withhold up to n consumed credits that are being taken back: they go
 * back to the pool. Returns how many. */
static inline uint32_t vb_rx_withhold(struct vb_pool *pool,
				      struct vb_rx_credit *rx, uint32_t n)
{
	uint32_t t = rx->reclaim < n ? rx->reclaim : n;

	rx->reclaim -= t;
	rx->window -= t;
	pool->free += t;
	pool->taken += t;
	return t;
}

static inline uint32_t vb_tx_avail(const struct vb_tx_credit *c)
{
	int32_t d = (int32_t)(c->limit - c->sent);

	return d > 0 ? (uint32_t)d : 0;
}

/* A limit heard from the peer (header or slot); stale values are ignored. */
static inline void vb_tx_update(struct vb_tx_credit *c, uint32_t limit)
{
	if ((int32_t)(limit - c->limit) > 0)
		c->limit = limit;
}

static inline void vb_tx_init(struct vb_tx_credit *c, uint32_t initial)
{
	c->sent = 0;
	c->limit = initial;
}

/* Give peer a first window of up to `want` credits from the pool. */
static inline uint32_t vb_rx_open(struct vb_pool *pool, struct vb_rx_credit *rx,
				  uint32_t want)
{
	uint32_t g = want < pool->free ? want : pool->free;

	pool->free -= g;
	rx->limit = g;
	rx->advertised = g;
	rx->consumed = 0;
	rx->window = g;
	rx->pending = 0;
	rx->reclaim = 0;
	return g;
}

/* The peer is gone: its window returns to the pool. */
static inline void vb_rx_close(struct vb_pool *pool, struct vb_rx_credit *rx)
{
	pool->free += rx->window;
	rx->window = 0;
}

static inline void vb_rx_received(struct vb_rx_credit *rx)
{
	rx->pending++;
}

/* The buffers of the peer's pending messages are posted again: return the
 * credits, and grow a busy peer's window from the pool up to max_window. */
static inline void vb_rx_reposted(struct vb_pool *pool, struct vb_rx_credit *rx,
				  uint32_t max_window)
{
	uint32_t n = rx->pending, g = 0, t;

	rx->pending = 0;
	rx->consumed += n;
	t = vb_rx_withhold(pool, rx, n);
	rx->limit += n - t;
	if (!t && !rx->reclaim && rx->window < max_window && pool->free) {
		g = max_window - rx->window;
		if (g > n)
			g = n;
		if (g > pool->free)
			g = pool->free;
		rx->window += g;
		rx->limit += g;
		pool->free -= g;
	}
}

/* A window below floor (the pool was short when it was given) grows from
 * what the pool has again; returns the credits added. */
static inline uint32_t vb_rx_top_up(struct vb_pool *pool,
				    struct vb_rx_credit *rx, uint32_t floor)
{
	uint32_t g = rx->window < floor ? floor - rx->window : 0;

	if (g > pool->free)
		g = pool->free;
	rx->window += g;
	rx->limit += g;
	pool->free -= g;
	return g;
}

/* Ask for the window down to floor (0: nothing to take back). */
static inline uint32_t vb_rx_reclaim(struct vb_rx_credit *rx, uint32_t floor)
{
	rx->reclaim = rx->window > floor ? rx->window - floor : 0;
	return rx->reclaim;
}

/* The peer spent k unused credits (VB_MSG_RETURN): consumed, and
 * withheld as far as they are being taken back. */
static inline void vb_rx_returned(struct vb_pool *pool, struct vb_rx_credit *rx,
				  uint32_t k)
{
	rx->consumed += k;
	rx->limit += k - vb_rx_withhold(pool, rx, k);
}

/* Owed enough that the peer may soon stall: tell it without waiting for
 * traffic its way. Half a window (at least 1) keeps a sender that used its
 * whole window from ever waiting on us. */
static inline bool vb_rx_update_due(const struct vb_rx_credit *rx)
{
	uint32_t half = rx->window / 2 ? rx->window / 2 : 1;

	return rx->limit - rx->advertised >= half;
}

static inline uint32_t vb_rx_advertise(struct vb_rx_credit *rx)
{
	rx->advertised = rx->limit;
	return rx->limit;
}

/* The credit slot: the limit and its complement in one aligned word, so a
 * reader can tell a complete write from a torn one. */
static inline uint64_t vb_slot_pack(uint32_t limit)
{
	return ((uint64_t)~limit << 32) | limit;
}

static inline bool vb_slot_unpack(uint64_t v, uint32_t *limit)
{
	if ((uint32_t)(v >> 32) != (uint32_t) ~(uint32_t)v)
		return false;
	*limit = (uint32_t)v;
	return true;
}

#endif
