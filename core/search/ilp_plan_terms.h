#pragma once
// The terms of a cost report that span the plan (cost_report.h), written as linear rows of the
// ILP so that its objective is the report's total exactly, not the sum of per-node proxies.
#include "core/search/ilp_model.h"
#include "core/search/scope_dp.h"

namespace tapas {

// Each shared weight costs what settleSharedWeights charges: its uses' common layout's cost when
// all agree, else the cheaper of keeping it replicated and gathering it once. Per weight: one
// column per (layout, split compute) class, 1 exactly when every use is in that class, and one
// that is 1 exactly when some use is sharded; the nodes' 1/N shares leave their columns.
// `firstCol[n]` is the column of node n's first allowed strategy.
void addSharedWeightTerms(IlpModel& m, const CostModel& model, StrategyTable& table, const std::vector<int>& firstCol);

// PyTorch DDP's exposed gradient sync (CostModel::gradientSyncTime) over data parallelism: an
// integer bucket count k with k - 1 < G / bucket <= k for the plan's gradient bytes G, and the
// exposed time e >= the last bucket's all-reduce, e >= k latencies + bandwidth - backward.
// Call after every other column is added.
void addGradientSyncTerms(IlpModel& m, const CostModel& model);

} // namespace tapas
