/*
 * launcher_unit.c - Check tests of the launcher pieces that need no
 * process: fence bookkeeping (fence.c) with several nodes, as the head of
 * a multi-node job will see it, and line assembly of forwarded output
 * (iof.c) over a real pipe, fed in awkward pieces.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

/* ---- fence ---------------------------------------------------------------- */

START_TEST(fence_one_node_completes_at_once)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 1, "abc", 3, &out, &len), 1);
	ck_assert_uint_eq(len, 3);
	ck_assert_mem_eq(out, "abc", 3);
	free(out);
	rc_fence_tab_free(t);
}
END_TEST

START_TEST(fence_waits_for_every_node_and_concatenates)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = NULL;
	size_t len = 0;

	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, "AA", 2, &out, &len), 0);
	/* another collective in between does not disturb it */
	ck_assert_int_eq(rc_fence_add(t, "ns:0,ns:5", 2, "x", 1, &out, &len),
			 0);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, NULL, 0, &out, &len), 0);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, "BBB", 3, &out, &len), 1);
	ck_assert_uint_eq(len, 5);
	ck_assert_mem_eq(out, "AABBB", 5);
	free(out);
	out = NULL;
	ck_assert_int_eq(rc_fence_add(t, "ns:0,ns:5", 2, "y", 1, &out, &len),
			 1);
	ck_assert_mem_eq(out, "xy", 2);
	free(out);
	rc_fence_tab_free(t);
}
END_TEST

START_TEST(fence_barrier_has_no_data)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, NULL, 0, &out, &len), 0);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, NULL, 0, &out, &len), 1);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(len, 0);
	/* the same participants again: a new collective */
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, "z", 1, &out, &len), 0);
	rc_fence_tab_free(t);	/* frees the pending one */
}
END_TEST

/* ---- iof ------------------------------------------------------------------ */

struct sink {
	char buf[1 << 16];
	size_t len;
	int calls;
	int ends_mid_line;	/* emits that did not end in '\n' */
	bool count_only;
	size_t total;
};

static void sink_emit(void *arg, int rank, int stream, const char *buf,
		      size_t len)
{
	struct sink *s = arg;

	ck_assert_int_eq(rank, 7);
	ck_assert_int_eq(stream, RC_IOF_OUT);
	s->total += len;
	s->calls++;
	if (len && buf[len - 1] != '\n')
		s->ends_mid_line++;
	if (s->count_only)
		return;
	ck_assert_uint_le(s->len + len, sizeof(s->buf));
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
}

static int pump(struct rc_iof_buf *b, int fd, struct sink *s)
{
	return rc_iof_pump(b, fd, 7, RC_IOF_OUT, sink_emit, s);
}

START_TEST(iof_only_whole_lines)
{
	struct rc_iof_buf b = { 0 };
	struct sink *s = calloc(1, sizeof(*s));
	int p[2];

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(write(p[1], "hel", 3), 3);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_int_eq(s->calls, 0);
	ck_assert_int_eq(pump(&b, p[0], s), 2);	/* nothing there */
	ck_assert_int_eq(write(p[1], "lo\nwor", 6), 6);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_int_eq(s->calls, 1);
	ck_assert_uint_eq(s->len, 6);
	ck_assert_mem_eq(s->buf, "hello\n", 6);
	ck_assert_int_eq(write(p[1], "ld\na\nb\nlast", 11), 11);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_uint_eq(s->len, 16);		/* "world\na\nb\n" in one go */
	ck_assert_int_eq(s->calls, 2);
	close(p[1]);
	ck_assert_int_eq(pump(&b, p[0], s), 0);	/* EOF */
	rc_iof_flush(&b, 7, RC_IOF_OUT, sink_emit, s);
	ck_assert_uint_eq(s->len, 20);
	ck_assert_mem_eq(s->buf, "hello\nworld\na\nb\nlast", 20);
	ck_assert_int_eq(s->ends_mid_line, 1);
	ck_assert_ptr_null(b.buf);
	close(p[0]);
	free(s);
}
END_TEST

START_TEST(iof_long_line_bounded)
{
	struct rc_iof_buf b = { 0 };
	struct sink *s = calloc(1, sizeof(*s));
	size_t chunk = 1 << 15, total = 0;
	char *junk = malloc(chunk);
	int p[2], rc;

	/* 2 MiB without a newline: handed on in pieces, never all held */
	memset(junk, 'x', chunk);
	s->count_only = true;
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	while (total < (2u << 20)) {
		ck_assert_int_eq(write(p[1], junk, chunk), (ssize_t)chunk);
		total += chunk;
		do {
			rc = pump(&b, p[0], s);
		} while (rc == 1);
		ck_assert_int_eq(rc, 2);
		ck_assert_uint_le(b.len, 1u << 20);
	}
	ck_assert_int_ge(s->calls, 1);
	ck_assert_int_ge(s->ends_mid_line, 1);
	rc_iof_flush(&b, 7, RC_IOF_OUT, sink_emit, s);
	ck_assert_uint_eq(s->total, total);	/* nothing lost */
	close(p[0]);
	close(p[1]);
	free(junk);
	free(s);
}
END_TEST

START_TEST(iof_tagged_lines)
{
	char out[256];
	ssize_t n;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 12, true, "a\nbc\nd", 6), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 3, false, "e\n", 2), 0);
	close(p[1]);
	n = read(p[0], out, sizeof(out));
	ck_assert_int_eq(n, 23);
	ck_assert_mem_eq(out, "[12] a\n[12] bc\n[12] de\n", 23);
	close(p[0]);
}
END_TEST

START_TEST(iof_many_tagged_lines)
{
	static char in[100 * 4], out[100 * 9 + 16];
	size_t off = 0;
	ssize_t n;
	int p[2], i;

	/* more lines than one writev batch */
	for (i = 0; i < 100; i++)
		memcpy(in + 4 * i, "abc\n", 4);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 5, true, in, sizeof(in)), 0);
	close(p[1]);
	while ((n = read(p[0], out + off, sizeof(out) - off)) > 0)
		off += (size_t)n;
	ck_assert_uint_eq(off, 100 * 8);
	for (i = 0; i < 100; i++)
		ck_assert_mem_eq(out + 8 * i, "[5] abc\n", 8);
	close(p[0]);
}
END_TEST

/* ---- suite ---------------------------------------------------------------- */

int main(void)
{
	Suite *s = suite_create("launcher");
	TCase *tc = tcase_create("fence");
	SRunner *sr;
	int nfail;

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, fence_one_node_completes_at_once);
	tcase_add_test(tc, fence_waits_for_every_node_and_concatenates);
	tcase_add_test(tc, fence_barrier_has_no_data);
	suite_add_tcase(s, tc);
	tc = tcase_create("iof");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, iof_only_whole_lines);
	tcase_add_test(tc, iof_long_line_bounded);
	tcase_add_test(tc, iof_tagged_lines);
	tcase_add_test(tc, iof_many_tagged_lines);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail ? 1 : 0;
}
