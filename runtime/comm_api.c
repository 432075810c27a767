/*
 * comm_api.c - the local communicator functions: MPI_Comm_compare,
 * MPI_Comm_test_inter, MPI_Comm_set_name / MPI_Comm_get_name, and the
 * values of the predefined attributes.
 *
 * The predefined attributes are answered on every communicator (a dup of
 * MPI_COMM_WORLD would copy them anyway); their values are process-wide
 * ints, returned by address as the standard requires. Attribute caching
 * is in attr.c / attr_api.c, the collective constructors in
 * coll/comm_create.c.
 */
#include <stdio.h>
#include <string.h>
#include "api.h"
#include "comm.h"
#include "thread.h"

#define RC_TAG_UB 0x7fffffff

static int api_comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	static const char fn[] = "MPI_Comm_compare";
	int g;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm1))
		return rc_err_handle(NULL, RC_HK_COMM, comm1, fn);
	if (!rc_comm_valid(comm2))
		return rc_err_handle(NULL, RC_HK_COMM, comm2, fn);
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

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_compare(comm1, comm2, result));
}
RC_WEAK(MPI_Comm_compare)

static int api_comm_test_inter(MPI_Comm comm, int *flag)
{
	RC_API_CHECK_INIT("MPI_Comm_test_inter");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm,
				     "MPI_Comm_test_inter");
	if (!flag)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_test_inter");
	*flag = rc_comm_is_inter(comm);
	return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	return RC_CS_OUTSIDE(api_comm_test_inter(comm, flag));
}
RC_WEAK(MPI_Comm_test_inter)

static int api_comm_set_name(MPI_Comm comm, const char *name)
{
	RC_API_CHECK_INIT("MPI_Comm_set_name");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm,
				     "MPI_Comm_set_name");
	if (!name)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_set_name");
	/* longer names are truncated, as the standard allows */
	snprintf(comm->name, sizeof(comm->name), "%s", name);
	return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_set_name(comm, name));
}
RC_WEAK(MPI_Comm_set_name)

static int api_comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
	RC_API_CHECK_INIT("MPI_Comm_get_name");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm,
				     "MPI_Comm_get_name");
	if (!name || !resultlen)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_get_name");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_get_name(comm, name, resultlen));
}
RC_WEAK(MPI_Comm_get_name)

static int attr_tag_ub = RC_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;	/* every process can do I/O */
static int attr_wtime_is_global;	/* clocks are per node */
static int attr_universe_size;
static int attr_lastusedcode;

int *rc_comm_predef_attr(const struct rc_comm *comm, int keyval)
{
	switch (keyval) {
	case MPI_TAG_UB:
		return &attr_tag_ub;
	case MPI_HOST:
		return &attr_host;
	case MPI_IO:
		return &attr_io;
	case MPI_WTIME_IS_GLOBAL:
		return &attr_wtime_is_global;
	case MPI_UNIVERSE_SIZE:
		attr_universe_size = comm->inst->universe_size > 0
					     ? comm->inst->universe_size
					     : comm->inst->size;
		return &attr_universe_size;
	case MPI_LASTUSEDCODE:
		attr_lastusedcode = rc_err_lastused();
		return &attr_lastusedcode;
	default:
		return NULL; /* MPI_APPNUM: not set by our launchers */
	}
}
