#include "core/shard/sharding_plan.h"

#include <map>
#include <tuple>

namespace tapas {

bool isSourceWeight(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    return x.producer == kNoNode && (x.kind == TensorKind::Weight || x.kind == TensorKind::Constant) && !x.value;
}

TensorLayout producedLayout(const Graph& g, const ShardingPlan& p, TensorId t)
{
    const Tensor& x = g.tensor(t);
    if (x.producer == kNoNode) return TensorLayout::replicated();
    const Node& n = g.node(x.producer);
    for (size_t o = 0; o < n.outputs.size(); ++o)
        if (n.outputs[o] == t && o < p.nodes[size_t(x.producer)].outputs.size())
            return p.nodes[size_t(x.producer)].outputs[o];
    return TensorLayout::replicated();
}

namespace {

// Node n's reshards, `produced(t)` giving the layout tensor t arrives in.
template <class Produced>
void appendReshardsOf(const Graph& g, const ShardingPlan& plan, NodeId n, const Produced& produced, std::vector<Reshard>& out)
{
    const Node& node = g.node(n);
    const OpStrategy& s = plan.nodes[size_t(n)];
    for (size_t i = 0; i < node.inputs.size() && i < s.inputs.size(); ++i) {
        const TensorId t = node.inputs[i];
        if (t == kNoTensor || isSourceWeight(g, t)) continue;
        const TensorLayout from = produced(t);
        const CollectiveKind k = reshardCollective(from, s.inputs[i]);
        if (from != s.inputs[i]) out.push_back({t, n, int(i), from, s.inputs[i], k, backwardCollective(k)});
    }
}

} // namespace

void appendNodeReshards(const Graph& g, const ShardingPlan& plan, NodeId n, std::vector<Reshard>& out)
{
    appendReshardsOf(g, plan, n, [&](TensorId t) { return producedLayout(g, plan, t); }, out);
}

void appendOutputReshards(const Graph& g, const ShardingPlan& plan, std::vector<Reshard>& out)
{
    for (TensorId t : g.outputs) {
        const TensorLayout from = producedLayout(g, plan, t);
        if (from.kind == TensorLayout::P) {
            const CollectiveKind k = reshardCollective(from, TensorLayout::replicated());
            out.push_back({t, kNoNode, -1, from, TensorLayout::replicated(), k, backwardCollective(k)});
        }
    }
}

void placeCollectives(const Graph& g, ShardingPlan& plan)
{
    plan.reshards.clear();
    // Every tensor's layout as its producer writes it, in one pass over the nodes in order
    // (producedLayout per input reaches into the producer's node and strategy for each read).
    std::vector<TensorLayout> produced(g.tensors.size(), TensorLayout::replicated());
    for (NodeId n = 0; n < NodeId(g.nodes.size()) && size_t(n) < plan.nodes.size(); ++n) {
        const std::vector<TensorId>& outs = g.node(n).outputs;
        const std::vector<TensorLayout>& layouts = plan.nodes[size_t(n)].outputs;
        for (size_t o = 0; o < outs.size() && o < layouts.size(); ++o)
            if (outs[o] != kNoTensor && g.tensor(outs[o]).producer == n) produced[size_t(outs[o])] = layouts[o];
    }
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        appendReshardsOf(g, plan, n, [&](TensorId t) { return produced[size_t(t)]; }, plan.reshards);
    appendOutputReshards(g, plan, plan.reshards);
}

ShardingPlan buildPlan(const Graph& g, const DeviceMesh& mesh, std::vector<OpStrategy> nodeStrategies)
{
    ShardingPlan p;
    p.mesh = mesh;
    p.nodes = std::move(nodeStrategies);
    placeCollectives(g, p);
    return p;
}

namespace {

Status checkPlanOn(const Graph& g, const ShardingPlan& plan);

} // namespace

Status checkPlan(const Graph& g, const ShardingPlan& plan)
{
    if (plan.padding.empty()) return checkPlanOn(g, plan);
    if (Status s = checkTablePadding(g, plan); !s) return s;
    if (holdsPadding(g, plan.padding)) return checkPlanOn(g, plan); // an editor's or the worker's padded graph
    return checkPlanOn(paddedGraph(g, plan.padding), plan);
}

namespace {

Status checkPlanOn(const Graph& g, const ShardingPlan& plan)
{
    if (plan.nodes.size() != g.nodes.size())
        return Status::failure("plan has " + std::to_string(plan.nodes.size()) + " node strategies for a graph of " +
                               std::to_string(g.nodes.size()) + " nodes");
    const int tp = plan.mesh.tp;
    auto splitOk = [&](TensorId t, const TensorLayout& l) {
        if (l.kind != TensorLayout::S) return true;
        return tp > 1 && splitsEvenly(g, t, l.dim, tp, plan.batchShards());
    };
    // Says so when the split would divide the whole but not one replica's share of it.
    auto why = [&](TensorId t, const TensorLayout& l) -> std::string {
        if (l.kind != TensorLayout::S || tp == 1 || !splitsEvenly(g, t, l.dim, tp, 1)) return "";
        if (plan.pipeline.microBatches > 1)
            return " (dim " + std::to_string(l.dim) + " scales with the batch: each of dp " + std::to_string(plan.mesh.dp) +
                   " replicas x " + std::to_string(plan.pipeline.microBatches) + " micro-batches holds 1/" +
                   std::to_string(plan.batchShards()) + " of it)";
        return " (dim " + std::to_string(l.dim) + " scales with the batch: each of dp " + std::to_string(plan.mesh.dp) +
               " replicas holds 1/" + std::to_string(plan.mesh.dp) + " of it)";
    };
    std::map<std::tuple<TensorId, NodeId, int>, const Reshard*> placed;
    for (const Reshard& r : plan.reshards) placed[{r.tensor, r.consumer, r.inputIndex}] = &r;
    size_t needed = 0;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        const Node& node = g.node(n);
        const OpStrategy& s = plan.nodes[size_t(n)];
        if (s.inputs.size() != node.inputs.size() || s.outputs.size() != node.outputs.size())
            return Status::failure(nodeLabel(g, n) + ": strategy '" + s.name + "' has the wrong number of layouts");
        if (tp == 1 && s.computeFraction != 1)
            return Status::failure(nodeLabel(g, n) + ": split compute on a mesh without tensor parallelism");
        for (size_t o = 0; o < node.outputs.size(); ++o)
            if (node.outputs[o] != kNoTensor && !splitOk(node.outputs[o], s.outputs[o]))
                return Status::failure(nodeLabel(g, n) + ": output '" + g.tensor(node.outputs[o]).name + "' cannot be " +
                                       s.outputs[o].toString() + " over tp " + std::to_string(tp) +
                                       why(node.outputs[o], s.outputs[o]));
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor) continue;
            if (!splitOk(t, s.inputs[i]))
                return Status::failure(nodeLabel(g, n) + ": input '" + g.tensor(t).name + "' cannot be " +
                                       s.inputs[i].toString() + " over tp " + std::to_string(tp) + why(t, s.inputs[i]));
            if (isSourceWeight(g, t)) continue;
            const TensorLayout from = producedLayout(g, plan, t);
            auto it = placed.find({t, n, int(i)});
            if (from == s.inputs[i]) {
                if (it != placed.end())
                    return Status::failure(nodeLabel(g, n) + ": collective placed on tensor '" + g.tensor(t).name +
                                           "' whose layout does not change");
                continue;
            }
            ++needed;
            if (it == placed.end())
                return Status::failure(nodeLabel(g, n) + ": tensor '" + g.tensor(t).name + "' arrives as " +
                                       from.toString() + " but is needed as " + s.inputs[i].toString() +
                                       " and no collective is placed");
            if (it->second->from != from || it->second->to != s.inputs[i] ||
                it->second->forward != reshardCollective(from, s.inputs[i]))
                return Status::failure(nodeLabel(g, n) + ": tensor '" + g.tensor(t).name + "' has the wrong collective (" +
                                       std::string(collectiveName(it->second->forward)) + ")");
        }
    }
    for (TensorId t : g.outputs) {
        if (producedLayout(g, plan, t).kind != TensorLayout::P) continue;
        ++needed;
        if (!placed.count({t, kNoNode, -1}))
            return Status::failure("graph output '" + g.tensor(t).name + "' is left partial: no all-reduce placed");
    }
    if (needed != plan.reshards.size())
        return Status::failure("plan places " + std::to_string(plan.reshards.size()) + " collectives but " +
                               std::to_string(needed) + " layout changes need one");
    return Status::success();
}

} // namespace

} // namespace tapas
