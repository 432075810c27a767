/*
 * auth.c - how mpirun and its daemons prove to each other that they belong
 * to the same job. The cryptography is OpenSSL's libcrypto (HMAC-SHA-256,
 * CRYPTO_memcmp, RAND_bytes) or MUNGE's; nothing here is hand-written.
 *
 * Both methods answer the same question in the handshake (remote.c):
 * "prove you are ROLE ("rcmpi-head" or "rcmpi-daemon") in the exchange
 * whose fresh nonces are n1, n2, for node I". The proof covers
 *
 *     ROLE '\0' n1 n2 I (4 bytes, network order)
 *
 *   secret  HMAC-SHA-256 of that under the job's secret: 32 random bytes
 *           (RAND_bytes) as 64 hex digits, which mpirun hands each daemon
 *           on the launch agent's stdin (ssh forwards it; under Slurm srun
 *           broadcasts it with --input=all), never in argv or the
 *           environment. The secret itself never crosses the TCP
 *           connection. Protects against anyone who can reach mpirun's
 *           port but not read the launch channel: other users, other
 *           hosts, and replay of a recorded handshake (fresh nonces).
 *   munge   a MUNGE credential (munge_encode) whose payload is that
 *           string: munged signs it with the cluster's key and binds it
 *           to our uid; the other side decodes it (munge_decode), checks
 *           the uid is its own and the payload is this exchange's. No
 *           job secret exists, so nothing can leak from the launch
 *           channel (srun's stdin crosses the network unencrypted); a
 *           credential decoded once is refused again by munged (replay),
 *           and it expires after its TTL. Protects against every user
 *           but root and munged's key holders.
 *
 * Tests: launcher_unit (the HMAC against RFC 4231, the proofs, and both
 * halves of the handshake with a wrong secret, a replayed AUTH and
 * truncated messages), multinode.test (intruders, a daemon with another
 * secret, MUNGE where munged runs).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#ifdef HAVE_MUNGE
#include <munge.h>
#endif

#include "launcher.h"

int rc_auth_parse(const char *s)
{
	if (!strcmp(s, "secret"))
		return RC_AUTH_SECRET;
	if (!strcmp(s, "munge"))
		return RC_AUTH_MUNGE;
	return -1;
}

const char *rc_auth_name(int kind)
{
	return kind == RC_AUTH_MUNGE ? "munge" : "secret";
}

bool rc_auth_available(int kind, char *why, size_t whylen)
{
#ifndef HAVE_MUNGE
	if (kind == RC_AUTH_MUNGE) {
		snprintf(why, whylen,
			 "this rcmpi was built without MUNGE "
			 "(install libmunge-dev and run configure again)");
		return false;
	}
#endif
	return true;
}

void rc_hmac_sha256(const void *key, size_t keylen, const void *data,
		    size_t len, unsigned char out[RC_SHA256_LEN])
{
	unsigned int outlen = RC_SHA256_LEN;

	if (!HMAC(EVP_sha256(), key, (int)keylen, data, len, out, &outlen))
		memset(out, 0, RC_SHA256_LEN); /* matches nothing real */
}

bool rc_ct_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

int rc_random(void *buf, size_t len)
{
	if (RAND_bytes(buf, (int)len) != 1) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int rc_secret_new(char hex[RC_SECRET_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char raw[RC_SECRET_HEX / 2];
	size_t i;

	if (rc_random(raw, sizeof(raw)))
		return -1;
	for (i = 0; i < sizeof(raw); i++) {
		hex[2 * i] = digits[raw[i] >> 4];
		hex[2 * i + 1] = digits[raw[i] & 15];
	}
	hex[RC_SECRET_HEX] = 0;
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

/* ROLE '\0' n1 n2 node: what both methods prove; returns its length */
static size_t auth_payload(const char *role, const unsigned char *n1,
			   const unsigned char *n2, uint32_t node,
			   unsigned char *buf)
{
	size_t rl = strlen(role) + 1, off = 0;
	uint32_t be = htonl(node);

	memcpy(buf, role, rl);
	off += rl;
	memcpy(buf + off, n1, RC_NONCE_LEN);
	off += RC_NONCE_LEN;
	memcpy(buf + off, n2, RC_NONCE_LEN);
	off += RC_NONCE_LEN;
	memcpy(buf + off, &be, 4);
	return off + 4;
}

#define AUTH_PAYLOAD_MAX (32 + 2 * RC_NONCE_LEN + 4)

void rc_auth_mac(const char *secret, const char *role, const unsigned char *n1,
		 const unsigned char *n2, uint32_t node,
		 unsigned char out[RC_SHA256_LEN])
{
	unsigned char buf[AUTH_PAYLOAD_MAX];
	size_t len = auth_payload(role, n1, n2, node, buf);

	rc_hmac_sha256(secret, strlen(secret), buf, len, out);
}

int rc_auth_prove(int kind, const char *secret, const char *role,
		  const unsigned char *n1, const unsigned char *n2,
		  uint32_t node, struct rc_wbuf *w, char *why, size_t whylen)
{
	unsigned char mac[RC_SHA256_LEN];

	if (kind == RC_AUTH_SECRET) {
		rc_auth_mac(secret, role, n1, n2, node, mac);
		rc_wbuf_raw(w, mac, sizeof(mac));
		OPENSSL_cleanse(mac, sizeof(mac));
		return 0;
	}
#ifdef HAVE_MUNGE
	{
		unsigned char buf[AUTH_PAYLOAD_MAX];
		size_t len = auth_payload(role, n1, n2, node, buf);
		munge_err_t err;
		char *cred = NULL;

		err = munge_encode(&cred, NULL, buf, (int)len);
		if (err != EMUNGE_SUCCESS) {
			snprintf(why, whylen, "munge_encode: %s%s",
				 munge_strerror(err),
				 err == EMUNGE_SOCKET ? " (is munged running? "
							"systemctl start munge)"
						      : "");
			free(cred);
			return -1;
		}
		rc_wbuf_str(w, cred);
		free(cred);
		return 0;
	}
#else
	snprintf(why, whylen, "built without MUNGE");
	return -1;
#endif
}

int rc_auth_check(int kind, const char *secret, const char *role,
		  const unsigned char *n1, const unsigned char *n2,
		  uint32_t node, struct rc_rbuf *rb, char *why, size_t whylen)
{
	unsigned char mac[RC_SHA256_LEN];
	const char *got;
	bool ok;

	if (kind == RC_AUTH_SECRET) {
		got = rc_rbuf_raw(rb, RC_SHA256_LEN);
		rc_auth_mac(secret, role, n1, n2, node, mac);
		ok = got && rc_ct_equal(got, mac, sizeof(mac));
		OPENSSL_cleanse(mac, sizeof(mac));
		if (!ok)
			snprintf(why, whylen, "wrong job secret");
		return ok ? 0 : -1;
	}
#ifdef HAVE_MUNGE
	{
		unsigned char want[AUTH_PAYLOAD_MAX];
		size_t wlen = auth_payload(role, n1, n2, node, want);
		char *cred = rc_rbuf_strdup(rb);
		void *payload = NULL;
		munge_err_t err;
		uid_t uid;
		gid_t gid;
		int plen = 0;

		if (!cred) {
			snprintf(why, whylen, "no MUNGE credential");
			return -1;
		}
		err = munge_decode(cred, NULL, &payload, &plen, &uid, &gid);
		free(cred);
		if (err != EMUNGE_SUCCESS) {
			snprintf(why, whylen, "MUNGE credential refused: %s%s",
				 munge_strerror(err),
				 err == EMUNGE_SOCKET ? " (is munged running?)"
						      : "");
			free(payload);
			return -1;
		}
		ok = uid == geteuid() && (size_t)plen == wlen &&
		     !memcmp(payload, want, wlen);
		if (uid != geteuid())
			snprintf(why, whylen,
				 "MUNGE credential of uid %u, not "
				 "ours (%u)",
				 (unsigned)uid, (unsigned)geteuid());
		else if (!ok)
			snprintf(why, whylen,
				 "MUNGE credential for another "
				 "handshake");
		free(payload);
		return ok ? 0 : -1;
	}
#else
	snprintf(why, whylen, "built without MUNGE");
	return -1;
#endif
}
