#pragma once
// One `mpirun ... tapas-worker gan` for the ParaGAN benchmarks, read back from its run record:
// the throughput figures (median over the steps after a warm-up) and the last quality metrics.
#include <map>
#include <string>
#include <vector>

namespace tapas::bench {

struct GanFigures {
    bool ok = false;
    std::string error;
    double imagesPerS = 0, dataWaitMs = 0, stepMs = 0;
    double loaderThreads = 0, prefetch = 0, staleness = 0;
    std::map<std::string, double> finalMetrics; // the last metric event's values
};

// Runs `tapas-worker gan` on `ranks` ranks with one intra-op thread each and `args` (which name
// the data set, model and steps), warm-up steps excluded from the medians.
GanFigures runGanWorker(int ranks, const std::vector<std::string>& args, int warmup);

} // namespace tapas::bench

namespace tapas::bench {

// bench_gan_quality.cpp: PacGAN's mixture benchmarks and Fashion-MNIST, each cell the mean over
// `seeds` runs on 2 ranks, synchronous and asynchronous (k = 1) side by side. `steps` 0: the
// presets' default step budgets (what `tapas gan --data ...` runs). Return 0 when every run worked.
int runMixtureQualityBench(int seeds, int steps, const std::string& only); // only: ring8 | grid25 | empty for both
// `dNorm`: D's normalisation in every row (batch, the preset; any other also runs the shared D
// forward with --single-d-backward, which a D whose backward mixes no samples allows).
// `sharedDNorm` (empty: `dNorm`): the shared-D-forward row's D alone, with --single-d-backward
// unless it is batch; the synchronous and buffered rows keep `dNorm`, and the asynchronous rows
// are compared with that synchronous row. `buffered` false leaves out the buffered asynchronous row.
// `loss` (empty: the preset's) goes to every row; "minimax" makes the single backward exact for the
// batch-norm D too, so the shared row takes it.
int runFashionQualityBench(int seeds, int steps, const std::string& dNorm = "batch", const std::string& sharedDNorm = "",
                           bool buffered = true, const std::string& loss = "");

} // namespace tapas::bench
