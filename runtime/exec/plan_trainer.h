#pragma once
// One rank's part of training a sharded plan (DESIGN.md, "Plan execution"): its shards of the
// weights (the model file's values where it stores them, else initialised from the seed; either
// way slices of the single-rank weights), the
// synthetic batch of each step (seeded by seed and step, so a resumed run sees the same data),
// forward + backward on the plan's layouts (its stages under the 1F1B schedule over the plan's
// micro-batches when it has them), gradient averaging over dp, an Adam step (its state sharded
// over dp when the plan says so), the numerics check
// against the unsharded model, and checkpoints. No torch in this header.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/onnx/onnx_stored_data.h"
#include "core/shard/sharding_plan.h"
#include "core/util/result.h"
#include "runtime/comm/communicator.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tapas::runtime {

struct TrainerSetup {
    const Graph* global = nullptr; // dims as the plan was made (global batch): the reference
    const Graph* local = nullptr;  // the same model with the batch divided by dp x micro-batches: one micro-batch
    // The model as given when the plan pads tables (global and local are then padded, as the plan
    // is for them): the numerics reference, the synthetic weights' and ids' source, and the shapes
    // of the loss's targets, so that the padded run trains the same model. Null: global.
    const Graph* reference = nullptr;
    const ShardingPlan* plan = nullptr;
    const FoldedGraph* folded = nullptr; // the global graph folded: stages are ranges of its chain (needed when pp > 1)
    Communicator* world = nullptr;
    Communicator* tpComm = nullptr; // this rank's tp group (size tp)
    Communicator* dpComm = nullptr; // this rank's dp group (size dp)
    Communicator* ppComm = nullptr; // this rank's pipeline ranks, one per stage (size pp)
    int dp = 1, tp = 1, pp = 1, dpIndex = 0, tpIndex = 0, ppIndex = 0;
    int microBatches = 1;           // per dp replica and step
    const StoredWeights* stored = nullptr; // the file's weight values (null or empty: all synthetic)
    uint64_t seed = 1;
    double lr = 1e-3;
    bool shardOptimizerState = false; // Adam's moments sharded over dp (ZeRO-1); needs dp > 1
    bool corruptCollective = false; // test hook: skip the backward all-reduce of Megatron's f
    bool corruptPipeline = false;   // test hook: stages send zeros back instead of their input gradients
};

struct NumericsReport {
    bool ok = false;
    double maxAbsError = 0, maxRelError = 0; // over ranks and tensors (loss included)
    std::string worstTensor;                 // the tensor with the largest relative error
    double worstAbs = 0, worstRel = 0;
    double loss = 0, referenceLoss = 0;
};

struct StepFigures {
    double loss = 0;        // the global loss (same on every rank)
    double stepTime = 0;    // s, this rank
    double commTime = 0;    // s inside collectives, this rank
    double computeTime = 0; // stepTime - commTime
    double pipelineWait = 0; // s blocked in receives from the neighbouring stages (part of commTime)
    double cpuTime = 0;     // s of CPU this rank's process used in the step (all its threads): the
                            // step as a machine of its own would time it, whatever else shares the cores
};

class PlanTrainer {
public:
    static Result<std::unique_ptr<PlanTrainer>> create(const TrainerSetup& setup);
    ~PlanTrainer();

    // Runs step `step`'s batch sharded and unsharded without updating the weights and compares
    // loss and every gradient shard; collective over all ranks.
    Result<NumericsReport> checkNumerics(int64_t step, double tolerance);
    Result<StepFigures> step(int64_t step);
    // Runs step `step`'s batch once more (forward and backward, no update) with every node timed
    // where it runs and alone (runtime/exec/node_profile.h), and writes the timings to `path`.
    // Collective over all ranks.
    Status profileNodes(int64_t step, const std::string& path, int rank);
    // Writes this rank's shards, optimizer state and the step (torch::save of a tensor list).
    Status saveCheckpoint(const std::string& file, int64_t step) const;
    // Returns the step the checkpoint was written after.
    Result<int64_t> loadCheckpoint(const std::string& file);
    int64_t shardBytes() const;
    // The largest magnitude any padded row of a padded table holds on any rank (0 while the
    // padding stays zero, as it must: no id reads it and the loss ignores its logits).
    // Collective over all ranks; 0 without padding.
    double paddedRowsMaxAbs() const;
    int64_t globalBatch() const;
    // Blocks of the folded chain this rank's stage runs (the whole chain without stages).
    int stageBlocks() const;
    // Per stage of the plan (one entry without stages): the attention cores it runs whole, what
    // selective recomputation drops and reruns there. The same on every rank.
    std::vector<int> attentionCoresPerStage() const;
    // The node chains the executor runs as one torch function each, by kind with the nodes
    // they cover ("5 layer_norm (45 nodes), 2 gelu (10 nodes)"); "" when none.
    std::string fusedChains() const;

private:
    PlanTrainer();
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tapas::runtime
