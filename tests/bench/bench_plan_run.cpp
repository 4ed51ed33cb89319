#include "tests/bench/bench_plan_run.h"

#include "core/util/pooled_steps.h"
#include "runtime/launch/run_launcher.h"

#include <QEventLoop>

#include <algorithm>

namespace tapas::bench {

RunFigures runPlan(const QString& runsRoot, const PlanRun& run)
{
    RunFigures fig;
    runtime::LaunchRequest r;
    r.spec.kind = "train-plan";
    r.spec.modelPath = run.model;
    r.spec.planPath = run.plan;
    r.spec.ranks = run.ranks;
    r.spec.steps = run.steps;
    r.spec.checkpointEvery = 0;
    r.spec.options = run.options;
    r.runsRoot = runsRoot;
    r.workerPath = QString::fromStdString(run.worker);
    r.hungSeconds = 300;
    // The launcher runs on the ranks' cores. Followed live over the metrics socket, it woke for
    // every step's events and took its share of a core in the next step (hello_deepa at load 10:
    // a median step of 7.9-12.5 ms, 0.44-0.62 ms without), so the bench reads metrics.jsonl alone,
    // rarely: every event is still read, at the latest when mpirun exits (docs/step-pricing.md).
    if (!run.liveEvents) {
        r.metricsSocket = false;
        r.pollMs = kQuietPollMs;
    }
    runtime::RunLauncher launcher;
    QEventLoop loop;
    QObject::connect(&launcher, &runtime::RunLauncher::eventReceived, &loop, [&fig](const protocol::MetricsEvent& e) {
        if (e.type != protocol::EventType::Step) return;
        if (auto it = e.values.find("step_time"); it != e.values.end()) fig.stepTimes.push_back(it->second);
        if (auto it = e.values.find("step_cpu_time"); it != e.values.end()) fig.cpuTimes.push_back(it->second);
        if (auto it = e.values.find("comm_time"); it != e.values.end()) fig.commTimes.push_back(it->second);
        if (auto it = e.values.find("predicted_step_time"); it != e.values.end()) fig.predicted = it->second;
        if (auto it = e.values.find("peak_memory_bytes"); it != e.values.end()) fig.peakMemory = std::max(fig.peakMemory, it->second);
        if (auto it = e.values.find("tensor_peak_bytes"); it != e.values.end()) fig.tensorPeak = std::max(fig.tensorPeak, it->second);
        if (auto it = e.values.find("predicted_memory_bytes"); it != e.values.end()) fig.predictedMemory = it->second;
    });
    QObject::connect(&launcher, &runtime::RunLauncher::runFinished, &loop, &QEventLoop::quit);
    if (Status s = launcher.start(r); !s) {
        fig.error = s.error;
        return fig;
    }
    loop.exec();
    fig.runDir = launcher.runDir().toStdString();
    if (launcher.state() != QLatin1String("finished")) {
        fig.error = "run " + launcher.state().toStdString() + ": " + launcher.detail().toStdString() + " (see " + fig.runDir + ")";
        return fig;
    }
    fig.ok = true;
    return fig;
}

double medianAfterWarmup(const std::vector<double>& stepTimes, int warmup)
{
    return poolAfterWarmup({stepTimes}, warmup).median;
}

RepeatedRun pooledFigures(const std::vector<RunFigures>& launches, int warmup)
{
    std::vector<std::vector<double>> walls, cpus, comms;
    for (const RunFigures& f : launches) {
        walls.push_back(f.stepTimes);
        cpus.push_back(f.cpuTimes);
        comms.push_back(f.commTimes);
    }
    const PooledSteps wall = poolAfterWarmup(walls, warmup);
    RepeatedRun r;
    r.wall = wall.median;
    r.spread = wall.spread;
    r.steps = wall.steps;
    r.cpu = poolAfterWarmup(cpus, warmup).median;
    r.comm = poolAfterWarmup(comms, warmup).median;
    return r;
}

RepeatedRun runPlanRepeated(const QString& runsRoot, const PlanRun& run, int repeats, int warmup)
{
    std::vector<RunFigures> launches;
    for (int i = 0; i < std::max(repeats, 1); ++i) {
        RunFigures f = runPlan(runsRoot, run);
        if (!f.ok) {
            RepeatedRun failed;
            failed.last = std::move(f);
            return failed;
        }
        launches.push_back(std::move(f));
    }
    RepeatedRun r = pooledFigures(launches, warmup);
    r.last = std::move(launches.back());
    return r;
}

} // namespace tapas::bench
