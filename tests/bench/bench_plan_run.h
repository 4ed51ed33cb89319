#pragma once
// One plan trained on MPI ranks through the real launcher (mpirun + tapas-worker train-plan),
// with the figures each step reports: what `tapas bench run` prints for the zoo GPT and for the
// real models.
#include <QString>

#include <map>
#include <string>
#include <vector>

namespace tapas::bench {

struct RunFigures {
    bool ok = false;
    std::string error;
    std::string runDir;
    std::vector<double> stepTimes;
    std::vector<double> cpuTimes; // each step's CPU time, the larger rank's (what a quiet machine's wall clock would show)
    std::vector<double> commTimes; // each step's time in collectives, the larger rank's (waiting for the other included)
    double predicted = 0;
    double peakMemory = 0;      // the largest peak resident set over ranks (VmHWM)
    double tensorPeak = 0;      // the largest peak of live tensor storage over ranks (torch's CPU allocator)
    double predictedMemory = 0; // the plan's memory per device
};

struct PlanRun {
    std::string model, plan, worker; // worker "": the launcher's own lookup
    int ranks = 2, steps = 12;
    std::map<std::string, std::string> options; // further worker options (RunSpec::options: dims, batch, flags)
    // Follow the run over the metrics socket as the Runs dock does (`tapas bench run
    // --live-events`); otherwise the bench reads metrics.jsonl every kQuietPollMs and at the end,
    // so that the launcher does not wake on the ranks' cores every step.
    bool liveEvents = false;
};

// How often the bench reads metrics.jsonl of a run it does not follow live (ms): longer than most
// real-model launches, so they are read once, at the end.
inline constexpr int kQuietPollMs = 5000;

RunFigures runPlan(const QString& runsRoot, const PlanRun& run);

// The median of the step times after `warmup` steps; an even count averages the two middles.
double medianAfterWarmup(const std::vector<double>& stepTimes, int warmup);

// One plan launched `repeats` times. The machine's cores are shared and unsteady (the same run
// has swung 1.6x minutes apart), and the smallest steps (2-20 ms) swing from step to step with
// whatever else wakes on the two cores. The figure is the steady-state step: the median of every
// step after the warm-up steps of every launch, pooled (wall clock, and the CPU time and time in
// collectives the same way). Not the fastest launch's median, which picked the luckiest launch
// and read PP-OCR's step 1.25x where the next run read 1.35x. `spread` (slowest launch median /
// fastest) says how steady the launches were.
struct RepeatedRun {
    RunFigures last;    // the last launch (ok false: the launch that failed)
    double wall = 0;    // median step over all launches' steps after the warm-up (s)
    double cpu = 0;     // median step CPU time, pooled the same way (s)
    double comm = 0;    // median time in collectives, pooled the same way (s)
    double spread = 0;  // slowest launch median / fastest
    int steps = 0;      // the steps the medians are over
};
RepeatedRun runPlanRepeated(const QString& runsRoot, const PlanRun& run, int repeats, int warmup);

// The figures of finished launches as runPlanRepeated reports them (`last` left empty).
RepeatedRun pooledFigures(const std::vector<RunFigures>& launches, int warmup);

} // namespace tapas::bench
