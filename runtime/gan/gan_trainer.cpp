// The ParaGAN training loop: data parallel over the ranks (gradients averaged with all-reduce),
// synchronous or asynchronous with bounded staleness (docs/paragan.md, "Asynchronous mode"),
// asymmetric optimisation per side, the congestion-aware pipeline, the measured layout,
// checkpoints with exact resume, sample grids and the metrics protocol's GAN values.
#include "runtime/gan/gan_models.h" // torch first: Qt-free TU, but keep the house order

#include "runtime/checkpoint_writer.h"
#include "runtime/gan/fashion_mnist.h"
#include "runtime/gan/fashion_quality.h"
#include "runtime/gan/gan_checkpoint.h"
#include "runtime/gan/gan_extrapolation.h"
#include "runtime/gan/gan_image_io.h"
#include "runtime/gan/gan_losses.h"
#include "runtime/gan/gan_pipeline.h"
#include "runtime/gan/gan_policy.h"
#include "runtime/gan/gan_single_backward.h"
#include "runtime/gan/gan_trainer.h"
#include "runtime/protocol/durable_file.h"
#include "runtime/protocol/run_directory.h"
#include "runtime/worker_info.h"

#include <ATen/CPUGeneratorImpl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>

namespace F = torch::nn::functional;
namespace fs = std::filesystem;

namespace tapas::runtime::gan {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Gradients of a module flattened into one buffer, so one all-reduce carries a whole side.
class GradBuffer {
public:
    explicit GradBuffer(torch::nn::Module& m) : params_(m.parameters())
    {
        size_t n = 0;
        for (auto& p : params_) n += size_t(p.numel());
        flat_ = torch::zeros({int64_t(n)});
    }
    float* gather()
    {
        int64_t off = 0;
        for (auto& p : params_) {
            const int64_t n = p.numel();
            if (p.grad().defined()) flat_.narrow(0, off, n).copy_(p.grad().reshape({-1}));
            else flat_.narrow(0, off, n).zero_();
            off += n;
        }
        return flat_.data_ptr<float>();
    }
    size_t count() const { return size_t(flat_.numel()); }
    // Writes the summed buffer back as the mean over `ranks`; returns the gradient's norm.
    double scatter(int ranks)
    {
        flat_.div_(double(ranks));
        int64_t off = 0;
        for (auto& p : params_) {
            const int64_t n = p.numel();
            if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
            p.mutable_grad().copy_(flat_.narrow(0, off, n).view_as(p));
            off += n;
        }
        return flat_.norm().item<double>();
    }
private:
    std::vector<torch::Tensor> params_;
    torch::Tensor flat_;
};

void setLr(torch::optim::Adam& opt, double lr)
{
    for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
}

// A fake batch waiting in the asynchronous buffer, tagged with the G version that made it.
struct FakeBatch {
    torch::Tensor x, y;
    int64_t version = 0;
};

struct StepFigures {
    double gLoss = 0, dLoss = 0, dReal = 0, dFake = 0, gNorm = 0, dNorm = 0;
    double dataWait = 0, compute = 0, comm = 0;
    int staleness = 0;  // G side: G updates the fakes D trained on are behind (the buffer's)
    int dStaleness = 0; // D side: D updates the D that G's gradient went through is behind sync's
    int gForwards = 0, dForwards = 0; // network passes this step (forward calls, each a batch)
    int dBackwards = 0;               // backward passes through D (D's loss, and G's where it takes its own)
};

} // namespace

class GanTrainer {
public:
    explicit GanTrainer(TrainerEnv& env)
        : env_(env), o_(*env.options), data_(*env.data), comm_(*env.comm), rank_(comm_.rank()), ranks_(comm_.size()) {}

    int run();

private:
    Status setUp();
    torch::Tensor noise(int64_t n, uint64_t a, uint64_t b);
    torch::Tensor labels(int64_t n, uint64_t a, uint64_t b);
    torch::Tensor prepareForD(torch::Tensor x) const;
    torch::Tensor judgeFakes(const torch::Tensor& x, const torch::Tensor& y);
    Status trainStep(int step, StepFigures& f);
    Status finishStep(StepFigures& f, Clock::time_point computeStart);
    void applyPendingG(StepFigures& f);
    void applyPendingD(StepFigures& f);
    void updateEma();
    void report(int stepsDone, const StepFigures& f, double stepTime);
    void evaluate(int stepsDone, bool final);
    void evaluateImages(int stepsDone, GeneratorNet& gen);
    Status checkpoint(int stepsDone);
    Status loadCheckpoint(const std::string& dir);
    int failRecord(); // the sink could not write: every rank ends, rank 0 records why
    void emit(const protocol::MetricsEvent& e) { if (env_.sink) env_.sink->record(e); }
    void logInfo(const std::string& text);

    TrainerEnv& env_;
    const GanOptions& o_;
    const DataSource& data_;
    Communicator& comm_;
    int rank_, ranks_;
    ModelSpec spec_;
    ScalingDecision scale_;
    LayoutChoice layout_;
    std::shared_ptr<GeneratorNet> g_, ema_;
    std::shared_ptr<DiscriminatorNet> d_;
    std::unique_ptr<torch::optim::Adam> optG_, optD_;
    std::unique_ptr<GradBuffer> gradG_, gradD_;
    std::unique_ptr<DataPipeline> pipeline_;
    std::deque<FakeBatch> buffer_;
    std::unique_ptr<PendingCollective> pendingG_;
    std::unique_ptr<PendingCollective> pendingD_; // shared D forward: D's all-reduce, applied before D's next forward
    std::unique_ptr<PastExtrapolation> exG_, exD_; // shared D forward, --extrapolate: gradients at θ_t + (θ_t − θ_{t−1})
    int64_t gVersion_ = 0;   // G updates applied
    int64_t gIssued_ = 0;    // G updates whose gradients are computed (applied or in flight)
    int startStep_ = 0;
    int64_t dataStart_ = 0;
    bool asyncOn_ = false;
    bool sharedD_ = false; // asynchronous, with G's gradient through the D of the step's start
    torch::Tensor fixedZ_, fixedY_;
    double lrG_ = 0, lrD_ = 0;
    std::unique_ptr<FashionQuality> quality_; // rank 0, Fashion-MNIST only, opened at the first evaluation
    std::string qualityError_;
};

torch::Tensor GanTrainer::noise(int64_t n, uint64_t a, uint64_t b)
{
    // Every random draw is a function of (seed, rank, step, purpose): resume needs no RNG state
    // beyond the step number, and the checkpoint records it.
    auto gen = at::detail::createCPUGenerator(mixSeed(o_.seed, uint64_t(rank_) + 1, a, b));
    return torch::randn({n, spec_.zDim}, gen);
}

torch::Tensor GanTrainer::labels(int64_t n, uint64_t a, uint64_t b)
{
    if (spec_.numClasses <= 1) return torch::zeros({n}, torch::kLong);
    auto gen = at::detail::createCPUGenerator(mixSeed(o_.seed, uint64_t(rank_) + 1, a, b ^ 0x1abe1));
    return torch::randint(spec_.numClasses, {n}, gen, torch::kLong);
}

torch::Tensor GanTrainer::prepareForD(torch::Tensor x) const
{
    if (data_.isMixture()) return o_.pack > 1 ? x.reshape({-1, 2 * o_.pack}) : x; // PacGAN packs
    if (layout_.padChannels) x = F::pad(x, F::PadFuncOptions({0, 0, 0, 0, 0, 1}));
    if (layout_.channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    return x;
}

// D's scores of a fake batch; D is told it judges fakes (`--d-norm batch-real` normalises them
// with the last real batch's statistics).
torch::Tensor GanTrainer::judgeFakes(const torch::Tensor& x, const torch::Tensor& y)
{
    d_->setJudgingFakes(true);
    auto scores = d_->forward(x, y);
    d_->setJudgingFakes(false);
    return scores;
}

void GanTrainer::logInfo(const std::string& text)
{
    if (rank_ != 0) return;
    std::fprintf(stderr, "[gan] %s\n", text.c_str());
    emit(protocol::MetricsEvent::logEvent("info", 0, text));
}

Status GanTrainer::setUp()
{
    at::set_num_threads(o_.threads > 0 ? o_.threads : defaultComputeThreads());
    CheckpointMeta meta;
    std::string resumeDir;
    if (o_.resume) {
        Result<std::string> dir = latestCheckpointDir(o_.runDir);
        if (!dir) return Status::failure(dir.error());
        Result<CheckpointMeta> m = readCheckpointMeta(*dir);
        if (!m) return Status::failure(m.error());
        meta = *m;
        if (meta.model != o_.model || meta.data != o_.data)
            return Status::failure("checkpoint '" + *dir + "' trained model '" + meta.model + "' on '" + meta.data +
                                   "', not '" + o_.model + "' on '" + o_.data + "'");
        resumeDir = *dir;
    }
    Result<ScalingDecision> sd = decideScaling(o_, ranks_, meta.globalBatch, meta.ranks);
    if (!sd) return Status::failure(sd.error());
    scale_ = *sd;
    if (!scale_.note.empty()) logInfo(scale_.note);
    asyncOn_ = o_.async && o_.staleness > 0;
    sharedD_ = asyncOn_ && o_.sharedDForward;

    spec_.kind = o_.model;
    spec_.zDim = o_.zDim;
    spec_.width = o_.width;
    spec_.resolution = o_.resolution;
    spec_.outChannels = data_.channels();
    spec_.numClasses = o_.model == "biggan" ? data_.numClasses() : 1;
    spec_.selfAttention = o_.selfAttention;
    spec_.gLayers = o_.gLayers;
    spec_.gWidth = o_.gWidth;
    spec_.dNorm = o_.dNorm == "spectral" ? DNorm::Spectral
                  : o_.dNorm == "batch"  ? DNorm::Batch
                  : o_.dNorm == "layer"  ? DNorm::Layer
                  : o_.dNorm == "batch-detached" ? DNorm::BatchDetached
                  : o_.dNorm == "batch-real" ? DNorm::BatchReal
                                         : DNorm::None;

    // Hardware-aware layout: measured on rank 0 (every rank runs the same build on the same
    // kind of machine), broadcast so all replicas compute identically; a resumed run keeps the
    // layout its checkpoint was trained with, so its numerics continue bit-for-bit.
    if (!resumeDir.empty()) {
        layout_.channelsLast = meta.channelsLast;
        layout_.padChannels = meta.padChannels;
    } else if (o_.model != "mlp") {
        float choice[2] = {0, 0};
        if (rank_ == 0) {
            // Padding 3 channels to 4 aligns RGB pixels for vector loads; a greyscale set has nothing to pad.
            layout_ = probeLayout(spec_, std::min(scale_.localBatch, 32), o_.layout, data_.channels() == 3 ? o_.channelPad : "off");
            choice[0] = layout_.channelsLast ? 1.f : 0.f;
            choice[1] = layout_.padChannels ? 1.f : 0.f;
        }
        comm_.broadcast(choice, 2, 0);
        layout_.channelsLast = choice[0] > 0.5f;
        layout_.padChannels = choice[1] > 0.5f;
    }
    spec_.dInChannels = data_.isMixture() ? 2 * o_.pack : data_.channels() + (layout_.padChannels ? 1 : 0);
    if (scale_.localBatch % o_.pack != 0)
        return Status::failure("option --pack: the local batch " + std::to_string(scale_.localBatch) +
                               " is not a multiple of the pack size " + std::to_string(o_.pack));

    torch::manual_seed(o_.seed); // same initial weights on every rank
    g_ = makeGenerator(spec_);
    d_ = makeDiscriminator(spec_);
    if (o_.ema > 0) {
        ema_ = makeGenerator(spec_);
        copyModule(*ema_, *g_);
    }
    if (layout_.channelsLast) {
        toChannelsLast(*g_);
        toChannelsLast(*d_);
        if (ema_) toChannelsLast(*ema_);
    }
    optG_ = std::make_unique<torch::optim::Adam>(g_->parameters(),
        torch::optim::AdamOptions(o_.g.lr).betas({o_.g.beta1, o_.g.beta2}));
    optD_ = std::make_unique<torch::optim::Adam>(d_->parameters(),
        torch::optim::AdamOptions(o_.d.lr).betas({o_.d.beta1, o_.d.beta2}));
    if (!resumeDir.empty()) {
        if (Status s = loadCheckpoint(resumeDir); !s) return s;
        startStep_ = meta.step;
        dataStart_ = meta.dataPosition;
        gVersion_ = gIssued_ = meta.gVersion;
        logInfo("resumed from " + resumeDir + " at step " + std::to_string(startStep_));
    }
    gradG_ = std::make_unique<GradBuffer>(*g_);
    gradD_ = std::make_unique<GradBuffer>(*d_);
    if (sharedD_ && (o_.extrapolate == "g" || o_.extrapolate == "both")) exG_ = std::make_unique<PastExtrapolation>(*g_);
    if (sharedD_ && (o_.extrapolate == "d" || o_.extrapolate == "both")) exD_ = std::make_unique<PastExtrapolation>(*d_);

    PipelineSettings ps;
    ps.threads = o_.loaderThreads;
    ps.prefetch = o_.prefetch;
    ps.adaptive = o_.adaptivePipeline;
    ps.ioLatencyMs = o_.ioLatencyMs;
    pipeline_ = std::make_unique<DataPipeline>(data_, scale_.localBatch, rank_, ranks_, ps, dataStart_);

    const int64_t nFixed = data_.isMixture() ? kMixtureEvalSamples : 64;
    auto gen = at::detail::createCPUGenerator(mixSeed(o_.seed, 0xf1ed));
    fixedZ_ = torch::randn({nFixed, spec_.zDim}, gen);
    fixedY_ = torch::arange(nFixed, torch::kLong).remainder(std::max(1, spec_.numClasses));

    if (rank_ == 0) {
        auto e = protocol::MetricsEvent::statusEvent("running", "ParaGAN " + o_.model + " on " + data_.name());
        e.fields = {{"model", o_.model}, {"data", data_.name()}, {"preset", o_.preset},
                    {"mode", asyncOn_ ? "async" : "sync"}, {"staleness_bound", std::to_string(asyncOn_ ? o_.staleness : 0)},
                    {"shared_d_forward", sharedD_ ? "on" : "off"}, {"share_fake", o_.shareFake ? "on" : "off"},
                    {"extrapolate", sharedD_ ? o_.extrapolate : std::string("none")},
                    {"single_d_backward", sharedD_ && o_.singleDBackward ? "on" : sharedD_ && o_.approxSingleDBackward ? "approx" : "off"},
                    {"ranks", std::to_string(ranks_)}, {"local_batch", std::to_string(scale_.localBatch)},
                    {"global_batch", std::to_string(scale_.globalBatch)}, {"d_steps", std::to_string(o_.dSteps)},
                    {"loss", o_.loss}, {"ema", std::to_string(o_.ema)}, {"ema_start", std::to_string(o_.emaStart)},
                    {"pack", std::to_string(o_.pack)}, {"g_layers", std::to_string(o_.gLayers)},
                    {"g_width", std::to_string(o_.gWidth)}, {"d_norm", o_.dNorm},
                    {"r1_gamma", std::to_string(o_.r1Gamma)}, {"steps", std::to_string(o_.steps)},
                    {"layout", layout_.channelsLast ? "channels_last" : "contiguous"},
                    {"channel_pad", layout_.padChannels ? "on" : "off"},
                    {"layout_measured", layout_.measured ? "yes" : "no"},
                    {"contiguous_ms", std::to_string(layout_.contiguousMs)},
                    {"channels_last_ms", std::to_string(layout_.channelsLastMs)},
                    {"padded_ms", std::to_string(layout_.paddedMs)}, {"unpadded_ms", std::to_string(layout_.unpaddedMs)},
                    {"lr_scale_g", std::to_string(scale_.scaleG)}, {"lr_scale_d", std::to_string(scale_.scaleD)},
                    {"resumed_from_step", std::to_string(startStep_)}};
        emit(e);
        logInfo("layout: " + std::string(layout_.channelsLast ? "channels_last" : "contiguous") + ", channel padding " +
                (layout_.padChannels ? "on" : "off") +
                (layout_.measured ? " (measured: contiguous " + std::to_string(layout_.contiguousMs) + " ms, channels_last " +
                                        std::to_string(layout_.channelsLastMs) + " ms)"
                                  : ""));
    }
    return {};
}

void GanTrainer::applyPendingG(StepFigures& f)
{
    if (!pendingG_) return;
    const auto t0 = Clock::now();
    pendingG_->wait();
    f.comm += since(t0);
    pendingG_.reset();
    f.gNorm = gradG_->scatter(ranks_);
    optG_->step();
    ++gVersion_;
    updateEma();
}

void GanTrainer::applyPendingD(StepFigures& f)
{
    if (!pendingD_) return;
    const auto t0 = Clock::now();
    pendingD_->wait();
    f.comm += since(t0);
    pendingD_.reset();
    f.dNorm = gradD_->scatter(ranks_);
    optD_->step();
}

// The EMA copy follows G exactly until --ema-start's share of the steps is done, then averages:
// averaged early, while the modes still move, it is a blur of where they were.
void GanTrainer::updateEma()
{
    if (!ema_) return;
    if (gVersion_ <= int64_t(o_.emaStart * o_.steps)) copyModule(*ema_, *g_);
    else emaUpdate(*ema_, *g_, o_.ema);
}

Status GanTrainer::trainStep(int step, StepFigures& f)
{
    g_->train();
    d_->train();
    lrG_ = scheduledLr(o_.g, scale_.scaleG, step, o_.steps);
    lrD_ = scheduledLr(o_.d, scale_.scaleD, step, o_.steps);
    setLr(*optG_, lrG_);
    setLr(*optD_, lrD_);
    const int64_t n = scale_.localBatch;
    auto shapeOf = [&](std::vector<float>& v) {
        auto t = torch::from_blob(v.data(), {int64_t(v.size())}, torch::kFloat).clone();
        return data_.isMixture() ? t.view({n, 2}) : t.view({n, data_.channels(), data_.height(), data_.width()});
    };
    torch::Tensor gFake, gY; // the G step's fake batch (with graph), made while D's all-reduce runs
    for (int k = 0; k < o_.dSteps; ++k) {
        double wait = 0;
        Result<Batch> b = pipeline_->next(wait);
        if (!b) return Status::failure("rank " + std::to_string(rank_) + ": " + b.error());
        f.dataWait += wait;
        const auto tc = Clock::now();
        auto real = prepareForD(shapeOf(b->x));
        // R1 (Mescheder et al. 2018) penalises D's gradient on real data, which lets the pair
        // settle on the data instead of circling it: the mixtures' precision depends on it.
        if (o_.r1Gamma > 0) real = real.detach().requires_grad_(true);
        const auto realY = torch::from_blob(b->y.data(), {n}, torch::kLong).clone();
        const bool last = k + 1 == o_.dSteps;
        // G's own batch serves the last D step too (as PyTorch's DCGAN example does): made once,
        // with graph, while G's weights are the ones it is judged with. Synchronous steps only
        // (asynchronous D steps train on the buffer, into which G's batch goes unseen), and
        // always with the shared D forward, whose point is one D forward for both losses.
        const bool gBatchForD = last && (sharedD_ || (!asyncOn_ && o_.shareFake));
        // The fake half: in async mode the oldest buffered batch within the staleness bound,
        // which D uses without waiting for the newest G weights; otherwise a fresh one.
        FakeBatch fake;
        while (asyncOn_ && !buffer_.empty() && gIssued_ - buffer_.front().version > o_.staleness) buffer_.pop_front();
        if (asyncOn_ && !sharedD_ && !buffer_.empty()) {
            fake = std::move(buffer_.front());
            buffer_.pop_front();
        } else if (gBatchForD) {
            gY = labels(n, uint64_t(step), 1000);
            if (exG_) exG_->enter(); // G's batch from G's extrapolated weights; left after the backward passes
            gFake = g_->forward(noise(n, uint64_t(step), 1000), gY);
            ++f.gForwards;
            fake = {gFake.detach(), gY, gVersion_};
        } else {
            torch::NoGradGuard ng;
            fake.y = labels(n, uint64_t(step), uint64_t(k));
            fake.x = g_->forward(noise(n, uint64_t(step), uint64_t(k)), fake.y);
            ++f.gForwards;
            fake.version = gVersion_;
        }
        f.staleness = std::max<int>(f.staleness, int(gIssued_ - fake.version));
        applyPendingD(f); // the previous step's D update lands before D reads its weights again
        optD_->zero_grad();
        // Shared D forward: D's scores of G's batch (with graph) serve D's loss and G's.
        const bool sharedScores = sharedD_ && last;
        if (exD_) exD_->enter();
        const auto dr = d_->forward(real, realY), df = judgeFakes(prepareForD(sharedScores ? gFake : fake.x), fake.y);
        f.dForwards += 2;
        auto loss = discriminatorLoss(o_.loss, dr, df);
        if (o_.r1Gamma > 0) loss = loss + r1Penalty(dr, real, o_.r1Gamma);
        // --single-d-backward: the factor that turns D's input gradient on G's batch into G's
        // (gan_single_backward.h); undefined on a step where it does not exist (two passes then).
        const torch::Tensor factor = sharedScores && (o_.singleDBackward || o_.approxSingleDBackward)
            ? gInputGradFactor(o_.loss, df, data_.isMixture() ? o_.pack : 1, gFake.dim())
            : torch::Tensor();
        bool dBackwardDone = false;
        if (sharedScores) {
            // G's gradient through the D that has not made this step's update: one D update older
            // than synchronous training's. Its all-reduce runs while D's backward computes.
            optG_->zero_grad();
            f.dStaleness = 1;
            ++gIssued_;
            if (factor.defined()) {
                // One pass back through D: D's weight gradients and, per sample rescaled, G's
                // gradient at its batch; then G's own backward from there. G's all-reduce runs
                // while D's gradients are gathered and its all-reduce started.
                const auto gradX = backwardDOnce(loss, d_->parameters(), gFake, factor);
                ++f.dBackwards;
                dBackwardDone = true;
                {
                    torch::NoGradGuard ng;
                    f.gLoss = generatorLoss(o_.loss, df.detach()).item<double>();
                }
                gFake.backward(gradX, /*retain_graph=*/false, /*create_graph=*/false, g_->parameters());
            } else {
                const auto gLoss = generatorLoss(o_.loss, df);
                gLoss.backward({}, /*retain_graph=*/true, /*create_graph=*/false, g_->parameters());
                ++f.dBackwards;
                f.gLoss = gLoss.item<double>();
            }
            pendingG_ = comm_.allReduceSumAsync(gradG_->gather(), gradG_->count());
        }
        // Only D's weights need gradients: without `inputs` autograd would also fill real.grad
        // (R1 made the real batch a leaf that requires grad), work nothing reads.
        if (!dBackwardDone) {
            loss.backward({}, /*retain_graph=*/false, /*create_graph=*/false, d_->parameters());
            ++f.dBackwards;
        }
        // Both backward passes are done: the weights go back to θ_t, where the updates apply.
        if (exD_) exD_->leave();
        if (exG_) exG_->leave();
        f.dLoss = loss.item<double>();
        f.dReal = o_.loss == "hinge" ? dr.mean().item<double>() : torch::sigmoid(dr).mean().item<double>();
        f.dFake = o_.loss == "hinge" ? df.mean().item<double>() : torch::sigmoid(df).mean().item<double>();
        // The previous step's G update lands after D's first step of this one: that D step
        // never waited for it (asynchronous mode only; synchronous mode has nothing pending).
        // With the shared D forward it is this step's own, applied as soon as D's backward is done.
        if (k == 0 || sharedScores) applyPendingG(f);
        float* buf = gradD_->gather();
        if (sharedScores) {
            // Overlap: D's all-reduce runs across the step boundary, while the next step loads
            // its batch and G makes its fake one; it is applied before D's next forward.
            pendingD_ = comm_.allReduceSumAsync(buf, gradD_->count());
            f.compute += since(tc);
            break;
        }
        if (asyncOn_ && last && !gFake.defined()) {
            // Overlap: D's all-reduce runs while G computes its next fake batch.
            auto pending = comm_.allReduceSumAsync(buf, gradD_->count());
            gY = labels(n, uint64_t(step), 1000);
            gFake = g_->forward(noise(n, uint64_t(step), 1000), gY);
            ++f.gForwards;
            const auto tw = Clock::now();
            pending->wait();
            f.comm += since(tw);
        } else {
            const auto tw = Clock::now();
            comm_.allReduceSum(buf, gradD_->count());
            f.comm += since(tw);
        }
        f.dNorm = gradD_->scatter(ranks_);
        optD_->step();
        f.compute += since(tc);
    }
    const auto tc = Clock::now();
    if (sharedD_) return finishStep(f, tc); // G's update is applied already
    if (!gFake.defined()) {
        gY = labels(n, uint64_t(step), 1000);
        gFake = g_->forward(noise(n, uint64_t(step), 1000), gY);
        ++f.gForwards;
    }
    optG_->zero_grad();
    const auto score = judgeFakes(prepareForD(gFake), gY);
    ++f.dForwards;
    const auto gLoss = generatorLoss(o_.loss, score);
    // G's update needs G's gradients only: D's weight gradients (three GEMMs as large as D's
    // forward) would be computed and then thrown away by D's next zero_grad.
    gLoss.backward({}, /*retain_graph=*/false, /*create_graph=*/false, g_->parameters());
    ++f.dBackwards;
    f.gLoss = gLoss.item<double>();
    float* buf = gradG_->gather();
    ++gIssued_;
    if (asyncOn_) {
        // G's all-reduce overlaps the next step's first D update, which trains on this very
        // batch from the buffer: one G update old, within any bound k >= 1.
        buffer_.push_back({gFake.detach(), gY, gVersion_});
        while (int(buffer_.size()) > o_.staleness) buffer_.pop_front();
        pendingG_ = comm_.allReduceSumAsync(buf, gradG_->count());
    } else {
        const auto tw = Clock::now();
        comm_.allReduceSum(buf, gradG_->count());
        f.comm += since(tw);
        f.gNorm = gradG_->scatter(ranks_);
        optG_->step();
        ++gVersion_;
        updateEma();
    }
    return finishStep(f, tc);
}

Status GanTrainer::finishStep(StepFigures& f, Clock::time_point tc)
{
    f.compute += since(tc);
    f.compute -= f.comm; // compute_time excludes the waits counted as comm_time
    if (f.compute < 0) f.compute = 0;
    return {};
}

void GanTrainer::report(int stepsDone, const StepFigures& f, double stepTime)
{
    // Per-rank figures to rank 0 (and the max over ranks for the step event).
    const size_t kPer = 5;
    float mine[kPer] = {float(stepTime), float(f.dataWait), float(f.compute), float(f.comm), float(pipeline_->queueDepth())};
    std::vector<float> all(kPer * size_t(ranks_));
    comm_.allGather(mine, kPer, all.data());
    if (rank_ != 0) return;
    double mx[kPer] = {0, 0, 0, 0, 0};
    protocol::MetricsEvent rs;
    rs.type = protocol::EventType::RankStats;
    rs.step = stepsDone;
    for (int r = 0; r < ranks_; ++r) {
        protocol::RankStat s;
        s.rank = r;
        s.host = r < int(env_.hosts.size()) ? env_.hosts[size_t(r)] : std::string();
        const float* v = all.data() + kPer * size_t(r);
        s.values = {{"step_time", v[0]}, {"data_wait", v[1]}, {"compute_time", v[2]}, {"comm_time", v[3]}, {"queue_depth", v[4]}};
        for (size_t i = 0; i < kPer; ++i) mx[i] = std::max(mx[i], double(v[i]));
        rs.ranks.push_back(std::move(s));
    }
    emit(protocol::MetricsEvent::stepEvent(stepsDone, {
        {"g_loss", f.gLoss}, {"d_loss", f.dLoss}, {"d_real", f.dReal}, {"d_fake", f.dFake},
        {"g_grad_norm", f.gNorm}, {"d_grad_norm", f.dNorm},
        {"images_per_s", mx[0] > 0 ? double(scale_.globalBatch) * o_.dSteps / mx[0] : 0.0},
        {"step_time", mx[0]}, {"data_wait", mx[1]}, {"compute_time", mx[2]}, {"comm_time", mx[3]},
        {"queue_depth", double(pipeline_->queueDepth())}, {"loader_threads", double(pipeline_->threads())},
        {"prefetch_depth", double(pipeline_->prefetchDepth())}, {"load_latency", pipeline_->meanLoadLatency()},
        {"staleness", double(f.staleness)}, {"d_staleness", double(f.dStaleness)},
        {"g_forwards", double(f.gForwards)}, {"d_forwards", double(f.dForwards)},
        {"d_backwards", double(f.dBackwards)}, {"lr_g", lrG_}, {"lr_d", lrD_},
        {"local_batch", double(scale_.localBatch)}, {"global_batch", double(scale_.globalBatch)}}));
    emit(rs);
}

void GanTrainer::evaluate(int stepsDone, bool final)
{
    if (rank_ != 0) return;
    const bool metricDue = final || (o_.metricEvery > 0 && stepsDone % o_.metricEvery == 0);
    const bool sampleDue = !o_.runDir.empty() && (final || (o_.sampleEvery > 0 && stepsDone % o_.sampleEvery == 0));
    if (!metricDue && !sampleDue) return;
    // A generator's output on the fixed noise, in eval mode (no batch-norm statistics or
    // spectral-norm state changes on rank 0 only) and without autograd; the caller restores train.
    auto samplesOf = [this](GeneratorNet& net) {
        net.eval();
        torch::NoGradGuard ng;
        return net.forward(fixedZ_, fixedY_).contiguous();
    };
    auto valuesOf = [](const torch::Tensor& t) { return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()); };
    auto& gen = ema_ ? ema_ : g_;
    const torch::Tensor out = samplesOf(*gen);
    const std::vector<float> v = valuesOf(out);
    if (metricDue && data_.isMixture()) {
        const MixtureQuality q = evaluateMixture(v, mixtureModes(data_.name()), o_.mixtureStd);
        std::map<std::string, double> values{{"modes_covered", double(q.modesCovered)},
                                             {"high_quality_share", q.highQualityShare},
                                             {"reverse_kl", q.reverseKl}};
        // With an EMA the figures above are the average's; G's own weights, judged on the same
        // noise, go beside them as *_raw, so every run shows what the average adds.
        if (ema_) {
            const MixtureQuality r = evaluateMixture(valuesOf(samplesOf(*g_)), mixtureModes(data_.name()), o_.mixtureStd);
            g_->train();
            values["modes_covered_raw"] = double(r.modesCovered);
            values["high_quality_share_raw"] = r.highQualityShare;
            values["reverse_kl_raw"] = r.reverseKl;
        }
        emit(protocol::MetricsEvent::metricEvent(stepsDone, values));
    }
    if (metricDue && data_.name() == "fashion-mnist") evaluateImages(stepsDone, *gen);
    gen->train();
    if (!sampleDue) return;
    char name[64];
    std::snprintf(name, sizeof name, "step_%06d.png", stepsDone);
    const std::string dir = protocol::samplesDir(o_.runDir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const Status s = data_.isMixture()
        ? writeScatterPlot(dir + "/" + name, v, mixtureModes(data_.name()), o_.mixtureStd)
        : writeImageGrid(dir + "/" + name, v, int(out.size(0)), int(out.size(1)), int(out.size(2)), int(out.size(3)), 8);
    if (!s) {
        emit(protocol::MetricsEvent::logEvent("warn", 0, s.error));
        return;
    }
    emit(protocol::MetricsEvent::sampleEvent(stepsDone, std::string("samples/") + name));
}

// Fashion-MNIST: 10,000 generated images labelled and embedded by the project's classifier
// (runtime/gan/fashion_quality.h). A classifier that cannot be loaded or trained costs the run its
// quality figures, never its training: the reason goes to the log as a warning.
void GanTrainer::evaluateImages(int stepsDone, GeneratorNet& gen)
{
    if (!quality_ && qualityError_.empty()) {
        Result<std::unique_ptr<FashionQuality>> q =
            FashionQuality::open(o_.dataDir, o_.classifierCache, [this](const std::string& t) { logInfo(t); });
        if (q) {
            quality_ = std::move(*q);
            logInfo("quality classifier: test accuracy " + std::to_string(quality_->testAccuracy()) +
                    ", Fréchet distance real against real " + std::to_string(quality_->frechetFloor()));
        } else {
            qualityError_ = q.error();
            emit(protocol::MetricsEvent::logEvent("warn", 0, "no image quality figures: " + qualityError_));
        }
    }
    if (!quality_) return;
    constexpr int64_t kImages = 10000, kChunk = 500;
    std::vector<float> images;
    images.reserve(size_t(kImages) * kFashionMnistSide * kFashionMnistSide);
    {
        torch::NoGradGuard ng;
        auto rng = at::detail::createCPUGenerator(mixSeed(o_.seed, 0x1a6e5));
        for (int64_t i = 0; i < kImages; i += kChunk) {
            const auto z = torch::randn({kChunk, spec_.zDim}, rng);
            const auto y = torch::arange(i, i + kChunk, torch::kLong).remainder(std::max(1, spec_.numClasses));
            const auto x = gen.forward(z, y).contiguous();
            images.insert(images.end(), x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
        }
    }
    const ImageQuality q = quality_->measure(images, kImages);
    emit(protocol::MetricsEvent::metricEvent(stepsDone, {{"classes_covered", double(q.classesCovered)},
                                                         {"class_kl", q.classKl},
                                                         {"frechet_distance", q.frechet},
                                                         {"frechet_floor", quality_->frechetFloor()},
                                                         {"classifier_accuracy", quality_->testAccuracy()}}));
}

// Rank 0 writes everything into checkpoints/.tmp-step-N, renames it to step-N once complete and
// only then moves `latest`; any failure removes the partial folder and is agreed on by all ranks,
// which then end the run `failed` with the cause.
Status GanTrainer::checkpoint(int stepsDone)
{
    StepFigures ignore;
    applyPendingG(ignore); // a checkpoint holds applied updates only
    applyPendingD(ignore);
    const std::string name = checkpointName(stepsDone);
    const std::string root = protocol::checkpointsDir(o_.runDir);
    const std::string tmp = root + "/.tmp-" + name, dir = root + "/" + name;
    Status st;
    if (rank_ == 0) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        fs::create_directories(tmp, ec);
        if (ec) st = Status::failure("checkpoint folder '" + tmp + "': " + ec.message());
        if (st) st = saveTorchChecked(g_, tmp + "/g.pt");
        if (st) st = saveTorchChecked(d_, tmp + "/d.pt");
        if (st && ema_) st = saveTorchChecked(ema_, tmp + "/ema.pt");
        if (st) st = saveTorchChecked(*optG_, tmp + "/opt_g.pt");
        if (st) st = saveTorchChecked(*optD_, tmp + "/opt_d.pt");
        CheckpointMeta m;
        m.step = stepsDone;
        m.globalBatch = scale_.globalBatch;
        m.ranks = ranks_;
        m.dataPosition = pipeline_->position();
        m.gVersion = gVersion_;
        m.channelsLast = layout_.channelsLast;
        m.padChannels = layout_.padChannels;
        m.model = o_.model;
        m.data = o_.data;
        m.seed = o_.seed;
        if (st) st = writeCheckpointMeta(tmp, m);
        if (st) st = protocol::renameIntoPlace(tmp, dir);
        if (!st) fs::remove_all(tmp, ec);
        if (st) st = markLatestCheckpoint(o_.runDir, name);
        if (st) {
            auto e = protocol::MetricsEvent::statusEvent("checkpoint", std::to_string(stepsDone));
            e.fields = {{"path", "checkpoints/" + name}};
            emit(e);
        }
    }
    double bad = st ? 0 : 1;
    comm_.allReduceMax(&bad, 1); // also the barrier after rank 0's writes
    if (bad > 0 && st) return Status::failure("rank 0 could not write checkpoint " + name);
    return st;
}

Status GanTrainer::loadCheckpoint(const std::string& dir)
{
    try {
        torch::load(g_, dir + "/g.pt");
        torch::load(d_, dir + "/d.pt");
        if (ema_) {
            if (fs::exists(dir + "/ema.pt")) torch::load(ema_, dir + "/ema.pt");
            else copyModule(*ema_, *g_);
        }
        torch::load(*optG_, dir + "/opt_g.pt");
        torch::load(*optD_, dir + "/opt_d.pt");
    } catch (const c10::Error& e) {
        return Status::failure("checkpoint '" + dir + "' cannot be loaded: " + e.what_without_backtrace());
    }
    return {};
}

int GanTrainer::run()
{
    if (Status s = setUp(); !s) {
        std::fprintf(stderr, "tapas-worker gan: %s\n", s.error.c_str());
        if (rank_ == 0) emit(protocol::MetricsEvent::statusEvent("failed", s.error, rank_));
        return 1;
    }
    int step = startStep_;
    bool stopped = false;
    for (; step < o_.steps; ++step) {
        const auto t0 = Clock::now();
        StepFigures f;
        if (Status s = trainStep(step, f); !s) {
            std::fprintf(stderr, "tapas-worker gan: %s\n", s.error.c_str());
            if (rank_ == 0) emit(protocol::MetricsEvent::statusEvent("failed", s.error, rank_));
            return 1; // the launcher sees the rank exit and names it
        }
        const double stepTime = since(t0);
        const std::string note = pipeline_->endStep(stepTime);
        if (!note.empty()) logInfo(note);
        const int done = step + 1;
        report(done, f, stepTime); // step events count steps done (1..N), as the metric events and train-plan do
        if (done < o_.steps) evaluate(done, false);
        // Stop requests, and a run record rank 0 could not write, are agreed on by all ranks, so
        // every rank leaves at the same step.
        double agreed[2] = {env_.stopRequested && env_.stopRequested->load() ? 1.0 : 0.0,
                            env_.sink && env_.sink->writeFailed() ? 1.0 : 0.0};
        comm_.allReduceMax(agreed, 2);
        if (agreed[1] > 0) return failRecord();
        const double stop = agreed[0];
        // A stop always leaves a checkpoint of the finished step (as train-plan does), so Resume works
        // even for a run started without periodic checkpoints.
        const bool doCkpt = !o_.runDir.empty() && (stop > 0 || (o_.checkpointEvery > 0 && done % o_.checkpointEvery == 0));
        if (doCkpt) {
            if (Status s = checkpoint(done); !s) {
                const std::string why = "checkpoint after step " + std::to_string(done) + ": " + s.error;
                std::fprintf(stderr, "tapas-worker gan: %s\n", why.c_str());
                if (rank_ == 0) emit(protocol::MetricsEvent::statusEvent("failed", why, rank_));
                return 1;
            }
        }
        if (stop > 0) {
            stopped = true;
            ++step;
            break;
        }
    }
    StepFigures ignore;
    applyPendingG(ignore);
    applyPendingD(ignore);
    evaluate(step, true);
    if (rank_ == 0) {
        if (stopped) emit(protocol::MetricsEvent::statusEvent("stopped", "stopped at step " + std::to_string(step)));
        else emit(protocol::MetricsEvent::statusEvent("finished", std::to_string(step) + " steps"));
    }
    // Only rank 0 knows whether the last lines reached the disk.
    double lost = env_.sink && env_.sink->writeFailed() ? 1 : 0;
    comm_.allReduceMax(&lost, 1);
    return lost > 0 ? failRecord() : 0;
}

int GanTrainer::failRecord()
{
    const std::string why = env_.sink ? "the run record could not be written: " + env_.sink->writeError()
                                      : std::string("rank 0 could not write the run record");
    std::fprintf(stderr, "tapas-worker gan: %s\n", why.c_str());
    if (rank_ == 0) emit(protocol::MetricsEvent::statusEvent("failed", why, rank_));
    return 1;
}

int trainGan(TrainerEnv& env)
{
    try {
        GanTrainer t(env);
        return t.run();
    } catch (const std::exception& e) {
        const std::string msg = "rank " + std::to_string(env.comm->rank()) + ": " + e.what();
        std::fprintf(stderr, "tapas-worker gan: %s\n", msg.c_str());
        if (env.sink) env.sink->record(protocol::MetricsEvent::statusEvent("failed", msg, env.comm->rank()));
        return 1;
    }
}

} // namespace tapas::runtime::gan
