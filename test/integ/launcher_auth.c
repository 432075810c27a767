/*
 * launcher_auth.c - Check tests of the head-daemon handshake (remote.c
 * over auth.c): mpirun's half runs in the test process (rc_remote with
 * its listening socket, driven by poll), a daemon's half in a forked
 * child, over TCP on 127.0.0.1.
 *
 * The head's secret is what the launch agent receives on its stdin (the
 * agent is a script that saves it), the port is the one in the daemon's
 * command line. Cases: a genuine daemon gets in; a wrong secret is refused
 * on both sides; an AUTH recorded from one handshake and replayed on a
 * fresh one is refused; truncated HELLO, CHALLENGE and AUTH are refused;
 * a daemon of the other method is refused. With MUNGE (when munged
 * answers): a genuine daemon gets in and a replayed credential does not.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

#define TMO 30

static char dir[] = "/tmp/rcauth.XXXXXX";

struct head {
	struct rc_remote *r;
	char secret[RC_SECRET_HEX + 1];
	int port;
	int authed; /* daemons accepted */
	int node;
	struct rc_conn c;
};

static bool on_authed(void *arg, int node, struct rc_conn *c)
{
	struct head *h = arg;

	h->authed++;
	h->node = node;
	h->c = *c;
	/* tell the daemon at once that it was kept */
	rc_conn_send(&h->c, RC_M_PING, NULL);
	return true;
}

/* a head for 2 nodes; its secret through a launch agent that saves it */
static void head_new(struct head *h, int auth)
{
	char agent[300], file[300], *cmd, *p;
	struct rc_lproc lp;
	int ws;
	FILE *f;

	memset(h, 0, sizeof(*h));
	snprintf(file, sizeof(file), "%s/secret", dir);
	snprintf(agent, sizeof(agent), "%s/agent", dir);
	f = fopen(agent, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\ncat >'%s'\n", file);
	fclose(f);
	chmod(agent, 0755);
	unlink(file);
	h->r = rc_remote_new(agent, auth, NULL, 2, on_authed, h, false);
	ck_assert_ptr_nonnull(h->r);
	memset(&lp, 0, sizeof(lp));
	lp.fd_in = lp.fd_out = lp.fd_err = -1;
	ck_assert_int_eq(rc_remote_launch(h->r, 1, "n1", &lp), 0);
	ck_assert_int_eq(waitpid(lp.pid, &ws, 0), lp.pid);
	if (lp.fd_out >= 0)
		close(lp.fd_out);
	if (lp.fd_err >= 0)
		close(lp.fd_err);
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	if (!fgets(h->secret, sizeof(h->secret), f))
		h->secret[0] = 0;
	fclose(f);
	if (auth == RC_AUTH_SECRET)
		ck_assert_uint_eq(strlen(h->secret), RC_SECRET_HEX);
	else
		ck_assert_str_eq(h->secret, ""); /* none handed out */
	cmd = rc_remote_command(h->r, 1, "n1", false);
	p = strstr(cmd, "127.0.0.1");
	ck_assert_ptr_nonnull(p);
	p = strchr(p, ':');
	ck_assert_ptr_nonnull(p);
	h->port = atoi(p + 1);
	free(cmd);
}

static void head_free(struct head *h)
{
	if (h->authed)
		rc_conn_close(&h->c);
	rc_remote_free(h->r);
}

/* run the head until the child exits; its exit status */
static int head_until_exit(struct head *h, pid_t child)
{
	struct pollfd pfd[80];
	int n, ws;
	double until = rc_now() + 20;

	ck_assert_int_le(rc_remote_npollfd(), 80);
	while (rc_now() < until) {
		if (waitpid(child, &ws, WNOHANG) == child)
			return WIFEXITED(ws) ? WEXITSTATUS(ws) : 99;
		n = rc_remote_pollfds(h->r, pfd);
		poll(pfd, n, 50);
		rc_remote_handle(h->r, pfd);
		rc_remote_timers(h->r, rc_now());
	}
	kill(child, SIGKILL);
	waitpid(child, &ws, 0);
	return 98;
}

static int daemon_connect(int port)
{
	char why[256];
	int fd = rc_net_connect("127.0.0.1", port, NULL, 5.0, why, sizeof(why));

	if (fd < 0) {
		fprintf(stderr, "connect: %s\n", why);
		_exit(90);
	}
	return fd;
}

/* a hello as rcmpid sends it, nonce given; only the first `cut` bytes of
 * its payload when cut > 0 */
static void send_hello(struct rc_conn *c, const unsigned char *nd, int auth,
		       size_t cut)
{
	struct rc_wbuf w = {0};

	rc_wbuf_u32(&w, RC_NET_MAGIC);
	rc_wbuf_u32(&w, RC_NET_VERSION);
	rc_wbuf_u32(&w, 1);
	rc_wbuf_raw(&w, nd, RC_NONCE_LEN);
	rc_wbuf_u32(&w, (uint32_t)auth);
	if (cut)
		w.len = cut;
	rc_conn_send(c, RC_M_HELLO, &w);
	rc_wbuf_free(&w);
}

/* the head's challenge: nonce_h into nh; 0 or -1 */
static int get_challenge(struct rc_conn *c, unsigned char *nh)
{
	struct rc_rbuf rb;
	uint32_t type;
	const char *p;

	if (rc_conn_wait_msg(c, rc_now() + 10, &type, &rb) != 1 ||
	    type != RC_M_CHALLENGE)
		return -1;
	p = rc_rbuf_raw(&rb, RC_NONCE_LEN);
	if (!p)
		return -1;
	memcpy(nh, p, RC_NONCE_LEN);
	return 0;
}

/* after our AUTH: 0 the head closed on us, 1 it kept us (sent nothing
 * bad within 2 s: accepted) */
static int head_verdict(struct rc_conn *c)
{
	struct rc_rbuf rb;
	uint32_t type;

	if (rc_conn_wait_msg(c, rc_now() + 2, &type, &rb) == 1)
		return 1;
	return errno == ECONNRESET ? 0 : 1;
}

/* ---- capturing the head's warnings ---- */

static char errtext[8192];
static int saved2 = -1;
static FILE *errf;

static void err_begin(void)
{
	errf = tmpfile();
	fflush(stderr);
	saved2 = dup(2);
	dup2(fileno(errf), 2);
}

static const char *err_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(saved2, 2);
	close(saved2);
	rewind(errf);
	n = fread(errtext, 1, sizeof(errtext) - 1, errf);
	errtext[n] = 0;
	fclose(errf);
	return errtext;
}

/* ---- cases ---- */

START_TEST(genuine_daemon_gets_in)
{
	struct head h;
	pid_t pid;

	head_new(&h, RC_AUTH_SECRET);
	pid = fork();
	if (pid == 0) {
		struct rc_conn c;
		char why[256];

		rc_conn_init(&c, daemon_connect(h.port));
		if (rc_remote_auth_daemon(&c, RC_AUTH_SECRET, h.secret, 1,
					  rc_now() + 10, why, sizeof(why))) {
			fprintf(stderr, "daemon: %s\n", why);
			_exit(1);
		}
		_exit(head_verdict(&c) == 1 ? 0 : 2);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	ck_assert_int_eq(h.authed, 1);
	ck_assert_int_eq(h.node, 1);
	head_free(&h);
}
END_TEST

START_TEST(wrong_secret_refused_both_ways)
{
	const char *err;
	struct head h;
	pid_t pid;

	head_new(&h, RC_AUTH_SECRET);
	/* the daemon side: a head that does not know its secret */
	pid = fork();
	if (pid == 0) {
		char why[256], other[RC_SECRET_HEX + 1];
		struct rc_conn c;

		rc_secret_new(other);
		rc_conn_init(&c, daemon_connect(h.port));
		if (!rc_remote_auth_daemon(&c, RC_AUTH_SECRET, other, 1,
					   rc_now() + 10, why, sizeof(why)))
			_exit(1);
		_exit(strcmp(why, "the head does not know the job's secret")
			      ? 2
			      : 0);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	/* the head's side: an AUTH made with another secret */
	err_begin();
	pid = fork();
	if (pid == 0) {
		unsigned char nd[RC_NONCE_LEN], nh[RC_NONCE_LEN];
		unsigned char mac[RC_SHA256_LEN];
		char other[RC_SECRET_HEX + 1];
		struct rc_wbuf w = {0};
		struct rc_conn c;

		rc_secret_new(other);
		rc_random(nd, sizeof(nd));
		rc_conn_init(&c, daemon_connect(h.port));
		send_hello(&c, nd, RC_AUTH_SECRET, 0);
		if (get_challenge(&c, nh))
			_exit(3);
		rc_auth_mac(other, "rcmpi-daemon", nh, nd, 1, mac);
		rc_wbuf_raw(&w, mac, sizeof(mac));
		rc_conn_send(&c, RC_M_AUTH, &w);
		_exit(head_verdict(&c) == 0 ? 0 : 4);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	err = err_end();
	ck_assert_int_eq(h.authed, 0);
	ck_assert_msg(strstr(err, "refused a connection from 127.0.0.1:") &&
			      strstr(err, ": wrong job secret\n"),
		      "%s", err);
	head_free(&h);
}
END_TEST

/* an AUTH recorded from a good handshake, replayed on a new one (same
 * daemon nonce; the head's nonce is fresh): refused */
START_TEST(replayed_auth_refused)
{
	const char *err;
	struct head h;
	int pipefd[2];
	pid_t pid;

	head_new(&h, RC_AUTH_SECRET);
	ck_assert_int_eq(pipe(pipefd), 0);
	err_begin();
	pid = fork();
	if (pid == 0) {
		unsigned char nd[RC_NONCE_LEN], nh1[RC_NONCE_LEN];
		unsigned char nh2[RC_NONCE_LEN], mac[RC_SHA256_LEN];
		struct rc_wbuf w = {0};
		struct rc_conn c1, c2;

		rc_random(nd, sizeof(nd));
		/* the genuine exchange an eavesdropper records */
		rc_conn_init(&c1, daemon_connect(h.port));
		send_hello(&c1, nd, RC_AUTH_SECRET, 0);
		if (get_challenge(&c1, nh1))
			_exit(3);
		rc_auth_mac(h.secret, "rcmpi-daemon", nh1, nd, 1, mac);
		rc_wbuf_raw(&w, mac, sizeof(mac));
		rc_conn_send(&c1, RC_M_AUTH, &w);
		if (head_verdict(&c1) != 1)
			_exit(4);
		/* the replay */
		rc_conn_init(&c2, daemon_connect(h.port));
		send_hello(&c2, nd, RC_AUTH_SECRET, 0);
		if (get_challenge(&c2, nh2))
			_exit(5);
		if (!memcmp(nh1, nh2, RC_NONCE_LEN))
			_exit(6); /* the head's nonce must be fresh */
		rc_conn_send(&c2, RC_M_AUTH, &w);
		_exit(head_verdict(&c2) == 0 ? 0 : 7);
	}
	close(pipefd[0]);
	close(pipefd[1]);
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	err = err_end();
	ck_assert_int_eq(h.authed, 1); /* the genuine one only */
	ck_assert_msg(strstr(err, ": wrong job secret\n"), "%s", err);
	head_free(&h);
}
END_TEST

/* a HELLO cut short, an AUTH cut short: refused, nobody gets in */
START_TEST(truncated_messages_refused)
{
	const char *err;
	struct head h;
	pid_t pid;

	head_new(&h, RC_AUTH_SECRET);
	err_begin();
	pid = fork();
	if (pid == 0) {
		unsigned char nd[RC_NONCE_LEN], nh[RC_NONCE_LEN];
		unsigned char mac[RC_SHA256_LEN];
		struct rc_wbuf w = {0};
		struct rc_conn c1, c2;

		rc_random(nd, sizeof(nd));
		rc_conn_init(&c1, daemon_connect(h.port));
		send_hello(&c1, nd, RC_AUTH_SECRET, 20); /* into the nonce */
		if (head_verdict(&c1) != 0)
			_exit(3);
		rc_conn_init(&c2, daemon_connect(h.port));
		send_hello(&c2, nd, RC_AUTH_SECRET, 0);
		if (get_challenge(&c2, nh))
			_exit(4);
		rc_auth_mac(h.secret, "rcmpi-daemon", nh, nd, 1, mac);
		rc_wbuf_raw(&w, mac, RC_SHA256_LEN / 2); /* half the MAC */
		rc_conn_send(&c2, RC_M_AUTH, &w);
		_exit(head_verdict(&c2) == 0 ? 0 : 5);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	err = err_end();
	ck_assert_int_eq(h.authed, 0);
	ck_assert_msg(strstr(err, ": not an rcmpid hello\n"), "%s", err);
	ck_assert_msg(strstr(err, ": wrong job secret\n"), "%s", err);
	head_free(&h);
}
END_TEST

/* the daemon's half against a head whose challenge is cut short */
START_TEST(truncated_challenge_refused_by_daemon)
{
	struct rc_conn head, dmn;
	struct rc_wbuf w = {0};
	struct rc_rbuf rb;
	unsigned char nh[RC_NONCE_LEN];
	char secret[RC_SECRET_HEX + 1], why[256];
	uint32_t type;
	int sv[2];
	pid_t pid;
	int ws;

	ck_assert_int_eq(rc_secret_new(secret), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		rc_conn_init(&dmn, sv[1]);
		if (!rc_remote_auth_daemon(&dmn, RC_AUTH_SECRET, secret, 1,
					   rc_now() + 10, why, sizeof(why)))
			_exit(1);
		_exit(strcmp(why, "the head does not know the job's secret")
			      ? 2
			      : 0);
	}
	close(sv[1]);
	rc_conn_init(&head, sv[0]);
	ck_assert_int_eq(rc_conn_wait_msg(&head, rc_now() + 10, &type, &rb), 1);
	ck_assert_int_eq(type, RC_M_HELLO);
	rc_random(nh, sizeof(nh));
	rc_wbuf_raw(&w, nh, sizeof(nh));
	rc_wbuf_raw(&w, "short", 5); /* no whole MAC */
	ck_assert_int_eq(rc_conn_send(&head, RC_M_CHALLENGE, &w), 0);
	rc_wbuf_free(&w);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	ck_assert_int_eq(WEXITSTATUS(ws), 0);
	rc_conn_close(&head);
}
END_TEST

/* a daemon started for the other method is told so */
START_TEST(other_method_refused)
{
	const char *err;
	struct head h;
	pid_t pid;

	head_new(&h, RC_AUTH_SECRET);
	err_begin();
	pid = fork();
	if (pid == 0) {
		unsigned char nd[RC_NONCE_LEN];
		struct rc_conn c;

		rc_random(nd, sizeof(nd));
		rc_conn_init(&c, daemon_connect(h.port));
		send_hello(&c, nd, RC_AUTH_MUNGE, 0);
		_exit(head_verdict(&c) == 0 ? 0 : 3);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	err = err_end();
	ck_assert_msg(strstr(err, ": the daemon authenticates with munge, "
				  "this job with secret\n"),
		      "%s", err);
	head_free(&h);
}
END_TEST

#ifdef HAVE_MUNGE
/* MUNGE: a genuine daemon gets in; its AUTH credential replayed on a new
 * handshake does not (munged refuses a credential twice, and it was for
 * other nonces) */
START_TEST(munge_genuine_and_replay)
{
	const char *err;
	struct head h;
	pid_t pid;

	head_new(&h, RC_AUTH_MUNGE);
	pid = fork();
	if (pid == 0) {
		struct rc_conn c;
		char why[256];

		rc_conn_init(&c, daemon_connect(h.port));
		if (rc_remote_auth_daemon(&c, RC_AUTH_MUNGE, NULL, 1,
					  rc_now() + 10, why, sizeof(why))) {
			fprintf(stderr, "daemon: %s\n", why);
			_exit(1);
		}
		_exit(head_verdict(&c) == 1 ? 0 : 2);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	ck_assert_int_eq(h.authed, 1);
	err_begin();
	pid = fork();
	if (pid == 0) {
		unsigned char nd[RC_NONCE_LEN], nh[RC_NONCE_LEN];
		struct rc_wbuf w = {0};
		struct rc_conn c1, c2;
		char why[256];

		rc_random(nd, sizeof(nd));
		rc_conn_init(&c1, daemon_connect(h.port));
		send_hello(&c1, nd, RC_AUTH_MUNGE, 0);
		if (get_challenge(&c1, nh))
			_exit(3);
		if (rc_auth_prove(RC_AUTH_MUNGE, NULL, "rcmpi-daemon", nh, nd,
				  1, &w, why, sizeof(why)))
			_exit(4);
		/* not sent on c1: replayed on a fresh handshake */
		rc_conn_init(&c2, daemon_connect(h.port));
		send_hello(&c2, nd, RC_AUTH_MUNGE, 0);
		if (get_challenge(&c2, nh))
			_exit(5);
		rc_conn_send(&c2, RC_M_AUTH, &w);
		_exit(head_verdict(&c2) == 0 ? 0 : 6);
	}
	ck_assert_int_eq(head_until_exit(&h, pid), 0);
	err = err_end();
	ck_assert_int_eq(h.authed, 1);
	ck_assert_msg(strstr(err, ": MUNGE credential for another handshake"),
		      "%s", err);
	head_free(&h);
}
END_TEST

/* munged answers here? */
static bool munge_up(void)
{
	unsigned char n[RC_NONCE_LEN] = {0};
	struct rc_wbuf w = {0};
	char why[256];
	bool ok = !rc_auth_prove(RC_AUTH_MUNGE, NULL, "x", n, n, 0, &w, why,
				 sizeof(why));

	rc_wbuf_free(&w);
	if (!ok)
		printf("# MUNGE cases left out: %s\n", why);
	return ok;
}
#endif

int main(void)
{
	Suite *s = suite_create("launcher_auth");
	TCase *tc = tcase_create("handshake");
	SRunner *sr;
	int nfail;
	char cmd[300];

	rc_progname = "launcher_auth";
	if (!mkdtemp(dir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, genuine_daemon_gets_in);
	tcase_add_test(tc, wrong_secret_refused_both_ways);
	tcase_add_test(tc, replayed_auth_refused);
	tcase_add_test(tc, truncated_messages_refused);
	tcase_add_test(tc, truncated_challenge_refused_by_daemon);
	tcase_add_test(tc, other_method_refused);
#ifdef HAVE_MUNGE
	if (munge_up())
		tcase_add_test(tc, munge_genuine_and_replay);
#else
	printf("# MUNGE cases left out: built without MUNGE\n");
#endif
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		nfail++;
	return nfail ? 1 : 0;
}
