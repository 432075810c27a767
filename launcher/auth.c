/*
 * auth.c - the per-job secret that authenticates mpirun and its daemons to
 * each other: SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), a
 * constant-time comparison, the secret itself.
 *
 * The secret is 32 bytes from getrandom(), written as 64 hex digits. mpirun
 * hands it to each daemon on the launch agent's stdin (ssh forwards it to
 * the remote command's stdin), never in argv or the environment, where
 * other users could read it (ps, /proc/PID/environ of a setuid-less
 * process is private, but argv is not). The secret itself never crosses
 * the TCP connection: both sides prove they know it with HMACs over fresh
 * nonces (see net.c for the handshake).
 *
 * Small on purpose (no libcrypto dependency for one hash); checked against
 * the FIPS and RFC 4231 vectors in test/integ/launcher_unit.c.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "launcher.h"

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(struct rc_sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			(w[i - 2] >> 10)) + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
			(w[i - 15] >> 3)) + w[i - 16];
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

void rc_sha256_init(struct rc_sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->nbuf = 0;
}

void rc_sha256_update(struct rc_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t take;

	s->len += len;
	while (len) {
		take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		len -= take;
		if (s->nbuf == 64) {
			sha_block(s, s->buf);
			s->nbuf = 0;
		}
	}
}

void rc_sha256_final(struct rc_sha256 *s, unsigned char out[RC_SHA256_LEN])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, lenb[8];
	int i;

	rc_sha256_update(s, &pad, 1);
	while (s->nbuf != 56)
		rc_sha256_update(s, &zero, 1);
	for (i = 0; i < 8; i++)
		lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
	rc_sha256_update(s, lenb, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void rc_hmac_init(struct rc_hmac *m, const void *key, size_t keylen)
{
	unsigned char k[64], pad[64];
	int i;

	memset(k, 0, sizeof(k));
	if (keylen > 64) {
		rc_sha256_init(&m->inner);
		rc_sha256_update(&m->inner, key, keylen);
		rc_sha256_final(&m->inner, k);
	} else {
		memcpy(k, key, keylen);
	}
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	rc_sha256_init(&m->inner);
	rc_sha256_update(&m->inner, pad, 64);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	rc_sha256_init(&m->outer);
	rc_sha256_update(&m->outer, pad, 64);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

void rc_hmac_update(struct rc_hmac *m, const void *data, size_t len)
{
	rc_sha256_update(&m->inner, data, len);
}

void rc_hmac_final(struct rc_hmac *m, unsigned char out[RC_SHA256_LEN])
{
	unsigned char ih[RC_SHA256_LEN];

	rc_sha256_final(&m->inner, ih);
	rc_sha256_update(&m->outer, ih, sizeof(ih));
	rc_sha256_final(&m->outer, out);
}

bool rc_ct_equal(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

int rc_random(void *buf, size_t len)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
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
	memset(raw, 0, sizeof(raw));
	return 0;
}
