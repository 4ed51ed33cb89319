#include "runtime/gan/gan_options.h"

#include <cstdlib>
#include <functional>
#include <map>

namespace tapas::runtime::gan {
namespace {

bool parseBoolWord(const std::string& s, bool& out)
{
    if (s == "1" || s == "true" || s == "on" || s == "yes") { out = true; return true; }
    if (s == "0" || s == "false" || s == "off" || s == "no") { out = false; return true; }
    return false;
}

Status toInt(const std::string& name, const std::string& v, int& out)
{
    char* end = nullptr;
    const long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end) return Status::failure("option " + name + ": '" + v + "' is not an integer");
    out = static_cast<int>(x);
    return {};
}

Status toDouble(const std::string& name, const std::string& v, double& out)
{
    char* end = nullptr;
    out = std::strtod(v.c_str(), &end);
    if (v.empty() || *end) return Status::failure("option " + name + ": '" + v + "' is not a number");
    return {};
}

using Setter = std::function<Status(GanOptions&, const std::string& name, const std::string& value)>;

Setter intOf(int GanOptions::*m) { return [m](GanOptions& o, const std::string& n, const std::string& v) { return toInt(n, v, o.*m); }; }
Setter dblOf(double GanOptions::*m) { return [m](GanOptions& o, const std::string& n, const std::string& v) { return toDouble(n, v, o.*m); }; }
Setter strOf(std::string GanOptions::*m) { return [m](GanOptions& o, const std::string&, const std::string& v) { o.*m = v; return Status{}; }; }
Setter sideDbl(SidePolicy GanOptions::*side, double SidePolicy::*m)
{
    return [side, m](GanOptions& o, const std::string& n, const std::string& v) { return toDouble(n, v, (o.*side).*m); };
}
Setter sideInt(SidePolicy GanOptions::*side, int SidePolicy::*m)
{
    return [side, m](GanOptions& o, const std::string& n, const std::string& v) { return toInt(n, v, (o.*side).*m); };
}
Setter sideStr(SidePolicy GanOptions::*side, std::string SidePolicy::*m)
{
    return [side, m](GanOptions& o, const std::string&, const std::string& v) { (o.*side).*m = v; return Status{}; };
}

const std::map<std::string, Setter>& valueOptions()
{
    static const std::map<std::string, Setter> table = {
        {"--data", strOf(&GanOptions::data)},
        {"--data-dir", [](GanOptions& o, const std::string&, const std::string& v) {
             o.dataDir = v;
             if (o.data == "ring8") o.data = "folder"; // --data-dir alone means a folder data set
             return Status{};
         }},
        {"--mixture-std", dblOf(&GanOptions::mixtureStd)},
        {"--model", strOf(&GanOptions::model)},
        {"--resolution", intOf(&GanOptions::resolution)},
        {"--width", intOf(&GanOptions::width)},
        {"--z-dim", intOf(&GanOptions::zDim)},
        {"--ema", dblOf(&GanOptions::ema)},
        {"--loss", strOf(&GanOptions::loss)},
        {"--pack", intOf(&GanOptions::pack)},
        {"--steps", intOf(&GanOptions::steps)},
        {"--batch", intOf(&GanOptions::localBatch)},
        {"--global-batch", intOf(&GanOptions::globalBatch)},
        {"--reference-batch", intOf(&GanOptions::referenceBatch)},
        {"--d-steps", intOf(&GanOptions::dSteps)},
        {"--lr-g", sideDbl(&GanOptions::g, &SidePolicy::lr)},
        {"--lr-d", sideDbl(&GanOptions::d, &SidePolicy::lr)},
        {"--beta1-g", sideDbl(&GanOptions::g, &SidePolicy::beta1)},
        {"--beta2-g", sideDbl(&GanOptions::g, &SidePolicy::beta2)},
        {"--beta1-d", sideDbl(&GanOptions::d, &SidePolicy::beta1)},
        {"--beta2-d", sideDbl(&GanOptions::d, &SidePolicy::beta2)},
        {"--warmup-g", sideInt(&GanOptions::g, &SidePolicy::warmupSteps)},
        {"--warmup-d", sideInt(&GanOptions::d, &SidePolicy::warmupSteps)},
        {"--decay-g", sideStr(&GanOptions::g, &SidePolicy::decay)},
        {"--decay-d", sideStr(&GanOptions::d, &SidePolicy::decay)},
        {"--lr-scaling-g", sideStr(&GanOptions::g, &SidePolicy::scaling)},
        {"--lr-scaling-d", sideStr(&GanOptions::d, &SidePolicy::scaling)},
        {"--staleness", intOf(&GanOptions::staleness)},
        {"--loader-threads", intOf(&GanOptions::loaderThreads)},
        {"--prefetch", intOf(&GanOptions::prefetch)},
        {"--io-latency-ms", dblOf(&GanOptions::ioLatencyMs)},
        {"--layout", strOf(&GanOptions::layout)},
        {"--channel-pad", strOf(&GanOptions::channelPad)},
        {"--run-dir", strOf(&GanOptions::runDir)},
        {"--run-id", strOf(&GanOptions::runId)},
        {"--metrics-port", intOf(&GanOptions::metricsPort)},
        {"--metrics-token", strOf(&GanOptions::metricsToken)},
        {"--checkpoint-every", intOf(&GanOptions::checkpointEvery)},
        {"--sample-every", intOf(&GanOptions::sampleEvery)},
        {"--metric-every", intOf(&GanOptions::metricEvery)},
        {"--seed", [](GanOptions& o, const std::string& n, const std::string& v) {
             int s = 0;
             Status st = toInt(n, v, s);
             o.seed = static_cast<unsigned long long>(s);
             return st;
         }},
        {"--threads", intOf(&GanOptions::threads)},
    };
    return table;
}

const std::map<std::string, bool GanOptions::*>& switchOptions()
{
    static const std::map<std::string, bool GanOptions::*> table = {
        {"--async", &GanOptions::async},
        {"--self-attention", &GanOptions::selfAttention},
        {"--adaptive-pipeline", &GanOptions::adaptivePipeline},
        {"--resume", &GanOptions::resume},
    };
    return table;
}

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

} // namespace

Result<GanOptions> parseGanOptions(const std::vector<std::string>& args)
{
    GanOptions o;
    // Learning rates 0 mean "take the preset's"; parse records what the user set.
    o.g.lr = 0;
    o.d.lr = 0;
    o.g.beta1 = o.d.beta1 = -1;
    o.g.beta2 = o.d.beta2 = -1;
    o.g.decay = o.d.decay = "";
    o.g.scaling = o.d.scaling = "";
    o.g.warmupSteps = o.d.warmupSteps = -1;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (auto it = switchOptions().find(a); it != switchOptions().end()) {
            bool v = true;
            if (i + 1 < args.size() && parseBoolWord(args[i + 1], v)) ++i;
            o.*(it->second) = v;
            continue;
        }
        if (a == "--static-pipeline") { o.adaptivePipeline = false; continue; }
        auto it = valueOptions().find(a);
        if (it == valueOptions().end()) return Result<GanOptions>::failure("unknown option '" + a + "'");
        if (i + 1 >= args.size()) return Result<GanOptions>::failure("option " + a + " needs a value");
        if (Status st = it->second(o, a, args[i + 1]); !st) return Result<GanOptions>::failure(st.error);
        ++i;
    }
    return o;
}

Status applyPresetAndCheck(GanOptions& o)
{
    if (!oneOf(o.data, {"ring8", "grid25", "shapes", "folder"}))
        return Status::failure("unknown data set '" + o.data + "' (known: ring8, grid25, shapes, folder with --data-dir)");
    if (o.data == "folder" && o.dataDir.empty())
        return Status::failure("data set 'folder' needs --data-dir <folder of PNG/JPEG images>");
    const bool mixture = o.data == "ring8" || o.data == "grid25";
    if (o.model.empty()) o.model = mixture ? "mlp" : "dcgan";
    if (!oneOf(o.model, {"mlp", "dcgan", "biggan"}))
        return Status::failure("unknown model '" + o.model + "' (known: mlp, dcgan, biggan)");
    if (mixture != (o.model == "mlp"))
        return Status::failure("model '" + o.model + "' does not fit data set '" + o.data +
                               "' (the MLP is for the 2-D mixtures, DCGAN and BigGAN for images)");

    // Presets: tuned on this machine for the built-in sets (docs/paragan.md, "Presets").
    SidePolicy pg, pd;
    int zDim = 0, batch = 0, dSteps = 1;
    double ema = 0;
    std::string loss = "bce";
    if (o.model == "mlp") {
        o.preset = o.data + "-mlp";
        pg = {1e-3, 0.5, 0.999, 0, "none", "linear"};
        pd = {1e-3, 0.5, 0.999, 0, "none", "sqrt"};
        zDim = 16; batch = 256; dSteps = 1;
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
    };
    if (o.width == 0) o.width = 32;
    fill(o.g, pg);
    fill(o.d, pd);
    if (o.zDim == 0) o.zDim = zDim;
    if (o.referenceBatch == 0) o.referenceBatch = batch;
    if (o.globalBatch == 0 && o.localBatch == 0) o.globalBatch = batch;
    if (o.dSteps == 0) o.dSteps = dSteps;
    if (o.ema < 0) o.ema = ema;
    if (o.loss.empty()) o.loss = loss;
    // PacGAN (Lin et al. 2018): D sees packs of 4 points, which makes mode collapse visible to it;
    // the images models judge single samples.
    if (o.pack == 0) o.pack = o.model == "mlp" ? 4 : 1;
    if (o.sampleEvery == 0) o.sampleEvery = 50;
    if (o.metricEvery == 0) o.metricEvery = o.sampleEvery;
    o.presetApplied = true;

    if (Status s = checkSide("g", o.g); !s) return s;
    if (Status s = checkSide("d", o.d); !s) return s;
    if (!oneOf(o.loss, {"bce", "hinge"})) return Status::failure("unknown loss '" + o.loss + "' (known: bce, hinge)");
    if (o.model != "mlp" && o.resolution != 32 && o.resolution != 64)
        return Status::failure("option --resolution: " + std::to_string(o.resolution) + " is not 32 or 64");
    if (o.width < 4 || o.width > 1024) return Status::failure("option --width: must lie in [4, 1024]");
    if (o.zDim < 1 || o.zDim > 4096) return Status::failure("option --z-dim: must lie in [1, 4096]");
    if (o.steps < 1) return Status::failure("option --steps: must be >= 1");
    if (o.localBatch < 0 || o.globalBatch < 0) return Status::failure("option --batch/--global-batch: must be > 0");
    if (o.pack < 1 || o.pack > 16) return Status::failure("option --pack: must lie in [1, 16]");
    if (o.pack > 1 && o.model != "mlp") return Status::failure("option --pack: packing is for the MLP on the 2-D mixtures");
    if (o.dSteps < 1 || o.dSteps > 16) return Status::failure("option --d-steps: must lie in [1, 16]");
    if (o.staleness < 0 || o.staleness > 64) return Status::failure("option --staleness: must lie in [0, 64]");
    if (o.loaderThreads < 1 || o.loaderThreads > 16) return Status::failure("option --loader-threads: must lie in [1, 16]");
    if (o.prefetch < 1 || o.prefetch > 64) return Status::failure("option --prefetch: must lie in [1, 64]");
    if (o.ioLatencyMs < 0) return Status::failure("option --io-latency-ms: must be >= 0");
    if (o.ema < 0 || o.ema >= 1) return Status::failure("option --ema: must lie in [0, 1)");
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
           "  --data ring8|grid25|shapes|folder  --data-dir DIR  --mixture-std S\n"
           "  --model mlp|dcgan|biggan  --resolution 32|64  --width C  --z-dim Z  --self-attention\n"
           "  --ema DECAY  --loss bce|hinge  --pack M  --steps N  --batch LOCAL | --global-batch G  --d-steps N\n"
           "  --lr-g/--lr-d LR  --beta1-g/--beta2-g/--beta1-d/--beta2-d B  --warmup-g/--warmup-d N\n"
           "  --decay-g/--decay-d none|linear|cosine  --lr-scaling-g/--lr-scaling-d none|linear|sqrt\n"
           "  --async [--staleness K]  --loader-threads N  --prefetch N  --static-pipeline\n"
           "  --io-latency-ms MS  --layout auto|contiguous|channels_last  --channel-pad auto|on|off\n"
           "  --run-dir DIR  --run-id ID  --metrics-port P --metrics-token T  --checkpoint-every K\n"
           "  --sample-every K  --metric-every K  --resume  --seed S  --threads T\n";
}

} // namespace tapas::runtime::gan
