#pragma once
// A strategy for the whole graph on one mesh: the strategy each node runs with and the
// collective every layout change between a producer and a consumer needs. Built from one
// strategy choice per node; checked by checkPlan.
#include "core/cluster/cluster_spec.h"
#include "core/shard/collective.h"
#include "core/shard/op_sharding.h"
#include "core/shard/pipeline_schedule.h"
#include "core/shard/table_padding.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace tapas {

// A layout change on one edge: `tensor` as its producer made it (`from`) becomes what input
// `inputIndex` of `consumer` needs (`to`).
struct Reshard {
    TensorId tensor = kNoTensor;
    NodeId consumer = kNoNode; // kNoNode: a graph output made replicated
    int inputIndex = -1;
    TensorLayout from, to;
    CollectiveKind forward = CollectiveKind::None;
    CollectiveKind backward = CollectiveKind::None;
};

// A choice pinned from outside the search (a user's override): node `node` runs the strategy
// named `strategy` (an OpStrategy::name from its rule).
struct StrategyOverride {
    NodeId node = kNoNode;
    std::string strategy;
};

struct ShardingPlan {
    DeviceMesh mesh;
    std::vector<OpStrategy> nodes; // indexed by NodeId, the strategies of one micro-batch
    std::vector<Reshard> reshards;
    std::vector<std::string> warnings;
    PipelineSchedule pipeline;
    // Lookup tables the plan pads so that their rows split over tp (table_padding.h): the node
    // strategies, reshards and cost are those of paddedGraph(g, padding). Empty: none padded.
    std::vector<TablePadding> padding;
    // The pieces the batch is cut into on one device's step: dp replicas x micro-batches. A dim
    // that scales with the batch is 1/batchShards() of itself in one micro-batch.
    int batchShards() const { return mesh.dp * pipeline.microBatches; }
};

// The layout a tensor has before any consumer reshards it: its producer's output layout; R
// for graph inputs and constants; weights are stored in whatever layout their consumer needs.
TensorLayout producedLayout(const Graph& g, const ShardingPlan& p, TensorId t);
// True for tensors whose layout is free to choose (weights: stored sharded).
bool isSourceWeight(const Graph& g, TensorId t);

// Fills plan.reshards from the node strategies (graph outputs end replicated): every node's
// input reshards in node order, then the graph outputs'.
void placeCollectives(const Graph& g, ShardingPlan& plan);
// The two halves of placeCollectives, for editors that re-place around a few nodes only: the
// reshards node n's inputs need (in input order) and those the graph outputs need.
void appendNodeReshards(const Graph& g, const ShardingPlan& plan, NodeId n, std::vector<Reshard>& out);
void appendOutputReshards(const Graph& g, const ShardingPlan& plan, std::vector<Reshard>& out);
ShardingPlan buildPlan(const Graph& g, const DeviceMesh& mesh, std::vector<OpStrategy> nodeStrategies);

// Every node has a strategy of the right arity whose splits divide their dims, every mismatch
// between a producer's layout and a consumer's need has its collective (of the right kind) and
// no collective is placed where none is needed. The error names the node and tensor. `g` is the
// model as given (or already padded by the plan, as an editor holds it): a plan that pads tables
// has its padding checked (checkTablePadding) and its strategies checked against the padded graph.
Status checkPlan(const Graph& g, const ShardingPlan& plan);

} // namespace tapas
