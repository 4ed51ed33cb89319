#pragma once
// What the runtime (tapas-worker train-plan) can run, decided once for everyone: the search
// refuses meshes it could never run, `tapas plan check` refuses plans with the runtime's own
// reason, and the worker refuses them before it starts, all through these functions.
#include "core/cluster/cluster_spec.h"
#include "core/ir/graph.h"
#include "core/shard/pipeline_schedule.h"
#include "core/util/result.h"

namespace tapas {

// Data parallelism computes the model's function only when every node works sample by sample:
// a node that reduces over the batch axis (one max over the whole tensor, batch included) would
// reduce over each replica's share instead. Names the node. Success for dp <= 1.
Status checkSamplewise(const Graph& g, const DeviceMesh& mesh);

// Everything the worker checks before it trains a plan of `mesh` on `g` (g imported with the
// plan's workload bound): the batch split (checkBatchSplit), the samplewise rule, and, for
// dp > 1, a symbolic batch on the inputs or a batch re-bound with --batch (g.batch.rebatched),
// which the worker divides by dp to build a replica's graph. `model` names the file in messages.
Status checkRunnable(const Graph& g, const DeviceMesh& mesh, const std::string& model);

// The worker runs plain and interleaved 1F1B; the interleaved schedule takes the micro-batches in
// groups of pp (as Megatron-LM's), so an interleaved plan whose micro-batch count is not a
// multiple of pp is refused naming the field. Success for a plan without stages.
Status checkScheduleRunnable(const PipelineSchedule& schedule);

} // namespace tapas
