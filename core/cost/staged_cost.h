#pragma once
// A plan with pipeline stages is costed in two steps, as the pipeline sweep found it: its
// strategies for one micro-batch on one stage's devices (mesh 1 x tp, the batch cut into dp x
// micro-batches pieces), then the 1F1B schedule over the stages it holds. The plan editor, a
// reopened plan file and a restored project all re-cost a staged plan here, so what the Plan and
// Costs docks show for it is what the search reported.
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/util/result.h"

namespace tapas {

// The mesh and options a plan's per-node costs are taken on: the plan's own without stages;
// 1 x tp with dp x micro-batches batch pieces with them.
DeviceMesh costMeshOf(const ShardingPlan& plan);
CostOptions costOptionsOf(const ShardingPlan& plan, CostOptions options);

// Replaces `report`'s totals, fit and effective devices by the pipelined step of plan.pipeline's
// own stages (their cuts and each pipeline rank's recomputation as they stand) and refreshes the
// stage figures and the bubble held in plan.pipeline. `report` is the micro-batch report of
// `plan` under `model` (costMeshOf/costOptionsOf) with perBlock filled. A plan without stages is
// left alone. Fails, naming the field, when the stages do not cut `folded`'s chain.
Status costPlanStages(CostReport& report, ShardingPlan& plan, const CostModel& model, const FoldedGraph& folded,
                      double memoryLimit);

// evaluatePlan for any plan: a staged one through costPlanStages (the folded graph needed).
Result<CostReport> evaluatePlanWithStages(ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded,
                                          double memoryLimit);

} // namespace tapas
