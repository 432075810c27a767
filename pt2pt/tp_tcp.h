/* tp_tcp.h - what the TCP transport offers besides its ops table. */
#ifndef RC_TP_TCP_H
#define RC_TP_TCP_H

#include <netinet/in.h>
#include <stddef.h>

/*
 * The IPv4 address the transport listens on: want (RCMPI_TCP_IF) is an
 * interface name, an address or a subnet (a.b.c.d/n); NULL or "" picks the
 * first interface that is up and not loopback, else loopback. Writes the
 * address and its interface's name. RC_ERR_NODEV: nothing matches.
 */
int rc_tcp_pick_addr(const char *want, struct in_addr *out, char *ifname,
		     size_t iflen);

#endif
