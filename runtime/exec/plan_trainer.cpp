#include "runtime/exec/plan_trainer.h"

#include "runtime/checkpoint_writer.h"
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/op_kernels.h"
#include "runtime/exec/pipeline_step.h"
#include "runtime/exec/stage_partition.h"
#include "runtime/exec/tp_collectives.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t hashName(const std::string& s)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

// A stream of uniforms from splitmix64: the same numbers on every rank and every run.
struct Stream {
    uint64_t state;
    double uniform()
    {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return (double(z >> 11) + 0.5) / 9007199254740992.0;
    }
};

Tensor seededNormal(uint64_t seed, const std::vector<int64_t>& shape, double stddev)
{
    Tensor t = torch::empty(shape, torch::kFloat32);
    float* p = t.data_ptr<float>();
    Stream s{seed};
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; i += 2) {
        const double r = std::sqrt(-2 * std::log(s.uniform())), a = 2 * M_PI * s.uniform();
        p[i] = float(stddev * r * std::cos(a));
        if (i + 1 < n) p[i + 1] = float(stddev * r * std::sin(a));
    }
    return t;
}

Tensor seededInts(uint64_t seed, const std::vector<int64_t>& shape, int64_t high)
{
    Tensor t = torch::empty(shape, torch::kLong);
    int64_t* p = t.data_ptr<int64_t>();
    Stream s{seed};
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = std::min<int64_t>(high - 1, int64_t(s.uniform() * double(high)));
    return t;
}

std::string lower(std::string s)
{
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool nameHas(const std::string& name, std::initializer_list<const char*> parts)
{
    const std::string l = lower(name);
    for (const char* p : parts)
        if (l.find(p) != std::string::npos) return true;
    return false;
}

std::vector<int64_t> knownShape(const Graph& g, TensorId t)
{
    const tapas::Tensor& x = g.tensor(t);
    if (!x.shape.isFullyKnown())
        throw std::runtime_error("tensor '" + x.name + "' has shape " + x.shape.toString() +
                                 ": bind its symbolic dims with --dim name=value");
    return x.shape.knownDims();
}

// The single-rank value of trainable weight t: the file's when it stores one; else norm scales
// 1 and biases 0, other weights normal with std 1/sqrt(fan-in) from a generator seeded by
// (seed, name).
Tensor fullWeight(const Graph& g, TensorId t, uint64_t seed, const StoredWeights* stored)
{
    const tapas::Tensor& x = g.tensor(t);
    const std::vector<int64_t> shape = knownShape(g, t);
    if (Tensor v = storedValue(g, t, stored); v.defined()) return v;
    const bool norm = nameHas(x.name, {"norm", "ln_", "ln.", "_ln", "layer_norm", "bn"});
    const bool bias = nameHas(x.name, {"bias", "beta"});
    if (norm && shape.size() == 1) return bias ? torch::zeros(shape) : torch::ones(shape);
    for (NodeId c : x.consumers) {
        const Node& n = g.node(c);
        if (n.opType == "BatchNormalization" || n.opType == "LayerNormalization") {
            if (n.input(1) == t) return torch::ones(shape);
            if (n.input(2) == t) return torch::zeros(shape);
        }
    }
    int64_t fanIn = 1;
    if (shape.size() == 2) fanIn = shape[0];
    else if (shape.size() > 2)
        for (size_t i = 1; i < shape.size(); ++i) fanIn *= shape[i];
    else fanIn = shape.empty() ? 1 : shape[0];
    const double stddev = shape.size() >= 2 ? 1.0 / std::sqrt(double(std::max<int64_t>(fanIn, 1))) : 0.02;
    return seededNormal(mix(seed, hashName(x.name)), shape, stddev);
}

// How many rows the Gather an integer input indexes has (so synthetic ids stay in range).
int64_t indexRange(const Graph& g, TensorId t)
{
    int64_t rows = -1;
    std::vector<TensorId> frontier{t};
    for (int hop = 0; hop < 3 && !frontier.empty(); ++hop) {
        std::vector<TensorId> next;
        for (TensorId f : frontier)
            for (NodeId c : g.tensor(f).consumers) {
                const Node& n = g.node(c);
                if ((n.opType == "Gather" || n.opType == "GatherElements") && n.input(1) == f) {
                    const Shape& s = g.tensor(n.input(0)).shape;
                    const int r = s.rank();
                    int64_t axis = n.attrInt("axis", 0);
                    if (axis < 0) axis += r;
                    if (axis >= 0 && axis < r && s.dims[size_t(axis)].isKnown()) {
                        const int64_t v = s.dims[size_t(axis)].value;
                        rows = rows < 0 ? v : std::min(rows, v);
                    }
                } else if (n.opType == "Cast" || n.opType == "Unsqueeze" || n.opType == "Reshape" ||
                           n.opType == "Squeeze") {
                    if (n.output(0) != kNoTensor) next.push_back(n.output(0));
                }
            }
        frontier = std::move(next);
    }
    return rows;
}

double maxAbs(const Tensor& t) { return t.numel() ? t.abs().max().item<double>() : 0; }

} // namespace

struct PlanTrainer::Impl {
    TrainerSetup s;
    std::unique_ptr<GraphInterpreter> interp;
    StagePartition partition;
    std::vector<TensorId> sharedIds; // weights read by several stages: their gradients are summed over pp
    std::vector<TensorId> paramIds;
    std::unordered_map<TensorId, Tensor> params, adamM, adamV;
    int64_t adamStep = 0;
    TpGroup tpGroup, noGroup;

    Tensor globalInput(TensorId t, int64_t step) const
    {
        const Graph& g = *s.global;
        const tapas::Tensor& x = g.tensor(t);
        const std::vector<int64_t> shape = knownShape(g, t);
        const uint64_t seed = mix(mix(s.seed, uint64_t(step)), hashName(x.name));
        if (dtypeIsFloating(x.dtype)) return seededNormal(seed, shape, 1.0);
        const int64_t rows = indexRange(g, t);
        if (rows > 0 && !nameHas(x.name, {"mask"})) return seededInts(seed, shape, rows).to(torchType(x.dtype));
        return torch::ones(shape, torchType(x.dtype)); // masks: attend everywhere
    }

    // The pieces the global batch is cut into: dp replicas x micro-batches; micro-batch j of dp
    // rank d is piece d * microBatches + j.
    int shards() const { return s.dp * s.microBatches; }

    // The axis data parallelism and micro-batching divide in tensor t: the one dim the local
    // graph (one micro-batch) holds shards() times smaller than the global one, wherever the
    // batch sits (dim 1 of a sequence-first model); -1 when t is not divided.
    int dpAxis(TensorId t) const
    {
        if (shards() <= 1) return -1;
        const Shape& ls = s.local->tensor(t).shape;
        const Shape& gs = s.global->tensor(t).shape;
        if (!ls.rankKnown || !gs.rankKnown || ls.rank() != gs.rank()) return -1;
        for (int d = 0; d < ls.rank(); ++d) {
            const Dim& l = ls.dims[size_t(d)];
            const Dim& g = gs.dims[size_t(d)];
            if (l.isKnown() && g.isKnown() && l.value != g.value) return l.value * shards() == g.value ? d : -1;
        }
        return -1;
    }

    // A graph tensor's part for micro-batch j of this dp rank along its dp axis (whole when it has none).
    Tensor dpSlice(const Tensor& whole, TensorId t, int j) const
    {
        const int axis = dpAxis(t);
        if (axis < 0 || axis >= whole.dim()) return whole;
        const int64_t part = whole.size(axis) / shards();
        return whole.narrow(axis, (int64_t(s.dpIndex) * s.microBatches + j) * part, part).contiguous();
    }

    bool dpSplit(TensorId t) const { return dpAxis(t) >= 0; }

    std::unordered_map<TensorId, Tensor> feeds(int64_t step, bool local, int j = 0) const
    {
        std::unordered_map<TensorId, Tensor> f;
        for (TensorId t : s.global->inputs) {
            Tensor whole = globalInput(t, step);
            f[t] = local ? dpSlice(whole, t, j) : whole;
        }
        return f;
    }

    // MSE of every float graph output against seeded targets, normalised by the global element
    // count, so the loss and its gradient do not depend on how the outputs are split.
    LossParts loss(const std::vector<LocalValue>& outs, int64_t step, bool sharded, int j = 0) const
    {
        const Graph& g = *s.global;
        Tensor back = torch::zeros({}, torch::kFloat32), report = torch::zeros({}, torch::kFloat32);
        for (size_t i = 0; i < g.outputs.size(); ++i) {
            const TensorId t = g.outputs[i];
            if (!dtypeIsFloating(g.tensor(t).dtype)) continue;
            const std::vector<int64_t> shape = knownShape(g, t);
            Tensor target = seededNormal(mix(mix(s.seed, uint64_t(step)), hashName("target:" + g.tensor(t).name)), shape, 1.0);
            double count = 1;
            for (int64_t d : shape) count *= double(d);
            double weight = 1;
            if (sharded) {
                target = dpSlice(target, t, j);
                if (shards() > 1 && !dpSplit(t)) weight = 1.0 / shards(); // every piece holds it whole
                target = shardOf(target, outs[i].layout, 1, s.tp, s.tpIndex);
            }
            Tensor diff = outs[i].t - target;
            Tensor part = (diff * diff).sum() * (weight / count);
            back = back + part;
            if (!sharded || outs[i].layout.kind != TensorLayout::R || s.tpIndex == 0) report = report + part.detach();
        }
        return {back, report};
    }

    void zeroGrads()
    {
        for (auto& [t, p] : params)
            if (p.grad().defined()) p.mutable_grad().zero_();
    }

    // Sums `ids`' gradients over `comm`; a rank that does not hold one of them adds zeros of its
    // shard's shape (every rank of the group walks the same list).
    void allReduceGrads(Communicator& comm, const std::vector<TensorId>& ids, double& seconds)
    {
        if (ids.empty() || comm.size() <= 1) return;
        std::vector<Tensor> grads;
        for (TensorId t : ids) {
            auto it = params.find(t);
            if (it == params.end()) {
                const std::optional<std::vector<int64_t>> shape = interp->localShape(t, interp->layouts().storage[size_t(t)]);
                grads.push_back(torch::zeros(shape ? *shape : std::vector<int64_t>{}, torch::kFloat32).reshape({-1}));
                continue;
            }
            Tensor& p = it->second;
            if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
            grads.push_back(p.grad().reshape({-1}));
        }
        Tensor flat = torch::cat(grads).contiguous();
        allReduceInPlace(comm, flat, seconds);
        int64_t off = 0;
        for (size_t i = 0; i < ids.size(); ++i) {
            const int64_t n = grads[i].numel();
            if (auto it = params.find(ids[i]); it != params.end())
                it->second.mutable_grad().copy_(flat.narrow(0, off, n).reshape(it->second.sizes()));
            off += n;
        }
    }

    // Forward + backward of every micro-batch on this rank's stage and shards (1F1B), gradients
    // summed over dp and, for weights several stages read, over those stages. Returns the loss.
    double forwardBackward(int64_t step, double& commSeconds, double& waitSeconds)
    {
        setActiveTpGroup(&tpGroup);
        tpGroup.commSeconds = 0;
        zeroGrads();
        PipelineStepInput in;
        in.interp = interp.get();
        in.partition = &partition;
        in.stage = s.ppIndex;
        in.pp = s.ppComm;
        in.microBatches = s.microBatches;
        in.params = &params;
        in.feeds = [this, step](int j) { return feeds(step, true, j); };
        in.loss = [this, step](const std::vector<LocalValue>& outs, int j) { return loss(outs, step, true, j); };
        in.corruptGradients = s.corruptPipeline;
        const PipelineStepResult r = runPipelineStep(in);
        double seconds = 0;
        if (s.dp > 1) allReduceGrads(*s.dpComm, paramIds, seconds);
        if (s.pp > 1) allReduceGrads(*s.ppComm, sharedIds, seconds);
        Tensor rep = r.report.reshape({1}).contiguous().clone();
        allReduceInPlace(*s.world, rep, seconds);
        commSeconds = tpGroup.commSeconds + seconds + r.waitSeconds;
        waitSeconds = r.waitSeconds;
        setActiveTpGroup(nullptr);
        return rep.item<double>();
    }
};

PlanTrainer::PlanTrainer() : d(std::make_unique<Impl>()) {}
PlanTrainer::~PlanTrainer() = default;

Result<std::unique_ptr<PlanTrainer>> PlanTrainer::create(const TrainerSetup& setup)
{
    using R = Result<std::unique_ptr<PlanTrainer>>;
    std::unique_ptr<PlanTrainer> tr(new PlanTrainer());
    Impl& d = *tr->d;
    d.s = setup;
    try {
        Result<ExecLayouts> layouts = analyseLayouts(*setup.local, setup.plan, setup.tp);
        if (!layouts.ok()) return R::failure(layouts.error());
        d.interp = std::make_unique<GraphInterpreter>(*setup.local, *layouts, setup.tpIndex, setup.stored);
        d.tpGroup.comm = setup.tpComm;
        d.tpGroup.tp = setup.tp;
        d.tpGroup.index = setup.tpIndex;
        d.tpGroup.skipFAllReduce = setup.corruptCollective;
        const ExecLayouts& L = d.interp->layouts();
        const Graph& local = *setup.local;
        if (setup.pp > 1 && !setup.folded) return R::failure("a plan with stages needs the folded graph");
        FoldedGraph unfolded;
        Result<StagePartition> part =
            partitionStages(local, setup.folded ? *setup.folded : unfolded, setup.plan->pipeline, setup.pp,
                            [&](TensorId t) {
                                return local.tensor(t).producer == kNoNode || d.interp->known(t) || isTrainable(local, t);
                            });
        if (!part.ok()) return R::failure(part.error());
        d.partition = std::move(*part);
        for (TensorId t = 0; t < TensorId(local.tensors.size()); ++t) {
            if (!isTrainable(local, t)) continue;
            const std::vector<int>& readers = d.partition.weightStages[size_t(t)];
            if (setup.pp > 1 && readers.size() > 1) d.sharedIds.push_back(t);
            if (setup.pp > 1 && !std::binary_search(readers.begin(), readers.end(), setup.ppIndex)) continue;
            d.paramIds.push_back(t);
            Tensor full = fullWeight(*setup.global, t, setup.seed, setup.stored);
            Tensor shard = shardOf(full, L.storage[size_t(t)], L.producedK[size_t(t)], L.tp, setup.tpIndex).clone();
            d.params[t] = shard.set_requires_grad(true);
            d.adamM[t] = torch::zeros_like(shard);
            d.adamV[t] = torch::zeros_like(shard);
        }
        if (d.paramIds.empty() && setup.pp <= 1)
            return R::failure("the model has no weight to train (no float initializer or Constant weight of two or more "
                              "elements read as data)");
    } catch (const std::exception& e) {
        return R::failure(e.what());
    }
    return R(std::move(tr));
}

Result<NumericsReport> PlanTrainer::checkNumerics(int64_t step, double tolerance)
{
    NumericsReport rep;
    const Graph& g = *d->s.global;
    try {
        double comm = 0, wait = 0;
        rep.loss = d->forwardBackward(step, comm, wait);
        // The unsharded reference: global batch, whole weights, every node replicated.
        setActiveTpGroup(&d->noGroup);
        Result<ExecLayouts> refLayouts = analyseLayouts(g, nullptr, 1);
        if (!refLayouts.ok()) return Result<NumericsReport>::failure(refLayouts.error());
        GraphInterpreter ref(g, *refLayouts, 0, d->s.stored);
        std::unordered_map<TensorId, Tensor> full;
        for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t)
            if (isTrainable(g, t)) full[t] = fullWeight(g, t, d->s.seed, d->s.stored).set_requires_grad(true);
        LossParts l = d->loss(ref.forward(full, d->feeds(step, false)), step, false);
        l.backward.backward();
        setActiveTpGroup(nullptr);
        rep.referenceLoss = l.report.item<double>();

        const ExecLayouts& L = d->interp->layouts();
        double worstRel = -1;
        TensorId worst = TensorId(g.tensors.size()); // stands for "loss"
        auto consider = [&](TensorId id, double abs, double rel) {
            rep.maxAbsError = std::max(rep.maxAbsError, abs);
            if (rel > worstRel) {
                worstRel = rel;
                worst = id;
                rep.worstAbs = abs;
            }
        };
        const double lossAbs = std::abs(rep.loss - rep.referenceLoss);
        consider(TensorId(g.tensors.size()), lossAbs, lossAbs / std::max(std::abs(rep.referenceLoss), 1e-12));
        for (TensorId t : d->paramIds) {
            Tensor mine = d->params[t].grad();
            Tensor refGrad = full[t].grad();
            if (!refGrad.defined()) refGrad = torch::zeros_like(full[t]);
            if (!mine.defined()) mine = torch::zeros_like(d->params[t]);
            Tensor expect = shardOf(refGrad, L.storage[size_t(t)], L.producedK[size_t(t)], L.tp, d->s.tpIndex);
            const double abs = maxAbs(mine - expect);
            consider(t, abs, abs / std::max(maxAbs(refGrad), 1e-6));
        }
        d->zeroGrads();
        // Over all ranks: the largest errors, and which tensor had the largest relative one.
        double figures[3] = {rep.maxAbsError, worstRel, 0};
        d->s.world->allReduceMax(figures, 2);
        rep.maxAbsError = figures[0];
        rep.maxRelError = figures[1];
        double who[2] = {worstRel == figures[1] ? double(worst) : -1.0, worstRel == figures[1] ? rep.worstAbs : 0};
        d->s.world->allReduceMax(who, 2);
        const TensorId w = TensorId(who[0]);
        rep.worstTensor = w >= 0 && w < TensorId(g.tensors.size()) ? g.tensor(w).name : "loss";
        rep.worstAbs = who[1];
        rep.worstRel = rep.maxRelError;
        rep.ok = rep.maxRelError <= tolerance;
    } catch (const std::exception& e) {
        setActiveTpGroup(nullptr);
        return Result<NumericsReport>::failure(e.what());
    }
    return rep;
}

Result<StepFigures> PlanTrainer::step(int64_t step)
{
    StepFigures f;
    const auto start = Clock::now();
    try {
        double comm = 0, wait = 0;
        f.loss = d->forwardBackward(step, comm, wait);
        f.pipelineWait = wait;
        torch::NoGradGuard noGrad;
        // Adam, element-wise, so every shard updates exactly as its slice of the whole would.
        const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
        ++d->adamStep;
        const double c1 = 1 - std::pow(b1, double(d->adamStep)), c2 = 1 - std::pow(b2, double(d->adamStep));
        for (TensorId t : d->paramIds) {
            Tensor& p = d->params[t];
            if (!p.grad().defined()) continue;
            const Tensor& gr = p.grad();
            d->adamM[t].mul_(b1).add_(gr, 1 - b1);
            d->adamV[t].mul_(b2).addcmul_(gr, gr, 1 - b2);
            p.sub_(d->adamM[t] / c1 / ((d->adamV[t] / c2).sqrt() + eps) * d->s.lr);
        }
        f.commTime = comm;
    } catch (const std::exception& e) {
        setActiveTpGroup(nullptr);
        return Result<StepFigures>::failure("step " + std::to_string(step) + ": " + e.what());
    }
    f.stepTime = std::chrono::duration<double>(Clock::now() - start).count();
    f.computeTime = std::max(0.0, f.stepTime - f.commTime);
    return f;
}

Status PlanTrainer::saveCheckpoint(const std::string& file, int64_t step) const
{
    std::vector<Tensor> list;
    try {
        list.push_back(torch::tensor({step, d->adamStep}, torch::kLong));
        for (TensorId t : d->paramIds) {
            list.push_back(d->params.at(t).detach());
            list.push_back(d->adamM.at(t));
            list.push_back(d->adamV.at(t));
        }
    } catch (const std::exception& e) {
        return Status::failure("cannot write checkpoint '" + file + "': " + e.what());
    }
    if (Status s = saveTorchChecked(list, file); !s) return Status::failure("cannot write checkpoint: " + s.error);
    return Status::success();
}

Result<int64_t> PlanTrainer::loadCheckpoint(const std::string& file)
{
    std::vector<Tensor> list;
    try {
        torch::load(list, file);
    } catch (const std::exception& e) {
        return Result<int64_t>::failure("cannot read checkpoint '" + file + "': " + e.what());
    }
    if (list.size() != 1 + 3 * d->paramIds.size() || list[0].numel() != 2)
        return Result<int64_t>::failure("checkpoint '" + file + "' holds " + std::to_string(list.size()) +
                                        " tensors; this plan's shards need " +
                                        std::to_string(1 + 3 * d->paramIds.size()));
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < d->paramIds.size(); ++i) {
        const TensorId t = d->paramIds[i];
        for (int k = 0; k < 3; ++k) {
            const Tensor& src = list[1 + 3 * i + size_t(k)];
            Tensor& dst = k == 0 ? d->params[t] : k == 1 ? d->adamM[t] : d->adamV[t];
            if (src.sizes() != dst.sizes())
                return Result<int64_t>::failure("checkpoint '" + file + "': weight '" + d->s.local->tensor(t).name +
                                                "' has another shape than this plan's shard");
            dst.copy_(src);
        }
    }
    d->adamStep = list[0][1].item<int64_t>();
    return list[0][0].item<int64_t>();
}

int64_t PlanTrainer::shardBytes() const
{
    int64_t b = 0;
    for (const auto& [t, p] : d->params) b += p.numel() * int64_t(p.element_size());
    return b;
}

int PlanTrainer::stageBlocks() const
{
    const std::vector<int>& b = d->partition.stageBlocks;
    return d->s.ppIndex < int(b.size()) ? b[size_t(d->s.ppIndex)] : 0;
}

int64_t PlanTrainer::globalBatch() const
{
    for (TensorId t : d->s.global->inputs) {
        const Shape& s = d->s.global->tensor(t).shape;
        if (s.rank() > 0 && s.dims[0].isKnown()) return s.dims[0].value;
    }
    return 1;
}

} // namespace tapas::runtime
