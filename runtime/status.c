/*
 * status.c - internal status codes: texts and MPI error classes, from the
 * one table in status.h.
 */
#include <stdbool.h>
#include "status.h"

static const struct {
	int cls;
	bool more;
	const char *str;
} rc_status_tab[] = {
#define RC_X_TAB(name, c, m, s) [name] = {c, m, s},
	RC_STATUS_TABLE(RC_X_TAB)
#undef RC_X_TAB
};

int rc_status_to_mpi(int status)
{
	if (status < 0 || status >= RC_STATUS_COUNT)
		return MPI_ERR_INTERN;
	return rc_status_tab[status].cls;
}

const char *rc_status_str(int status)
{
	if (status < 0 || status >= RC_STATUS_COUNT)
		return "unknown status";
	return rc_status_tab[status].str;
}

const char *rc_status_detail(int status)
{
	if (status < 0 || status >= RC_STATUS_COUNT)
		return "unknown status";
	return rc_status_tab[status].more ? rc_status_tab[status].str : NULL;
}
