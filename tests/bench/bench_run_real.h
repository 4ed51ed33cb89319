#pragma once
// The real-model part of `tapas bench run`: every runnable model of the corpus and of the shared
// models (tests/common/real_model_workloads.h, the table tst_run_real_models reads) trained under
// its TAPAS plan on 2 MPI ranks, measured step beside predicted step and memory. `--profile`
// adds, per model, each op family's measured time (every node run alone, forward + backward)
// beside the cost model's price for it; `--profile-nodes` also lists every node so.
#include <string>
#include <vector>

namespace tapas::bench {

struct RealRunOptions {
    std::vector<std::string> only; // model names (file stems) to run; empty: all
    std::string modelsDir;         // --models DIR for the shared models ("" : the usual lookup)
    std::string worker;
    std::string dir;               // where plans and runs go
    int ranks = 2, steps = 20, warmup = 2, repeats = 3; // each model launched `repeats` times (RepeatedRun)
    bool profile = false;
    bool profileNodes = false; // --profile-nodes: --profile with a line per node above the families
    bool liveEvents = false;   // --live-events: follow each run over the metrics socket (PlanRun::liveEvents)
    std::string cluster = "cpu-mpi"; // preset name or spec file (`tapas cluster calibrate -o`) the plans are costed on
};

// Prints the table; returns the number of models that failed (a missing file is skipped, not failed).
int runRealModels(const RealRunOptions& o);

// The names `only` may hold: every model of the table, by file stem.
std::vector<std::string> realModelNames();

} // namespace tapas::bench
