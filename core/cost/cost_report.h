#pragma once
// The plan-level terms of a cost report, which no single node's cost holds: the one cost of a
// shared weight whose uses want different layouts, the DDP gradient sync of the whole step, the
// effective device count. reportFromNodeCosts and the plan editor's incremental re-costing both
// finish their reports here, so an edited plan reports exactly what a fresh evaluation does.
#include "core/cost/cost_model.h"

namespace tapas {

// Each shared weight whose uses differ in layout (or in split compute): the uses' shares are
// replaced by CostModel::sharedWeightCost, the difference charged to its first use in `perNode`.
void settleSharedWeights(std::vector<CostTerms>& perNode, const ShardingPlan& plan, const CostModel& model);

// From r.perNode (collectives and settlement included) and the graph outputs' collectives: the
// total with DDP's gradient sync, the effective devices, the per-block sums and the fit.
void finishReport(CostReport& r, const ShardingPlan& plan, const CostModel& model, const CostTerms& outputs,
                  const FoldedGraph* folded);

} // namespace tapas
