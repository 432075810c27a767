/*
 * env.c - environment inquiry: clocks, processor name, versions, and this
 * process's command line (env.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "api.h"
#include "env.h"

char *rc_proc_cmdline(size_t *len)
{
	size_t cap = 4096;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd;

	*len = 0;
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	do {
		if (!buf || *len + 1 >= cap) {
			nb = realloc(buf, buf ? cap *= 2 : cap);
			if (!nb)
				goto err;
			buf = nb;
		}
		r = read(fd, buf + *len, cap - *len - 1);
		if (r < 0)
			goto err;
		*len += (size_t)r;
	} while (r > 0);
	close(fd);
	buf[*len] = 0;
	return buf;

err:
	close(fd);
	free(buf);
	*len = 0;
	return NULL;
}

/* Wtime, Wtick, the versions and the processor name (set once by
 * MPI_Init) read no state that changes after MPI_Init: outside the critical
 * section (runtime/thread.h). */
double PMPI_Wtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
RC_WEAK(MPI_Wtime)

double PMPI_Wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
RC_WEAK(MPI_Wtick)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
	RC_API_CHECK_INIT("MPI_Get_processor_name");
	if (!name || !resultlen)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Get_processor_name");
	snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", rc_g.host);
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
	if (!version || !subversion)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Get_version");
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
	if (!version || !resultlen)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Get_library_version");
	snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
		 "rcmpi %s (MPI %d.%d subset; transports: self, shm, verbs)",
		 RCMPI_VERSION, MPI_VERSION, MPI_SUBVERSION);
	*resultlen = (int)strlen(version);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Get_library_version)
