#pragma once
// Per training step and per device (DESIGN.md, "Cost model"): compute = FLOPs / (peak x
// efficiency) forward and backwardFactor x that backward (on a cluster with a roofline, each
// op's time by its GEMM shape or its bytes: core/cost/gpu_roofline.h; on a calibrated one, by
// its family's measured rate: core/cost/family_time.h); communication = alpha + beta x bytes
// with ring factors, on the link of the mesh axis the collective spans; memory = sharded weights
// + gradients + optimizer state (bytesPerParam, Adam in mixed precision: 16) + activations kept
// for backward. Every term is kept per node so views can show why a plan won.
#include "core/cluster/cluster_spec.h"
#include "core/cost/family_time.h"
#include "core/cost/gpu_roofline.h"
#include "core/cost/inlined_branches.h"
#include "core/cost/saved_activations.h"
#include "core/cost/step_working_set.h"
#include "core/fold/folded_graph.h"
#include "core/ir/trained_weights.h"
#include "core/shard/sharding_plan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tapas {

struct CostOptions {
    // Compute dtype ("fp16" | "bf16" | "fp32"): peak FLOP/s and bytes of activations, gradients
    // and messages. Empty: the devices' own (computeDtype): fp32 on a CPU cluster, whose worker
    // trains in fp32, fp16 on GPUs.
    std::string dtype;
    double bytesPerParam = 16;   // fp16 weight + fp16 grad + fp32 master, m and v
    double backwardFactor = 2;   // backward FLOPs per forward FLOP
    // Of bytesPerParam, the optimizer's part (fp32 master weights, Adam's m and v): what a
    // distributed optimizer (ZeRO-1) shards over the data-parallel group.
    double optimizerBytesPerParam = 12;
    // Micro-batches per replica and step: node costs are then those of one micro-batch (the
    // batch is cut into dp x microBatches pieces); the pipeline cost model adds them up.
    int microBatches = 1;
    // How node costs see the plan's gradient sync, for the block searchers' views (a report is
    // exact whatever the view): Bandwidth charges each weight its all-reduce's bandwidth (exact
    // while the gradients fit one DDP bucket); Hidden charges none (DDP hides the sync under the
    // backward); OutlastsBackward charges it and credits the backward share of each node's
    // compute, which the sync then hides. The gradient bytes are kept in every view.
    enum class SyncView { Bandwidth, Hidden, OutlastsBackward };
    SyncView syncView = SyncView::Bandwidth;
};

// The dtype a cost model prices in: options.dtype, or the devices' own when it is empty.
std::string computeDtype(const CostOptions& options, const ClusterSpec& cluster);

struct CostTerms {
    double compute = 0;    // s
    double tpComm = 0;     // s, tensor-parallel collectives, forward and backward
    double dpComm = 0;     // s, gradient all-reduce over the data-parallel axis (a node's: bandwidth
                           // only; a plan's: DDP's buckets, less what overlaps the backward)
    double ppComm = 0;     // s, point-to-point activation and gradient sends between pipeline stages
    double bubble = 0;     // s, pipeline fill and drain: the step's idle time on the busiest rank
    double dpGradBytes = 0; // bytes of gradients each replica all-reduces over dp
    double commBytes = 0;  // bytes each device sends per step
    double weightMemory = 0;     // bytes: weights + gradients + optimizer state
    double activationMemory = 0; // bytes kept for backward

    double time() const { return compute + tpComm + dpComm + ppComm + bubble; }
    CostTerms scaled(double f) const; // every term times f
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
    // One use of parameter t in layout l, by compute split over tp or not, costed as if it were
    // the weight's only use: its memory, dp gradient sync and the tp all-reduce of its partial
    // gradient. `buffer`: a running statistic (no gradient, no optimizer state).
    CostTerms weightUseCost(TensorId t, const TensorLayout& l, bool splitCompute, bool buffer) const;
    // Nodes (and input slots) reading t, when it is a parameter read more than once; 1 otherwise.
    int weightUses(TensorId t) const;
    const std::unordered_map<TensorId, std::vector<std::pair<NodeId, int>>>& sharedWeights() const { return sharedWeights_; }
    // Node n reads a weight that other nodes read too (one of sharedWeights()' uses).
    bool readsSharedWeight(NodeId n) const { return size_t(n) < readsShared_.size() && readsShared_[size_t(n)]; }
    // A shared weight whose uses want different layouts (layout, split compute), costed once for
    // the step: kept replicated (each use reads or slices it; one tp all-reduce of the summed
    // partial gradient), or stored sharded and gathered once (an all-gather forward, a
    // reduce-scatter backward), whichever is faster.
    CostTerms sharedWeightCost(TensorId t, const std::vector<std::pair<TensorLayout, bool>>& uses) const;
    // Changing tensor t's layout, forward and backward.
    CostTerms reshardCost(TensorId t, const TensorLayout& from, const TensorLayout& to) const;
    // PyTorch DDP's gradient sync for a whole step: `gradBytes` in buckets of kDdpBucketBytes,
    // each all-reduced as soon as its gradients are ready, so it runs under the backward of the
    // layers still to go; what is exposed is the part that outlasts the backward, and never less
    // than the last bucket, which waits for the backward to end. `bandwidthTime` is the sum of
    // the nodes' bandwidth terms (their dpComm).
    // `lostCompute`, when given: the compute the overlapped buckets' SMs take from the backward
    // (overlappedCollectiveCompute, a GPU that states its collectives' SMs).
    double gradientSyncTime(double gradBytes, double bandwidthTime, double compute, double* lostCompute = nullptr) const;
    // Gradient bytes a replica syncs with every trained weight kept whole: the most any plan has.
    double wholeGradientBytes() const { return wholeGradientBytes_; }
    // One collective over a mesh axis, on a tensor whose unsplit per-replica size is fullBytes.
    double collectiveTime(CollectiveKind k, double fullBytes, MeshAxis axis, double* wireBytes = nullptr) const;

    // The optimizer step of `params` parameters updated on one device, once per training step:
    // on a cluster with a roofline its memory-bound passes (optimizerStepSeconds); 0 otherwise
    // (the flat presets fold it into their efficiency; a calibrated one prices it per weight).
    double optimizerStepTime(double params) const { return roofline_ ? optimizerStepSeconds(*roofline_, params) : 0; }

    // Bytes of t in the compute dtype for one data-parallel replica (activations: local batch).
    double replicaBytes(TensorId t) const;
    // The step's activation memory at its fullest under the plan's layouts: what the forward
    // keeps, the values and gradients alive beside it, the input batch (step_working_set.h).
    // `nodeExtra`, when given (one per node): what each node's forward or backward holds beyond
    // the kept storages alive then (StepWorkingSetWalk::run), for the stages of a pipeline.
    StepWorkingSet workingSet(const ShardingPlan& plan, std::vector<double>* nodeExtra = nullptr) const;
    // dp x microBatches: the pieces one step's batch is cut into (a node cost is for one).
    int batchShards() const { return mesh_.dp * std::max(1, options_.microBatches); }
    const Graph& graph() const { return g_; }
    const ClusterSpec& cluster() const { return cluster_; }
    const DeviceMesh& mesh() const { return mesh_; }
    const CostOptions& options() const { return options_; }
    // What the prices assume where the graph does not tell (CostReport::notes), found once.
    const std::vector<std::string>& pricingNotes() const { return notes_; }

private:
    void buildWorkingSetWalk();
    void buildMemoryGraph();
    double replicaBytes(const Tensor& x) const;
    double maskBytes(NodeId memNode, double shard) const;

    const Graph& g_;
    ClusterSpec cluster_;
    DeviceMesh mesh_;
    CostOptions options_;
    double flopRate_ = 1;
    int elemBytes_ = 2;
    std::unordered_map<TensorId, std::vector<std::pair<NodeId, int>>> sharedWeights_;
    std::vector<char> readsShared_; // per node: reads a shared weight
    double wholeGradientBytes_ = 0;
    PricedChains chains_; // the chains the worker runs fused
    std::vector<std::vector<TensorId>> drawnBy_; // per node: the graph inputs and outputs whose drawing it is charged
    // Memory is walked on the graph as the worker runs it: each If replaced by its priced
    // branch's nodes (inlined_branches.h). memGraph_ is g_ itself when no If is replaced.
    InlinedBranches inlined_;
    const Graph* memGraph_ = nullptr;
    std::vector<NodeId> memNodeOf_;  // per node of g_: its node in *memGraph_ (kNoNode: an inlined If)
    std::vector<double> branchKept_; // per node of g_: bytes its inlined branch keeps (fixed: the If is replicated)
    SavedActivations saved_; // on *memGraph_: what the backward holds on to, a node's activation memory
    std::vector<char> weights_; // per tensor: a weight (memory, gradient sync, optimizer state)
    std::vector<double> heldBufferBytes_; // per node: non-float stored data it is the first to read (held whole)
    // The working-set walk, built once, and where each of its terms' bytes comes from: a fixed
    // number, or one that a plan divides by tp where it splits the tensor (the output of its
    // producer, or the weight input of its last reader).
    struct WalkTerm {
        double bytes = 0;     // unsplit
        NodeId node = kNoNode; // kNoNode: fixed
        int slot = 0;
        bool input = false;
    };
    StepWorkingSetWalk walk_;
    std::vector<WalkTerm> walkTerms_;
    std::optional<GpuRoofline> roofline_; // on a cluster with a roofline: how each node is priced
    std::vector<RooflineOp> rooflineOps_;
    std::vector<std::string> notes_;
};

// DDP's default bucket_cap_mb.
inline constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;

struct CostReport {
    CostTerms total;
    std::vector<CostTerms> perNode;  // indexed by NodeId, reshards charged to their consumer
    std::vector<CostTerms> perBlock; // indexed by block in FoldedGraph::chain (when folded)
    bool fits = true;                // total memory within the device's memory
    // The devices' worth of work the plan does: dp x (compute unsplit / compute per device). A
    // tensor-parallel group that splits nothing computes the same thing on each of its devices,
    // so a 1x8 plan that splits nothing does the work of 1 device, not 8.
    double effectiveDevices = 1;
    // A pipelined plan: total is the step of the busiest pipeline rank (its compute, sends and
    // bubble; the memory of the rank that holds the most), and the plan's PipelineSchedule holds
    // the figures per stage. perNode and perBlock stay those of one micro-batch.
    bool pipelined = false;
    // What the prices assume where the graph does not tell, one line each: an If whose condition
    // only the run knows (it reads data) is priced as its dearer branch.
    std::vector<std::string> notes;
};

CostReport evaluatePlan(const ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded = nullptr);
// The same report from per-node costs already known (CostModel::nodeCost of each node's
// strategy, as the search's tables hold them): adds the collectives and the per-block sums.
// evaluatePlan is this with nodeCost computed for every node.
CostReport reportFromNodeCosts(const ShardingPlan& plan, const CostModel& model, std::vector<CostTerms> perNode,
                               const FoldedGraph* folded = nullptr);

// Data parallelism hands each replica whole samples of the batch axis the importer's probe found
// (Graph::batch): dp must divide the batch. The error names the input, its axis and the mesh, or
// why the model has no batch axis. A batch still symbolic is left to checkWorkloadBound.
Status checkBatchSplit(const Graph& g, const DeviceMesh& mesh);

// The cost of a step depends on every dim of the tensors the nodes read and write: a symbolic
// input dim left unbound would be counted as 1 and cost a workload nobody asked for. Fails naming
// each such dim with a tensor that carries it. (Output-only symbols, data-dependent sizes such as
// a detector's box count, cannot be bound and are not asked for.)
Status checkWorkloadBound(const Graph& g);

} // namespace tapas
