#pragma once
// `tapas-worker train-plan`: executes a sharded plan on the MPI ranks (DESIGN.md, Runtime).
//
//   mpirun -np N tapas-worker train-plan --model M.onnx --plan P.tapas.json --run-dir D
//          --steps N [--checkpoint-every K] [--resume] [--dim k=v ...] [--seed S] [--lr X]
//          [--metrics-port P (token in TAPAS_METRICS_TOKEN)] [--tolerance E] [--skip-numerics]
//
// Exit codes: 0 finished or stopped by SIGTERM or SIGUSR1 (after the current step; mpirun
// forwards SIGUSR1 to every rank), 1 failed (bad model,
// plan, mesh/world mismatch, checkpoint, a step's error), 2 bad arguments, 3 numerics mismatch.
// Test hook: env TAPAS_TEST_CORRUPT_COLLECTIVE=1 skips the backward all-reduce of every
// Megatron "f", which must make the numerics check fail.
#include "core/ir/shape.h"
#include "core/util/result.h"
#include "runtime/mpi_context.h"

#include <string>

namespace tapas::runtime {

struct TrainPlanOptions {
    std::string model, plan, runDir;
    int64_t steps = 10;
    int64_t checkpointEvery = 0;
    bool resume = false;
    DimBindings dims;
    int64_t batch = 0; // --batch: samples per step through the probed batch axis (0: dims/plan)
    uint64_t seed = 1;
    double lr = 1e-3;
    int metricsPort = 0;
    std::string metricsToken;
    double tolerance = 1e-3;
    bool skipNumerics = false;
    bool rankLogs = true; // --no-rank-logs keeps output on the terminal
    bool profileNodes = false; // --profile-nodes: after the steps, time every node (node_profile.<rank>.json in the run dir)
};

inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNumericsMismatch = 3;

const char* trainPlanUsage();
// argv[first..argc) are the options after "train-plan".
Result<TrainPlanOptions> parseTrainPlanArgs(int argc, char** argv, int first);
int runTrainPlan(const MpiContext& mpi, const TrainPlanOptions& options);

} // namespace tapas::runtime
