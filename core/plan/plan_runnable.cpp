#include "core/plan/plan_runnable.h"

#include "core/cost/cost_model.h"

#include <algorithm>

namespace tapas {

namespace {

bool isReduction(const std::string& op)
{
    return op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin";
}

// The axes node n reduces over its input 0: from input 1 or the attribute; every axis when none
// are given (unless noop_with_empty_axes). ArgMax/ArgMin reduce their `axis`.
std::vector<int> reducedAxes(const Graph& g, const Node& n, int rank)
{
    std::vector<int64_t> axes;
    if (n.opType == "ArgMax" || n.opType == "ArgMin") {
        axes = {n.attrInt("axis", 0)};
    } else if (n.input(1) != kNoTensor) {
        const Tensor& a = g.tensor(n.input(1));
        if (!a.value) return {}; // unknown axes: the shape rule could not say either
        axes = a.value->ints;
    } else {
        axes = n.attrInts("axes");
    }
    std::vector<int> out;
    if (axes.empty()) {
        if (n.attrInt("noop_with_empty_axes", 0) != 0) return {};
        for (int d = 0; d < rank; ++d) out.push_back(d);
        return out;
    }
    for (int64_t a : axes) out.push_back(int(a < 0 ? a + rank : a));
    return out;
}

} // namespace

Status checkSamplewise(const Graph& g, const DeviceMesh& mesh)
{
    if (mesh.dp <= 1) return Status::success();
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        if (!isReduction(n.opType) || n.inputs.empty() || n.input(0) == kNoTensor) continue;
        const Tensor& x = g.tensor(n.input(0));
        if (x.batchScaledDims == 0 || !x.shape.rankKnown) continue;
        for (int d : reducedAxes(g, n, x.shape.rank()))
            if (d >= 0 && d < 32 && (x.batchScaledDims >> d & 1u))
                return Status::failure("mesh " + mesh.toString() + ": data parallelism (dp " + std::to_string(mesh.dp) + ") " +
                                       "would change what the model computes: " + nodeLabel(g, id) + " reduces '" + x.name +
                                       "' " + x.shape.toString() + " over axis " + std::to_string(d) +
                                       ", which holds the batch, so each replica would reduce over its own samples only");
    }
    return Status::success();
}

Status checkRunnable(const Graph& g, const DeviceMesh& mesh, const std::string& model)
{
    if (Status s = checkBatchSplit(g, mesh); !s) return s;
    if (Status s = checkSamplewise(g, mesh); !s) return s;
    if (mesh.dp > 1 && g.batchSymbol.empty() && !g.batch.rebatched)
        return Status::failure("model '" + model + "': a data-parallel mesh (dp " + std::to_string(mesh.dp) +
                               ") needs a symbolic batch dimension on the inputs, bound by --dim or the plan, "
                               "or the batch re-bound with --batch");
    return Status::success();
}

Status checkScheduleRunnable(const PipelineSchedule& schedule)
{
    const int v = std::max(1, schedule.virtualStages);
    if (!schedule.staged() || v == 1) return Status::success();
    const int pp = int(schedule.stages.size()) / v;
    if (pp > 0 && schedule.microBatches % pp != 0)
        return Status::failure("the plan interleaves " + std::to_string(v) + " virtual stages per pipeline rank with " +
                               std::to_string(schedule.microBatches) + " micro-batches (pipeline.micro_batches): the "
                               "interleaved schedule takes them in groups of pp (" + std::to_string(pp) +
                               "), so their count must be a multiple of it");
    return Status::success();
}

} // namespace tapas
