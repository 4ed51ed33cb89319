#pragma once
// `tapas-worker info`: every rank reports where it runs; rank 0 prints the table (or JSON).
// The first thing to run on a new cluster: it shows the rank -> host mapping mpirun chose.
#include "runtime/mpi_context.h"

#include <nlohmann/json.hpp>

namespace tapas::runtime {

struct RankInfo {
    int rank = 0;
    std::string host;
    long pid = 0;
    int cpus = 0;           // CPUs this process may run on (affinity mask)
    int localRank = -1;     // OMPI_COMM_WORLD_LOCAL_RANK when launched by Open MPI
    double memoryGiB = 0;   // physical memory of the host
    std::string blas;       // the BLAS this rank's torch calls (runtime/blas_probe.h)
    std::string blasWarning; // non-empty when that BLAS is the slow reference one
};

RankInfo localRankInfo(int rank);
// Compute threads for one rank when the user names none: the CPUs this process may run on,
// shared with the other ranks of this host that may run on them too (Open MPI's local size).
// A rank pinned to one core gets 1; two unpinned ranks on 2 cores get 1 each instead of the
// library default of every core each, whose threads would preempt one another.
int defaultComputeThreads();
nlohmann::json rankInfoToJson(const RankInfo& r);
// Runs the sub-command; returns the process exit code.
int runInfo(const MpiContext& mpi, bool json);

} // namespace tapas::runtime
