#pragma once
// `tapas-worker calibrate`: measures what a cluster spec's numbers stand for on the ranks mpirun
// started, so the cost model predicts with measured figures instead of guessed ones:
//   - fp32 GEMM FLOP/s each rank achieves with libtorch at the matrix sizes training uses (all
//     ranks at once, as in a training step, so shared cores and memory bandwidth count);
//   - each op family's forward + backward through libtorch: overhead per node and FLOP or byte
//     rate (op_family_bench), which the cost model uses in place of peak x efficiency;
//   - MPI_Allreduce latency (small messages) and bus bandwidth (large messages, ring factor
//     2(n-1)/n), inside a node and, with several nodes, across them;
//   - what one all-reduce costs between torch ops, as in a training step, beyond the same
//     all-reduce back to back (op family "collective": the cost model adds it to every collective).
// Rank 0 writes a cluster spec JSON (resources/clusters schema) with the per-size table in an
// extra "calibration" object, which the spec parser ignores. Torch stays in the .cpp.
#include "core/util/result.h"
#include "runtime/mpi_context.h"

#include <string>
#include <vector>

namespace tapas::runtime {

struct GemmShape {
    int m = 0, k = 0, n = 0; // (m x k) * (k x n)
    std::string toString() const;
};

struct CalibrateOptions {
    std::vector<GemmShape> gemms;  // empty: the defaults (calibrateUsage() lists them)
    double gemmSeconds = 0.5;      // timed per size, after a warm-up
    double familySeconds = 0.3;    // timed per op-family case (op_family_bench), after a warm-up
    double collectiveSeconds = 1;  // all-reduces between torch ops (the per-collective cost in a step)
    int threads = 0;               // intra-op threads, 0: libtorch's default (as train-plan uses)
    long smallBytes = 8;           // latency message
    long largeBytes = 8L << 20;    // bandwidth message
    int smallReps = 200;
    int largeReps = 10;
    std::string name = "calibrated";
    std::string output;            // where rank 0 writes the spec; empty: stdout
};

// Parses argv[first..]; the error names the option.
Result<CalibrateOptions> parseCalibrateArgs(int argc, char** argv, int first);
const char* calibrateUsage();
// Runs the measurement on every rank; returns the process exit code.
int runCalibrate(const MpiContext& mpi, const CalibrateOptions& o);
// The whole sub-command from tapas-worker's argv (argv[1] == "calibrate"): options checked
// before MPI_Init so a bad launch fails fast on every rank, then runCalibrate.
int runCalibrateWorker(int argc, char** argv);

} // namespace tapas::runtime
