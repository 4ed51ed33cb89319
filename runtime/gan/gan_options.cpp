#include "runtime/gan/gan_options.h"

#include "runtime/gan/gan_data.h"
#include "runtime/protocol/gan_presets.h"
#include "runtime/protocol/metrics_token.h"
#include "runtime/worker_options.h"

#include <filesystem>
#include <functional>

namespace tapas::runtime::gan {
namespace {

// Upper bounds that keep every count exact in an int and far above what a run on our machines
// could use; a value above them is a typo or an overflow, not a request.
constexpr int kMaxSteps = 1000000000;
constexpr int kMaxLocalBatch = 1 << 20;
constexpr int kMaxGlobalBatch = 1 << 24;

bool oneOf(const std::string& v, std::initializer_list<const char*> allowed)
{
    for (const char* a : allowed)
        if (v == a) return true;
    return false;
}

Status checkSide(const char* side, const SidePolicy& p)
{
    const std::string s = side;
    if (!(p.lr > 0)) return Status::failure("option --lr-" + s + ": the learning rate must be > 0");
    if (p.beta1 < 0 || p.beta1 >= 1 || p.beta2 < 0 || p.beta2 >= 1)
        return Status::failure("options --beta1-" + s + "/--beta2-" + s + ": betas must lie in [0, 1)");
    if (p.warmupSteps < 0) return Status::failure("option --warmup-" + s + ": must be >= 0");
    if (!oneOf(p.decay, {"none", "linear", "cosine"}))
        return Status::failure("option --decay-" + s + ": '" + p.decay + "' is not none, linear or cosine");
    if (!oneOf(p.scaling, {"none", "linear", "sqrt"}))
        return Status::failure("option --lr-scaling-" + s + ": '" + p.scaling + "' is not none, linear or sqrt");
    return {};
}

// A path option's parser: ranks run in the run directory, so a relative path means the caller's
// working directory and is made absolute here.
std::function<Status(const std::string&)> absolutePathInto(std::string* out, const char* what)
{
    return [out, what](const std::string& v) {
        if (v.empty()) return Status::failure(std::string("'' is not a ") + what);
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(v, ec);
        *out = ec ? v : abs.lexically_normal().string();
        return Status::success();
    };
}

} // namespace

Result<GanOptions> parseGanOptions(const std::vector<std::string>& args)
{
    GanOptions o;
    // Unset values take the preset's (applyPresetAndCheck); the parser only admits values a
    // user may mean, so 0 or a negative learning rate, width or batch is an error, not "preset".
    o.g.lr = 0;
    o.d.lr = 0;
    o.g.beta1 = o.d.beta1 = -1;
    o.g.beta2 = o.d.beta2 = -1;
    o.g.decay = o.d.decay = "";
    o.g.scaling = o.d.scaling = "";
    o.g.warmupSteps = o.d.warmupSteps = -1;
    o.g.decayFloor = o.d.decayFloor = -1;
    bool staticPipeline = false;
    using Open = WorkerOptions::Open;
    WorkerOptions w;
    w.choice("--data", &o.data, {"ring8", "grid25", "shapes", "fashion-mnist", "folder"})
        .custom("--data-dir", absolutePathInto(&o.dataDir, "folder"))
        .custom("--classifier-cache", absolutePathInto(&o.classifierCache, "file name"))
        .number("--mixture-std", &o.mixtureStd, 0, 10, Open::Min)
        .choice("--model", &o.model, {"mlp", "dcgan", "biggan"})
        .integer("--resolution", &o.resolution, 1, 4096)
        .integer("--width", &o.width, 4, 1024)
        .integer("--z-dim", &o.zDim, 1, 4096)
        .integer("--g-layers", &o.gLayers, 1, 8)
        .integer("--g-width", &o.gWidth, 4, 1024)
        .choice("--d-norm", &o.dNorm, {"none", "spectral", "batch", "layer", "batch-detached", "batch-real"})
        .toggle("--self-attention", &o.selfAttention)
        .number("--ema", &o.ema, 0, 1, Open::Max)
        .number("--ema-start", &o.emaStart, 0, 1, Open::Max)
        .choice("--loss", &o.loss, {"bce", "hinge", "minimax"})
        .integer("--pack", &o.pack, 1, 16)
        .number("--r1-gamma", &o.r1Gamma, 0, 1000)
        .integer("--steps", &o.steps, 1, kMaxSteps)
        .integer("--batch", &o.localBatch, 1, kMaxLocalBatch)
        .integer("--global-batch", &o.globalBatch, 1, kMaxGlobalBatch)
        .integer("--reference-batch", &o.referenceBatch, 1, kMaxGlobalBatch)
        .integer("--d-steps", &o.dSteps, 1, 16);
    for (auto [side, p] : {std::pair{"g", &o.g}, std::pair{"d", &o.d}}) {
        const std::string s = side;
        w.number("--lr-" + s, &p->lr, 0, 10, Open::Min)
            .number("--beta1-" + s, &p->beta1, 0, 1, Open::Max)
            .number("--beta2-" + s, &p->beta2, 0, 1, Open::Max)
            .integer("--warmup-" + s, &p->warmupSteps, 0, kMaxSteps)
            .choice("--decay-" + s, &p->decay, {"none", "linear", "cosine"})
            .number("--decay-floor-" + s, &p->decayFloor, 0, 1)
            .choice("--lr-scaling-" + s, &p->scaling, {"none", "linear", "sqrt"});
    }
    w.toggle("--async", &o.async)
        .integer("--staleness", &o.staleness, 0, 64)
        .toggle("--shared-d-forward", &o.sharedDForward)
        .toggle("--single-d-backward", &o.singleDBackward)
        .toggle("--approx-single-d-backward", &o.approxSingleDBackward)
        .toggle("--share-fake", &o.shareFake)
        .choice("--extrapolate", &o.extrapolate, {"none", "d", "g", "both"})
        .integer("--loader-threads", &o.loaderThreads, 1, 16)
        .integer("--prefetch", &o.prefetch, 1, 64)
        .toggle("--adaptive-pipeline", &o.adaptivePipeline)
        .flag("--static-pipeline", &staticPipeline)
        .number("--io-latency-ms", &o.ioLatencyMs, 0, 1e6)
        .choice("--layout", &o.layout, {"auto", "contiguous", "channels_last"})
        .choice("--channel-pad", &o.channelPad, {"auto", "on", "off"})
        .text("--run-dir", &o.runDir)
        .text("--run-id", &o.runId)
        .integer("--metrics-port", &o.metricsPort, 0, 65535)
        .custom("--metrics-token", [](const std::string&) { return Status::failure(protocol::kTokenNotOnCommandLine); })
        .integer("--checkpoint-every", &o.checkpointEvery, 0, kMaxSteps)
        .integer("--sample-every", &o.sampleEvery, 0, kMaxSteps)
        .integer("--metric-every", &o.metricEvery, 0, kMaxSteps)
        .toggle("--resume", &o.resume)
        .integer<unsigned long long>("--seed", &o.seed)
        .integer("--threads", &o.threads, 0, 1024);
    if (Status s = w.parse(args); !s) return Result<GanOptions>::failure(s.error);
    if (staticPipeline) o.adaptivePipeline = false;
    // --data-dir alone means a folder data set.
    if (!o.dataDir.empty() && !w.isSet("--data")) o.data = "folder";
    if (o.metricsPort > 0) {
        Result<std::string> token = protocol::metricsTokenFromEnvironment();
        if (!token) return Result<GanOptions>::failure("option --metrics-port: " + token.error());
        o.metricsToken = *token;
    }
    return o;
}

Status applyPresetAndCheck(GanOptions& o)
{
    if (!oneOf(o.data, {"ring8", "grid25", "shapes", "fashion-mnist", "folder"}))
        return Status::failure("unknown data set '" + o.data + "' (known: ring8, grid25, shapes, fashion-mnist, folder with --data-dir)");
    if (o.data == "folder" && o.dataDir.empty())
        return Status::failure("data set 'folder' needs --data-dir <folder of PNG/JPEG images>");
    const bool mixture = o.data == "ring8" || o.data == "grid25";
    if (o.model.empty()) o.model = mixture ? "mlp" : "dcgan";
    if (mixture && o.mixtureStd == 0) o.mixtureStd = mixtureStdOf(o.data);
    if (!oneOf(o.model, {"mlp", "dcgan", "biggan"}))
        return Status::failure("unknown model '" + o.model + "' (known: mlp, dcgan, biggan)");
    if (mixture != (o.model == "mlp"))
        return Status::failure("model '" + o.model + "' does not fit data set '" + o.data +
                               "' (the MLP is for the 2-D mixtures, DCGAN and BigGAN for images)");

    // Presets: tuned on this machine for the built-in sets (docs/paragan.md, "Presets").
    SidePolicy pg, pd;
    int zDim = 0, batch = 0, dSteps = 1;
    double ema = 0, emaStart = 0, r1 = 0;
    std::string loss = "bce";
    if (o.model == "mlp") {
        o.preset = o.data + "-mlp";
        // PacGAN's benchmarks need samples within 3 sigma (0.03 on the ring) of a mode: R1 lets the
        // pair settle instead of circling, the decay to 1% of the rate takes out the SGD jitter,
        // and a batch of 512 halves what is left (measured: docs/paragan.md, "Presets"). The grid
        // fills its square with modes, so the ring's R1 strength flattens D over all of it (D then
        // scores every point 0.5 and G stays a uniform cloud): the grid takes a weaker penalty.
        pg = {1e-3, 0.5, 0.999, 0, "linear", "linear", 0.01};
        pd = {1e-3, 0.5, 0.999, 0, "linear", "sqrt", 0.01};
        zDim = 16; batch = 512; dSteps = 1; r1 = o.data == "grid25" ? 1.0 : 5.0;
        // Both benchmarks' precision is made in the long low-rate tail of their 24,000 steps,
        // where G's own weights still swing (ring, one seed: 1-94% between steps 12,000 and
        // 17,500) and an average over the last half holds 93.7-96% (docs/paragan.md, "Presets").
        ema = 0.999;
        emaStart = 0.5;
        if (o.width == 0) o.width = 128;
    } else if (o.model == "dcgan") {
        o.preset = o.data + "-dcgan";
        pg = {2e-4, 0.5, 0.999, 0, "none", "linear"};
        pd = {2e-4, 0.5, 0.999, 0, "none", "sqrt"};
        zDim = 64; batch = 64; dSteps = 1;
    } else {
        o.preset = o.data + "-biggan";
        pg = {1e-4, 0.0, 0.999, 20, "none", "linear"};
        pd = {4e-4, 0.0, 0.999, 0, "none", "sqrt"};
        zDim = 64; batch = 64; dSteps = 2; ema = 0.999; loss = "hinge";
    }
    auto fill = [](SidePolicy& s, const SidePolicy& p) {
        if (s.lr == 0) s.lr = p.lr;
        if (s.beta1 < 0) s.beta1 = p.beta1;
        if (s.beta2 < 0) s.beta2 = p.beta2;
        if (s.warmupSteps < 0) s.warmupSteps = p.warmupSteps;
        if (s.decay.empty()) s.decay = p.decay;
        if (s.scaling.empty()) s.scaling = p.scaling;
        if (s.decayFloor < 0) s.decayFloor = p.decayFloor;
    };
    if (o.width == 0) o.width = 32;
    fill(o.g, pg);
    fill(o.d, pd);
    if (o.zDim == 0) o.zDim = zDim;
    if (o.model == "mlp") {
        if (o.gLayers == 0) o.gLayers = 3;
        if (o.gWidth == 0) o.gWidth = o.width;
        if (o.dNorm.empty()) o.dNorm = "none";
    }
    if (o.model == "dcgan" && o.dNorm.empty()) o.dNorm = "batch"; // DCGAN's D as Radford et al. built it
    if (o.referenceBatch == 0) o.referenceBatch = batch;
    if (o.globalBatch == 0 && o.localBatch == 0) o.globalBatch = batch;
    if (o.dSteps == 0) o.dSteps = dSteps;
    // --ema-start given while the EMA is off (--ema 0, or a preset without one) would be ignored.
    const bool emaStartGiven = o.emaStart >= 0;
    if (o.ema < 0) o.ema = ema;
    if (o.emaStart < 0) o.emaStart = emaStart;
    if (emaStartGiven && o.ema == 0)
        return Status::failure("option --ema-start: the EMA is off (--ema 0, or preset '" + o.preset +
                               "' without one), so there is nothing to start; give --ema DECAY");
    if (o.loss.empty()) o.loss = loss;
    // PacGAN (Lin et al. 2018): D sees packs of 2 points, which makes mode collapse visible to it;
    // the images models judge single samples. The grid's pairs are 625 bumps in 4-D where single
    // points are 25 in 2-D: packed, D never resolved them within the step budget, unpacked it
    // does (and R1 already keeps every mode covered).
    if (o.pack == 0) o.pack = o.model == "mlp" && o.data != "grid25" ? 2 : 1;
    if (o.steps == 0) o.steps = protocol::ganDefaultSteps(o.data);
    if (o.r1Gamma < 0) o.r1Gamma = r1;
    if (o.sampleEvery < 0) o.sampleEvery = 50;
    // Fashion-MNIST's quality measurement generates and classifies 10,000 images (seconds), so by
    // default it runs once, at the end; the mixtures' is cheap and runs with every sample.
    if (o.metricEvery < 0) o.metricEvery = o.data == "fashion-mnist" ? 0 : o.sampleEvery;
    o.presetApplied = true;

    if (Status s = checkSide("g", o.g); !s) return s;
    if (Status s = checkSide("d", o.d); !s) return s;
    if (!oneOf(o.loss, {"bce", "hinge", "minimax"}))
        return Status::failure("unknown loss '" + o.loss + "' (known: bce, hinge, minimax)");
    if (o.data == "fashion-mnist" && o.resolution != 32)
        return Status::failure("option --resolution: Fashion-MNIST trains at 32 px (its 28 px images padded), not " +
                               std::to_string(o.resolution));
    if (o.model != "mlp" && o.resolution != 32 && o.resolution != 64)
        return Status::failure("option --resolution: " + std::to_string(o.resolution) + " is not 32 or 64");
    if (o.width < 4 || o.width > 1024) return Status::failure("option --width: must lie in [4, 1024]");
    if (o.zDim < 1 || o.zDim > 4096) return Status::failure("option --z-dim: must lie in [1, 4096]");
    if (o.model != "mlp" && (o.gLayers != 0 || o.gWidth != 0))
        return Status::failure("options --g-layers/--g-width: they shape the MLP of the 2-D mixtures, not model '" + o.model + "'");
    if (o.model == "biggan" && !o.dNorm.empty())
        return Status::failure("option --d-norm: model 'biggan' has spectral norm on every layer of D already");
    if (o.model == "dcgan" && !oneOf(o.dNorm, {"batch", "batch-detached", "batch-real", "spectral", "layer", "none"}))
        return Status::failure("option --d-norm: '" + o.dNorm + "' is not batch, batch-detached, batch-real, spectral, layer or none");
    if (o.model == "mlp" && (o.gLayers < 1 || o.gLayers > 8)) return Status::failure("option --g-layers: must lie in [1, 8]");
    if (o.model == "mlp" && (o.gWidth < 4 || o.gWidth > 1024)) return Status::failure("option --g-width: must lie in [4, 1024]");
    if (o.model == "mlp" && !oneOf(o.dNorm, {"none", "spectral"}))
        return Status::failure("option --d-norm: '" + o.dNorm + "' is not none or spectral");
    if (o.steps < 1) return Status::failure("option --steps: must be >= 1");
    if (o.localBatch < 0 || o.globalBatch < 0) return Status::failure("option --batch/--global-batch: must be > 0");
    if (o.pack < 1 || o.pack > 16) return Status::failure("option --pack: must lie in [1, 16]");
    if (o.pack > 1 && o.model != "mlp") return Status::failure("option --pack: packing is for the MLP on the 2-D mixtures");
    if (o.dSteps < 1 || o.dSteps > 16) return Status::failure("option --d-steps: must lie in [1, 16]");
    if (o.staleness < 0 || o.staleness > 64) return Status::failure("option --staleness: must lie in [0, 64]");
    // The shared D forward is a staleness (on D's side, of 1 update), so it belongs to the
    // asynchronous mode and its bound; without --async it would silently do nothing.
    if (o.sharedDForward && !o.async)
        return Status::failure("option --shared-d-forward: G's gradient through the D of one update before is asynchronous "
                               "training; give --async as well");
    // Extrapolation predicts the other player's next update for the simultaneous step; the
    // alternating (synchronous) and buffered steps have no such step to correct.
    if (o.extrapolate != "none" && !(o.async && o.sharedDForward))
        return Status::failure("option --extrapolate: it corrects the simultaneous step of the shared D forward; give --async "
                               "--shared-d-forward as well");
    // One backward pass through D serves G only where each fake's input gradient from G's loss is
    // that of D's loss times a number of its own (docs/paragan.md, "One backward through D"):
    // a D that mixes the samples of a batch (batch norm) gives no such number, except for the
    // minimax loss, whose G loss is minus D's fake-half loss as a function of the whole batch.
    if (o.singleDBackward && !(o.async && o.sharedDForward))
        return Status::failure("option --single-d-backward: it takes G's gradient from the shared D forward's backward pass; "
                               "give --async --shared-d-forward as well");
    if (o.singleDBackward && o.model == "dcgan" && o.dNorm == "batch" && o.loss != "minimax")
        return Status::failure("option --single-d-backward: D's batch norm couples the samples of a batch, so G's gradient "
                               "is not a per-sample rescale of D's for loss '" + o.loss +
                               "'; give --loss minimax (G's loss minus D's fake half, exact with batch norm) or --d-norm "
                               "batch-real, batch-detached, spectral, layer or none");
    // The same one pass through a batch-norm D is an approximation of G's gradient (the batch
    // statistics' share of it is dropped per sample); where the exact one exists it is refused.
    if (o.approxSingleDBackward && !(o.async && o.sharedDForward))
        return Status::failure("option --approx-single-d-backward: it takes G's gradient from the shared D forward's backward "
                               "pass; give --async --shared-d-forward as well");
    if (o.approxSingleDBackward && !(o.model == "dcgan" && o.dNorm == "batch"))
        return Status::failure("option --approx-single-d-backward: it approximates G's gradient through DCGAN's batch-norm D; "
                               "this D mixes no samples in its backward, so give --single-d-backward, which is exact");
    if (o.approxSingleDBackward && o.loss == "minimax")
        return Status::failure("option --approx-single-d-backward: it approximates G's gradient through DCGAN's batch-norm D; "
                               "with --loss minimax G's loss is minus D's fake half, so give --single-d-backward, which is exact");
    if (o.loaderThreads < 1 || o.loaderThreads > 16) return Status::failure("option --loader-threads: must lie in [1, 16]");
    if (o.prefetch < 1 || o.prefetch > 64) return Status::failure("option --prefetch: must lie in [1, 64]");
    if (o.ioLatencyMs < 0) return Status::failure("option --io-latency-ms: must be >= 0");
    if (o.ema < 0 || o.ema >= 1) return Status::failure("option --ema: must lie in [0, 1)");
    if (o.emaStart < 0 || o.emaStart >= 1) return Status::failure("option --ema-start: must lie in [0, 1)");
    if (!oneOf(o.layout, {"auto", "contiguous", "channels_last"}))
        return Status::failure("option --layout: '" + o.layout + "' is not auto, contiguous or channels_last");
    if (!oneOf(o.channelPad, {"auto", "on", "off"}))
        return Status::failure("option --channel-pad: '" + o.channelPad + "' is not auto, on or off");
    if (o.checkpointEvery < 0 || o.sampleEvery < 0 || o.metricEvery < 0)
        return Status::failure("options --checkpoint-every/--sample-every/--metric-every: must be >= 0");
    if (o.resume && o.runDir.empty()) return Status::failure("option --resume needs --run-dir");
    return {};
}

std::string ganUsage()
{
    return "usage: mpirun -np N tapas-worker gan [options]   (docs/paragan.md)\n"
           "  --data ring8|grid25|shapes|fashion-mnist|folder  --data-dir DIR  --mixture-std S  --classifier-cache FILE\n"
           "  --model mlp|dcgan|biggan  --resolution 32|64  --width C  --z-dim Z  --self-attention\n"
           "  --g-layers N  --g-width U (the mixtures' MLP: G's hidden layers and units)\n"
           "  --d-norm none|spectral (mlp) | batch|batch-real|batch-detached|spectral|layer|none (dcgan): what normalises D's layers\n"
           "  --ema DECAY  --loss bce|hinge|minimax  --pack M  --r1-gamma G  --steps N  --batch LOCAL | --global-batch G  --d-steps N\n"
           "  --lr-g/--lr-d LR  --beta1-g/--beta2-g/--beta1-d/--beta2-d B  --warmup-g/--warmup-d N\n"
           "  --decay-g/--decay-d none|linear|cosine  --decay-floor-g/--decay-floor-d F  --lr-scaling-g/--lr-scaling-d none|linear|sqrt\n"
           "  --ema D  --ema-start F (fraction of the steps before the EMA averages)\n"
           "  --async [--staleness K] [--shared-d-forward [--extrapolate none|d|g|both] [--single-d-backward | --approx-single-d-backward]]  --share-fake on|off\n"
           "  --loader-threads N  --prefetch N  --static-pipeline\n"
           "  --io-latency-ms MS  --layout auto|contiguous|channels_last  --channel-pad auto|on|off\n"
           "  --run-dir DIR  --run-id ID  --metrics-port P (token in TAPAS_METRICS_TOKEN)  --checkpoint-every K\n"
           "  --sample-every K (0: none)  --metric-every K  --resume  --seed S\n"
           "  --threads T (default: the CPUs this rank may use over the ranks on its host)\n";
}

} // namespace tapas::runtime::gan
