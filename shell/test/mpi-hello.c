/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* An MPI hello world that proves its ranks are one job: every rank adds
 * 1 in an MPI_Allreduce, so N singletons would each say "1 answered".
 * With the argument "abort", rank 1 calls MPI_Abort with exit code 5.
 * Built by t/t0045-pmi-mpich.t with MPICH's mpicc, run by pmi-run. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main (int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;

    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp (argv[1], "abort") && rank == 1)
        MPI_Abort (MPI_COMM_WORLD, 5);
    MPI_Allreduce (&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf ("hello from rank %d of %d (%d answered)\n", rank, size, sum);
    MPI_Finalize ();
    return 0;
}
