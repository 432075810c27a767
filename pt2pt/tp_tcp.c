/*
 * tp_tcp.c - the TCP transport: active messages over one TCP connection per
 * pair of ranks, for peers that neither shared memory nor verbs reach (or
 * for all peers with RCMPI_TRANSPORTS=tcp). No get/put: the engine streams
 * rendezvous data in fragments through active messages.
 *
 * Address: at open every rank listens on an IPv4 address (RCMPI_TCP_IF: an
 * interface name, an address or a subnet in CIDR form; default the first
 * interface that is up and not loopback, else loopback) on a port the
 * kernel picks, and publishes address and port in the modex. Two ranks on
 * different nodes use TCP only when neither published a loopback address,
 * so both sides of a pair always decide alike.
 *
 * Connection, on the first message to a peer (either side may start):
 *
 *   connector                               acceptor
 *   connect() (nonblocking) -------------->  accept()
 *   hello {magic, job, rank} ------------->  checks job and rank, then
 *                                            accepts: <- ack {magic, job,
 *                                            rank}, the socket is the
 *                                            peer's; or refuses: close()
 *   ack: the socket is the peer's; queued
 *   messages go out
 *
 * Nothing but the hello travels before the ack, so a refused connection
 * loses no message. Both ranks may connect at once; exactly one connection
 * must survive. The rule: the connection started by the lower world rank
 * wins. An acceptor that has its own attempt pending to that peer accepts
 * the peer's hello when the peer is the lower rank (and drops its own
 * attempt), refuses it otherwise (its own attempt, which the peer will
 * accept, wins). A refused connector tries again after a short pause; by
 * then the winning connection usually has arrived. Why not "the lower rank
 * always connects": the higher rank may be the one with something to say,
 * and it would have no way to ask.
 *
 * Messages: frames of tcp_frame.h (u32 length, engine header, payload), in
 * order per connection; am_send writes at once when nothing waits before
 * it and queues the rest (bounded: RC_AGAIN when the queue is full).
 * Progress polls every socket once (poll(), timeout 0) and reads, writes,
 * accepts and finishes connects; it is called from the engine's progress,
 * never from a thread of its own. TCP_NODELAY on every connection;
 * MSG_NOSIGNAL on every send, so a dead peer is an error, not SIGPIPE.
 *
 * Failures, as verbs: end of stream or a socket error on a connection
 * (keepalive probes unanswered for RCMPI_TCP_KEEPALIVE seconds
 * included: a node that vanished), or a peer that refuses connections
 * (ECONNREFUSED and such) for RCMPI_TCP_CONNECT_TIMEOUT seconds, is
 * logged naming rank, host and address, then ends the job
 * (MPI_ERRORS_ARE_FATAL) or is reported through tp->failed
 * (MPI_ERRORS_RETURN), and later sends to the peer fail.
 *
 * Close: queued messages are written out (at most a few seconds), then an
 * empty frame says goodbye and our side is shut down. A peer that reads
 * the goodbye shuts its side down too, so an end of stream after a goodbye
 * is no failure; we wait for it (or a few seconds) before closing, reading
 * and dropping what comes, so that no socket closes with unread data (which
 * would reset the connection under the peer's unread goodbye).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "comm.h"
#include "compiler.h"
#include "errhandler.h"
#include "inst.h"
#include "log.h"
#include "param.h"
#include "status.h"
#include "tcp_frame.h"
#include "tp.h"
#include "tp_tcp.h"

#define TCP_ADDR_MAGIC 0x72637470u  /* modex section */
#define TCP_HELLO_MAGIC 0x72636831u /* connector's first words */
#define TCP_ACK_MAGIC 0x72636131u   /* acceptor's answer */
#define TCP_CLOSE_WAIT_S 5.0	    /* flush and goodbye at close */
#define TCP_BACKOFF_MIN_S 0.001
#define TCP_BACKOFF_MAX_S 0.2

/* Our modex section. */
struct tcp_addr {
	uint32_t magic;
	uint32_t ipv4; /* network order */
	uint16_t port; /* network order */
	uint16_t rsvd;
	uint32_t max_frame; /* largest frame we send (length word included) */
};

/* hello and ack */
struct tcp_hs {
	uint32_t magic;
	int32_t rank;
	uint64_t job;
};

enum tcp_state {
	TCP_IDLE,	/* never used */
	TCP_CONNECTING, /* our connect() in progress */
	TCP_HELLO,	/* our hello sent, waiting for the ack */
	TCP_BACKOFF,	/* our attempt failed or was refused: retry later */
	TCP_UP,
	TCP_BYE, /* the peer said goodbye: no more traffic */
	TCP_FAILED,
};

struct tcp_peer {
	enum tcp_state state;
	int fd;
	int wrank;
	struct rc_tcp_buf sq;
	struct rc_tcp_buf rq;
	struct tcp_hs hs; /* the ack being read (connector) */
	size_t hs_got;
	double retry_at;      /* TCP_BACKOFF: when to connect again */
	double refused_since; /* first refusal in a row, or 0 */
	double backoff;
	bool eof; /* closing: the peer shut its side down */
};

/* An accepted socket whose hello has not arrived in full. */
struct tcp_pend {
	int fd;
	struct tcp_hs hs;
	size_t got;
};

struct tcp_tp {
	struct rc_tp tp;
	int lfd; /* listening socket */
	struct sockaddr_in me;
	uint64_t job;
	int ntcp;		/* peers that use this transport */
	struct tcp_peer *peers; /* by world rank */
	struct tcp_pend *pend;
	int npend, pend_cap;
	int nhs; /* peers in CONNECTING, HELLO or BACKOFF */
	struct pollfd *pfd;
	int pfd_cap;
	int *powner;	  /* >= 0 peer, -1 listener, -2 - i pend[i] */
	size_t max_frame; /* ours */
	size_t queue;	  /* send queue bytes per peer */
	double connect_timeout;
	int keepalive; /* seconds (RCMPI_TCP_KEEPALIVE), 0: off */
	bool closing;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *peer_host(struct tcp_tp *tt, int w)
{
	struct rc_inst *inst = tt->tp.inst;

	return inst->procs && inst->procs[w].host[0] ? inst->procs[w].host
						     : "?";
}

static const struct tcp_addr *peer_addr(struct tcp_tp *tt, int w)
{
	const void *data;
	size_t len;

	if (rc_modex_get(tt->tp.inst, w, RC_MODEX_TCP, &data, &len) ||
	    len < sizeof(struct tcp_addr) ||
	    ((const struct tcp_addr *)data)->magic != TCP_ADDR_MAGIC)
		return NULL;
	return data;
}

static void addr_str(const struct tcp_addr *a, char *out, size_t len)
{
	char ip[INET_ADDRSTRLEN] = "?";

	if (a)
		inet_ntop(AF_INET, &a->ipv4, ip, sizeof(ip));
	snprintf(out, len, "%s:%u", ip, a ? ntohs(a->port) : 0);
}

static bool errors_fatal(struct tcp_tp *tt)
{
	struct rc_comm *w = tt->tp.inst->world;

	return !w || !w->errh || w->errh->kind == RC_EH_FATAL;
}

static void peer_drop(struct tcp_tp *tt, struct tcp_peer *p)
{
	if (p->state == TCP_CONNECTING || p->state == TCP_HELLO ||
	    p->state == TCP_BACKOFF)
		tt->nhs--;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* The connection to p is gone for good: tell the user and the engine. */
static void peer_fail(struct tcp_tp *tt, struct tcp_peer *p, const char *what,
		      int err)
{
	char a[64];

	if (p->state == TCP_FAILED)
		return;
	peer_drop(tt, p);
	if (p->state == TCP_BYE || tt->closing) {
		p->state = TCP_FAILED;
		rc_log_debug("tcp: rank %d on %s, at close: %s%s%s", p->wrank,
			     peer_host(tt, p->wrank), what, err ? ": " : "",
			     err ? strerror(err) : "");
		return;
	}
	p->state = TCP_FAILED;
	addr_str(peer_addr(tt, p->wrank), a, sizeof(a));
	rc_log_err("tcp: connection to rank %d on %s (%s) failed: %s%s%s",
		   p->wrank, peer_host(tt, p->wrank), a, what, err ? ": " : "",
		   err ? strerror(err) : "");
	if (errors_fatal(tt))
		rc_abort(tt->tp.inst, MPI_ERR_PROC_FAILED,
			 "tcp: ending the job after a connection failure "
			 "(MPI_ERRORS_ARE_FATAL)");
	if (tt->tp.failed)
		tt->tp.failed(tt->tp.inst, p->wrank, RC_ERR_PEER);
}

/* TCP_NODELAY, and keepalive probes after keepalive / 3 s of silence,
 * keepalive / 6 s apart, four of them: an idle connection to a node that
 * vanished (power, network) fails after about `keepalive` seconds, so
 * that a rank waiting on that peer hears of it. Silence only: a peer
 * that computes without reading for long answers the probes from its
 * kernel. (No TCP_USER_TIMEOUT: it would also end a connection whose
 * receiver reads nothing for that long.) */
static void sock_tune(struct tcp_tp *tt, int fd)
{
	int one = 1, idle = tt->keepalive / 3, intvl = tt->keepalive / 6,
	    cnt = 4;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!tt->keepalive)
		return;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	idle = idle > 0 ? idle : 1;
	intvl = intvl > 0 ? intvl : 1;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* ---- address selection ---------------------------------------------- */

static bool parse_cidr(const char *s, uint32_t *net, uint32_t *mask)
{
	char buf[64], *slash;
	struct in_addr a;
	long bits = 32;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash) {
		char *end;

		*slash = 0;
		bits = strtol(slash + 1, &end, 10);
		if (*end || end == slash + 1 || bits < 0 || bits > 32)
			return false;
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		return false;
	*mask = bits ? htonl(~0u << (32 - bits)) : 0;
	*net = a.s_addr & *mask;
	return true;
}

int rc_tcp_pick_addr(const char *want, struct in_addr *out, char *ifname,
		     size_t iflen)
{
	struct ifaddrs *ifs, *i;
	uint32_t net = 0, mask = 0;
	bool cidr = want && *want && parse_cidr(want, &net, &mask);
	int ret = RC_ERR_NODEV, pass;

	if (getifaddrs(&ifs))
		return RC_ERR_IO;
	/* pass 0: what was asked for, else an up, non-loopback interface;
	 * pass 1 (nothing asked): loopback */
	for (pass = 0; pass < 2 && ret; pass++) {
		for (i = ifs; i; i = i->ifa_next) {
			const struct sockaddr_in *sa =
				(const struct sockaddr_in *)i->ifa_addr;
			bool loop = i->ifa_flags & IFF_LOOPBACK;

			if (!sa || sa->sin_family != AF_INET ||
			    !(i->ifa_flags & IFF_UP))
				continue;
			if (want && *want) {
				if (cidr ? (sa->sin_addr.s_addr & mask) != net
					 : strcmp(i->ifa_name, want))
					continue;
			} else if (loop != (pass == 1)) {
				continue;
			}
			*out = sa->sin_addr;
			snprintf(ifname, iflen, "%s", i->ifa_name);
			ret = RC_OK;
			break;
		}
		if (want && *want)
			break;
	}
	freeifaddrs(ifs);
	return ret;
}

static bool is_loopback(uint32_t ipv4)
{
	return (ntohl(ipv4) >> 24) == 127;
}

/* ---- open, reachability, connect ------------------------------------- */

static uint64_t job_hash(const char *nspace)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *nspace; nspace++)
		h = (h ^ (uint8_t)*nspace) * 0x100000001b3ull;
	return h;
}

static int tcp_listen(struct tcp_tp *tt)
{
	socklen_t sl = sizeof(tt->me);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc_log_err("tcp: socket: %s", strerror(errno));
		return RC_ERR_IO;
	}
	tt->me.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&tt->me, sizeof(tt->me)) ||
	    listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)&tt->me, &sl)) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &tt->me.sin_addr, ip, sizeof(ip));
		rc_log_err("tcp: cannot listen on %s: %s", ip, strerror(errno));
		close(fd);
		return RC_ERR_IO;
	}
	tt->lfd = fd;
	return RC_OK;
}

static int tcp_open(struct rc_inst *inst, struct rc_tp **tpp)
{
	struct tcp_tp *tt = calloc(1, sizeof(*tt));
	const char *want = rc_param_str(RC_P_TCP_IF);
	struct tcp_addr a = {.magic = TCP_ADDR_MAGIC};
	char ifname[IF_NAMESIZE + 1];
	int ret;

	if (!tt)
		return RC_ERR_NOMEM;
	tt->tp.ops = &rc_tp_tcp_ops;
	tt->tp.inst = inst;
	tt->tp.name = "tcp";
	tt->tp.caps = 0; /* active messages only */
	tt->lfd = -1;
	tt->tp.max_am = (size_t)rc_param_int(RC_P_TCP_MAX_MSG);
	tt->max_frame = RC_TCP_FRAME_SIZE(tt->tp.max_am);
	tt->tp.eager_limit = (size_t)rc_param_int(RC_P_TCP_EAGER_LIMIT);
	if (tt->tp.eager_limit > tt->tp.max_am - 64)
		tt->tp.eager_limit = tt->tp.max_am - 64;
	tt->queue = (size_t)rc_param_int(RC_P_TCP_QUEUE);
	if (tt->queue < 2 * tt->max_frame)
		tt->queue = 2 * tt->max_frame;
	tt->connect_timeout = (double)rc_param_int(RC_P_TCP_CONNECT_TIMEOUT);
	tt->keepalive = (int)rc_param_int(RC_P_TCP_KEEPALIVE);
	tt->job = job_hash(inst->nspace);
	tt->me.sin_family = AF_INET;
	ret = rc_tcp_pick_addr(want, &tt->me.sin_addr, ifname, sizeof(ifname));
	if (ret == RC_ERR_NODEV && want) {
		rc_log_err("tcp: RCMPI_TCP_IF=%s: no interface that is up has "
			   "that name or an IPv4 address in that subnet",
			   want);
		ret = RC_ERR_INVAL;
	}
	if (ret)
		goto err_free;
	ret = tcp_listen(tt);
	if (ret)
		goto err_free;
	a.ipv4 = tt->me.sin_addr.s_addr;
	a.port = tt->me.sin_port;
	a.max_frame = (uint32_t)tt->max_frame;
	rc_log_debug("tcp: listening on %s (%s) port %u",
		     inet_ntoa(tt->me.sin_addr), ifname, ntohs(a.port));
	ret = rc_modex_add(inst, RC_MODEX_TCP, &a, sizeof(a));
	if (ret)
		goto err_close;
	*tpp = &tt->tp;
	return RC_OK;

err_close:
	close(tt->lfd);
err_free:
	free(tt);
	return ret;
}

static bool tcp_reachable(struct rc_tp *tp, int w)
{
	struct tcp_tp *tt = (struct tcp_tp *)tp;
	const struct tcp_addr *pa = peer_addr(tt, w);

	if (!pa)
		return false;
	/* a loopback address serves only its own node, whichever side
	 * published it: both sides of a pair decide alike */
	if (!tp->inst->procs[w].local &&
	    (is_loopback(pa->ipv4) || is_loopback(tt->me.sin_addr.s_addr)))
		return false;
	return true;
}

static int tcp_connect_all(struct rc_tp *tp)
{
	struct tcp_tp *tt = (struct tcp_tp *)tp;
	struct rc_inst *inst = tp->inst;
	int w;

	tt->peers = calloc(inst->size, sizeof(*tt->peers));
	if (!tt->peers)
		return RC_ERR_NOMEM;
	for (w = 0; w < inst->size; w++) {
		struct tcp_peer *p = &tt->peers[w];

		p->fd = -1;
		p->wrank = w;
		if (inst->procs[w].tp != tp)
			continue;
		tt->ntcp++;
	}
	return RC_OK;
}

/* ---- connection set-up ------------------------------------------------ */

static int peer_buffers(struct tcp_tp *tt, struct tcp_peer *p)
{
	const struct tcp_addr *pa = peer_addr(tt, p->wrank);
	size_t rcap = tt->max_frame;
	int ret;

	if (p->sq.buf)
		return RC_OK;
	if (pa && pa->max_frame > rcap)
		rcap = pa->max_frame;
	ret = rc_tcp_buf_init(&p->sq, tt->queue);
	if (ret)
		return ret;
	ret = rc_tcp_buf_init(&p->rq, rcap);
	if (ret)
		rc_tcp_buf_fini(&p->sq);
	return ret;
}

/* Start (or restart) our connection attempt to p. */
static void peer_connect(struct tcp_tp *tt, struct tcp_peer *p)
{
	const struct tcp_addr *pa = peer_addr(tt, p->wrank);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		peer_fail(tt, p, "socket", errno);
		return;
	}
	sock_tune(tt, fd);
	sa.sin_addr.s_addr = pa->ipv4;
	sa.sin_port = pa->port;
	if (p->state != TCP_BACKOFF)
		tt->nhs++;
	p->fd = fd;
	p->hs_got = 0;
	p->state = TCP_CONNECTING;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		/* leave it to poll: it reports the error on the socket */
		rc_log_debug("tcp: connect to rank %d: %s", p->wrank,
			     strerror(errno));
	}
}

/* Our attempt failed (refused, reset, closed before the ack): pause and
 * try again, until the peer has refused for connect_timeout seconds. */
static void peer_retry(struct tcp_tp *tt, struct tcp_peer *p, int err,
		       bool refused)
{
	double now = now_s();

	close(p->fd);
	p->fd = -1;
	p->state = TCP_BACKOFF;
	if (!refused) {
		p->refused_since = 0;
	} else if (!p->refused_since) {
		p->refused_since = now;
	} else if (now - p->refused_since > tt->connect_timeout) {
		char what[128];

		snprintf(what, sizeof(what), "no connection within %.0f s",
			 tt->connect_timeout);
		peer_fail(tt, p, what, err);
		return;
	}
	p->backoff = p->backoff < TCP_BACKOFF_MIN_S ? TCP_BACKOFF_MIN_S
						    : p->backoff * 2;
	if (p->backoff > TCP_BACKOFF_MAX_S)
		p->backoff = TCP_BACKOFF_MAX_S;
	p->retry_at = now + p->backoff;
}

/* Close: an empty frame says goodbye, then our side shuts down (once the
 * queue is out; otherwise the peer's end of stream or the deadline ends
 * the wait). */
static void peer_goodbye(struct tcp_tp *tt, struct tcp_peer *p)
{
	int err;

	if (rc_tcp_sq_send(&p->sq, p->fd, NULL, 0, NULL, 0, &err) == RC_OK &&
	    rc_tcp_sq_empty(&p->sq))
		shutdown(p->fd, SHUT_WR);
}

/* The connection fd is p's from now on: flush what waited. */
static void peer_up(struct tcp_tp *tt, struct tcp_peer *p, int fd)
{
	size_t moved;
	int err = 0;

	if (p->state == TCP_CONNECTING || p->state == TCP_HELLO ||
	    p->state == TCP_BACKOFF)
		tt->nhs--;
	if (p->fd >= 0 && p->fd != fd)
		close(p->fd); /* our own attempt, which lost */
	p->fd = fd;
	p->state = TCP_UP;
	p->refused_since = 0;
	p->backoff = 0;
	if (rc_tcp_sq_flush(&p->sq, fd, &moved, &err))
		peer_fail(tt, p, "send", err);
	else if (tt->closing)
		peer_goodbye(tt, p);
}

static bool hs_write(int fd, uint32_t magic, int rank, uint64_t job)
{
	struct tcp_hs hs = {.magic = magic, .rank = rank, .job = job};

	/* a fresh socket's buffer always has room for these 16 bytes */
	return send(fd, &hs, sizeof(hs), MSG_NOSIGNAL | MSG_DONTWAIT) ==
	       (ssize_t)sizeof(hs);
}

/* read the rest of a hello or ack: 1 complete, 0 not yet, -1 failed */
static int hs_read(int fd, struct tcp_hs *hs, size_t *got, int *err)
{
	ssize_t r;

	do
		r = recv(fd, (char *)hs + *got, sizeof(*hs) - *got,
			 MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
		*err = r ? errno : 0;
		return -1;
	}
	if (r > 0)
		*got += (size_t)r;
	return *got == sizeof(*hs);
}

/* Our socket to p is writable (connect finished) or readable (the ack). */
static unsigned peer_handshake(struct tcp_tp *tt, struct tcp_peer *p,
			       short revents)
{
	int err = 0, r;
	socklen_t el = sizeof(err);

	if (p->state == TCP_CONNECTING) {
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
			peer_retry(tt, p, err, true);
			return 1;
		}
		if (!(revents & POLLOUT))
			return 0;
		if (!hs_write(p->fd, TCP_HELLO_MAGIC, tt->tp.inst->rank,
			      tt->job)) {
			peer_retry(tt, p, errno, true);
			return 1;
		}
		p->state = TCP_HELLO;
		return 1;
	}
	r = hs_read(p->fd, &p->hs, &p->hs_got, &err);
	if (r < 0) {
		/* refused (the peer's own connection wins) or gone: try
		 * again; a dead peer refuses the next connect */
		peer_retry(tt, p, err, false);
		return 1;
	}
	if (!r)
		return 0;
	if (p->hs.magic != TCP_ACK_MAGIC || p->hs.job != tt->job ||
	    p->hs.rank != p->wrank) {
		peer_fail(tt, p, "bad answer to our hello (another job?)", 0);
		return 1;
	}
	peer_up(tt, p, p->fd);
	return 1;
}

/* A hello arrived in full on an accepted socket: take it or refuse it. */
static void pend_hello(struct tcp_tp *tt, struct tcp_pend *pd)
{
	struct rc_inst *inst = tt->tp.inst;
	int w = pd->hs.rank, fd = pd->fd;
	struct tcp_peer *p;

	pd->fd = -1;
	if (pd->hs.magic != TCP_HELLO_MAGIC || pd->hs.job != tt->job || w < 0 ||
	    w >= inst->size || w == inst->rank ||
	    inst->procs[w].tp != &tt->tp) {
		rc_log_debug("tcp: dropped a connection with a bad hello");
		close(fd);
		return;
	}
	p = &tt->peers[w];
	switch (p->state) {
	case TCP_CONNECTING:
	case TCP_HELLO:
		/* both connect: the lower rank's connection wins */
		rc_log_debug("tcp: rank %d and we connect at once: %s", w,
			     w > inst->rank ? "ours wins" : "theirs wins");
		if (w > inst->rank) {
			close(fd);
			return;
		}
		break;
	case TCP_IDLE:
	case TCP_BACKOFF:
		break;
	default:
		close(fd); /* a stale attempt; we are connected or done */
		return;
	}
	if (peer_buffers(tt, p)) {
		close(fd);
		peer_fail(tt, p, "out of memory for its buffers", 0);
		return;
	}
	sock_tune(tt, fd);
	if (!hs_write(fd, TCP_ACK_MAGIC, inst->rank, tt->job)) {
		close(fd);
		return; /* it tries again */
	}
	peer_up(tt, p, fd);
}

static unsigned tcp_accept(struct tcp_tp *tt)
{
	unsigned n = 0;

	for (;;) {
		int fd = accept4(tt->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				rc_log_warn("tcp: accept: %s", strerror(errno));
			return n;
		}
		if (tt->npend == tt->pend_cap) {
			int cap = tt->pend_cap ? 2 * tt->pend_cap : 8;
			struct tcp_pend *np =
				realloc(tt->pend, cap * sizeof(*np));

			if (!np) {
				close(fd);
				return n;
			}
			tt->pend = np;
			tt->pend_cap = cap;
		}
		tt->pend[tt->npend].fd = fd;
		tt->pend[tt->npend].got = 0;
		tt->npend++;
		n++;
	}
}

static unsigned pend_progress(struct tcp_tp *tt, int i)
{
	struct tcp_pend *pd = &tt->pend[i];
	int err, r = hs_read(pd->fd, &pd->hs, &pd->got, &err);

	if (r < 0) {
		close(pd->fd);
		pd->fd = -1;
	} else if (r > 0) {
		pend_hello(tt, pd);
	}
	return r != 0;
}

/* ---- traffic ------------------------------------------------------------ */

struct tcp_rx {
	struct tcp_tp *tt;
	struct tcp_peer *p;
};

static void tcp_deliver(void *arg, const void *msg, size_t len)
{
	struct tcp_rx *rx = arg;

	if (!len) { /* goodbye */
		if (rx->p->state == TCP_UP) {
			rx->p->state = TCP_BYE;
			shutdown(rx->p->fd, SHUT_WR);
		}
		return;
	}
	if (rx->p->state != TCP_UP || rx->tt->closing)
		return; /* after its goodbye, or at our close */
	rx->tt->tp.recv(rx->tt->tp.inst, rx->p->wrank, msg, len);
}

/* a large payload: pt2pt may name where it goes (a rendezvous fragment
 * into a contiguous receive buffer), so it is read there directly */
static void *tcp_place(void *arg, const void *hdr, size_t hlen, size_t plen)
{
	struct tcp_rx *rx = arg;
	struct rc_tp *tp = &rx->tt->tp;

	if (!tp->place || rx->p->state != TCP_UP || rx->tt->closing)
		return NULL;
	return tp->place(tp->inst, rx->p->wrank, hdr, hlen, plen);
}

static void tcp_placed(void *arg, const void *hdr, size_t hlen, size_t plen)
{
	struct tcp_rx *rx = arg;
	struct rc_tp *tp = &rx->tt->tp;

	tp->placed(tp->inst, rx->p->wrank, hdr, hlen, plen);
}

static const struct rc_tcp_rx tcp_rx_ops = {
	.deliver = tcp_deliver,
	.place = tcp_place,
	.placed = tcp_placed,
};

static unsigned peer_io(struct tcp_tp *tt, struct tcp_peer *p, short revents)
{
	struct tcp_rx rx = {tt, p};
	unsigned events = 0;
	size_t moved;
	int err = 0, n;

	if (revents & POLLOUT) {
		if (rc_tcp_sq_flush(&p->sq, p->fd, &moved, &err)) {
			peer_fail(tt, p, "send", err);
			return 1;
		}
		events += moved > 0;
	}
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		n = rc_tcp_rq_read(&p->rq, p->fd, &tcp_rx_ops, &rx, &err);
		if (n < 0) {
			if (tt->closing || p->state == TCP_BYE) {
				p->eof = true;
				if (p->state != TCP_BYE)
					p->state = TCP_BYE;
				close(p->fd);
				p->fd = -1;
				return 1;
			}
			peer_fail(tt, p,
				  err == EPROTO ? "bad frame length"
				  : err		? "receive"
					: "connection closed by the peer",
				  err == EPROTO ? 0 : err);
			return 1;
		}
		events += (unsigned)n;
	}
	return events;
}

static int tcp_am_send(struct rc_tp *tp, int wrank, const void *hdr,
		       size_t hlen, const void *payload, size_t len)
{
	struct tcp_tp *tt = (struct tcp_tp *)tp;
	struct tcp_peer *p = &tt->peers[wrank];
	int err = 0, ret;

	if (RC_UNLIKELY(p->state != TCP_UP)) {
		if (p->state == TCP_FAILED || p->state == TCP_BYE)
			return RC_ERR_PEER;
		if (p->state == TCP_IDLE) {
			ret = peer_buffers(tt, p);
			if (ret)
				return ret;
			peer_connect(tt, p);
			if (p->state == TCP_FAILED)
				return RC_ERR_PEER;
		}
		return rc_tcp_sq_send(&p->sq, -1, hdr, hlen, payload, len,
				      &err);
	}
	ret = rc_tcp_sq_send(&p->sq, p->fd, hdr, hlen, payload, len, &err);
	if (RC_UNLIKELY(ret == RC_ERR_PEER)) {
		peer_fail(tt, p, "send", err);
		return RC_ERR_PEER;
	}
	return ret;
}

/* one poll over every socket; returns its count of ready ones */
static int tcp_poll(struct tcp_tp *tt, int timeout_ms)
{
	struct rc_inst *inst = tt->tp.inst;
	int n = 0, w, i;

	if (tt->npend + inst->size + 1 > tt->pfd_cap) {
		/* accepted sockets awaiting their hello: few, short-lived */
		int cap = tt->npend + inst->size + 1;
		struct pollfd *np = realloc(tt->pfd, cap * sizeof(*np));
		int *no;

		if (!np)
			return 0;
		tt->pfd = np;
		no = realloc(tt->powner, cap * sizeof(*no));
		if (!no)
			return 0;
		tt->powner = no;
		tt->pfd_cap = cap;
	}
	/* the listener stays open at close: a peer may still be sending
	 * what we have finished with, until it has said goodbye */
	tt->pfd[n] = (struct pollfd){tt->lfd, POLLIN, 0};
	tt->powner[n++] = -1;
	for (w = 0; w < inst->size; w++) {
		struct tcp_peer *p = &tt->peers[w];
		short ev;

		if (p->fd < 0)
			continue;
		switch (p->state) {
		case TCP_CONNECTING:
			ev = POLLOUT;
			break;
		case TCP_UP:
			ev = POLLIN |
			     (rc_tcp_sq_empty(&p->sq) ? 0 : (short)POLLOUT);
			break;
		default:
			ev = POLLIN;
			break;
		}
		tt->pfd[n] = (struct pollfd){p->fd, ev, 0};
		tt->powner[n++] = w;
	}
	for (i = 0; i < tt->npend; i++) {
		tt->pfd[n] = (struct pollfd){tt->pend[i].fd, POLLIN, 0};
		tt->powner[n++] = -2 - i;
	}
	return poll(tt->pfd, (nfds_t)n, timeout_ms) > 0 ? n : 0;
}

static unsigned tcp_progress(struct rc_tp *tp)
{
	struct tcp_tp *tt = (struct tcp_tp *)tp;
	unsigned events = 0;
	int n, i, j;

	if (!tt->ntcp)
		return 0;
	if (RC_UNLIKELY(tt->nhs)) {
		double now = now_s();
		int w;

		for (w = 0; w < tp->inst->size; w++) {
			struct tcp_peer *p = &tt->peers[w];

			if (p->state == TCP_BACKOFF && now >= p->retry_at)
				peer_connect(tt, p);
		}
	}
	n = tcp_poll(tt, 0);
	for (i = 0; i < n; i++) {
		short re = tt->pfd[i].revents;
		int o = tt->powner[i];
		struct tcp_peer *p;

		if (!re)
			continue;
		if (o == -1) {
			events += tcp_accept(tt);
			continue;
		}
		if (o <= -2) {
			events += pend_progress(tt, -2 - o);
			continue;
		}
		p = &tt->peers[o];
		if (p->fd != tt->pfd[i].fd)
			continue; /* replaced during this round */
		if (p->state == TCP_CONNECTING || p->state == TCP_HELLO)
			events += peer_handshake(tt, p, re);
		else
			events += peer_io(tt, p, re);
	}
	/* forget accepted sockets that were adopted or dropped */
	for (i = j = 0; i < tt->npend; i++)
		if (tt->pend[i].fd >= 0)
			tt->pend[j++] = tt->pend[i];
	tt->npend = j;
	return events;
}

/* ---- close -------------------------------------------------------------- */

static bool close_busy(struct tcp_tp *tt, bool flushing)
{
	int w;

	for (w = 0; w < tt->tp.inst->size; w++) {
		struct tcp_peer *p = &tt->peers[w];

		if (p->fd < 0 && p->state != TCP_BACKOFF)
			continue;
		/* flushing: messages wait in a queue, also behind a
		 * connection still being made; then: no end of stream yet */
		if (flushing ? p->state < TCP_BYE && p->sq.buf &&
				       !rc_tcp_sq_empty(&p->sq)
			     : (p->state == TCP_UP || p->state == TCP_BYE) &&
				       !p->eof)
			return true;
	}
	return false;
}

static void tcp_close(struct rc_tp *tp)
{
	struct tcp_tp *tt = (struct tcp_tp *)tp;
	double t0 = now_s();
	int w;

	/* MPI_Finalize has drained the engine and met every rank: what
	 * still arrives is dropped, and an end of stream is no failure */
	tt->closing = true;
	if (tt->peers && tt->ntcp) {
		/* what the engine handed us goes out first */
		while (close_busy(tt, true) && now_s() - t0 < TCP_CLOSE_WAIT_S)
			if (!tcp_progress(tp))
				tcp_poll(tt, 1);
		for (w = 0; w < tp->inst->size; w++)
			if (tt->peers[w].fd >= 0 &&
			    tt->peers[w].state == TCP_UP)
				peer_goodbye(tt, &tt->peers[w]);
		while (close_busy(tt, false) && now_s() - t0 < TCP_CLOSE_WAIT_S)
			if (!tcp_progress(tp))
				tcp_poll(tt, 1);
	}
	if (tt->peers)
		for (w = 0; w < tp->inst->size; w++) {
			struct tcp_peer *p = &tt->peers[w];

			if (p->fd >= 0)
				close(p->fd);
			rc_tcp_buf_fini(&p->sq);
			rc_tcp_buf_fini(&p->rq);
		}
	while (tt->npend)
		close(tt->pend[--tt->npend].fd);
	if (tt->lfd >= 0)
		close(tt->lfd);
	free(tt->pend);
	free(tt->pfd);
	free(tt->powner);
	free(tt->peers);
	free(tt);
}

static int tcp_mem_expose(struct rc_tp *tp, void *addr, size_t len, void *key,
			  void **handle)
{
	return RC_ERR_UNSUPPORTED;
}

static void tcp_mem_release(struct rc_tp *tp, void *handle)
{
}

static int tcp_rdma(struct rc_tp *tp, int wrank, void *local, void *lh,
		    size_t len, uint64_t raddr, const void *rkey,
		    struct rc_tp_rdma *op)
{
	return RC_ERR_UNSUPPORTED;
}

static int tcp_put(struct rc_tp *tp, int wrank, const void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op)
{
	return RC_ERR_UNSUPPORTED;
}

const struct rc_tp_ops rc_tp_tcp_ops = {
	.name = "tcp",
	.open = tcp_open,
	.reachable = tcp_reachable,
	.connect = tcp_connect_all,
	.close = tcp_close,
	.am_send = tcp_am_send,
	.mem_expose = tcp_mem_expose,
	.mem_release = tcp_mem_release,
	.get = tcp_rdma,
	.put = tcp_put,
	.progress = tcp_progress,
};
