/*
 * rogue_daemon.c - connects to a running mpirun's daemon port the way an
 * intruder would, and checks that it is turned away.
 *
 *   rogue_daemon ADDR PORT MODE
 *
 * MODE:
 *   wrong-secret  a proper HELLO, then an AUTH computed with a secret of
 *                 its own: must be closed without a JOB
 *   skip-auth     HELLO, then a message of another type in place of AUTH
 *   garbage       64 random bytes
 *   bad-magic     a HELLO with the wrong magic number
 *
 * Exit 0 when mpirun closed the connection without sending a JOB (within
 * 15 s), 1 when it sent one (the intruder got in), 2 on usage or
 * connection errors. Prints one line saying what happened.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

/* after our last message: 0 closed, 1 JOB, 2 anything else / timeout */
static int outcome(struct rc_conn *c)
{
	struct rc_rbuf rb;
	uint32_t type;

	for (;;) {
		if (rc_conn_wait_msg(c, rc_now() + 15.0, &type, &rb) != 1)
			return errno == ECONNRESET ? 0 : 2;
		if (type == RC_M_JOB)
			return 1;
		if (type != RC_M_PING)
			return 2;
	}
}

static void hello(struct rc_conn *c, uint32_t magic)
{
	unsigned char nd[RC_NONCE_LEN];
	struct rc_wbuf w = { 0 };

	rc_random(nd, sizeof(nd));
	rc_wbuf_u32(&w, magic);
	rc_wbuf_u32(&w, RC_NET_VERSION);
	rc_wbuf_u32(&w, 1);
	rc_wbuf_raw(&w, nd, sizeof(nd));
	rc_wbuf_u32(&w, RC_AUTH_SECRET);
	rc_conn_send(c, RC_M_HELLO, &w);
	rc_wbuf_free(&w);
}

int main(int argc, char **argv)
{
	char why[512], secret[RC_SECRET_HEX + 1];
	unsigned char mac[RC_SHA256_LEN], junk[64];
	struct rc_wbuf w = { 0 };
	struct rc_conn c;
	struct rc_rbuf rb;
	const char *nh;
	uint32_t type;
	int fd, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: rogue_daemon ADDR PORT MODE\n");
		return 2;
	}
	rc_progname = "rogue_daemon";
	fd = rc_net_connect(argv[1], atoi(argv[2]), NULL, 5.0, why,
			    sizeof(why));
	if (fd < 0) {
		fprintf(stderr, "rogue_daemon: %s\n", why);
		return 2;
	}
	rc_conn_init(&c, fd);
	if (!strcmp(argv[3], "garbage")) {
		rc_random(junk, sizeof(junk));
		rc_conn_send(&c, RC_M_HELLO, NULL);
		if (write(fd, junk, sizeof(junk)) < 0)
			return 2;
	} else if (!strcmp(argv[3], "bad-magic")) {
		hello(&c, 0x12345678);
	} else if (!strcmp(argv[3], "wrong-secret") ||
		   !strcmp(argv[3], "skip-auth")) {
		hello(&c, RC_NET_MAGIC);
		if (rc_conn_wait_msg(&c, rc_now() + 15.0, &type, &rb) != 1 ||
		    type != RC_M_CHALLENGE) {
			printf("no challenge from mpirun\n");
			return 2;
		}
		nh = rc_rbuf_raw(&rb, RC_NONCE_LEN);
		if (!strcmp(argv[3], "wrong-secret")) {
			rc_secret_new(secret);
			rc_auth_mac(secret, "rcmpi-daemon",
				    (const unsigned char *)nh, junk, 1, mac);
			rc_wbuf_raw(&w, mac, sizeof(mac));
			rc_conn_send(&c, RC_M_AUTH, &w);
		} else {
			rc_wbuf_u32(&w, 0);
			rc_conn_send(&c, RC_M_STARTED, &w);
		}
		rc_wbuf_free(&w);
	} else {
		fprintf(stderr, "rogue_daemon: unknown mode '%s'\n", argv[3]);
		return 2;
	}
	rc = outcome(&c);
	printf("%s: %s\n", argv[3], rc == 0 ? "refused" : rc == 1 ?
	       "GOT A JOB" : "no clear answer");
	rc_conn_close(&c);
	return rc;
}
