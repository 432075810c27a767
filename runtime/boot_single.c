/*
 * boot_single.c - bootstrap for a program started without a launcher
 * (`./a.out`): a singleton job of size 1, as with other MPIs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "boot.h"
#include "status.h"

static int boot_single_init(struct rc_boot *b, struct rc_boot_info *info)
{
	info->local_peers = calloc(1, sizeof(int));
	if (!info->local_peers)
		return RC_ERR_NOMEM;
	info->rank = 0;
	info->size = 1;
	info->universe_size = 1;
	info->local_rank = 0;
	info->local_size = 1;
	info->singleton = true;
	snprintf(info->nspace, sizeof(info->nspace), "singleton.%d", (int)getpid());
	return RC_OK;
}

static int boot_single_put(struct rc_boot *b, const void *blob, size_t len)
{
	return RC_OK;
}

static int boot_single_fence(struct rc_boot *b, bool collect)
{
	return RC_OK;
}

static int boot_single_get(struct rc_boot *b, int rank, void **blob,
			   size_t *len)
{
	return RC_ERR_INVAL;	/* there are no peers */
}

static void boot_single_abort(struct rc_boot *b, int code, const char *msg)
{
	_exit(code ? code : 1);
}

static void boot_single_fini(struct rc_boot *b)
{
}

const struct rc_boot_ops rc_boot_single_ops = {
	.name = "singleton",
	.init = boot_single_init,
	.put = boot_single_put,
	.fence = boot_single_fence,
	.get = boot_single_get,
	.abort = boot_single_abort,
	.fini = boot_single_fini,
};
