#include "runtime/exec/plan_trainer.h"

#include "runtime/checkpoint_writer.h"
#include "runtime/exec/adam_update.h"
#include "runtime/exec/sharded_adam.h"
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/node_profile.h"
#include "runtime/exec/op_kernels.h"
#include "runtime/exec/pipeline_step.h"
#include "runtime/exec/stage_partition.h"
#include "runtime/exec/synthetic_batch.h"
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
    return seededNormal(mixSeed(seed, hashName(x.name)), shape, stddev);
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

// `x` grown to `shape` with zeros appended along every dim that is larger there (a padded
// table's rows, the logits of its padded rows); `x` itself when the shapes agree.
Tensor padTo(const Tensor& x, const std::vector<int64_t>& shape)
{
    std::vector<int64_t> pads; // torch's order: last dim first, (before, after) each
    bool any = false;
    for (int64_t d = x.dim() - 1; d >= 0; --d) {
        const int64_t extra = size_t(d) < shape.size() ? shape[size_t(d)] - x.size(d) : 0;
        pads.push_back(0);
        pads.push_back(std::max<int64_t>(extra, 0));
        any = any || extra > 0;
    }
    return any ? torch::constant_pad_nd(x, pads, 0) : x;
}

// `shape` (of the model as given) with each dim the padded graph holds larger taken from `padded`.
std::vector<int64_t> grownShape(std::vector<int64_t> shape, const std::vector<int64_t>& given, const std::vector<int64_t>& padded)
{
    for (size_t d = 0; d < shape.size() && d < given.size() && d < padded.size(); ++d)
        if (padded[d] > given[d]) shape[d] += padded[d] - given[d];
    return shape;
}

} // namespace

struct PlanTrainer::Impl {
    TrainerSetup s;
    std::unique_ptr<GraphInterpreter> interp;
    StagePartition partition;
    std::vector<TensorId> sharedIds; // weights read by several stages: their gradients are summed over pp
    std::vector<TensorId> paramIds;
    // Every trainable shard, its gradient and its Adam moments are views into one flat buffer
    // each (in paramIds order): the dp all-reduce runs on the gradients in place, and Adam is
    // one pass over all weights.
    std::unordered_map<TensorId, Tensor> params, grads, adamM, adamV;
    Tensor flatParams, flatGrads, flatM, flatV;
    // With the optimizer state sharded over dp: the moments of this rank's block only (adamM,
    // adamV, flatM and flatV stay empty), and the flat buffers padded to equal blocks.
    std::unique_ptr<ShardedAdam> sharded;
    int64_t adamStep = 0;
    TpGroup tpGroup, noGroup;

    // The model as given (global unless the plan pads tables).
    const Graph& ref() const { return s.reference ? *s.reference : *s.global; }

    // Weight t as the plan's graph holds it whole: the model's value, padded with zero rows
    // where the plan pads its table.
    Tensor planWeight(TensorId t) const
    {
        return padTo(fullWeight(ref(), t, s.seed, s.stored), knownShape(*s.global, t));
    }

    // Step `step`'s value of graph input t: the whole global tensor, or (local) micro-batch j of
    // this dp rank, drawn alone (the same values as that slice of the whole).
    Tensor input(TensorId t, int64_t step, bool local, int j) const
    {
        const Graph& g = *s.global;
        const tapas::Tensor& x = g.tensor(t);
        std::vector<int64_t> shape = knownShape(g, t);
        const uint64_t seed = mixSeed(mixSeed(s.seed, uint64_t(step)), hashName(x.name));
        const int axis = local ? dpAxis(t) : -1;
        const int64_t piece = int64_t(s.dpIndex) * s.microBatches + j;
        if (dtypeIsFloating(x.dtype)) return seededNormalPiece(seed, shape, 1.0, axis, piece, shards());
        const int64_t rows = indexRange(ref(), t); // the model's rows: no id reads a padded one
        if (rows > 0 && !nameHas(x.name, {"mask"}))
            return seededIntsPiece(seed, shape, rows, axis, piece, shards()).to(torchType(x.dtype));
        if (axis >= 0) shape[size_t(axis)] /= shards();
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

    bool dpSplit(TensorId t) const { return dpAxis(t) >= 0; }

    std::unordered_map<TensorId, Tensor> feeds(int64_t step, bool local, int j = 0) const
    {
        std::unordered_map<TensorId, Tensor> f;
        for (TensorId t : s.global->inputs) f[t] = input(t, step, local, j);
        return f;
    }

    // MSE of every float graph output against seeded targets, normalised by the global element
    // count, so the loss and its gradient do not depend on how the outputs are split. Targets and
    // count are the model's as given: where the plan pads a table, the output's padded part (the
    // logits of padded rows) gets no target and is masked out, so it adds nothing to the loss
    // and sends no gradient back to the padded rows.
    LossParts loss(const std::vector<LocalValue>& outs, int64_t step, bool sharded, int j = 0) const
    {
        const Graph& g = ref();
        Tensor back = torch::zeros({}, torch::kFloat32), report = torch::zeros({}, torch::kFloat32);
        for (size_t i = 0; i < g.outputs.size(); ++i) {
            const TensorId t = g.outputs[i];
            if (!dtypeIsFloating(g.tensor(t).dtype)) continue;
            const std::vector<int64_t> shape = knownShape(g, t);
            const uint64_t seed = mixSeed(mixSeed(s.seed, uint64_t(step)), hashName("target:" + g.tensor(t).name));
            // This piece's targets only, drawn as that slice of the whole.
            Tensor target = seededNormalPiece(seed, shape, 1.0, sharded ? dpAxis(t) : -1,
                                              int64_t(s.dpIndex) * s.microBatches + j, shards());
            double count = 1;
            for (int64_t d : shape) count *= double(d);
            double weight = 1;
            Tensor mask;
            if (sharded) {
                if (shards() > 1 && !dpSplit(t)) weight = 1.0 / shards(); // every piece holds it whole
                const std::vector<int64_t> padded = knownShape(*s.global, t);
                if (padded != shape) {
                    const std::vector<int64_t> piece = grownShape(target.sizes().vec(), shape, padded);
                    mask = shardOf(padTo(torch::ones_like(target), piece), outs[i].layout, 1, s.tp, s.tpIndex);
                    target = padTo(target, piece);
                }
                target = shardOf(target, outs[i].layout, 1, s.tp, s.tpIndex);
            }
            Tensor diff = outs[i].t - target;
            if (mask.defined()) diff = diff * mask;
            Tensor part = (diff * diff).sum() * (weight / count);
            back = back + part;
            if (!sharded || outs[i].layout.kind != TensorLayout::R || s.tpIndex == 0) report = report + part.detach();
        }
        return {back, report};
    }

    void zeroGrads() { flatGrads.zero_(); }

    // Per stage of the plan: what it recomputes before each backward.
    std::vector<Recompute> recomputation() const
    {
        std::vector<Recompute> modes;
        for (const PipelineStage& st : s.plan->pipeline.stages) modes.push_back(st.recompute);
        return modes;
    }

    // Makes each weight's gradient its view into flatGrads again: autograd accumulates into a
    // defined gradient in place, but whatever replaced one is copied back.
    void keepGradViews()
    {
        for (auto& [t, p] : params) {
            const Tensor& view = grads.at(t);
            const Tensor& g = p.grad();
            if (g.defined() && g.data_ptr() == view.data_ptr()) continue;
            if (g.defined()) view.copy_(g);
            else view.zero_();
            p.mutable_grad() = view;
        }
    }

    // Lays the shards out in flat buffers (see `params`).
    void makeFlat(const std::vector<std::pair<TensorId, Tensor>>& shards)
    {
        int64_t total = 0;
        for (const auto& [t, shard] : shards) total += shard.numel();
        const bool shardState = s.shardOptimizerState && s.dp > 1;
        const int64_t length = shardState ? ShardedAdam::paddedLength(total, s.dp) : total;
        flatParams = torch::zeros({length}, torch::kFloat32);
        flatGrads = torch::zeros({length}, torch::kFloat32);
        if (shardState) sharded = std::make_unique<ShardedAdam>(*s.dpComm, length);
        else {
            flatM = torch::zeros({total}, torch::kFloat32);
            flatV = torch::zeros({total}, torch::kFloat32);
        }
        int64_t off = 0;
        for (const auto& [t, shard] : shards) {
            const int64_t n = shard.numel();
            auto view = [&](const Tensor& flat) { return flat.narrow(0, off, n).view(shard.sizes()); };
            Tensor p = view(flatParams);
            p.copy_(shard);
            params[t] = p.set_requires_grad(true);
            grads[t] = view(flatGrads);
            params[t].mutable_grad() = grads[t];
            if (!sharded) {
                adamM[t] = view(flatM);
                adamV[t] = view(flatV);
            }
            off += n;
        }
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
    // With the optimizer state sharded and `wholeGradients` false, each dp rank sums only its
    // own block of the gradients (what its Adam update reads).
    double forwardBackward(int64_t step, double& commSeconds, double& waitSeconds, bool wholeGradients = true)
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
        in.recompute = recomputation();
        const PipelineStepResult r = runPipelineStep(in);
        double seconds = 0;
        keepGradViews();
        // Weights several stages read first sum over those stages, so that the dp reduction
        // (whole or by block) sees each weight's whole gradient.
        if (s.pp > 1) allReduceGrads(*s.ppComm, sharedIds, seconds);
        if (sharded && !wholeGradients) sharded->reduceGradients(flatGrads, seconds);
        else if (s.dp > 1 && flatGrads.numel() > 0) allReduceInPlace(*s.dpComm, flatGrads, seconds);
        Tensor rep = r.report.reshape({1}).contiguous().clone();
        allReduceInPlace(*s.world, rep, seconds);
        commSeconds = tpGroup.commSeconds + seconds + r.waitSeconds;
        waitSeconds = r.waitSeconds;
        setActiveTpGroup(nullptr);
        return rep.item<double>();
    }

    // loadCheckpoint's half for a rank with its optimizer state sharded over dp.
    Result<int64_t> loadSharded(const std::string& file, const std::vector<Tensor>& list)
    {
        using R = Result<int64_t>;
        ShardedAdam& z = *sharded;
        if (list.size() != 3 + paramIds.size() || list[0].numel() != 4)
            return R::failure("checkpoint '" + file + "' holds " + std::to_string(list.size()) + " tensors; this plan's shards " +
                              "with the optimizer state sharded over dp need " + std::to_string(3 + paramIds.size()) +
                              (list.size() == 1 + 3 * paramIds.size() && list[0].numel() == 2
                                   ? " (it was written with the whole optimizer state on every replica)"
                                   : ""));
        const Tensor head = list[0].to(torch::kLong);
        if (head[2].item<int64_t>() != z.blockBegin() || head[3].item<int64_t>() != z.blockLength())
            return R::failure("checkpoint '" + file + "' holds the optimizer state of elements " +
                              std::to_string(head[2].item<int64_t>()) + "+" + std::to_string(head[3].item<int64_t>()) +
                              "; this rank's block is " + std::to_string(z.blockBegin()) + "+" + std::to_string(z.blockLength()));
        // Every size checked before anything is copied: a refused file leaves the run as it was.
        for (size_t i = 0; i < paramIds.size(); ++i)
            if (list[1 + i].sizes() != params[paramIds[i]].sizes())
                return R::failure("checkpoint '" + file + "': weight '" + s.local->tensor(paramIds[i]).name +
                                  "' has another shape than this plan's shard");
        for (size_t k = 1; k <= 2; ++k)
            if (list[paramIds.size() + k].numel() != z.blockLength())
                return R::failure("checkpoint '" + file + "': the optimizer state has another size than this rank's block");
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < paramIds.size(); ++i) params[paramIds[i]].copy_(list[1 + i]);
        z.firstMoment().copy_(list[1 + paramIds.size()]);
        z.secondMoment().copy_(list[2 + paramIds.size()]);
        adamStep = head[1].item<int64_t>();
        return head[0].item<int64_t>();
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
        std::vector<std::pair<TensorId, Tensor>> shards;
        for (TensorId t = 0; t < TensorId(local.tensors.size()); ++t) {
            if (!isTrainable(local, t)) continue;
            if (setup.pp > 1 && d.partition.readOnSeveralRanks(t)) d.sharedIds.push_back(t);
            if (setup.pp > 1 && !d.partition.rankReads(t, setup.ppIndex)) continue;
            d.paramIds.push_back(t);
            Tensor full = d.planWeight(t);
            shards.emplace_back(t, shardOf(full, L.storage[size_t(t)], L.producedK[size_t(t)], L.tp, setup.tpIndex));
        }
        d.makeFlat(shards);
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
    const Graph& g = d->ref(); // the model as given, unpadded
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
            // A padded table's padded rows must get no gradient: the expected one is zero there.
            Tensor expect = shardOf(padTo(refGrad, knownShape(*d->s.global, t)), L.storage[size_t(t)], L.producedK[size_t(t)],
                                    L.tp, d->s.tpIndex);
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
    const double cpuStart = processCpuSeconds();
    try {
        double comm = 0, wait = 0;
        f.loss = d->forwardBackward(step, comm, wait, false);
        f.pipelineWait = wait;
        // Adam over every weight at once. A weight no gradient reached this step has a zero
        // gradient and still takes the step, as torch's Adam does after zero_grad(set_to_none=False).
        torch::NoGradGuard noGrad;
        ++d->adamStep;
        const AdamSettings adam{d->s.lr, 0.9, 0.999, 1e-8};
        if (d->sharded) d->sharded->update(d->flatParams, d->flatGrads, d->adamStep, adam, comm);
        else if (d->flatParams.numel() > 0) adamUpdate(d->flatParams, d->flatGrads, d->flatM, d->flatV, d->adamStep, adam);
        f.commTime = comm;
    } catch (const std::exception& e) {
        setActiveTpGroup(nullptr);
        return Result<StepFigures>::failure("step " + std::to_string(step) + ": " + e.what());
    }
    f.stepTime = std::chrono::duration<double>(Clock::now() - start).count();
    f.cpuTime = processCpuSeconds() - cpuStart;
    f.computeTime = std::max(0.0, f.stepTime - f.commTime);
    return f;
}

Status PlanTrainer::profileNodes(int64_t step, const std::string& path, int rank)
{
    std::vector<NodeTiming> timings;
    try {
        d->interp->setProfile(&timings);
        double comm = 0, wait = 0;
        d->forwardBackward(step, comm, wait);
        d->interp->setProfile(nullptr);
    } catch (const std::exception& e) {
        d->interp->setProfile(nullptr);
        setActiveTpGroup(nullptr);
        return Status::failure("profiling step " + std::to_string(step) + ": " + e.what());
    }
    return writeNodeProfile(path, *d->s.local, rank, timings);
}

Status PlanTrainer::saveCheckpoint(const std::string& file, int64_t step) const
{
    std::vector<Tensor> list;
    try {
        if (d->sharded) {
            // The weights, then this rank's block of the moments; the head names the block.
            const ShardedAdam& z = *d->sharded;
            list.push_back(torch::tensor({step, d->adamStep, z.blockBegin(), z.blockLength()}, torch::kLong));
            for (TensorId t : d->paramIds) list.push_back(d->params.at(t).detach().clone());
            list.push_back(z.firstMoment().clone());
            list.push_back(z.secondMoment().clone());
        } else {
            list.push_back(torch::tensor({step, d->adamStep}, torch::kLong));
            for (TensorId t : d->paramIds) {
                // Copies: the views would drag the whole flat buffer into each entry.
                list.push_back(d->params.at(t).detach().clone());
                list.push_back(d->adamM.at(t).clone());
                list.push_back(d->adamV.at(t).clone());
            }
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
    if (d->sharded) return d->loadSharded(file, list);
    if (list.size() != 1 + 3 * d->paramIds.size() || list[0].numel() != 2)
        return Result<int64_t>::failure("checkpoint '" + file + "' holds " + std::to_string(list.size()) +
                                        " tensors; this plan's shards need " +
                                        std::to_string(1 + 3 * d->paramIds.size()) +
                                        (list.size() == 3 + d->paramIds.size() && list[0].numel() == 4
                                             ? " (it was written with the optimizer state sharded over dp; this plan keeps it whole)"
                                             : ""));
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

double PlanTrainer::paddedRowsMaxAbs() const
{
    double worst = 0;
    const ExecLayouts& L = d->interp->layouts();
    torch::NoGradGuard noGrad;
    for (const TablePadding& p : d->s.plan->padding) {
        const auto it = d->params.find(p.table);
        if (it == d->params.end()) continue; // another pipeline stage holds it
        // 1 on the padded rows of the whole table, sharded as the table is: this rank's part of them.
        Tensor padded = torch::zeros(knownShape(*d->s.global, p.table));
        padded.narrow(0, p.rows, p.paddedRows - p.rows).fill_(1);
        const Tensor mine = shardOf(padded, L.storage[size_t(p.table)], L.producedK[size_t(p.table)], L.tp, d->s.tpIndex);
        worst = std::max(worst, maxAbs(it->second.detach() * mine));
    }
    d->s.world->allReduceMax(&worst, 1);
    return worst;
}

int64_t PlanTrainer::shardBytes() const
{
    int64_t b = 0;
    for (const auto& [t, p] : d->params) b += p.numel() * int64_t(p.element_size());
    return b;
}

std::string PlanTrainer::fusedChains() const
{
    std::map<std::string, std::pair<int, size_t>> byKind; // groups, nodes
    for (const FusedGroup& f : d->interp->fusions()) {
        auto& [groups, nodes] = byKind[fusionName(f.kind)];
        ++groups;
        nodes += f.nodes.size();
    }
    std::string out;
    for (const auto& [kind, n] : byKind)
        out += (out.empty() ? "" : ", ") + std::to_string(n.first) + " " + kind + " (" + std::to_string(n.second) + " nodes)";
    return out;
}

std::vector<int> PlanTrainer::attentionCoresPerStage() const
{
    const StagePartition& p = d->partition;
    std::vector<int> cores;
    for (int st = 0; st < p.stages; ++st) {
        std::vector<char> runs(p.nodeStage.size(), 0);
        for (size_t n = 0; n < runs.size(); ++n) runs[n] = p.nodeStage[n] == st;
        cores.push_back(d->interp->coreRegionsIn(runs));
    }
    return cores;
}

int PlanTrainer::stageBlocks() const
{
    return d->partition.blocksOnRank(d->s.ppIndex);
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
