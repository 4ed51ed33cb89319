#pragma once
// Everything `tapas-worker gan` can be told (docs/paragan.md lists each option with its meaning).
// Plain C++ (no torch, Qt or MPI) so the launcher side and the tests can build argv from it.
#include "core/util/result.h"

#include <string>
#include <vector>

namespace tapas::runtime::gan {

// One side's (G or D) optimisation policy: ParaGAN's asymmetric optimisation gives each side its
// own optimizer settings, schedule and learning-rate scaling rule.
struct SidePolicy {
    double lr = 2e-4;          // at the preset's reference global batch (before scaling)
    double beta1 = 0.5, beta2 = 0.999;
    int warmupSteps = 0;       // linear warm-up from lr/warmup to lr
    std::string decay = "none"; // none | linear | cosine (over the run's steps, to decayFloor x lr)
    std::string scaling = "none"; // none | linear | sqrt: lr x (global batch / reference)^p
    double decayFloor = 0.1;      // where the decay ends, a fraction of the peak
};

struct GanOptions {
    // data
    std::string data = "ring8";   // ring8 | grid25 | shapes | fashion-mnist | folder
    std::string dataDir;          // folder data set: PNG/JPEG files, optionally in class sub-folders;
                                  // fashion-mnist: the IDX files (empty: Debian's package folder)
    std::string classifierCache;  // fashion-mnist quality classifier file (empty: the user cache)
    double mixtureStd = 0;        // standard deviation of each Gaussian of ring8 / grid25 (0: PacGAN's)
    // model
    std::string model;            // mlp | dcgan | biggan (empty: the data set's preset)
    int resolution = 32;          // 32 | 64 (image models)
    int width = 0;                // base channel count (image models) or hidden units (mlp); 0: preset
    int zDim = 0;                 // latent size (0: preset)
    int gLayers = 0;              // mlp: G's hidden layers (0: preset)
    int gWidth = 0;               // mlp: G's hidden units (0: --width)
    std::string dNorm;            // D's normalisation: mlp none | spectral; dcgan batch | spectral | none (empty: preset)
    bool selfAttention = false;   // biggan: SAGAN block at half the output resolution
    double ema = -1;              // EMA decay of G's weights (0 off; -1: preset)
    double emaStart = -1;         // fraction of the steps before the EMA starts averaging (-1: preset)
    std::string loss;             // bce | hinge | minimax (empty: preset)
    int pack = 0;                 // PacGAN packing: D judges packs of this many samples (0: preset)
    double r1Gamma = -1;          // R1 penalty gamma/2 |grad D(real)|^2 on D (0 off; -1: preset)
    // schedule and batch
    int steps = 0;                // generator updates (0: the data set's budget, protocol/gan_presets.h)
    int localBatch = 0;           // per rank (0: derived from globalBatch)
    int globalBatch = 0;          // ranks x local (0: preset)
    int referenceBatch = 0;       // global batch the preset's learning rates were tuned at
    int dSteps = 0;               // discriminator updates per generator update (0: preset)
    SidePolicy g, d;
    // ParaGAN: asynchronous updates with bounded staleness
    bool async = false;
    int staleness = 1;            // k: fake samples D trains on are at most k G updates old
    bool sharedDForward = false;  // async: G's gradient through the D of the step's start (1 D update
                                  // old), so one D forward on G's batch serves both losses
    bool shareFake = true;        // sync: the last D step trains on G's own batch (one G forward)
    std::string extrapolate = "none"; // shared D forward: none | d | g | both, the players whose
                                  // gradient is taken at θ_t + (θ_t − θ_{t−1}) (gan_extrapolation.h)
    bool approxSingleDBackward = false; // the same rescale through DCGAN's batch-norm D, where it is not
                                  // G's exact gradient (the batch norm couples the samples)
    bool singleDBackward = false; // shared D forward: G's input gradient rescaled per sample from D's
                                  // one backward pass (gan_single_backward.h); D without batch norm
    // congestion-aware pipeline
    int loaderThreads = 1;        // starting value (adaptive) or fixed value (static)
    int prefetch = 2;             // prefetch queue depth, same
    bool adaptivePipeline = true;
    double ioLatencyMs = 0;       // injected per-batch load latency
    // hardware-aware layout
    std::string layout = "auto";  // auto | contiguous | channels_last
    std::string channelPad = "auto"; // auto | on | off: pad image channels 3 -> 4 before D
    // records
    std::string runDir;           // runs/<id>; empty: no files (metrics to stdout only)
    std::string runId;
    int metricsPort = 0;
    std::string metricsToken;
    int checkpointEvery = 0;
    int sampleEvery = -1;         // -1: preset (every 50 steps); 0: only at the end
    int metricEvery = -1;         // quality evaluation (-1: preset; 0: only at the end)
    bool resume = false;
    unsigned long long seed = 1234;
    int threads = 0;              // torch intra-op threads (0: defaultComputeThreads())
    bool presetApplied = false;
    std::string preset;           // the preset's name, once applied
};

// Parses `tapas-worker gan` options (argv after the sub-command) with the shared grammar of
// runtime/worker_options.h: every number is range-checked and a bad one is an error naming the
// option and the value. Boolean switches take an optional 0/1/true/false/on/off value, so the
// launcher's --key value pairs work too. A relative --data-dir is made absolute against the
// working directory. With --metrics-port the token comes from TAPAS_METRICS_TOKEN.
Result<GanOptions> parseGanOptions(const std::vector<std::string>& args);

// Fills everything left at 0/empty from the data set's preset (ring8/grid25: MLP; shapes and
// folders: DCGAN; --model biggan: BigGAN settings). Checks value ranges; names the bad option.
Status applyPresetAndCheck(GanOptions& o);

// One line per option, for --help.
std::string ganUsage();

} // namespace tapas::runtime::gan
