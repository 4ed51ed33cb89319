// PlanEditor: a user's override changes a few nodes' strategies; only the collectives on edges
// into those nodes and into their consumers change, so only those nodes' cost terms are
// recomputed. The plan-level terms (shared weights, the gradient sync) and the totals are then
// redone over the per-node terms in node order (a few thousand additions): evaluatePlan's order,
// which keeps the edited report bit-for-bit equal to a from-scratch evaluatePlan.
#include "core/plan/plan_editor.h"

#include "core/cost/cost_report.h"
#include "core/cost/staged_cost.h"

#include <algorithm>
#include <unordered_map>

namespace tapas {

namespace {

bool sameStrategy(const OpStrategy& a, const OpStrategy& b)
{
    return a.name == b.name && a.inputs == b.inputs && a.outputs == b.outputs && a.computeFraction == b.computeFraction;
}

std::string strategyNames(const std::vector<OpStrategy>& all)
{
    std::string s;
    for (const OpStrategy& o : all)
        if (s.find("'" + o.name + "'") == std::string::npos) s += (s.empty() ? "'" : ", '") + o.name + "'";
    return s;
}

} // namespace

struct PlanEditor::Impl {
    const Graph& g;
    const FoldedGraph* folded;
    const CostModel& model;
    ShardingPlan plan;
    ShardingPlan base; // the plan the editor started from: undoing back to it clears the mark
    CostReport report;
    std::vector<CostTerms> raw; // per node: its cost and its collectives, before the plan-level settlement
    CostTerms outputsCost; // reshards of graph outputs (charged to no node)
    std::vector<StrategyOverride> overrides;
    std::string stagesError; // why the plan's stages could not be costed (the report is then one micro-batch's)

    Impl(const Graph& graph, const FoldedGraph* f, const CostModel& m) : g(graph), folded(f), model(m) {}

    // The strategy of n named `name`. Some rules give two strategies one name (a batched MatMul
    // splitting either of two batch dims is "batch" both times): prefer the one the base plan
    // had, so undoing back to the base is exact.
    const OpStrategy* resolve(const std::vector<OpStrategy>& all, NodeId n, const std::string& name) const
    {
        const OpStrategy* first = nullptr;
        for (const OpStrategy& s : all) {
            if (s.name != name) continue;
            if (sameStrategy(s, base.nodes[size_t(n)])) return &s;
            if (!first) first = &s;
        }
        return first;
    }

    void markOverride(NodeId n, const std::string& strategy)
    {
        for (StrategyOverride& o : overrides)
            if (o.node == n) {
                o.strategy = strategy;
                return;
            }
        overrides.push_back({n, strategy});
    }

    void dropOverride(NodeId n)
    {
        overrides.erase(std::remove_if(overrides.begin(), overrides.end(), [n](const StrategyOverride& o) { return o.node == n; }),
                        overrides.end());
    }

    // Sets the strategies, re-places the collectives into the changed nodes and their consumers,
    // checks the plan and re-costs; on a failed check everything is restored.
    Result<PlanChange> change(const std::vector<std::pair<NodeId, OpStrategy>>& wanted)
    {
        PlanChange ch;
        ch.costBefore = report.total;
        std::vector<std::pair<NodeId, OpStrategy>> old;
        std::vector<NodeId> affected;
        for (const auto& [n, s] : wanted) {
            if (sameStrategy(plan.nodes[size_t(n)], s)) continue;
            ch.before.push_back({n, plan.nodes[size_t(n)].name});
            ch.after.push_back({n, s.name});
            old.emplace_back(n, plan.nodes[size_t(n)]);
            plan.nodes[size_t(n)] = s;
            affected.push_back(n);
            for (TensorId t : g.node(n).outputs)
                if (t != kNoTensor)
                    for (NodeId c : g.tensor(t).consumers) affected.push_back(c);
        }
        if (old.empty()) {
            ch.costAfter = report.total;
            return ch;
        }
        std::sort(affected.begin(), affected.end());
        affected.erase(std::unique(affected.begin(), affected.end()), affected.end());

        // Merge: the untouched reshards keep their place, the affected consumers' are rebuilt
        // where placeCollectives would put them (node order, then the graph outputs).
        std::vector<Reshard> fresh;
        fresh.reserve(plan.reshards.size() + affected.size());
        size_t ai = 0;
        for (const Reshard& r : plan.reshards) {
            if (r.consumer == kNoNode) break;
            while (ai < affected.size() && affected[ai] < r.consumer) appendNodeReshards(g, plan, affected[ai++], fresh);
            if (ai < affected.size() && affected[ai] == r.consumer) continue;
            fresh.push_back(r);
        }
        while (ai < affected.size()) appendNodeReshards(g, plan, affected[ai++], fresh);
        appendOutputReshards(g, plan, fresh);
        fresh.swap(plan.reshards);
        if (Status s = checkPlan(g, plan); !s) {
            for (auto it = old.rbegin(); it != old.rend(); ++it) plan.nodes[size_t(it->first)] = std::move(it->second);
            fresh.swap(plan.reshards);
            return Result<PlanChange>::failure("the change is refused: " + s.error);
        }
        recost(affected);
        ch.costAfter = report.total;
        return ch;
    }

    void recost(const std::vector<NodeId>& affected)
    {
        for (NodeId n : affected) raw[size_t(n)] = model.nodeCost(n, plan.nodes[size_t(n)]);
        // Reshards of one consumer are contiguous and in input order: the same additions
        // evaluatePlan makes. Binary search for each affected consumer's run.
        auto byConsumer = [](const Reshard& r, NodeId n) { return r.consumer != kNoNode && r.consumer < n; };
        for (NodeId n : affected) {
            auto it = std::lower_bound(plan.reshards.begin(), plan.reshards.end(), n, byConsumer);
            for (; it != plan.reshards.end() && it->consumer == n; ++it)
                raw[size_t(n)] += model.reshardCost(it->tensor, it->from, it->to);
        }
        outputsCost = {};
        for (const Reshard& r : plan.reshards)
            if (r.consumer == kNoNode) outputsCost += model.reshardCost(r.tensor, r.from, r.to);
        // A shared weight's settlement and the step's gradient sync span the whole plan: redone
        // over every node (a few thousand additions), in evaluatePlan's order.
        report.perNode = raw;
        settleSharedWeights(report.perNode, plan, model);
        finishReport(report, plan, model, outputsCost, folded && !report.perBlock.empty() ? folded : nullptr);
        // A staged plan's step is its stages' schedule (the model costs one micro-batch).
        if (folded && plan.pipeline.staged()) stagesError = costPlanStages(report, plan, model, *folded, model.cluster().memoryBytes).error;
    }

    // Every node's own cost and collectives, as recost keeps them.
    void recostAll()
    {
        raw.assign(g.nodes.size(), CostTerms{});
        std::vector<NodeId> all(g.nodes.size());
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) all[size_t(n)] = n;
        recost(all);
    }
};

PlanEditor::PlanEditor(const Graph& g, const FoldedGraph* folded, const CostModel& model, ShardingPlan initial,
                       std::vector<StrategyOverride> overrides)
    : d(std::make_unique<Impl>(g, folded, model))
{
    placeCollectives(g, initial);
    d->base = initial;
    d->plan = std::move(initial);
    d->report = evaluatePlan(d->plan, model, folded);
    d->recostAll();
    if (!d->stagesError.empty()) d->plan.warnings.push_back(d->stagesError);
    // Overrides from a saved project: re-applied (a no-op when the plan already has them);
    // one the model no longer allows is dropped with a warning rather than failing the load.
    for (const StrategyOverride& o : overrides) {
        if (o.node < 0 || size_t(o.node) >= g.nodes.size()) {
            d->plan.warnings.push_back("override for node #" + std::to_string(o.node) + " dropped: no such node");
            continue;
        }
        Result<PlanChange> r = setStrategy(o.node, o.strategy, false);
        if (!r) d->plan.warnings.push_back("override dropped: " + r.error());
    }
}

PlanEditor::~PlanEditor() = default;

const ShardingPlan& PlanEditor::plan() const { return d->plan; }
const CostReport& PlanEditor::report() const { return d->report; }
const CostModel& PlanEditor::model() const { return d->model; }

std::vector<OpStrategy> PlanEditor::allowedStrategies(NodeId n) const
{
    if (n < 0 || size_t(n) >= d->g.nodes.size()) return {};
    return nodeStrategies(d->g, n, d->plan.mesh.tp, nullptr, d->plan.batchShards());
}

std::vector<NodeId> PlanEditor::classPeers(NodeId n) const
{
    if (n < 0 || size_t(n) >= d->g.nodes.size()) return {};
    const FoldedGraph* f = d->folded;
    if (!f || size_t(n) >= f->nodeRef.size() || f->nodeRef[size_t(n)].classId < 0) return {n};
    const NodeBlockRef& r = f->nodeRef[size_t(n)];
    std::vector<NodeId> peers;
    for (const BlockInstance& inst : f->classes[size_t(r.classId)].instances)
        if (size_t(r.position) < inst.nodes.size()) peers.push_back(inst.nodes[size_t(r.position)]);
    return peers.empty() ? std::vector<NodeId>{n} : peers;
}

Result<PlanChange> PlanEditor::setStrategy(NodeId n, const std::string& strategy, bool wholeClass)
{
    if (n < 0 || size_t(n) >= d->g.nodes.size())
        return Result<PlanChange>::failure("node #" + std::to_string(n) + " does not exist in the model");
    std::vector<std::pair<NodeId, OpStrategy>> wanted;
    for (NodeId p : wholeClass ? classPeers(n) : std::vector<NodeId>{n}) {
        const std::vector<OpStrategy> all = allowedStrategies(p);
        const OpStrategy* s = d->resolve(all, p, strategy);
        if (!s)
            return Result<PlanChange>::failure(nodeLabel(d->g, p) + " cannot run strategy '" + strategy + "' on tp " +
                                               std::to_string(d->plan.mesh.tp) + " (allowed: " + strategyNames(all) + ")");
        wanted.emplace_back(p, *s);
    }
    Result<PlanChange> r = d->change(wanted);
    if (r)
        for (const auto& [p, s] : wanted) d->markOverride(p, s.name);
    return r;
}

Result<PlanChange> PlanEditor::setWeightLayout(TensorId w, const TensorLayout& layout, bool wholeClass)
{
    const Graph& g = d->g;
    if (w < 0 || size_t(w) >= g.tensors.size())
        return Result<PlanChange>::failure("tensor #" + std::to_string(w) + " does not exist in the model");
    const Tensor& x = g.tensor(w);
    if (!isSourceWeight(g, w))
        return Result<PlanChange>::failure("tensor '" + x.name + "' is not a stored weight: its layout follows its producer");
    if (x.consumers.empty()) return Result<PlanChange>::failure("weight '" + x.name + "' is not read by any node");
    std::vector<std::pair<NodeId, OpStrategy>> wanted;
    for (NodeId consumer : x.consumers) {
        // The input slot of w in its consumer; a class peer reads its own weight in that slot.
        const Node& cn = g.node(consumer);
        const size_t slot = size_t(std::find(cn.inputs.begin(), cn.inputs.end(), w) - cn.inputs.begin());
        for (NodeId p : wholeClass ? classPeers(consumer) : std::vector<NodeId>{consumer}) {
            const std::vector<OpStrategy> all = allowedStrategies(p);
            const OpStrategy& now = d->plan.nodes[size_t(p)];
            const OpStrategy* best = nullptr;
            int bestScore = -1;
            std::vector<TensorLayout> layouts;
            for (const OpStrategy& s : all) {
                if (slot >= s.inputs.size()) continue;
                if (std::find(layouts.begin(), layouts.end(), s.inputs[slot]) == layouts.end()) layouts.push_back(s.inputs[slot]);
                if (s.inputs[slot] != layout) continue;
                // Keep as much of the node's current layout as possible: its other inputs
                // first (they decide the collectives upstream), then its outputs.
                int score = 0;
                for (size_t i = 0; i < s.inputs.size() && i < now.inputs.size(); ++i) score += 2 * (i != slot && s.inputs[i] == now.inputs[i]);
                for (size_t o = 0; o < s.outputs.size() && o < now.outputs.size(); ++o) score += s.outputs[o] == now.outputs[o];
                if (sameStrategy(s, now)) score += 1000;
                if (score > bestScore) best = &s, bestScore = score;
            }
            if (!best) {
                std::sort(layouts.begin(), layouts.end());
                std::string allowed;
                for (const TensorLayout& l : layouts) allowed += (allowed.empty() ? "" : ", ") + l.toString();
                return Result<PlanChange>::failure("weight '" + g.tensor(g.node(p).inputs[slot]).name + "' cannot be stored as " +
                                                   layout.toString() + ": " + nodeLabel(g, p) + " allows " + allowed);
            }
            wanted.emplace_back(p, *best);
        }
    }
    Result<PlanChange> r = d->change(wanted);
    if (r)
        for (const auto& [p, s] : wanted) d->markOverride(p, s.name);
    return r;
}

Result<PlanChange> PlanEditor::apply(const std::vector<StrategyOverride>& strategies)
{
    std::vector<std::pair<NodeId, OpStrategy>> wanted;
    for (const StrategyOverride& o : strategies) {
        if (o.node < 0 || size_t(o.node) >= d->g.nodes.size())
            return Result<PlanChange>::failure("node #" + std::to_string(o.node) + " does not exist in the model");
        const std::vector<OpStrategy> all = allowedStrategies(o.node);
        const OpStrategy* s = d->resolve(all, o.node, o.strategy);
        if (!s)
            return Result<PlanChange>::failure(nodeLabel(d->g, o.node) + " cannot run strategy '" + o.strategy + "' on tp " +
                                               std::to_string(d->plan.mesh.tp) + " (allowed: " + strategyNames(all) + ")");
        wanted.emplace_back(o.node, *s);
    }
    Result<PlanChange> r = d->change(wanted);
    if (!r) return r;
    // Undo brings a node back to its searched strategy, which is then no longer an override;
    // redo (or a loaded project) moves it away again.
    for (const auto& [n, s] : wanted) {
        if (sameStrategy(s, d->base.nodes[size_t(n)])) d->dropOverride(n);
        else d->markOverride(n, s.name);
    }
    return r;
}

const std::vector<StrategyOverride>& PlanEditor::overrides() const { return d->overrides; }

bool PlanEditor::isOverridden(NodeId n) const
{
    for (const StrategyOverride& o : d->overrides)
        if (o.node == n) return true;
    return false;
}

void PlanEditor::forgetOverrides(const std::vector<NodeId>& nodes)
{
    for (NodeId n : nodes) d->dropOverride(n);
}

} // namespace tapas
