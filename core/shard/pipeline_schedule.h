#pragma once
// How a plan runs its pipeline: the stages (contiguous ranges of the folded block chain), the
// micro-batches of the 1F1B schedule, interleaved (virtual) stages, activation recomputation per
// stage and whether optimizer state is sharded over the data-parallel group. Plain data; the
// pipeline cost model (core/cost/pipeline_cost.h) fills the figures, the plan file stores them.
#include <string>
#include <vector>

namespace tapas {

// What a stage keeps of its forward pass for the backward: everything (None), everything but the
// attention core (Selective: softmax scores and their masks are recomputed, Megatron-LM's
// --recompute-granularity selective), or only each block's inputs (Full: the whole forward is
// run again, Megatron-LM's --recompute-granularity full).
enum class Recompute { None, Selective, Full };
const char* recomputeName(Recompute r); // "none" | "selective" | "full"
bool parseRecompute(const std::string& text, Recompute* out);

struct PipelineStage {
    int firstBlock = 0;  // chain indices [firstBlock, endBlock) of FoldedGraph::chain
    int endBlock = 0;
    int device = 0;      // pipeline rank holding it: stage index mod pp (interleaving gives a rank several)
    Recompute recompute = Recompute::None;
    // Per device of the stage's rank, filled by the cost model:
    double timePerMicroBatch = 0; // s, forward + backward (+ recomputation, + sends) of one micro-batch
    double weightMemory = 0;      // bytes: weights, gradients, optimizer state (sharded when distributed)
    double activationMemory = 0;  // bytes kept for the micro-batches in flight at once
};

struct PipelineSchedule {
    int microBatches = 1;         // per data-parallel replica and step
    int microBatchSize = 0;       // samples per micro-batch; 0 = the whole replica batch
    int virtualStages = 1;        // model chunks per pipeline rank (interleaved 1F1B when > 1)
    bool distributedOptimizer = false; // optimizer state sharded over dp (ZeRO-1)
    std::vector<PipelineStage> stages; // pp x virtualStages of them in chain order; empty = one stage, no recompute
    double bubbleFraction = 0;    // idle share of the step: (p-1)/(v*m+p-1) for equal stages
    bool staged() const { return !stages.empty(); }
};

} // namespace tapas
