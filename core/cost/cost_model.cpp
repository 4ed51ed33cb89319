#include "core/cost/cost_model.h"

#include "core/cost/cost_report.h"
#include "core/cost/family_time.h"

#include "core/ops/control_bodies.h"
#include "core/ops/op_registry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace tapas {

namespace {

// Elements a weight holds: what the file stores (a tied or sliced initializer), else its shape.
double weightElements(const Tensor& x)
{
    return double(x.storedElements() > 0 ? x.storedElements() : x.shape.numElementsOr(1));
}

} // namespace

CostTerms& CostTerms::operator+=(const CostTerms& o)
{
    compute += o.compute;
    tpComm += o.tpComm;
    dpComm += o.dpComm;
    ppComm += o.ppComm;
    bubble += o.bubble;
    dpGradBytes += o.dpGradBytes;
    commBytes += o.commBytes;
    weightMemory += o.weightMemory;
    activationMemory += o.activationMemory;
    return *this;
}

std::string computeDtype(const CostOptions& options, const ClusterSpec& cluster)
{
    if (!options.dtype.empty()) return options.dtype;
    return cluster.gpu ? "fp16" : "fp32";
}

CostModel::CostModel(const Graph& g, const ClusterSpec& cluster, const DeviceMesh& mesh, CostOptions options)
    : g_(g), cluster_(cluster), mesh_(mesh), options_(std::move(options))
{
    options_.dtype = computeDtype(options_, cluster_); // options() always names the dtype priced
    flopRate_ = cluster_.peakFlops(options_.dtype) * cluster_.efficiency;
    if (flopRate_ <= 0) flopRate_ = 1;
    elemBytes_ = options_.dtype == "fp32" ? 4 : 2;
    // Found once: the calibrated families, the roofline and the saved activations all price
    // the chains the worker fuses.
    chains_ = pricedChains(g_);
    buildMemoryGraph();
    roofline_ = gpuRoofline(cluster_, options_.dtype);
    if (roofline_) rooflineOps_ = rooflineOps(g_, chains_, elemBytes_);
    // Each graph input is charged to the first node reading it, each output to its producer.
    drawnBy_.assign(g_.nodes.size(), {});
    for (TensorId t : g_.inputs)
        for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n)
            if (std::find(g_.node(n).inputs.begin(), g_.node(n).inputs.end(), t) != g_.node(n).inputs.end()) {
                drawnBy_[size_t(n)].push_back(t);
                break;
            }
    for (TensorId t : g_.outputs)
        if (t != kNoTensor && g_.tensor(t).producer != kNoNode &&
            std::find(g_.inputs.begin(), g_.inputs.end(), t) == g_.inputs.end())
            drawnBy_[size_t(g_.tensor(t).producer)].push_back(t);
    weights_.assign(g_.tensors.size(), 0);
    // What the worker trains, a Constant node's weights whose values the importer knows
    // (paddle2onnx) included, plus stored float data it reads as-is (running statistics).
    for (TensorId t = 0; t < TensorId(g_.tensors.size()); ++t) weights_[size_t(t)] = isHeldWeight(g_, t);
    buildWorkingSetWalk();
    for (const Node& n : g_.nodes) {
        if (n.opType != "If" || ifTakenBranch(g_, n)) continue;
        bool assumed = false;
        const char* branch = ifPricedBranch(g_, n, &assumed);
        notes_.push_back("If '" + n.name + "': its condition is known only when it runs (it reads data); " +
                         (assumed ? "priced as its " + std::string(branch).substr(0, 4) + " branch, as the workload assumes" +
                                        " (--assume-branch " + n.name + "=" + std::string(branch).substr(0, 4) + ")"
                                  : "priced as its dearer branch (state the branch the data takes with --assume-branch " + n.name +
                                        "=then|else)"));
    }
    // Stored data that is neither a float weight nor a value the importer knows: the worker makes
    // it once and holds it whole through the run (runtime/exec/graph_interpreter's constants),
    // GPT-2's causal mask buffers ([1, 1, 1024, 1024] bools, 1 MiB a layer) among them.
    heldBufferBytes_.assign(g_.nodes.size(), 0);
    for (TensorId t = 0; t < TensorId(g_.tensors.size()); ++t) {
        const Tensor& x = g_.tensor(t);
        if (x.producer != kNoNode || (x.kind != TensorKind::Weight && x.kind != TensorKind::Constant) || x.value ||
            dtypeIsFloating(x.dtype) || x.consumers.empty() || !x.shape.isFullyKnown())
            continue;
        const NodeId first = *std::min_element(x.consumers.begin(), x.consumers.end());
        heldBufferBytes_[size_t(first)] += double(x.shape.numElementsOr(0)) * std::max(1, dtypeBytes(x.dtype));
    }
    std::unordered_map<TensorId, std::vector<std::pair<NodeId, int>>> uses;
    for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n) {
        const Node& node = g_.node(n);
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor || !weights_[size_t(t)] || isBufferInput(node, i)) continue;
            if (dtypeIsFloating(g_.tensor(t).dtype)) uses[t].emplace_back(n, int(i));
        }
    }
    readsShared_.assign(g_.nodes.size(), 0);
    for (auto& [t, u] : uses) {
        const Tensor& x = g_.tensor(t);
        wholeGradientBytes_ += weightElements(x) * elemBytes_;
        if (u.size() <= 1) continue;
        for (const auto& [n, slot] : u) readsShared_[size_t(n)] = 1;
        sharedWeights_.emplace(t, std::move(u));
    }
}

void CostModel::buildMemoryGraph()
{
    bool anyIf = false;
    for (const Node& n : g_.nodes) anyIf = anyIf || n.opType == "If";
    if (anyIf) inlined_ = inlineIfBranches(g_);
    memGraph_ = inlined_.any ? &inlined_.graph : &g_;
    const Graph& mg = *memGraph_;
    memNodeOf_.assign(g_.nodes.size(), kNoNode);
    for (NodeId m = 0; m < NodeId(mg.nodes.size()); ++m) {
        const NodeId outer = inlined_.any ? inlined_.owner[size_t(m)] : m;
        if (!inlined_.any || !inlined_.inBranch[size_t(m)]) memNodeOf_[size_t(outer)] = m;
    }
    // The chains the worker fuses are outer nodes (a branch runs node by node): the same chains
    // in the memory graph's node ids.
    std::vector<NodeChain> chains = chains_.chains;
    for (NodeChain& c : chains)
        for (NodeId& n : c.nodes) n = memNodeOf_[size_t(n)];
    saved_ = savedActivations(mg, chains);
    branchKept_.assign(g_.nodes.size(), 0);
    if (!inlined_.any) return;
    for (NodeId m = 0; m < NodeId(mg.nodes.size()); ++m) {
        if (!inlined_.inBranch[size_t(m)]) continue;
        double& kept = branchKept_[size_t(inlined_.owner[size_t(m)])];
        kept += saved_.innerKept[size_t(m)] * elemBytes_ / batchShards() + maskBytes(m, 1.0);
        for (TensorId t : mg.node(m).outputs)
            if (t != kNoTensor && size_t(t) >= g_.tensors.size() && saved_.kept[size_t(t)] && dtypeIsFloating(mg.tensor(t).dtype) &&
                !mg.tensor(t).value)
                kept += replicaBytes(mg.tensor(t));
    }
}

double CostModel::maskBytes(NodeId m, double shard) const
{
    // What node m of the memory graph keeps beside its output, one element of it each: a dropout
    // mask (1 B), max pool's index (int64).
    const Graph& mg = *memGraph_;
    const TensorId out = mg.node(m).output(0);
    if (out == kNoTensor || !dtypeIsFloating(mg.tensor(out).dtype) || mg.tensor(out).value) return 0;
    double bytes = 0;
    if (saved_.dropoutMask[size_t(m)]) bytes += replicaBytes(mg.tensor(out)) / elemBytes_ * shard;
    if (saved_.poolIndices[size_t(m)]) bytes += replicaBytes(mg.tensor(out)) / elemBytes_ * 8.0 * shard;
    return bytes;
}

double CostModel::replicaBytes(TensorId t) const { return replicaBytes(g_.tensor(t)); }

double CostModel::replicaBytes(const Tensor& x) const
{
    const double elems = double(x.shape.numElementsOr(1));
    const int bytes = dtypeIsFloating(x.dtype) ? elemBytes_ : std::max(1, dtypeBytes(x.dtype));
    const bool batched = x.kind == TensorKind::Activation || x.kind == TensorKind::Input;
    return elems * bytes / (batched && !x.value ? batchShards() : 1);
}

StepWorkingSet CostModel::workingSet(const ShardingPlan& plan, std::vector<double>* nodeExtra) const
{
    // The terms' bytes under the plan, then one pass over the walk's steps. The buffer is kept
    // between reports (one per thread), so a report allocates nothing here.
    thread_local std::vector<double> bytes;
    bytes.resize(walkTerms_.size());
    const double tp = mesh_.tp;
    for (size_t k = 0; k < walkTerms_.size(); ++k) {
        const WalkTerm& w = walkTerms_[k];
        bool split = false;
        if (w.node != kNoNode && size_t(w.node) < plan.nodes.size()) {
            const OpStrategy& s = plan.nodes[size_t(w.node)];
            const std::vector<TensorLayout>& layouts = w.input ? s.inputs : s.outputs;
            split = size_t(w.slot) < layouts.size() && layouts[size_t(w.slot)].kind == TensorLayout::S;
        }
        bytes[k] = split ? w.bytes / tp : w.bytes;
    }
    if (!nodeExtra) return walk_.run(bytes.data());
    if (!inlined_.any) {
        nodeExtra->assign(g_.nodes.size(), 0);
        return walk_.run(bytes.data(), nodeExtra->data());
    }
    // Per node of the memory graph, then the most of an If's branch nodes as the If's.
    thread_local std::vector<double> memExtra;
    memExtra.assign(memGraph_->nodes.size(), 0);
    const StepWorkingSet w = walk_.run(bytes.data(), memExtra.data());
    nodeExtra->assign(g_.nodes.size(), 0);
    for (size_t m = 0; m < memExtra.size(); ++m) {
        double& e = (*nodeExtra)[size_t(inlined_.owner[m])];
        e = std::max(e, memExtra[m]);
    }
    return w;
}

void CostModel::buildWorkingSetWalk()
{
    // Each tensor's bytes on a device as a plan sets them: an input's as it comes; a floating
    // output's by its producer's layout; a weight's gradient as its last reader holds the weight
    // (a later writer wins, as the per-plan pass used to overwrite). The values of an inlined If
    // branch, and what it reads, are whole on every device (the If is replicated): fixed.
    const Graph& mg = *memGraph_;
    std::vector<WalkTerm> source(mg.tensors.size());
    auto floatingValue = [&](TensorId t) { return dtypeIsFloating(mg.tensor(t).dtype) && !mg.tensor(t).value; };
    for (TensorId t : mg.inputs)
        if (floatingValue(t)) source[size_t(t)] = {replicaBytes(mg.tensor(t)), kNoNode, 0, false};
    std::vector<char> weights(mg.tensors.size(), 0);
    for (size_t t = 0; t < weights.size(); ++t) weights[t] = t < weights_.size() ? weights_[t] : isHeldWeight(mg, TensorId(t));
    for (NodeId m = 0; m < NodeId(mg.nodes.size()); ++m) {
        const Node& n = mg.node(m);
        const bool branch = inlined_.any && inlined_.inBranch[size_t(m)];
        const NodeId id = !inlined_.any ? m : branch ? kNoNode : inlined_.owner[size_t(m)];
        for (size_t o = 0; o < n.outputs.size(); ++o) {
            const TensorId t = n.outputs[o];
            if (t != kNoTensor && floatingValue(t)) source[size_t(t)] = {replicaBytes(mg.tensor(t)), id, int(o), false};
        }
        for (size_t i = 0; i < n.inputs.size(); ++i) {
            const TensorId t = n.inputs[i];
            if (t == kNoTensor || !weights[size_t(t)] || !dtypeIsFloating(mg.tensor(t).dtype)) continue;
            source[size_t(t)] = {weightElements(mg.tensor(t)) * elemBytes_, id, int(i), true};
        }
    }
    std::vector<char> holds(mg.tensors.size(), 0);
    for (size_t t = 0; t < source.size(); ++t) holds[t] = source[t].bytes > 0;
    std::vector<NodeChain> chains = chains_.chains;
    for (NodeChain& c : chains)
        for (NodeId& n : c.nodes) n = memNodeOf_[size_t(n)];
    walk_ = StepWorkingSetWalk(mg, saved_, chains, weights, holds);
    walkTerms_.clear();
    walkTerms_.reserve(walk_.terms().size());
    for (TensorId t : walk_.terms()) walkTerms_.push_back(source[size_t(t)]);
}

double CostModel::collectiveTime(CollectiveKind k, double fullBytes, MeshAxis axis, double* wireBytes) const
{
    const int n = axis == MeshAxis::Tp ? mesh_.tp : mesh_.dp;
    const double wire = collectiveWireBytes(k, fullBytes, n);
    if (wireBytes) *wireBytes = wire;
    if (wire <= 0) return 0;
    const LinkSpec link = axisLink(cluster_, mesh_, axis);
    // Ring algorithms take n-1 steps (all-reduce 2(n-1)), each paying the latency once. A
    // calibrated CPU cluster adds what one collective costs inside a step beyond that.
    const double steps = k == CollectiveKind::AllReduce ? 2.0 * (n - 1) : double(n - 1);
    return collectiveOverheadSeconds(cluster_) + steps * link.latency + wire / link.bandwidth;
}

double CostModel::gradientSyncTime(double gradBytes, double bandwidthTime, double compute, double* lostCompute) const
{
    if (mesh_.dp <= 1 || gradBytes <= 0) return 0;
    const LinkSpec link = axisLink(cluster_, mesh_, MeshAxis::Dp);
    const double steps = 2.0 * (mesh_.dp - 1);
    const double buckets = std::ceil(gradBytes / kDdpBucketBytes);
    const double perCall = collectiveOverheadSeconds(cluster_) + steps * link.latency;
    const double whole = buckets * perCall + bandwidthTime;
    const double lastBytes = gradBytes - (buckets - 1) * kDdpBucketBytes;
    const double last = perCall + collectiveWireBytes(CollectiveKind::AllReduce, lastBytes, mesh_.dp) / link.bandwidth;
    const double backward = compute * options_.backwardFactor / (1 + options_.backwardFactor);
    const double exposed = std::max(last, whole - backward);
    if (lostCompute) *lostCompute = overlappedCollectiveCompute(cluster_.roofline, whole - exposed);
    return exposed;
}

CostTerms CostTerms::scaled(double f) const
{
    CostTerms c = *this;
    c.compute *= f;
    c.tpComm *= f;
    c.dpComm *= f;
    c.ppComm *= f;
    c.bubble *= f;
    c.commBytes *= f;
    c.weightMemory *= f;
    c.activationMemory *= f;
    c.dpGradBytes *= f;
    return c;
}

int CostModel::weightUses(TensorId t) const
{
    const auto it = sharedWeights_.find(t);
    return it == sharedWeights_.end() ? 1 : int(it->second.size());
}

CostTerms CostModel::weightUseCost(TensorId t, const TensorLayout& l, bool splitCompute, bool buffer) const
{
    CostTerms c;
    const Tensor& x = g_.tensor(t);
    const double elems = weightElements(x);
    const double shard = l.kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
    if (buffer) { // running statistics: fp32, no gradient, no optimizer state
        c.weightMemory = elems * shard * 4;
        return c;
    }
    c.weightMemory = elems * shard * options_.bytesPerParam;
    double wire = 0;
    if (mesh_.dp > 1) {
        // Latency is paid per DDP bucket, for the whole plan (gradientSyncTime).
        const double grad = elems * shard * elemBytes_;
        wire = collectiveWireBytes(CollectiveKind::AllReduce, grad, mesh_.dp);
        if (options_.syncView != CostOptions::SyncView::Hidden) c.dpComm += wire / axisLink(cluster_, mesh_, MeshAxis::Dp).bandwidth;
        c.dpGradBytes += grad;
        c.commBytes += wire;
    }
    if (splitCompute && l.kind == TensorLayout::R) { // weight used whole by split compute: partial gradient
        c.tpComm += collectiveTime(CollectiveKind::AllReduce, elems * elemBytes_, MeshAxis::Tp, &wire);
        c.commBytes += wire;
    }
    return c;
}

CostTerms CostModel::sharedWeightCost(TensorId t, const std::vector<std::pair<TensorLayout, bool>>& uses) const
{
    const Tensor& x = g_.tensor(t);
    const double elems = weightElements(x);
    const double bytes = elems * elemBytes_;
    auto dpSync = [&](CostTerms& c, double grad) {
        if (mesh_.dp <= 1) return;
        const double wire = collectiveWireBytes(CollectiveKind::AllReduce, grad, mesh_.dp);
        if (options_.syncView != CostOptions::SyncView::Hidden) c.dpComm += wire / axisLink(cluster_, mesh_, MeshAxis::Dp).bandwidth;
        c.dpGradBytes += grad;
        c.commBytes += wire;
    };
    // Kept replicated: every use reads it in place (a split use slices it); the uses' partial
    // gradients are summed locally and all-reduced over tp once.
    CostTerms replicated;
    replicated.weightMemory = elems * options_.bytesPerParam;
    dpSync(replicated, bytes);
    bool partial = false;
    const TensorLayout* sharded = nullptr;
    for (const auto& [layout, split] : uses) {
        partial = partial || split || layout.kind != TensorLayout::R;
        if (layout.kind == TensorLayout::S && !sharded) sharded = &layout;
    }
    double wire = 0;
    if (partial) {
        replicated.tpComm += collectiveTime(CollectiveKind::AllReduce, bytes, MeshAxis::Tp, &wire);
        replicated.commBytes += wire;
    }
    if (!sharded) return replicated;
    // Stored sharded, gathered once a step: one all-gather forward, one reduce-scatter of the
    // summed gradient backward; the gathered copy is kept for the backward.
    CostTerms gathered;
    gathered.weightMemory = elems / mesh_.tp * options_.bytesPerParam;
    gathered.activationMemory = bytes;
    dpSync(gathered, bytes / mesh_.tp);
    gathered.tpComm += collectiveTime(CollectiveKind::AllGather, bytes, MeshAxis::Tp, &wire);
    gathered.commBytes += wire;
    gathered.tpComm += collectiveTime(CollectiveKind::ReduceScatter, bytes, MeshAxis::Tp, &wire);
    gathered.commBytes += wire;
    const bool gatherWins = gathered.time() < replicated.time() ||
                            (gathered.time() == replicated.time() && gathered.memory() < replicated.memory());
    return gatherWins ? gathered : replicated;
}

CostTerms CostModel::nodeCost(NodeId id, const OpStrategy& s) const
{
    const Node& n = g_.node(id);
    CostTerms c;
    const OpCost oc = tapas::nodeCost(g_, n);
    const double share = s.computeFraction / batchShards();
    const bool partial = !s.outputs.empty() && s.outputs[0].kind == TensorLayout::P;
    // A Gather's table gradient is as large as the table this device holds, however the batch is split.
    const double dataShare = s.inputs.empty() ? -1 : s.inputs[0].kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
    const int inputSplit = !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S ? s.inputs[0].dim : -1;
    const std::optional<double> measured = nodeFamilySeconds(cluster_, g_, n, oc, share, &chains_, partial, dataShare,
                                                             localConvInput(g_, n, inputSplit, mesh_.tp, batchShards()));
    const double forward = measured ? 0
                           : roofline_ ? rooflineForwardSeconds(*roofline_, rooflineOps_[size_t(id)], oc, s, batchShards())
                                       : oc.flops * share / flopRate_;
    c.compute = measured ? *measured : forward * (1 + options_.backwardFactor);
    if (options_.syncView == CostOptions::SyncView::OutlastsBackward) c.compute /= 1 + options_.backwardFactor;
    // The worker's step beside the nodes: the graph inputs this node reads first drawn, the
    // targets and loss of the graph outputs it writes (a calibrated CPU cluster only).
    if (measured)
        for (TensorId t : drawnBy_[size_t(id)]) c.compute += drawnTensorSeconds(cluster_, g_, t, replicaBytes(t) / elemBytes_);
    // On a GPU, the loss over each float graph output it writes: Megatron-LM's fp32 cross entropy
    // over this device's shard of the logits (split over tp when the output is), forward and backward.
    if (roofline_)
        for (TensorId t : drawnBy_[size_t(id)]) {
            const size_t o = size_t(std::find(n.outputs.begin(), n.outputs.end(), t) - n.outputs.begin());
            if (o >= s.outputs.size() || !dtypeIsFloating(g_.tensor(t).dtype)) continue; // a graph input it reads
            const double shard = s.outputs[o].kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
            c.compute += crossEntropySeconds(*roofline_, replicaBytes(t) / elemBytes_ * shard);
        }
    const bool split = s.computeFraction < 1;
    c.weightMemory += heldBufferBytes_[size_t(id)];
    for (size_t i = 0; i < n.inputs.size() && i < s.inputs.size(); ++i) {
        const TensorId t = n.inputs[i];
        if (t == kNoTensor) continue;
        const Tensor& x = g_.tensor(t);
        if (!dtypeIsFloating(x.dtype) || (x.value && !weights_[size_t(t)])) continue;
        if (weights_[size_t(t)]) {
            // A weight read by several nodes (tied embeddings, one layer applied N times) is one
            // tensor: each use carries its share, so uses in one layout sum to the weight once,
            // and the report settles uses in different layouts (sharedWeightCost).
            const bool buffer = isBufferInput(n, i);
            CostTerms use = weightUseCost(t, s.inputs[i], split, buffer);
            // The worker updates each weight in fp32 where it is stored (a shard, or whole).
            if (!buffer && !cluster_.opFamilies.empty()) {
                const double elems = weightElements(x);
                use.compute += optimizerSeconds(cluster_, elems * 4.0 / (s.inputs[i].kind == TensorLayout::S ? mesh_.tp : 1));
                use.compute += inStepSeconds(cluster_, "weight_in_step"); // its gradient added into the held one
            }
            c += use.scaled(1.0 / weightUses(t));
        } else if (split && s.inputs[i].kind == TensorLayout::R && x.kind == TensorKind::Activation) {
            double wire = 0;
            c.tpComm += collectiveTime(CollectiveKind::AllReduce, replicaBytes(t), MeshAxis::Tp, &wire);
            c.commBytes += wire;
        }
    }
    // Values kept that are no tensor of the graph: a recurrent cell's inside (replicated), an
    // inlined If branch's values.
    const NodeId mem = memNodeOf_[size_t(id)];
    if (mem != kNoNode) c.activationMemory += saved_.innerKept[size_t(mem)] * elemBytes_ / batchShards();
    c.activationMemory += branchKept_[size_t(id)];
    for (size_t o = 0; o < n.outputs.size() && o < s.outputs.size(); ++o) {
        const TensorId t = n.outputs[o];
        if (t == kNoTensor || !dtypeIsFloating(g_.tensor(t).dtype) || g_.tensor(t).value) continue;
        // Kept only when a backward needs it (or a view of it): the rest is let go after its
        // last reader.
        const double shard = s.outputs[o].kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
        if (o == 0 && mem != kNoNode) c.activationMemory += maskBytes(mem, shard);
        if (o == 0 && mem != kNoNode && saved_.batchNormScale[size_t(mem)] && n.inputs.size() > 4 && n.input(4) != kNoTensor) {
            const bool channelsSplit = !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S && s.inputs[0].dim == 1;
            c.activationMemory += replicaBytes(n.input(4)) / (channelsSplit ? mesh_.tp : 1); // sqrt(var + eps), per channel
        }
        if (!saved_.kept[size_t(t)]) continue;
        c.activationMemory += replicaBytes(t) * shard;
    }
    return c;
}

CostTerms CostModel::reshardCost(TensorId t, const TensorLayout& from, const TensorLayout& to) const
{
    CostTerms c;
    const CollectiveKind fwd = reshardCollective(from, to);
    const double bytes = replicaBytes(t);
    double wire = 0;
    c.tpComm += collectiveTime(fwd, bytes, MeshAxis::Tp, &wire);
    c.commBytes += wire;
    const Tensor& x = g_.tensor(t);
    if (dtypeIsFloating(x.dtype) && x.kind == TensorKind::Activation) { // inputs need no gradient
        c.tpComm += collectiveTime(backwardCollective(fwd), bytes, MeshAxis::Tp, &wire);
        c.commBytes += wire;
    }
    return c;
}

CostReport evaluatePlan(const ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded)
{
    const Graph& g = model.graph();
    std::vector<CostTerms> perNode(g.nodes.size());
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) perNode[size_t(n)] = model.nodeCost(n, plan.nodes[size_t(n)]);
    return reportFromNodeCosts(plan, model, std::move(perNode), folded);
}

CostReport reportFromNodeCosts(const ShardingPlan& plan, const CostModel& model, std::vector<CostTerms> perNode,
                               const FoldedGraph* folded)
{
    CostReport r;
    r.perNode = std::move(perNode);
    CostTerms outputs;
    for (const Reshard& rs : plan.reshards) {
        const CostTerms c = model.reshardCost(rs.tensor, rs.from, rs.to);
        (rs.consumer == kNoNode ? outputs : r.perNode[size_t(rs.consumer)]) += c;
    }
    settleSharedWeights(r.perNode, plan, model);
    finishReport(r, plan, model, outputs, folded);
    return r;
}

void settleSharedWeights(std::vector<CostTerms>& perNode, const ShardingPlan& plan, const CostModel& model)
{
    for (const auto& [t, uses] : model.sharedWeights()) {
        std::vector<std::pair<TensorLayout, bool>> layouts;
        bool differ = false;
        CostTerms shares;
        for (const auto& [n, i] : uses) {
            const OpStrategy& s = plan.nodes[size_t(n)];
            if (size_t(i) >= s.inputs.size()) continue;
            layouts.emplace_back(s.inputs[size_t(i)], s.computeFraction < 1);
            differ = differ || !(layouts.front().first == layouts.back().first) || layouts.front().second != layouts.back().second;
            shares += model.weightUseCost(t, layouts.back().first, layouts.back().second, false).scaled(1.0 / double(uses.size()));
        }
        if (!differ) continue;
        CostTerms delta = model.sharedWeightCost(t, layouts);
        delta += shares.scaled(-1);
        perNode[size_t(uses.front().first)] += delta;
    }
}

void finishReport(CostReport& r, const ShardingPlan& plan, const CostModel& model, const CostTerms& outputs,
                  const FoldedGraph* folded)
{
    r.total = {};
    for (const CostTerms& c : r.perNode) r.total += c;
    r.total += outputs;
    double lostToSync = 0;
    r.total.dpComm = model.gradientSyncTime(r.total.dpGradBytes, r.total.dpComm, r.total.compute, &lostToSync);
    r.total.compute += lostToSync;
    r.total.compute += model.optimizerStepTime(r.total.weightMemory / model.options().bytesPerParam);
    double unsplit = 0, split = 0; // compute a device would do with the node whole, and does
    for (size_t n = 0; n < r.perNode.size() && n < plan.nodes.size(); ++n) {
        const double fraction = plan.nodes[n].computeFraction;
        split += r.perNode[n].compute;
        unsplit += fraction > 0 ? r.perNode[n].compute / fraction : r.perNode[n].compute;
    }
    r.effectiveDevices = split > 0 ? model.mesh().dp * unsplit / split : double(model.mesh().size());
    if (folded) {
        r.perBlock.assign(folded->chain.size(), CostTerms{});
        for (size_t b = 0; b < folded->chain.size(); ++b) {
            const BlockRef& ref = folded->chain[b];
            for (NodeId n : folded->classes[size_t(ref.classId)].instances[size_t(ref.instance)].nodes)
                r.perBlock[b] += r.perNode[size_t(n)];
        }
    }
    // The nodes' activation memory is what the forward keeps; the step holds more at its fullest
    // moment (the values and gradients alive beside it, the input batch). A staged plan's memory
    // is its stages' (costPlanStages replaces this total).
    r.total.activationMemory += model.workingSet(plan).aboveKept();
    r.fits = r.total.memory() <= model.cluster().memoryBytes;
    r.notes = model.pricingNotes();
}

Status checkBatchSplit(const Graph& g, const DeviceMesh& mesh)
{
    if (mesh.dp <= 1) return Status::success();
    const BatchAxis& b = g.batch;
    const std::string prefix = "mesh " + mesh.toString() + ": data parallelism (dp " + std::to_string(mesh.dp) + ") ";
    if (!b.found())
        return Status::failure(prefix + "needs the model's batch axis, and " +
                               (b.probed ? "there is none: " + b.why
                                         : std::string("it was not probed (import the model with a batch, e.g. --batch N)")));
    if (b.size <= 0 || b.size % mesh.dp == 0) return Status::success();
    const auto& [input, axis] = b.inputs.front();
    return Status::failure("mesh " + mesh.toString() + ": the data-parallel degree " + std::to_string(mesh.dp) +
                           " does not divide the batch " + std::to_string(b.size) + " (axis " + std::to_string(axis) +
                           " of input '" + g.tensor(input).name + "'); each replica must get whole samples");
}

Status checkWorkloadBound(const Graph& g)
{
    // The workload is what the inputs say; a symbol only an output carries (a detector's box
    // count, named by the exporter) is data-dependent and no binding can state it.
    std::set<std::string> workload;
    for (TensorId t : g.inputs)
        for (const Dim& d : g.tensor(t).shape.dims)
            if (d.isSymbolic()) workload.insert(d.symbol);
    if (workload.empty()) return Status::success(); // inputs all bound: no tensor can carry an open dim of theirs
    std::map<std::string, TensorId> unbound; // dim -> first tensor carrying it
    auto scan = [&](TensorId t) {
        if (t == kNoTensor) return;
        for (const Dim& d : g.tensor(t).shape.dims)
            if (d.isSymbolic() && workload.count(d.symbol)) unbound.emplace(d.symbol, t);
    };
    for (const Node& n : g.nodes) {
        for (TensorId t : n.inputs) scan(t);
        for (TensorId t : n.outputs) scan(t);
    }
    if (unbound.empty()) return Status::success();
    std::string list, flags;
    for (const auto& [dim, t] : unbound) {
        list += (list.empty() ? "'" : ", '") + dim + "' (tensor '" + g.tensor(t).name + "' " + g.tensor(t).shape.toString() + ")";
        flags += (flags.empty() ? "--dim " : " --dim ") + dim + "=N";
    }
    const std::string model = g.sourcePath.empty() ? g.name : g.sourcePath;
    return Status::failure("model '" + model + "': the step's cost depends on " +
                           (unbound.size() == 1 ? std::string("a dim that is not bound: ") : "dims that are not bound: ") + list +
                           "; bind " + (unbound.size() == 1 ? "it" : "them") + " (" + flags +
                           (g.batch.found() && !g.batch.symbol.empty() ? ", or --batch N for '" + g.batch.symbol + "'"
                                                                         : std::string(", or --batch N for the batch axis")) +
                           ") so the plan is for a stated workload");
}

} // namespace tapas
