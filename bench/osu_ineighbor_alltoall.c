/*
 * osu_ineighbor_alltoall.c - MPI_Ineighbor_alltoall latency and overlap
 * in OSU's format, on the neighbourhood of -N (nbr_common.h).
 */
#include "nbr_common.h"

int main(int argc, char **argv)
{
	return nbr_main(argc, argv, NBR_ALLTOALL, 1);
}
