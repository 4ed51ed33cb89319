#pragma once
// An editable plan: the user changes one op's or one weight's sharding,
// for one instance or for every instance of its block class; the plan re-propagates (collectives
// re-placed around the changed nodes only) and re-costs incrementally (only the changed nodes'
// and their neighbours' terms are recomputed), fast enough to follow every click (<100 ms on a
// 96-layer GPT, measured by `tapas bench edit`). Overrides are remembered so a re-search can
// keep them fixed, and every change reports what it replaced so the GUI's QUndoStack can undo it.
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/shard/sharding_plan.h"

#include <memory>
#include <string>
#include <vector>

namespace tapas {

// One applied change: the nodes whose strategy changed with the strategy each had before and
// has now (so undo re-applies `before`, redo `after`).
struct PlanChange {
    std::vector<StrategyOverride> before;
    std::vector<StrategyOverride> after;
    CostTerms costBefore, costAfter; // plan totals
};

class PlanEditor {
public:
    // `folded` may be null (no classes: wholeClass acts on the node alone). The graph, folded
    // graph and cost model must outlive the editor. A plan with pipeline stages takes the model of
    // one micro-batch (costMeshOf/costOptionsOf, core/cost/staged_cost.h) and the folded graph:
    // its report is then the schedule over its own stages, re-costed on every change.
    PlanEditor(const Graph& g, const FoldedGraph* folded, const CostModel& model, ShardingPlan initial,
               std::vector<StrategyOverride> overrides = {});
    ~PlanEditor();

    const ShardingPlan& plan() const;
    const CostReport& report() const;        // always current (perNode, perBlock, total, fits)
    const CostModel& model() const;

    // The strategies node n may run with (its rule at the mesh's tp), as nodeStrategies() gives.
    std::vector<OpStrategy> allowedStrategies(NodeId n) const;
    // The nodes at the same position in every instance of n's class (n alone for singletons).
    std::vector<NodeId> classPeers(NodeId n) const;

    // Sets n (or all its class peers) to the named strategy. Refused, with the reason naming
    // node and strategy, when the name is not among allowedStrategies or the result fails
    // checkPlan; the plan is then unchanged.
    Result<PlanChange> setStrategy(NodeId n, const std::string& strategy, bool wholeClass);
    // Stores weight w in `layout`: picks, for w's consumer (or its class peers), the allowed
    // strategy that needs w in that layout and keeps the node's other inputs' layouts where it
    // can. Refused when no allowed strategy stores w that way (the reason lists the layouts that
    // are allowed).
    Result<PlanChange> setWeightLayout(TensorId w, const TensorLayout& layout, bool wholeClass);
    // Applies a list of strategies as one change (used by undo/redo and by loading a project).
    // A node brought back to the strategy the editor started with stops being an override
    // (undo), one moved away from it becomes one (redo). Where a rule gives two strategies one
    // name, the one the starting plan had is taken, so undo is exact.
    Result<PlanChange> apply(const std::vector<StrategyOverride>& strategies);

    // The user's overrides, one entry per node (a later choice for a node replaces the earlier).
    const std::vector<StrategyOverride>& overrides() const;
    bool isOverridden(NodeId n) const;
    // Drops the overrides of the given nodes (the strategies stay as they are).
    void forgetOverrides(const std::vector<NodeId>& nodes);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tapas
