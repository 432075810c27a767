/*
 * osu_ineighbor_allgatherv.c - MPI_Ineighbor_allgatherv latency and overlap
 * in OSU's format, on the neighbourhood of -N (nbr_common.h).
 */
#include "nbr_common.h"

int main(int argc, char **argv)
{
	return nbr_main(argc, argv, NBR_ALLGATHERV, 1);
}
