/*
 * boot.h - bootstrap: who am I, who are my peers, and the exchange of
 * endpoint addresses (the modex). PMIx when a PMIx server is present
 * (mpirun, rcmpid, Slurm, PRRTE), a singleton of size 1 otherwise.
 */
#ifndef RC_BOOT_H
#define RC_BOOT_H

#include <stdbool.h>
#include <stddef.h>

struct rc_boot;

struct rc_boot_info {
	int rank, size;
	int local_rank, local_size;
	int *local_peers;	/* world ranks on this node, malloc'd */
	int universe_size;
	char nspace[256];
	bool singleton;
};

struct rc_boot_ops {
	const char *name;
	/* Connect; fill info. RC_ERR_UNREACH: no server (run as singleton). */
	int (*init)(struct rc_boot *b, struct rc_boot_info *info);
	/* Publish this process's blob (once), visible after fence(true). */
	int (*put)(struct rc_boot *b, const void *blob, size_t len);
	/* All processes of the job; collect: exchange the published blobs. */
	int (*fence)(struct rc_boot *b, bool collect);
	/* The same without collecting, started now: *done becomes 1 when
	 * every process has entered it, -1 when it failed (set from another
	 * thread: read it atomically). NULL: not offered. */
	int (*fence_start)(struct rc_boot *b, int *done);
	/* Peer's blob (malloc'd into *blob). */
	int (*get)(struct rc_boot *b, int rank, void **blob, size_t *len);
	/* End the whole job with `code`; does not return. */
	void (*abort)(struct rc_boot *b, int code, const char *msg);
	void (*fini)(struct rc_boot *b);
};

struct rc_boot {
	const struct rc_boot_ops *ops;
	void *priv;
};

extern const struct rc_boot_ops rc_boot_pmix_ops;
extern const struct rc_boot_ops rc_boot_single_ops;

#endif
