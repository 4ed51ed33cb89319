#pragma once
// `tapas-worker comm-check`: a self-check of a Communicator backend on the machine at hand.
//
//   mpirun -np N tapas-worker comm-check [--backend mpi|nccl] [--count N] [--max-count M] [--iters K]
//
// Runs every collective of runtime/comm/communicator.h on deterministic per-rank data (values
// whose float sums are exact, so any reduction order gives the same bits), compares each rank's
// result with the one computed on the host and, for nccl, also with the MPI communicator's result
// on the same data; then times all-reduce, all-gather, reduce-scatter, all-to-all and broadcast at
// a few sizes and prints a table with algorithm and bus bandwidth (as nccl-tests defines them).
// Exit codes: 0 all correct, 1 a collective gave a wrong element (each failing rank names the
// collective and its first wrong element) or a CUDA/NCCL/MPI error, 2 bad arguments or a
// backend this build lacks. The nccl backend picks GPU (local rank mod device count).
// Test hook: env TAPAS_TEST_CORRUPT_COMM_CHECK=<collective> adds 1 to element 5 of that
// collective's result on the last rank, which must make the check fail and name that element.

namespace tapas::runtime {

const char* commCheckUsage();
// argv[1] is "comm-check"; its options start at argv[2]. Initialises MPI itself.
int runCommCheck(int argc, char** argv);

} // namespace tapas::runtime
