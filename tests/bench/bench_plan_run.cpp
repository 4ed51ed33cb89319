#include "tests/bench/bench_plan_run.h"

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
    std::vector<double> v(stepTimes.begin() + std::min<size_t>(size_t(std::max(warmup, 0)), stepTimes.size()), stepTimes.end());
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

RepeatedRun pooledFigures(const std::vector<RunFigures>& launches, int warmup)
{
    RepeatedRun r;
    std::vector<double> walls, cpus, comms;
    double fastest = 0, slowest = 0;
    auto afterWarmup = [warmup](const std::vector<double>& v, std::vector<double>& into) {
        into.insert(into.end(), v.begin() + std::min<size_t>(size_t(std::max(warmup, 0)), v.size()), v.end());
    };
    for (size_t i = 0; i < launches.size(); ++i) {
        const double launch = medianAfterWarmup(launches[i].stepTimes, warmup);
        fastest = i == 0 ? launch : std::min(fastest, launch);
        slowest = std::max(slowest, launch);
        afterWarmup(launches[i].stepTimes, walls);
        afterWarmup(launches[i].cpuTimes, cpus);
        afterWarmup(launches[i].commTimes, comms);
    }
    r.wall = medianAfterWarmup(walls, 0);
    r.cpu = medianAfterWarmup(cpus, 0);
    r.comm = medianAfterWarmup(comms, 0);
    r.steps = int(walls.size());
    r.spread = fastest > 0 ? slowest / fastest : 0;
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
