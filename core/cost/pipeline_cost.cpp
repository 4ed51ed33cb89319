#include "core/cost/pipeline_cost.h"

#include "core/cost/family_time.h"
#include "core/cost/gpu_roofline.h"
#include "core/shard/collective.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tapas {

namespace {

bool activationMatMul(const Graph& g, const Node& n)
{
    if (n.opType != "MatMul" || n.inputs.size() != 2) return false;
    for (TensorId t : n.inputs)
        if (t == kNoTensor || g.tensor(t).isParameter() || g.tensor(t).producer == kNoNode) return false;
    return true;
}

// Ops between the score product and the product that applies the scores.
bool scoreOp(const std::string& op)
{
    return op == "Div" || op == "Mul" || op == "Add" || op == "Sub" || op == "Where" || op == "Softmax" || op == "Dropout" ||
           op == "Cast";
}

// `perCall`: what a calibrated CPU cluster measured one collective costing inside a step beyond
// the link's alpha-beta time (collectiveOverheadSeconds), paid by every send and collective here
// as CostModel::collectiveTime pays it.
double sendTime(double bytes, const LinkSpec& link, double perCall)
{
    return bytes > 0 ? perCall + link.latency + bytes / link.bandwidth : 0;
}

} // namespace

std::vector<char> attentionCoreNodes(const Graph& g)
{
    std::vector<char> core(g.nodes.size(), 0);
    for (NodeId a = 0; a < NodeId(g.nodes.size()); ++a) {
        if (!activationMatMul(g, g.node(a)) || g.node(a).outputs.empty()) continue;
        // Follow the scores through single-reader score ops to a second activation product.
        std::vector<NodeId> path = {a};
        TensorId t = g.node(a).outputs[0];
        bool found = false;
        for (int steps = 0; steps < 16 && t != kNoTensor; ++steps) {
            const std::vector<NodeId>& readers = g.tensor(t).consumers;
            if (readers.size() != 1) break;
            const Node& r = g.node(readers[0]);
            if (activationMatMul(g, r)) {
                path.push_back(readers[0]);
                found = true;
                break;
            }
            if (!scoreOp(r.opType) || r.outputs.empty()) break;
            path.push_back(readers[0]);
            t = r.outputs[0];
        }
        if (found)
            for (NodeId n : path) core[size_t(n)] = 1;
    }
    return core;
}

std::vector<BlockProfile> blockProfiles(const ShardingPlan& plan, const CostReport& report, const CostModel& model,
                                        const FoldedGraph& folded)
{
    const Graph& g = model.graph();
    const size_t blocks = folded.chain.size();
    std::vector<BlockProfile> out(blocks);
    const std::vector<char> core = attentionCoreNodes(g);
    const double fwdShare = 1.0 / (1.0 + model.options().backwardFactor);
    // Chain index of every block instance, for the producer of each crossing tensor.
    std::vector<std::vector<int>> chainIndex(folded.classes.size());
    for (size_t c = 0; c < folded.classes.size(); ++c) chainIndex[c].assign(folded.classes[c].instances.size(), -1);
    for (size_t b = 0; b < blocks; ++b) chainIndex[size_t(folded.chain[b].classId)][size_t(folded.chain[b].instance)] = int(b);
    auto blockOf = [&](NodeId n) -> int {
        if (n == kNoNode || size_t(n) >= folded.nodeRef.size() || folded.nodeRef[size_t(n)].classId < 0) return -1;
        const NodeBlockRef& r = folded.nodeRef[size_t(n)];
        return chainIndex[size_t(r.classId)][size_t(r.instance)];
    };
    auto keptBytes = [&](TensorId t) {
        const TensorLayout l = producedLayout(g, plan, t);
        return model.replicaBytes(t) * (l.kind == TensorLayout::S ? 1.0 / model.mesh().tp : 1.0);
    };
    // What each node's forward or backward holds beyond the kept storages, from one walk of the
    // micro-batch's step under the plan.
    std::vector<double> nodeExtra;
    model.workingSet(plan, &nodeExtra);
    // A tensor made in block p and read up to block r crosses every boundary p .. r-1.
    std::unordered_map<TensorId, std::pair<int, int>> span; // tensor -> (producer block, last reader block)
    std::vector<double> crossing(blocks + 1, 0);
    for (size_t b = 0; b < blocks; ++b) {
        const BlockRef& ref = folded.chain[b];
        const BlockInstance& inst = folded.classes[size_t(ref.classId)].instances[size_t(ref.instance)];
        BlockProfile& p = out[b];
        p.classId = ref.classId;
        if (b < report.perBlock.size()) p.terms = report.perBlock[b];
        p.forwardTime = (p.terms.compute + p.terms.tpComm) * fwdShare;
        for (NodeId n : inst.nodes) p.workingExtra = std::max(p.workingExtra, nodeExtra[size_t(n)]);
        for (NodeId n : inst.nodes) {
            if (!core[size_t(n)] || size_t(n) >= report.perNode.size()) continue;
            p.coreForwardTime += report.perNode[size_t(n)].compute * fwdShare;
            // The product that applies the scores (it reads a core output) makes the context,
            // which the next op reads: kept.
            bool appliesScores = false;
            if (activationMatMul(g, g.node(n)))
                for (TensorId t : g.node(n).inputs)
                    appliesScores = appliesScores || (g.tensor(t).producer != kNoNode && core[size_t(g.tensor(t).producer)]);
            if (!appliesScores) p.coreActivation += report.perNode[size_t(n)].activationMemory;
        }
        for (TensorId t : inst.inputs) {
            if (t == kNoTensor) continue;
            const Tensor& x = g.tensor(t);
            if (x.producer == kNoNode || !dtypeIsFloating(x.dtype) || x.value) continue;
            p.inputBytes += keptBytes(t);
            const int from = blockOf(x.producer);
            if (from < 0 || from >= int(b)) continue;
            auto [it, fresh] = span.try_emplace(t, from, int(b));
            if (!fresh) it->second.second = std::max(it->second.second, int(b));
        }
    }
    for (const auto& [t, s] : span) {
        const double bytes = model.replicaBytes(t); // sent whole (scatter/gather splits it over tp later)
        crossing[size_t(s.first)] += bytes;
        crossing[size_t(s.second)] -= bytes;
    }
    double running = 0;
    for (size_t b = 0; b < blocks; ++b) {
        running += crossing[b];
        out[b].sendBytes = std::max(0.0, running);
    }
    return out;
}

std::vector<std::pair<int, int>> partitionChain(const std::vector<double>& cost, const std::vector<int>& classIds, int parts)
{
    const int n = int(cost.size());
    if (parts <= 0 || n < parts) return {};
    struct Run {
        int first, count;
        double each;
    };
    std::vector<Run> runs;
    for (int b = 0; b < n; ++b) {
        if (!runs.empty() && classIds[size_t(b)] == classIds[size_t(b - 1)] &&
            std::abs(cost[size_t(b)] - runs.back().each) <= 1e-12 * std::max(1e-30, std::abs(runs.back().each)))
            ++runs.back().count;
        else runs.push_back({b, 1, cost[size_t(b)]});
    }
    // Greedy fill at bottleneck T: each stage takes as many blocks as fit, a run at a time.
    auto fill = [&](double T, std::vector<std::pair<int, int>>* cuts) -> int {
        int stages = 1;
        double load = 0;
        int start = 0;
        for (const Run& r : runs) {
            int left = r.count, at = r.first;
            while (left > 0) {
                const double room = T - load;
                int take = r.each <= 0 ? left : int(std::min<double>(left, std::floor(room / r.each * (1 + 1e-12))));
                if (take <= 0) {
                    if (load == 0) return -1; // one block is slower than T
                    if (cuts) cuts->push_back({start, at});
                    start = at;
                    ++stages;
                    load = 0;
                    continue;
                }
                load += take * r.each;
                left -= take;
                at += take;
            }
        }
        if (cuts) cuts->push_back({start, n});
        return stages;
    };
    double lo = 0, hi = 0;
    for (double c : cost) {
        hi += c;
        lo = std::max(lo, c);
    }
    if (fill(lo, nullptr) > 0 && fill(lo, nullptr) <= parts) hi = lo;
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        const int s = fill(mid, nullptr);
        (s > 0 && s <= parts ? hi : lo) = mid;
    }
    std::vector<std::pair<int, int>> cuts;
    fill(hi, &cuts);
    // Fewer stages than parts (a block that alone sets the bottleneck): split the longest ones.
    while (int(cuts.size()) < parts) {
        auto longest = std::max_element(cuts.begin(), cuts.end(), [](const auto& a, const auto& b) {
            return a.second - a.first < b.second - b.first;
        });
        const int mid = longest->first + (longest->second - longest->first) / 2;
        const std::pair<int, int> tail{mid, longest->second};
        longest->second = mid;
        cuts.insert(longest + 1, tail);
    }
    return cuts;
}

double bubbleFraction(int pp, int microBatches, int virtualStages)
{
    const double p = pp, m = microBatches, v = std::max(1, virtualStages);
    return (p - 1) / (v * m + p - 1);
}

double megatronGptFlops(double batch, double seq, double layers, double hidden, double vocab)
{
    return 96 * batch * seq * layers * hidden * hidden * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden));
}

namespace {

struct StageSums {
    double compute = 0, tpComm = 0, forward = 0, coreForward = 0;
    double weights = 0, activations = 0, core = 0, inputs = 0;
    double largestBlock = 0, largestCore = 0; // transient: one block's recomputed activations
    double workingExtra = 0; // transient: one micro-batch's values and gradients beside what is kept (the largest block's)
    double gradBytes = 0;
    double commBytes = 0; // tp collectives' bytes of one micro-batch
};

double recomputeTime(const StageSums& s, Recompute r)
{
    return r == Recompute::Full ? s.forward : r == Recompute::Selective ? s.coreForward : 0;
}

double keptPerMicroBatch(const StageSums& s, Recompute r)
{
    return r == Recompute::Full ? s.inputs : r == Recompute::Selective ? s.activations - s.core : s.activations;
}

double transient(const StageSums& s, Recompute r)
{
    // One micro-batch's forward or backward runs at a time on a rank: on top of what the
    // micro-batches in flight keep (their kept activations counted whole), the values and
    // gradients it holds beside them, and under recomputation the activations it reruns.
    return s.workingExtra + (r == Recompute::Full ? s.largestBlock : r == Recompute::Selective ? s.largestCore : 0);
}

} // namespace

std::optional<PipelineEvaluation> evaluatePipeline(const std::vector<BlockProfile>& blocks, const PipelineConfig& c,
                                                   const CostModel& model, const ClusterSpec& cluster, double memoryLimit)
{
    const int p = std::max(1, c.pp), v = p > 1 ? std::max(1, c.virtualStages) : 1, m = std::max(1, c.microBatches);
    const int parts = p * v;
    std::vector<double> cost(blocks.size());
    std::vector<int> classes(blocks.size());
    const Recompute partitionMode = c.recompute.value_or(Recompute::None);
    for (size_t b = 0; b < blocks.size(); ++b) {
        const BlockProfile& x = blocks[b];
        cost[b] = x.terms.compute + x.terms.tpComm +
                  (partitionMode == Recompute::Full ? x.forwardTime : partitionMode == Recompute::Selective ? x.coreForwardTime : 0);
        classes[b] = x.classId;
    }
    const std::vector<std::pair<int, int>> cuts = c.stages.empty() ? partitionChain(cost, classes, parts) : c.stages;
    if (cuts.empty() || int(cuts.size()) != parts) return std::nullopt;
    for (size_t s = 0; s < cuts.size(); ++s)
        if (cuts[s].first >= cuts[s].second || cuts[s].first != (s == 0 ? 0 : cuts[s - 1].second) ||
            (s + 1 == cuts.size() && cuts[s].second != int(blocks.size())))
            return std::nullopt;
    if (!c.rankRecompute.empty() && int(c.rankRecompute.size()) != p) return std::nullopt;
    const CostOptions& o = model.options();
    const double elemBytes = o.dtype == "fp32" ? 4 : 2;
    const double zero = c.distributedOptimizer && c.dp > 1
                            ? (o.bytesPerParam - o.optimizerBytesPerParam + o.optimizerBytesPerParam / c.dp) / o.bytesPerParam
                            : 1.0;
    const DeviceMesh mesh{c.dp, c.tp, p};
    const LinkSpec ppLink = axisLink(cluster, mesh, MeshAxis::Pp);
    const LinkSpec dpLink = axisLink(cluster, mesh, MeshAxis::Dp);
    const LinkSpec tpLink = axisLink(cluster, mesh, MeshAxis::Tp);
    // A send between stages: each of the tp devices sends its 1/tp slice, the receivers
    // all-gather it over their tp group (the scatter/gather optimisation).
    const double perCall = collectiveOverheadSeconds(cluster);
    auto send = [&](double bytes) {
        if (bytes <= 0) return 0.0;
        double t = sendTime(bytes / c.tp, ppLink, perCall);
        if (c.tp > 1)
            t += perCall + (c.tp - 1) * tpLink.latency + collectiveWireBytes(CollectiveKind::AllGather, bytes, c.tp) / tpLink.bandwidth;
        return t;
    };
    std::vector<StageSums> sums(static_cast<size_t>(parts));
    std::vector<double> sends(size_t(parts), 0);
    for (int s = 0; s < parts; ++s) {
        StageSums& x = sums[size_t(s)];
        for (int b = cuts[size_t(s)].first; b < cuts[size_t(s)].second; ++b) {
            const BlockProfile& k = blocks[size_t(b)];
            x.compute += k.terms.compute;
            x.tpComm += k.terms.tpComm;
            x.forward += k.forwardTime;
            x.coreForward += k.coreForwardTime;
            x.weights += k.terms.weightMemory;
            x.activations += k.terms.activationMemory;
            x.core += k.coreActivation;
            x.inputs += k.inputBytes;
            x.largestBlock = std::max(x.largestBlock, k.terms.activationMemory);
            x.largestCore = std::max(x.largestCore, k.coreActivation);
            x.workingExtra = std::max(x.workingExtra, k.workingExtra);
            x.commBytes += k.terms.commBytes;
        }
        x.gradBytes = x.weights / o.bytesPerParam * elemBytes;
        if (s + 1 < parts) sends[size_t(s)] += send(blocks[size_t(cuts[size_t(s)].second - 1)].sendBytes); // forward
        if (s > 0) sends[size_t(s)] += send(blocks[size_t(cuts[size_t(s)].first - 1)].sendBytes);           // its gradient back
    }
    // Stage forwards a rank keeps in flight at once (each holding 1/v of the rank's activations).
    auto inFlight = [&](int rank) -> double {
        if (v == 1) return std::min(p - rank, m);
        return std::min(2.0 * (p - rank - 1) + double(v - 1) * p + 1, double(m) * v) / v;
    };
    PipelineEvaluation e;
    e.schedule.microBatches = m;
    e.schedule.microBatchSize = c.microBatchSize;
    e.schedule.virtualStages = v;
    e.schedule.distributedOptimizer = c.distributedOptimizer && c.dp > 1;
    std::vector<double> rankTime(size_t(p), 0), rankCompute(size_t(p), 0), rankTp(size_t(p), 0), rankSend(size_t(p), 0);
    std::vector<double> rankWeights(size_t(p), 0), rankActs(size_t(p), 0), rankGrad(size_t(p), 0), rankBytes(size_t(p), 0);
    std::vector<Recompute> rankMode(size_t(p), partitionMode);
    bool fits = true;
    for (int r = 0; r < p; ++r) {
        StageSums all;
        double send = 0;
        for (int s = r; s < parts; s += p) {
            const StageSums& x = sums[size_t(s)];
            all.compute += x.compute;
            all.tpComm += x.tpComm;
            all.forward += x.forward;
            all.coreForward += x.coreForward;
            all.weights += x.weights;
            all.activations += x.activations;
            all.core += x.core;
            all.inputs += x.inputs;
            all.largestBlock = std::max(all.largestBlock, x.largestBlock);
            all.largestCore = std::max(all.largestCore, x.largestCore);
            all.workingExtra = std::max(all.workingExtra, x.workingExtra);
            all.gradBytes += x.gradBytes;
            all.commBytes += x.commBytes;
            send += sends[size_t(s)];
        }
        auto memory = [&](Recompute mode) {
            return all.weights * zero + keptPerMicroBatch(all, mode) * inFlight(r) + transient(all, mode);
        };
        Recompute mode = c.rankRecompute.empty() ? partitionMode : c.rankRecompute[size_t(r)];
        if (!c.recompute && c.rankRecompute.empty()) { // the least recomputation that fits; full when nothing does
            mode = Recompute::Full;
            for (Recompute t : {Recompute::None, Recompute::Selective})
                if (memory(t) <= memoryLimit) {
                    mode = t;
                    break;
                }
        }
        rankMode[size_t(r)] = mode;
        // Full recomputation reruns the forward's compute and its tp collectives; selective only
        // the attention core's compute.
        const double fwdShare = 1.0 / (1.0 + o.backwardFactor);
        rankCompute[size_t(r)] = all.compute + (mode == Recompute::Full ? all.compute * fwdShare : recomputeTime(all, mode));
        rankTp[size_t(r)] = all.tpComm + (mode == Recompute::Full ? all.tpComm * fwdShare : 0);
        rankBytes[size_t(r)] = all.commBytes * (mode == Recompute::Full ? 1 + fwdShare : 1);
        rankSend[size_t(r)] = send;
        rankTime[size_t(r)] = rankCompute[size_t(r)] + rankTp[size_t(r)] + send;
        rankWeights[size_t(r)] = all.weights * zero;
        rankActs[size_t(r)] = memory(mode) - rankWeights[size_t(r)];
        rankGrad[size_t(r)] = all.gradBytes;
        fits = fits && memory(mode) <= memoryLimit;
        for (int s = r; s < parts; s += p) {
            const StageSums& x = sums[size_t(s)];
            PipelineStage st;
            st.firstBlock = cuts[size_t(s)].first;
            st.endBlock = cuts[size_t(s)].second;
            st.device = r;
            st.recompute = mode;
            st.timePerMicroBatch = x.compute + x.tpComm + recomputeTime(x, mode) + sends[size_t(s)];
            st.weightMemory = x.weights * zero;
            st.activationMemory = keptPerMicroBatch(x, mode) * inFlight(r) + (s == r ? transient(all, mode) : 0);
            e.schedule.stages.push_back(st);
        }
    }
    std::sort(e.schedule.stages.begin(), e.schedule.stages.end(),
              [](const PipelineStage& a, const PipelineStage& b) { return a.firstBlock < b.firstBlock; });
    // 1F1B: the slowest rank sets the pace of the m micro-batches; filling and draining the
    // pipeline costs the other ranks' share once, divided by v when interleaved.
    const int slow = int(std::max_element(rankTime.begin(), rankTime.end()) - rankTime.begin());
    double sum = 0;
    for (double t : rankTime) sum += t;
    const double busy = m * rankTime[size_t(slow)];
    const double fill = (sum - rankTime[size_t(slow)]) / v;
    // Gradients are reduced over dp after the flush (Megatron-LM's pipelined data parallelism);
    // without stages DDP overlaps all but the last bucket with the last micro-batch's backward.
    double sync = 0, syncBytes = 0, lostToSync = 0;
    if (c.dp > 1)
        for (int r = 0; r < p; ++r) {
            const double bytes = rankGrad[size_t(r)];
            const double buckets = std::ceil(bytes / kDdpBucketBytes);
            const double steps = 2.0 * (c.dp - 1);
            const double wire = collectiveWireBytes(CollectiveKind::AllReduce, bytes, c.dp);
            double t = buckets * (perCall + steps * dpLink.latency) + wire / dpLink.bandwidth;
            if (p == 1) {
                const double lastBytes = bytes - (buckets - 1) * kDdpBucketBytes;
                const double last =
                    perCall + steps * dpLink.latency + collectiveWireBytes(CollectiveKind::AllReduce, lastBytes, c.dp) / dpLink.bandwidth;
                const double backward = rankCompute[size_t(r)] * o.backwardFactor / (1 + o.backwardFactor);
                const double whole = t;
                t = std::max(last, t - backward);
                // The overlapped buckets' SMs are not the backward's (gpu_roofline.h).
                lostToSync = std::max(lostToSync, overlappedCollectiveCompute(cluster.roofline, whole - t));
            }
            if (t > sync) {
                sync = t;
                syncBytes = wire;
            }
        }
    // Each rank then steps its optimizer over the parameters it updates (its 1/dp shard of them
    // under ZeRO-1); the step ends when the rank with the most is done.
    double optimizer = 0;
    for (int r = 0; r < p; ++r)
        optimizer = std::max(optimizer, model.optimizerStepTime(rankGrad[size_t(r)] / elemBytes * (e.schedule.distributedOptimizer ? 1.0 / c.dp : 1.0)));
    int fullest = 0;
    for (int r = 1; r < p; ++r)
        if (rankWeights[size_t(r)] + rankActs[size_t(r)] > rankWeights[size_t(fullest)] + rankActs[size_t(fullest)]) fullest = r;
    e.total.compute = m * rankCompute[size_t(slow)] + optimizer + lostToSync;
    e.total.tpComm = m * rankTp[size_t(slow)];
    e.total.ppComm = m * rankSend[size_t(slow)];
    e.total.bubble = fill;
    e.total.dpComm = sync;
    e.total.dpGradBytes = rankGrad[size_t(slow)];
    e.total.commBytes = syncBytes + m * rankBytes[size_t(slow)];
    e.total.weightMemory = rankWeights[size_t(fullest)];
    e.total.activationMemory = rankActs[size_t(fullest)];
    e.schedule.bubbleFraction = (busy + fill) > 0 ? fill / (busy + fill) : 0;
    e.fits = fits;
    return e;
}

} // namespace tapas
