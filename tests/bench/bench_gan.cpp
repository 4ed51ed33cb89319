// `tapas bench gan`: ParaGAN's techniques measured side by side in one run, each a real
// `mpirun ... tapas-worker gan` on DCGAN over the procedural shapes (32 px): synchronous vs
// asynchronous updates, adaptive vs static data pipeline under injected I/O latency,
// channels-last vs contiguous layout, and 1 -> 2 -> 4 rank throughput with scaling efficiency.
// Figures are the median of the per-step images/s after a warm-up.
#include "tests/bench/bench.h"

#include "tests/bench/bench_gan_run.h"

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

GanFigures runGan(int ranks, const std::vector<std::string>& args, int steps, int warmup)
{
    std::vector<std::string> all{"--data", "shapes", "--model", "dcgan", "--width", "16", "--batch", "16", "--sample-every", "0",
                                 "--steps", std::to_string(steps)};
    all.insert(all.end(), args.begin(), args.end());
    return runGanWorker(ranks, all, warmup);
}

int runSpeedBench(int steps)
{
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

int runGanBench(const std::vector<std::string>& args)
{
    int steps = 40, qualitySteps = 0, seeds = 3;
    bool speed = false, mixtures = false, fashion = false;
    std::string mixture; // --mixture ring8|grid25: that benchmark alone
    std::string dNorm = "batch"; // --d-norm: the Fashion-MNIST DCGAN's D in every row
    std::string sharedDNorm;     // --shared-d-norm: the shared-D-forward row's D alone (empty: --d-norm)
    bool buffered = true;        // --no-buffered: Fashion-MNIST without the buffered asynchronous row
    std::string loss;            // --loss: the Fashion-MNIST rows' loss (empty: the preset's, bce)
    const char* usage = "options: --speed, --mixtures, --fashion (sections; none: all three), --steps N (speed runs), --quick,\n"
                        "  --quality-steps N (quality runs; default: the presets' steps), --seeds N (quality runs, default 3),\n"
                        "  --mixture ring8|grid25 (that mixture benchmark alone),\n"
                        "  --d-norm batch|batch-real|batch-detached|spectral|layer|none (the Fashion-MNIST DCGAN's D; but for batch the\n"
                        "  shared D forward also takes --single-d-backward), --shared-d-norm batch-real|batch-detached|spectral|layer|none\n"
                        "  (the shared D forward's D alone, with --single-d-backward; the other rows keep --d-norm),\n"
                        "  --no-buffered (Fashion-MNIST: leave out the buffered asynchronous row),\n"
                        "  --loss bce|hinge|minimax (Fashion-MNIST, every row; minimax lets the batch-norm D take --single-d-backward)";
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--steps" && hasValue) steps = std::max(10, std::atoi(args[++i].c_str()));
        else if (args[i] == "--quick") steps = 15;
        else if (args[i] == "--quality-steps" && hasValue) qualitySteps = std::max(1, std::atoi(args[++i].c_str()));
        else if (args[i] == "--seeds" && hasValue) seeds = std::max(1, std::atoi(args[++i].c_str()));
        else if (args[i] == "--speed") speed = true;
        else if (args[i] == "--mixtures") mixtures = true;
        else if (args[i] == "--mixture" && hasValue && (args[i + 1] == "ring8" || args[i + 1] == "grid25")) {
            mixture = args[++i];
            mixtures = true;
        }
        else if (args[i] == "--fashion") fashion = true;
        else if (args[i] == "--d-norm" && hasValue &&
                 (args[i + 1] == "batch" || args[i + 1] == "batch-real" || args[i + 1] == "batch-detached" || args[i + 1] == "spectral" || args[i + 1] == "layer" ||
                  args[i + 1] == "none"))
            dNorm = args[++i];
        else if (args[i] == "--no-buffered") buffered = false;
        else if (args[i] == "--loss" && hasValue && (args[i + 1] == "bce" || args[i + 1] == "hinge" || args[i + 1] == "minimax"))
            loss = args[++i];
        else if (args[i] == "--shared-d-norm" && hasValue &&
                 (args[i + 1] == "batch-real" || args[i + 1] == "batch-detached" || args[i + 1] == "spectral" || args[i + 1] == "layer" ||
                  args[i + 1] == "none"))
            sharedDNorm = args[++i];
        else {
            std::fprintf(stderr, "tapas bench gan: unknown option '%s' (%s)\n", args[i].c_str(), usage);
            return 2;
        }
    }
    if (!speed && !mixtures && !fashion) speed = mixtures = fashion = true;
    int rc = 0;
    if (speed) rc |= runSpeedBench(steps);
    if (mixtures) rc |= runMixtureQualityBench(seeds, qualitySteps, mixture);
    if (fashion) rc |= runFashionQualityBench(seeds, qualitySteps, dNorm, sharedDNorm, buffered, loss);
    return rc;
}

} // namespace

BenchInfo ganBenchmark()
{
    return {"gan", "ParaGAN: speed (sync/async, pipeline, layouts, ranks) and quality (PacGAN mixtures, Fashion-MNIST) (mpirun)",
            &runGanBench};
}

} // namespace tapas::bench
