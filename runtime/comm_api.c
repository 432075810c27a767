/*
 * comm_api.c - the local communicator functions: MPI_Comm_compare,
 * MPI_Comm_test_inter, MPI_Comm_set_name / MPI_Comm_get_name and
 * MPI_Comm_get_attr on the predefined attributes.
 *
 * rcmpi has no user attribute keys yet: MPI_Comm_get_attr answers the
 * predefined keys on every communicator (a dup of MPI_COMM_WORLD would
 * copy them anyway) and MPI_ERR_KEYVAL for anything else. Values are
 * process-wide ints, returned by address as the standard requires.
 * The collective constructors live in coll/comm_create.c.
 */
#include <stdio.h>
#include <string.h>
#include "api.h"
#include "comm.h"

#define RC_TAG_UB 0x7fffffff

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	static const char fn[] = "MPI_Comm_compare";
	int g;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm1) || !rc_comm_valid(comm2))
		return RC_ERR(NULL, MPI_ERR_COMM, fn);
	if (!result)
		return RC_ERR(comm1, MPI_ERR_ARG, fn);
	if (comm1 == comm2) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	if (rc_comm_is_inter(comm1) != rc_comm_is_inter(comm2)) {
		*result = MPI_UNEQUAL;
		return MPI_SUCCESS;
	}
	g = rc_group_compare(comm1->group, comm2->group);
	if (rc_comm_is_inter(comm1) && g != MPI_UNEQUAL) {
		/* intercommunicators: both groups, the weaker answer */
		int r = rc_group_compare(comm1->rgroup, comm2->rgroup);

		g = r > g ? r : g;
	}
	*result = g == MPI_IDENT ? MPI_CONGRUENT : g;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	RC_API_CHECK_INIT("MPI_Comm_test_inter");
	if (!rc_comm_valid(comm))
		return RC_ERR(NULL, MPI_ERR_COMM, "MPI_Comm_test_inter");
	if (!flag)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_test_inter");
	*flag = rc_comm_is_inter(comm);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_test_inter)

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
	RC_API_CHECK_INIT("MPI_Comm_set_name");
	if (!rc_comm_valid(comm))
		return RC_ERR(NULL, MPI_ERR_COMM, "MPI_Comm_set_name");
	if (!name)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_set_name");
	/* longer names are truncated, as the standard allows */
	snprintf(comm->name, sizeof(comm->name), "%s", name);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
	RC_API_CHECK_INIT("MPI_Comm_get_name");
	if (!rc_comm_valid(comm))
		return RC_ERR(NULL, MPI_ERR_COMM, "MPI_Comm_get_name");
	if (!name || !resultlen)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_get_name");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_get_name)

static int attr_tag_ub = RC_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;	/* every process can do I/O */
static int attr_wtime_is_global;	/* clocks are per node */
static int attr_universe_size;

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val,
		       int *flag)
{
	static const char fn[] = "MPI_Comm_get_attr";
	int *val;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return RC_ERR(NULL, MPI_ERR_COMM, fn);
	if (!attribute_val || !flag)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	switch (keyval) {
	case MPI_TAG_UB:
		val = &attr_tag_ub;
		break;
	case MPI_HOST:
		val = &attr_host;
		break;
	case MPI_IO:
		val = &attr_io;
		break;
	case MPI_WTIME_IS_GLOBAL:
		val = &attr_wtime_is_global;
		break;
	case MPI_UNIVERSE_SIZE:
		attr_universe_size = comm->inst->universe_size > 0
					     ? comm->inst->universe_size
					     : comm->inst->size;
		val = &attr_universe_size;
		break;
	case MPI_APPNUM:
		*flag = 0;	/* not set by our launchers */
		return MPI_SUCCESS;
	default:
		return RC_ERR_MSG(comm, MPI_ERR_KEYVAL, fn,
				  "not a predefined attribute key (rcmpi "
				  "has no user keys yet)");
	}
	memcpy(attribute_val, &val, sizeof(val));
	*flag = 1;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_get_attr)
