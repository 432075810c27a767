/*
 * osu_ineighbor_alltoallw.c - MPI_Ineighbor_alltoallw latency and overlap
 * in OSU's format, on the neighbourhood of -N (nbr_common.h).
 */
#include "nbr_common.h"

int main(int argc, char **argv)
{
	return nbr_main(argc, argv, NBR_ALLTOALLW, 1);
}
