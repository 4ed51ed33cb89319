// The quality half of `tapas bench gan`: does ParaGAN train good GANs, synchronous and
// asynchronous alike? The mixture rows stand beside PacGAN's published Table 1 (Lin et al. 2018,
// same data, sample count and metrics; its architecture, not ours), the Fashion-MNIST rows beside
// the real-against-real floor of our classifier's Fréchet distance.
#include "tests/bench/bench_gan_run.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tapas::bench {
namespace {

struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v) { sum += v; ++n; }
    double value() const { return n ? sum / n : 0; }
};

struct ModeRuns {
    std::map<std::string, Mean> metrics; // each final metric, over the seeds
    std::vector<std::string> perSeed;    // one line per finished seed: its own final figures
    Mean ips;
    int failed = 0;
    std::string error;
    double mean(const char* k) const { auto it = metrics.find(k); return it == metrics.end() ? 0.0 : it->second.value(); }
};

// `sharedD`: asynchronous with the shared D forward (G's gradient through the D of one update
// before, docs/paragan.md, "Asynchronous mode"), the fast asynchronous variant; `singleD` with it,
// one backward pass through D for both players (a D without batch norm).
ModeRuns runSeeds(const std::vector<std::string>& base, bool async, int seeds, bool sharedD = false, bool singleD = false)
{
    ModeRuns r;
    for (int seed = 1; seed <= seeds; ++seed) {
        std::vector<std::string> args = base;
        args.insert(args.end(), {"--seed", std::to_string(seed)});
        if (async) args.insert(args.end(), {"--async", "--staleness", "1"});
        if (sharedD) args.push_back("--shared-d-forward");
        if (singleD) args.push_back("--single-d-backward");
        const GanFigures f = runGanWorker(2, args, 5);
        if (!f.ok) {
            ++r.failed;
            r.error = f.error;
            continue;
        }
        for (const auto& [k, v] : f.finalMetrics) r.metrics[k].add(v);
        std::string line = "seed " + std::to_string(seed) + (sharedD ? " async k=1 shared D:" : async ? " async k=1:" : " sync:");
        char value[64];
        for (const auto& [k, v] : f.finalMetrics) {
            std::snprintf(value, sizeof value, " %s %.4g", k.c_str(), v);
            line += value;
        }
        r.perSeed.push_back(line);
        r.ips.add(f.imagesPerS);
    }
    return r;
}

} // namespace

int runMixtureQualityBench(int seeds, int steps, const std::string& only)
{
    std::printf("\nPacGAN's mixture benchmarks (2,500 samples; high quality = within 3 sigma of the nearest mode; a mode is\n"
                "covered when it is the nearest mode of a high-quality sample; reverse KL of the high-quality samples'\n"
                "mode histogram against uniform), 2 ranks, mean of %d seeds, %s:\n\n",
                seeds, steps > 0 ? ("--steps " + std::to_string(steps)).c_str() : "each preset's default steps");
    std::printf("| data | training | modes | high quality | reverse KL | images/s |\n|---|---|---:|---:|---:|---:|\n");
    bool ok = true;
    struct Published { const char* data; const char* what; double modes, hq, kl; };
    const Published published[] = {{"ring8", "PacGAN2 (published, Table 1)", 7.9, 95.6, 0.07},
                                   {"ring8", "GAN (published)", 6.3, 98.2, 0.45},
                                   {"grid25", "PacGAN4 (published, Table 1)", 24.8, 93.6, 0.04},
                                   {"grid25", "GAN (published)", 17.3, 94.8, 0.70}};
    std::vector<std::string> perSeed;
    for (const char* data : {"ring8", "grid25"}) {
        if (!only.empty() && only != data) continue;
        std::vector<std::string> base{"--data", data, "--sample-every", "0", "--metric-every", "0"};
        if (steps > 0) base.insert(base.end(), {"--steps", std::to_string(steps)});
        for (bool async : {false, true}) {
            const ModeRuns r = runSeeds(base, async, seeds);
            for (const std::string& line : r.perSeed) perSeed.push_back(std::string(data) + " " + line);
            if (r.failed) {
                std::printf("| %s | %s | %d of %d runs failed: %s |\n", data, async ? "async k=1" : "sync", r.failed, seeds,
                            r.error.c_str());
                ok = false;
                continue;
            }
            std::printf("| %s | ParaGAN %s | %.1f | %.1f%% | %.3f | %.0f |\n", data, async ? "async, k = 1" : "synchronous",
                        r.mean("modes_covered"), 100 * r.mean("high_quality_share"), r.mean("reverse_kl"), r.ips.value());
        }
        for (const Published& p : published)
            if (std::string(p.data) == data) std::printf("| %s | %s | %.1f | %.1f%% | %.2f | |\n", data, p.what, p.modes, p.hq, p.kl);
    }
    if (!perSeed.empty()) std::printf("\nEach seed's final figures:\n");
    for (const std::string& line : perSeed) std::printf("  %s\n", line.c_str());
    return ok ? 0 : 1;
}

int runFashionQualityBench(int seeds, int steps, const std::string& dNorm, const std::string& sharedDNorm, bool buffered,
                           const std::string& loss)
{
    const std::string sharedNorm = sharedDNorm.empty() ? dNorm : sharedDNorm;
    std::printf("\nFashion-MNIST (DCGAN, 32 px), 2 ranks, mean of %d seeds, %s; 10,000 generated images judged by the\n"
                "project's classifier (classes covered of 10, KL of the predicted-class histogram against uniform, Fréchet\n"
                "distance of its 128-d features against the test split):\n\n",
                seeds, steps > 0 ? ("--steps " + std::to_string(steps)).c_str() : "the preset's default steps");
    const bool singleD = sharedNorm != "batch" || loss == "minimax";
    if (!loss.empty()) std::printf("Loss: --loss %s in every row.\n\n", loss.c_str());
    if (sharedNorm != dNorm)
        std::printf("D: --d-norm %s in the synchronous and buffered rows; the shared D forward's row --d-norm %s%s, compared with "
                    "the synchronous row.\n\n",
                    dNorm.c_str(), sharedNorm.c_str(), singleD ? " with --single-d-backward" : "");
    else if (singleD) std::printf("D: --d-norm %s in every mode; the shared D forward with --single-d-backward.\n\n", dNorm.c_str());
    std::printf("| training | classes | class KL | Fréchet distance | images/s | notes |\n|---|---:|---:|---:|---:|---|\n");
    std::vector<std::string> base{"--data", "fashion-mnist", "--sample-every", "0", "--metric-every", "0"};
    if (steps > 0) base.insert(base.end(), {"--steps", std::to_string(steps)});
    if (!loss.empty()) base.insert(base.end(), {std::string("--loss"), loss});
    std::vector<std::string> sharedBase = base;
    if (dNorm != "batch") base.insert(base.end(), {std::string("--d-norm"), dNorm});
    if (sharedNorm != "batch") sharedBase.insert(sharedBase.end(), {std::string("--d-norm"), sharedNorm});
    const ModeRuns sync = runSeeds(base, false, seeds), async = buffered ? runSeeds(base, true, seeds) : ModeRuns{},
                   shared = runSeeds(sharedBase, true, seeds, true, singleD);
    std::vector<const ModeRuns*> rows{&sync, &shared};
    if (buffered) rows.insert(rows.begin() + 1, &async);
    bool ok = true;
    for (const ModeRuns* r : rows) {
        const bool isAsync = r != &sync;
        std::string what = r == &shared ? (singleD ? "async, k = 1, shared D forward, single D backward" : "async, k = 1, shared D forward")
                           : isAsync ? "async, k = 1" : "synchronous";
        if (r == &shared && sharedNorm != dNorm) what += ", D " + sharedNorm;
        if (r->failed) {
            std::printf("| %s | %d of %d runs failed: %s |\n", what.c_str(), r->failed, seeds, r->error.c_str());
            ok = false;
            continue;
        }
        char note[160] = "";
        if (isAsync && !sync.failed && sync.mean("frechet_distance") > 0 && sync.ips.value() > 0)
            std::snprintf(note, sizeof note, "Fréchet x%.2f of sync at x%.2f its images/s",
                          r->mean("frechet_distance") / sync.mean("frechet_distance"), r->ips.value() / sync.ips.value());
        std::printf("| ParaGAN %s | %.1f | %.3f | %.2f | %.0f | %s |\n", what.c_str(), r->mean("classes_covered"), r->mean("class_kl"), r->mean("frechet_distance"), r->ips.value(), note);
    }
    if (!sync.failed)
        std::printf("| real images (floor) | 10 | | %.2f | | 10,000 training images against the test split; classifier test accuracy %.1f%% |\n",
                    sync.mean("frechet_floor"), 100 * sync.mean("classifier_accuracy"));
    std::printf("\nEach seed's final figures:\n");
    for (const ModeRuns* r : rows)
        for (const std::string& line : r->perSeed) std::printf("  %s\n", line.c_str());
    return ok ? 0 : 1;
}

} // namespace tapas::bench
