/*
 * iof.c - forwarding the ranks' stdio.
 *
 * Each rank writes stdout and stderr into its own pipes. The launcher reads
 * whatever is there (up to 64 KiB at a time) into a per-rank, per-stream
 * buffer and hands on only complete lines; a partial line waits for its
 * end. A line is written out with one writev() loop before the next line
 * from anyone, so lines of different ranks never mix however long they are
 * or however the rank split its writes. A line longer than IOF_MAX_LINE is
 * handed on in pieces (bounded memory), and the rest of a stream without a
 * final newline is handed on at EOF as it is.
 *
 * stdin: the launcher's fd 0 is read into a 64 KiB buffer and written to
 * rank 0's pipe as the pipe takes it; EOF on fd 0 closes the pipe, and a
 * rank that closed its end (EPIPE) stops the relay.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <poll.h>
#include <unistd.h>

#include "launcher.h"

#define IOF_CHUNK 65536
#define IOF_MAX_LINE (1 << 20)

static int iof_reserve(struct rc_iof_buf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : IOF_CHUNK;
	char *nb;

	if (b->len + extra <= b->cap)
		return 0;
	while (cap < b->len + extra)
		cap *= 2;
	nb = realloc(b->buf, cap);
	if (!nb)
		return -1;
	b->buf = nb;
	b->cap = cap;
	return 0;
}

/* emit complete lines (or a piece of an over-long line), keep the rest */
static void iof_emit_lines(struct rc_iof_buf *b, int rank, int stream,
			   rc_iof_emit_fn emit, void *arg)
{
	char *nl = NULL, *p;
	size_t done;

	for (p = b->buf + b->len; p > b->buf; p--) {
		if (p[-1] == '\n') {
			nl = p;
			break;
		}
	}
	if (nl) {
		done = (size_t)(nl - b->buf);
	} else if (b->len >= IOF_MAX_LINE) {
		done = b->len;
	} else {
		return;
	}
	emit(arg, rank, stream, b->buf, done);
	memmove(b->buf, b->buf + done, b->len - done);
	b->len -= done;
}

int rc_iof_pump(struct rc_iof_buf *b, int fd, int rank, int stream,
		rc_iof_emit_fn emit, void *arg)
{
	ssize_t n;

	if (iof_reserve(b, IOF_CHUNK))
		return -1;
	do {
		n = read(fd, b->buf + b->len, IOF_CHUNK);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 2 : -1;
	if (n == 0)
		return 0;
	b->len += (size_t)n;
	iof_emit_lines(b, rank, stream, emit, arg);
	return 1;
}

void rc_iof_flush(struct rc_iof_buf *b, int rank, int stream,
		  rc_iof_emit_fn emit, void *arg)
{
	if (b->len)
		emit(arg, rank, stream, b->buf, b->len);
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

static int iof_writev_all(int fd, struct iovec *iov, int cnt)
{
	ssize_t n;

	while (cnt > 0) {
		n = writev(fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* someone made our stdout non-blocking */
				struct pollfd pfd = { .fd = fd,
						      .events = POLLOUT };

				poll(&pfd, 1, 100);
				continue;
			}
			return -1;
		}
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int rc_iof_write_lines(int fd, int rank, bool tag, const char *buf,
		       size_t len)
{
	struct iovec iov[64];
	char tags[32][24];
	const char *p = buf, *end = buf + len, *nl;
	int cnt = 0, ntag = 0;

	if (!tag) {
		iov[0].iov_base = (void *)buf;
		iov[0].iov_len = len;
		return iof_writev_all(fd, iov, 1);
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		snprintf(tags[ntag], sizeof(tags[ntag]), "[%d] ", rank);
		iov[cnt].iov_base = tags[ntag];
		iov[cnt++].iov_len = strlen(tags[ntag++]);
		iov[cnt].iov_base = (void *)p;
		iov[cnt++].iov_len = (size_t)(nl - p);
		p = nl;
		if (ntag == 32 || p == end) {
			if (iof_writev_all(fd, iov, cnt))
				return -1;
			cnt = ntag = 0;
		}
	}
	return 0;
}

/* ---- stdin relay -------------------------------------------------------- */

short rc_stdin_want_src(const struct rc_stdin *s)
{
	return !s->eof && !s->closed && s->len < sizeof(s->buf) ? POLLIN : 0;
}

short rc_stdin_want_dst(const struct rc_stdin *s)
{
	return !s->closed && s->len ? POLLOUT : 0;
}

void rc_stdin_close(struct rc_stdin *s)
{
	if (!s->closed && s->dst >= 0)
		close(s->dst);
	s->dst = -1;
	s->closed = true;
	s->len = 0;
}

void rc_stdin_on_src(struct rc_stdin *s)
{
	ssize_t n;

	do {
		n = read(s->src, s->buf + s->len, sizeof(s->buf) - s->len);
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		s->len += (size_t)n;
		rc_stdin_on_dst(s);
		return;
	}
	if (n < 0 && errno == EAGAIN)
		return;
	/* EOF or error: no more input */
	s->eof = true;
	if (!s->len)
		rc_stdin_close(s);
}

void rc_stdin_on_dst(struct rc_stdin *s)
{
	ssize_t n;

	if (s->closed)
		return;
	while (s->len) {
		n = write(s->dst, s->buf, s->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* EPIPE: the rank closed stdin or exited */
			rc_stdin_close(s);
			return;
		}
		memmove(s->buf, s->buf + n, s->len - (size_t)n);
		s->len -= (size_t)n;
	}
	if (s->eof)
		rc_stdin_close(s);
}

int rc_iof_pump_close(struct rc_iof_buf *b, int *fd, int stream,
		      rc_iof_emit_fn emit, void *arg)
{
	int rc;

	if (*fd < 0)
		return 0;
	rc = rc_iof_pump(b, *fd, -1, stream, emit, arg);
	if (rc <= 0) {
		rc_iof_flush(b, -1, stream, emit, arg);
		close(*fd);
		*fd = -1;
		return 0;
	}
	return rc;
}
