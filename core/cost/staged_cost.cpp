#include "core/cost/staged_cost.h"

#include "core/cost/pipeline_cost.h"

#include <algorithm>

namespace tapas {

DeviceMesh costMeshOf(const ShardingPlan& plan)
{
    if (!plan.pipeline.staged()) return plan.mesh;
    return {1, plan.mesh.tp, 1};
}

CostOptions costOptionsOf(const ShardingPlan& plan, CostOptions options)
{
    if (plan.pipeline.staged()) options.microBatches = plan.batchShards();
    return options;
}

Status costPlanStages(CostReport& report, ShardingPlan& plan, const CostModel& model, const FoldedGraph& folded,
                      double memoryLimit)
{
    PipelineSchedule& s = plan.pipeline;
    if (!s.staged()) return Status::success();
    const int chain = int(folded.chain.size());
    const int pp = std::max(1, plan.mesh.pp);
    PipelineConfig c;
    c.pp = pp;
    c.dp = plan.mesh.dp;
    c.tp = plan.mesh.tp;
    c.microBatches = s.microBatches;
    c.microBatchSize = s.microBatchSize;
    c.virtualStages = s.virtualStages;
    c.distributedOptimizer = s.distributedOptimizer;
    c.rankRecompute.assign(size_t(pp), Recompute::None);
    for (const PipelineStage& st : s.stages) {
        if (st.firstBlock < 0 || st.endBlock > chain || st.firstBlock >= st.endBlock)
            return Status::failure("field 'pipeline.stages' names blocks " + std::to_string(st.firstBlock) + " to " +
                                   std::to_string(st.endBlock - 1) + " but the model's chain has " + std::to_string(chain) +
                                   " blocks");
        if (st.device < 0 || st.device >= pp)
            return Status::failure("field 'pipeline.stages' puts a stage on pipeline rank " + std::to_string(st.device) +
                                   " of pp " + std::to_string(pp));
        c.stages.emplace_back(st.firstBlock, st.endBlock);
        c.rankRecompute[size_t(st.device)] = st.recompute;
    }
    const std::vector<BlockProfile> blocks = blockProfiles(plan, report, model, folded);
    const std::optional<PipelineEvaluation> e = evaluatePipeline(blocks, c, model, model.cluster(), memoryLimit);
    if (!e)
        return Status::failure("field 'pipeline.stages': " + std::to_string(s.stages.size()) +
                               " stages do not cut the model's chain of " + std::to_string(chain) + " blocks into pp " +
                               std::to_string(pp) + " x " + std::to_string(c.virtualStages) + " contiguous ranges");
    s = e->schedule;
    report.total = e->total;
    report.fits = e->fits;
    report.pipelined = true;
    report.effectiveDevices *= double(plan.mesh.dp) * pp;
    return Status::success();
}

Result<CostReport> evaluatePlanWithStages(ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded,
                                          double memoryLimit)
{
    if (plan.pipeline.staged() && !folded)
        return Result<CostReport>::failure("a plan with pipeline stages needs the model's folded chain to be costed");
    CostReport r = evaluatePlan(plan, model, folded);
    if (!plan.pipeline.staged()) return r;
    if (Status st = costPlanStages(r, plan, model, *folded, memoryLimit); !st) return Result<CostReport>::failure(st.error);
    return r;
}

} // namespace tapas
