// `tapas bench gan`: ParaGAN's techniques measured side by side in one run, each a real
// `mpirun ... tapas-worker gan` on DCGAN over the procedural shapes (32 px): synchronous vs
// asynchronous updates, adaptive vs static data pipeline under injected I/O latency,
// channels-last vs contiguous layout, and 1 -> 2 -> 4 rank throughput with scaling efficiency.
// Figures are the median of the per-step images/s after a warm-up.
#include "tests/bench/bench.h"

#include "runtime/protocol/run_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace tapas::bench {
namespace {

struct GanFigures {
    bool ok = false;
    std::string error;
    double imagesPerS = 0, dataWaitMs = 0, stepMs = 0;
    double loaderThreads = 0, prefetch = 0, staleness = 0;
};

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

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

GanFigures runGan(int ranks, const std::vector<std::string>& args, int steps, int warmup)
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
    cmd += " -np " + std::to_string(ranks) + " -x OMP_NUM_THREADS " + shellQuote(workerPath()) +
           " gan --threads 1 --data shapes --model dcgan --width 16 --batch 16 --sample-every 0 --steps " +
           std::to_string(steps) + " --run-dir " + shellQuote(runDir);
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

int runGanBench(const std::vector<std::string>& args)
{
    int steps = 40;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--steps" && i + 1 < args.size()) steps = std::max(10, std::atoi(args[++i].c_str()));
        else if (args[i] == "--quick") steps = 15;
        else {
            std::fprintf(stderr, "tapas bench gan: unknown option '%s' (options: --steps N, --quick)\n", args[i].c_str());
            return 2;
        }
    }
    const int warmup = std::min(5, steps / 3);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    std::printf("ParaGAN benchmark: DCGAN (width 16) on 32 px shapes, local batch 16, %d steps per run (median of steps >= %d),\n"
                "1 intra-op thread per rank; this machine has %ld cores, so 4 ranks oversubscribe it.\n\n",
                steps, warmup, cores);
    bool allOk = true;
    auto row = [&](const char* what, const char* setting, const GanFigures& f, const std::string& extra) {
        if (!f.ok) {
            std::printf("| %-26s | %-34s | failed: %s |\n", what, setting, f.error.c_str());
            allOk = false;
            return;
        }
        std::printf("| %-26s | %-34s | %9.1f | %8.1f | %s |\n", what, setting, f.imagesPerS, f.stepMs, extra.c_str());
    };
    std::printf("| comparison | setting | images/s | step ms | notes |\n|---|---|---|---|---|\n");
    char note[200];

    const GanFigures sync = runGan(2, {"--layout", "contiguous", "--channel-pad", "off"}, steps, warmup);
    const GanFigures async = runGan(2, {"--layout", "contiguous", "--channel-pad", "off", "--async", "--staleness", "1"}, steps, warmup);
    row("sync vs async (2 ranks)", "synchronous", sync, "staleness 0");
    std::snprintf(note, sizeof note, "max staleness %.0f; x%.2f vs sync", async.staleness,
                  sync.imagesPerS > 0 ? async.imagesPerS / sync.imagesPerS : 0.0);
    row("", "asynchronous, k = 1", async, note);

    // Congestion a user would recognise: every batch takes 3x a synchronous step to load (the
    // step as measured just above, so the setting holds on a quiet or a busy machine), so one
    // loader with prefetch 2 starves; the adaptive pipeline has to add loaders to keep up.
    const double ioMs = sync.ok ? std::max(100.0, std::round(3 * sync.stepMs / 10) * 10) : 300.0;
    char ioArg[32];
    std::snprintf(ioArg, sizeof ioArg, "%.0f", ioMs);
    const std::vector<std::string> io{"--layout", "contiguous", "--channel-pad", "off", "--io-latency-ms", ioArg};
    std::vector<std::string> st = io, ad = io;
    st.insert(st.end(), {"--static-pipeline", "--loader-threads", "1", "--prefetch", "2"});
    ad.insert(ad.end(), {"--loader-threads", "1", "--prefetch", "2"});
    const GanFigures stat = runGan(2, st, steps, warmup), adapt = runGan(2, ad, steps, warmup);
    char what[64];
    std::snprintf(what, sizeof what, "pipeline, %.0f ms I/O (2 r.)", ioMs);
    std::snprintf(note, sizeof note, "I/O 3x the sync step; data wait %.1f ms/step, 1 loader, prefetch 2", stat.dataWaitMs);
    row(what, "static", stat, note);
    std::snprintf(note, sizeof note, "data wait %.1f ms/step, ended at %.0f loaders, prefetch %.0f; x%.2f images/s vs static",
                  adapt.dataWaitMs, adapt.loaderThreads, adapt.prefetch,
                  stat.imagesPerS > 0 ? adapt.imagesPerS / stat.imagesPerS : 0.0);
    row("", "adaptive", adapt, note);

    const GanFigures contig = runGan(1, {"--layout", "contiguous", "--channel-pad", "off"}, steps, warmup);
    const GanFigures cl = runGan(1, {"--layout", "channels_last", "--channel-pad", "off"}, steps, warmup);
    row("layout (1 rank)", "contiguous (NCHW)", contig, "");
    std::snprintf(note, sizeof note, "x%.2f vs contiguous", contig.imagesPerS > 0 ? cl.imagesPerS / contig.imagesPerS : 0.0);
    row("", "channels-last (NHWC)", cl, note);

    GanFigures one;
    for (int n : {1, 2, 4}) {
        const GanFigures f = n == 1 ? contig : runGan(n, {"--layout", "contiguous", "--channel-pad", "off"}, steps, warmup);
        if (n == 1) one = f;
        const double eff = one.imagesPerS > 0 ? f.imagesPerS / (n * one.imagesPerS) : 0;
        std::snprintf(note, sizeof note, "global batch %d, scaling efficiency %.0f%% (%ld cores on this machine)", 16 * n,
                      eff * 100, cores);
        const std::string setting = std::to_string(n) + (n == 1 ? " rank" : " ranks");
        row(n == 1 ? "ranks (sync, weak scaling)" : "", setting.c_str(), f, note);
    }
    return allOk ? 0 : 1;
}

} // namespace

BenchInfo ganBenchmark()
{
    return {"gan", "ParaGAN: sync vs async, adaptive vs static pipeline, layouts, 1->2->4 ranks (mpirun)", &runGanBench};
}

} // namespace tapas::bench
