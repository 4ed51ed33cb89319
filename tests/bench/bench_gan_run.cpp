#include "tests/bench/bench_gan_run.h"

#include "core/util/median.h"
#include "runtime/protocol/run_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace tapas::bench {
namespace {

std::string shellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string workerPath()
{
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return (self.parent_path() / "tapas-worker").string();
}

} // namespace

GanFigures runGanWorker(int ranks, const std::vector<std::string>& args, int warmup)
{
    GanFigures f;
    char tmpl[] = "/tmp/tapas-bench-gan-XXXXXX";
    if (!mkdtemp(tmpl)) {
        f.error = "cannot create a temporary run directory";
        return f;
    }
    const std::string runDir = std::string(tmpl) + "/run";
    std::string cmd = "OMP_NUM_THREADS=1 mpirun --oversubscribe --mca mpi_yield_when_idle 1";
    if (geteuid() == 0) cmd += " --allow-run-as-root";
    cmd += " -np " + std::to_string(ranks) + " -x OMP_NUM_THREADS " + shellQuote(workerPath()) + " gan --threads 1 --run-dir " +
           shellQuote(runDir);
    for (const std::string& a : args) cmd += " " + shellQuote(a);
    cmd += " > " + shellQuote(std::string(tmpl) + "/mpirun.log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    Result<protocol::MetricsChunk> chunk = protocol::readMetrics(runDir);
    if (rc != 0 || !chunk) {
        f.error = "run failed (" + cmd + "), see " + tmpl;
        return f;
    }
    std::vector<double> ips, wait, step;
    for (const protocol::MetricsEvent& e : chunk->events) {
        if (e.type == protocol::EventType::Metric) {
            for (const auto& [k, v] : e.values) f.finalMetrics[k] = v;
            continue;
        }
        if (e.type != protocol::EventType::Step || e.step < warmup) continue;
        auto v = [&](const char* k) { auto it = e.values.find(k); return it == e.values.end() ? 0.0 : it->second; };
        ips.push_back(v("images_per_s"));
        wait.push_back(v("data_wait"));
        step.push_back(v("step_time"));
        f.loaderThreads = v("loader_threads");
        f.prefetch = v("prefetch_depth");
        f.staleness = std::max(f.staleness, v("staleness"));
    }
    if (ips.empty()) {
        f.error = "no steps recorded in " + runDir;
        return f;
    }
    f.imagesPerS = median(ips);
    f.dataWaitMs = median(wait) * 1e3;
    f.stepMs = median(step) * 1e3;
    f.ok = true;
    std::error_code ec;
    std::filesystem::remove_all(tmpl, ec);
    return f;
}

} // namespace tapas::bench
