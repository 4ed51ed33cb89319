#pragma once
// Per training step and per device (DESIGN.md, "Cost model"): compute = FLOPs / (peak x
// efficiency) forward and backwardFactor x that backward; communication = alpha + beta x bytes
// with ring factors, on the link of the mesh axis the collective spans; memory = sharded weights
// + gradients + optimizer state (bytesPerParam, Adam in mixed precision: 16) + activations kept
// for backward. Every term is kept per node so views can show why a plan won.
#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/shard/sharding_plan.h"

#include <string>
#include <vector>

namespace tapas {

struct CostOptions {
    std::string dtype = "fp16";  // compute dtype: peak FLOP/s and bytes of activations/gradients
    double bytesPerParam = 16;   // fp16 weight + fp16 grad + fp32 master, m and v
    double backwardFactor = 2;   // backward FLOPs per forward FLOP
};

struct CostTerms {
    double compute = 0;    // s
    double tpComm = 0;     // s, tensor-parallel collectives, forward and backward
    double dpComm = 0;     // s, gradient all-reduce over the data-parallel axis
    double commBytes = 0;  // bytes each device sends per step
    double weightMemory = 0;     // bytes: weights + gradients + optimizer state
    double activationMemory = 0; // bytes kept for backward

    double time() const { return compute + tpComm + dpComm; }
    double memory() const { return weightMemory + activationMemory; }
    CostTerms& operator+=(const CostTerms& o);
};

class CostModel {
public:
    CostModel(const Graph& g, const ClusterSpec& cluster, const DeviceMesh& mesh, CostOptions options = {});

    // A node running strategy s: its compute, the gradient all-reduces its split implies (an R
    // input of a split op gets a partial gradient), the dp gradient sync of its weights, and
    // the memory of its weights and kept outputs.
    CostTerms nodeCost(NodeId n, const OpStrategy& s) const;
    // Changing tensor t's layout, forward and backward.
    CostTerms reshardCost(TensorId t, const TensorLayout& from, const TensorLayout& to) const;
    // One collective over a mesh axis, on a tensor whose unsplit per-replica size is fullBytes.
    double collectiveTime(CollectiveKind k, double fullBytes, MeshAxis axis, double* wireBytes = nullptr) const;

    // Bytes of t in the compute dtype for one data-parallel replica (activations: local batch).
    double replicaBytes(TensorId t) const;
    const Graph& graph() const { return g_; }
    const ClusterSpec& cluster() const { return cluster_; }
    const DeviceMesh& mesh() const { return mesh_; }
    const CostOptions& options() const { return options_; }

private:
    const Graph& g_;
    ClusterSpec cluster_;
    DeviceMesh mesh_;
    CostOptions options_;
    double flopRate_ = 1;
    int elemBytes_ = 2;
};

struct CostReport {
    CostTerms total;
    std::vector<CostTerms> perNode;  // indexed by NodeId, reshards charged to their consumer
    std::vector<CostTerms> perBlock; // indexed by block in FoldedGraph::chain (when folded)
    bool fits = true;                // total memory within the device's memory
};

CostReport evaluatePlan(const ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded = nullptr);
// The same report from per-node costs already known (CostModel::nodeCost of each node's
// strategy, as the search's tables hold them): adds the collectives and the per-block sums.
// evaluatePlan is this with nodeCost computed for every node.
CostReport reportFromNodeCosts(const ShardingPlan& plan, const CostModel& model, std::vector<CostTerms> perNode,
                               const FoldedGraph* folded = nullptr);

// Data parallelism hands each replica whole samples: dp must divide the batch (dimension 0 of
// the graph inputs; the largest one where they differ). The error names the input and the mesh.
// Inputs whose batch is symbolic are not checked.
Status checkBatchSplit(const Graph& g, const DeviceMesh& mesh);

} // namespace tapas
