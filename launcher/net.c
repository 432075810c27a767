/*
 * net.c - the TCP link between mpirun (the head) and each rcmpid daemon.
 *
 * Framing: every message is a 8-byte header, type and payload length as
 * big-endian u32s, then the payload: u32s (big-endian) and strings/byte
 * strings as a u32 length followed by the bytes. rc_wbuf builds payloads,
 * rc_rbuf reads them (any overrun marks it bad instead of reading past
 * the end). A connection (rc_conn) is non-blocking on both sides: sends
 * are queued and flushed as the socket takes them; received bytes are
 * assembled into whole messages. Every byte received counts as a sign of
 * life for the heartbeat.
 *
 * Handshake (before anything else is accepted; remote.c runs it, auth.c
 * makes and checks the proofs; a secret never crosses the wire):
 *
 *   daemon → head  HELLO     magic, version, node index, nonce_d (32 B),
 *                            authentication method (secret or munge)
 *   head → daemon  CHALLENGE nonce_h (32 B),
 *                            proof("rcmpi-head" nonce_d nonce_h node)
 *   daemon → head  AUTH      proof("rcmpi-daemon" nonce_h nonce_d node)
 *   head → daemon  JOB       ... (see rcmpid.c)
 *
 * A proof is HMAC-SHA-256 under the job's secret (32 raw bytes) or a MUNGE
 * credential over the same string (a length-prefixed string). The daemon
 * checks the head's proof before it answers (it will run what the head
 * sends, so it must be the real head), the head checks the daemon's (MACs
 * in constant time) and closes the connection on any mismatch. Nonces are
 * fresh on both sides, so a recorded exchange cannot be replayed.
 */
#include "config.h"

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

#include "launcher.h"

#define NET_HDR 8
#define NET_MAX_MSG (256u << 20)
#define NET_READ_CHUNK 65536

double rc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- payloads ------------------------------------------------------------ */

static int wbuf_reserve(struct rc_wbuf *w, size_t extra)
{
	size_t cap = w->cap ? w->cap : 256;
	char *np;

	if (w->oom)
		return -1;
	if (w->len + extra <= w->cap)
		return 0;
	while (cap < w->len + extra)
		cap *= 2;
	np = realloc(w->p, cap);
	if (!np) {
		w->oom = true;
		return -1;
	}
	w->p = np;
	w->cap = cap;
	return 0;
}

void rc_wbuf_u32(struct rc_wbuf *w, uint32_t v)
{
	uint32_t be = htonl(v);

	if (wbuf_reserve(w, 4))
		return;
	memcpy(w->p + w->len, &be, 4);
	w->len += 4;
}

void rc_wbuf_raw(struct rc_wbuf *w, const void *p, size_t len)
{
	if (!len || wbuf_reserve(w, len))
		return;
	memcpy(w->p + w->len, p, len);
	w->len += len;
}

void rc_wbuf_bytes(struct rc_wbuf *w, const void *p, size_t len)
{
	rc_wbuf_u32(w, (uint32_t)len);
	rc_wbuf_raw(w, p, len);
}

void rc_wbuf_str(struct rc_wbuf *w, const char *s)
{
	rc_wbuf_bytes(w, s ? s : "", s ? strlen(s) : 0);
}

void rc_wbuf_free(struct rc_wbuf *w)
{
	if (!w)
		return;
	free(w->p);
	memset(w, 0, sizeof(*w));
}

uint32_t rc_rbuf_u32(struct rc_rbuf *r)
{
	uint32_t be;

	if (r->bad || r->len - r->off < 4) {
		r->bad = true;
		return 0;
	}
	memcpy(&be, r->p + r->off, 4);
	r->off += 4;
	return ntohl(be);
}

const char *rc_rbuf_raw(struct rc_rbuf *r, size_t len)
{
	const char *p;

	if (r->bad || r->len - r->off < len) {
		r->bad = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += len;
	return p;
}

const char *rc_rbuf_bytes(struct rc_rbuf *r, size_t *len)
{
	uint32_t n = rc_rbuf_u32(r);
	const char *p = rc_rbuf_raw(r, n);

	*len = p ? n : 0;
	return p;
}

char *rc_rbuf_strdup(struct rc_rbuf *r)
{
	size_t len;
	const char *p = rc_rbuf_bytes(r, &len);
	char *s;

	if (!p)
		return NULL;
	if (memchr(p, 0, len)) {
		r->bad = true;
		return NULL;
	}
	s = malloc(len + 1);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, p, len);
	s[len] = 0;
	return s;
}

/* ---- connections ------------------------------------------------------- */

struct rc_net_stats rc_net_stats;

void rc_conn_init(struct rc_conn *c, int fd)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	if (++rc_net_stats.conns > rc_net_stats.conns_max)
		rc_net_stats.conns_max = rc_net_stats.conns;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->last_rx = c->last_tx = rc_now();
}

void rc_conn_close(struct rc_conn *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		rc_net_stats.conns--;
	}
	c->fd = -1;
	free(c->out);
	free(c->in);
	c->out = c->in = NULL;
	c->outlen = c->outoff = c->outcap = 0;
	c->inlen = c->inoff = c->incap = 0;
}

size_t rc_conn_pending(const struct rc_conn *c)
{
	return c->outlen - c->outoff;
}

int rc_conn_flush(struct rc_conn *c)
{
	ssize_t n;

	while (c->fd >= 0 && c->outoff < c->outlen) {
		n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -1;
		}
		c->outoff += (size_t)n;
		rc_net_stats.tx_bytes += (uint64_t)n;
		c->last_tx = rc_now();
	}
	if (c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
	return c->fd >= 0 ? 0 : -1;
}

int rc_conn_send(struct rc_conn *c, uint32_t type, const struct rc_wbuf *w)
{
	size_t plen = w ? w->len : 0, need;
	uint32_t hdr[2];
	char *np;

	if ((w && w->oom) || plen > NET_MAX_MSG)
		return -1;
	if (c->outoff && c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
	/* reclaim the flushed front before growing */
	if (c->outoff > c->outcap / 2) {
		memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
		c->outlen -= c->outoff;
		c->outoff = 0;
	}
	need = c->outlen + NET_HDR + plen;
	if (need > c->outcap) {
		size_t cap = c->outcap ? c->outcap : 4096;

		while (cap < need)
			cap *= 2;
		np = realloc(c->out, cap);
		if (!np)
			return -1;
		c->out = np;
		c->outcap = cap;
	}
	hdr[0] = htonl(type);
	hdr[1] = htonl((uint32_t)plen);
	memcpy(c->out + c->outlen, hdr, NET_HDR);
	if (plen)
		memcpy(c->out + c->outlen + NET_HDR, w->p, plen);
	c->outlen += NET_HDR + plen;
	rc_net_stats.tx_msgs++;
	return rc_conn_flush(c);
}

int rc_conn_fill(struct rc_conn *c)
{
	ssize_t n;
	char *np;

	if (c->inoff) {
		memmove(c->in, c->in + c->inoff, c->inlen - c->inoff);
		c->inlen -= c->inoff;
		c->inoff = 0;
	}
	if (c->incap - c->inlen < NET_READ_CHUNK) {
		size_t cap = c->incap ? c->incap * 2 : 2 * NET_READ_CHUNK;

		np = realloc(c->in, cap);
		if (!np)
			return -1;
		c->in = np;
		c->incap = cap;
	}
	do {
		n = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 2 : -1;
	if (n == 0)
		return 0;
	c->inlen += (size_t)n;
	rc_net_stats.rx_bytes += (uint64_t)n;
	c->last_rx = rc_now();
	return 1;
}

int rc_conn_next(struct rc_conn *c, uint32_t *type, struct rc_rbuf *r)
{
	uint32_t hdr[2], len;
	size_t have = c->inlen - c->inoff;

	if (have < NET_HDR)
		return 0;
	memcpy(hdr, c->in + c->inoff, NET_HDR);
	len = ntohl(hdr[1]);
	if (len > NET_MAX_MSG)
		return -1;
	if (have < NET_HDR + (size_t)len)
		return 0;
	*type = ntohl(hdr[0]);
	r->p = c->in + c->inoff + NET_HDR;
	r->len = len;
	r->off = 0;
	r->bad = false;
	c->inoff += NET_HDR + len;
	return 1;
}

int rc_conn_wait_msg(struct rc_conn *c, double deadline, uint32_t *type,
		     struct rc_rbuf *r)
{
	struct pollfd pfd;
	double left;
	int rc;

	for (;;) {
		rc = rc_conn_next(c, type, r);
		if (rc)
			return rc;
		left = deadline - rc_now();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = c->fd;
		pfd.events = POLLIN | (rc_conn_pending(c) ? POLLOUT : 0);
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 &&
		    errno != EINTR)
			return -1;
		if (pfd.revents & POLLOUT && rc_conn_flush(c))
			return -1;
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			rc = rc_conn_fill(c);
			if (rc == 0) {
				errno = ECONNRESET;
				return -1;
			}
			if (rc < 0)
				return -1;
		}
	}
}

/* ---- sockets ------------------------------------------------------------ */

int rc_net_listen(int *port)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

int rc_net_local_addrs(char *out, size_t len)
{
	struct ifaddrs *ifa, *i;
	char a[INET_ADDRSTRLEN];
	size_t off = 0;
	int n = 0;

	out[0] = 0;
	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_UP) || i->ifa_flags & IFF_LOOPBACK)
			continue;
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a,
			  sizeof(a));
		if (off + strlen(a) + 2 >= len || n >= 16)
			break;
		off += (size_t)snprintf(out + off, len - off, "%s%s",
					n++ ? "," : "", a);
	}
	freeifaddrs(ifa);
	/* loopback last: daemons on this machine, or nothing else */
	if (off + 12 < len)
		snprintf(out + off, len - off, "%s127.0.0.1", n ? "," : "");
	return 0;
}

bool rc_net_is_local_addr(const char *s)
{
	struct ifaddrs *ifa, *i;
	struct in_addr want;
	bool found = false;

	if (inet_pton(AF_INET, s, &want) != 1)
		return false;
	if ((ntohl(want.s_addr) >> 24) == 127)
		return true;
	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		found = i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			want.s_addr;
	freeifaddrs(ifa);
	return found;
}

/* one non-blocking connect, at most max_s seconds; fd or -1 + errno */
static int net_connect_one(const char *addr, int port, double max_s)
{
	struct sockaddr_in sa;
	struct pollfd pfd;
	socklen_t el = sizeof(int);
	int fd, err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	if (errno != EINPROGRESS)
		goto err;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, (int)(max_s * 1000)) <= 0) {
		errno = ETIMEDOUT;
		goto err;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		errno = err ? err : EIO;
		goto err;
	}
	return fd;
err:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int rc_net_connect(const char *addrs, int port, const char *prefer,
		   double max_each_s, char *why, size_t whylen)
{
	char list[1024], *save, *a, *order[32];
	int n = 0, i, j, fd;

	why[0] = 0;
	snprintf(list, sizeof(list), "%s", addrs);
	for (a = strtok_r(list, ",", &save); a && n < 32;
	     a = strtok_r(NULL, ",", &save)) {
		for (j = 0; j < n && strcmp(order[j], a); j++)
			;
		if (j < n)
			continue;
		/* the address ssh came from first, when it is the head's */
		if (prefer && !strcmp(a, prefer)) {
			memmove(order + 1, order, sizeof(*order) * n);
			order[0] = a;
		} else {
			order[n] = a;
		}
		n++;
	}
	for (i = 0; i < n; i++) {
		fd = net_connect_one(order[i], port, max_each_s);
		if (fd >= 0)
			return fd;
		snprintf(why + strlen(why), whylen - strlen(why),
			 "%s%s:%d: %s", *why ? "; " : "", order[i], port,
			 strerror(errno));
	}
	if (!n)
		snprintf(why, whylen, "no address to connect to");
	return -1;
}
