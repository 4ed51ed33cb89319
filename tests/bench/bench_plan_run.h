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
};

RunFigures runPlan(const QString& runsRoot, const PlanRun& run);

// The median of the step times after `warmup` steps; an even count averages the two middles.
double medianAfterWarmup(const std::vector<double>& stepTimes, int warmup);

// One plan launched `repeats` times. The machine's cores are shared and unsteady (the same run
// has swung 1.6x minutes apart) and other processes only ever add time, so the figure is the
// fastest launch's median step after the warm-up steps, wall clock, with that launch's median
// CPU time beside it; `spread` (slowest launch median / fastest) says how steady it was.
struct RepeatedRun {
    RunFigures last;   // the last launch (ok false: the launch that failed)
    double wall = 0;   // the fastest launch's median step (s)
    double cpu = 0;    // that launch's median step CPU time (s)
    double comm = 0;   // that launch's median time in collectives (s)
    double spread = 0; // slowest launch median / fastest
};
RepeatedRun runPlanRepeated(const QString& runsRoot, const PlanRun& run, int repeats, int warmup);

} // namespace tapas::bench
