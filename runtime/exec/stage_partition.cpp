#include "runtime/exec/stage_partition.h"

#include "core/plan/plan_runnable.h"

#include <algorithm>

namespace tapas::runtime {

Result<StagePartition> partitionStages(const Graph& g, const FoldedGraph& folded, const PipelineSchedule& schedule,
                                       int pp, const std::function<bool(TensorId)>& everywhere)
{
    using R = Result<StagePartition>;
    StagePartition p;
    p.ranks = std::max(pp, 1);
    p.stages = pp > 1 ? pp * std::max(1, schedule.virtualStages) : 1;
    const int stages = p.stages;
    p.nodeStage.assign(g.nodes.size(), 0);
    p.crossing.assign(size_t(std::max(stages - 1, 0)), {});
    p.weightStages.assign(g.tensors.size(), {});
    if (pp <= 1) {
        p.stageBlocks = {int(folded.chain.size())};
        for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t)
            if (!g.tensor(t).consumers.empty()) p.weightStages[size_t(t)] = {0};
        return p;
    }
    if (Status s = checkScheduleRunnable(schedule); !s) return R::failure(s.error);
    if (int(schedule.stages.size()) != stages)
        return R::failure("field 'pipeline.stages' lists " + std::to_string(schedule.stages.size()) + " stages for pp " +
                          std::to_string(pp) + " x " + std::to_string(std::max(1, schedule.virtualStages)) +
                          " virtual stages");
    const int chain = int(folded.chain.size());
    if (schedule.stages.front().firstBlock != 0 || schedule.stages.back().endBlock != chain)
        return R::failure("field 'pipeline.stages' covers blocks " + std::to_string(schedule.stages.front().firstBlock) +
                          " to " + std::to_string(schedule.stages.back().endBlock - 1) + " but the model's chain has " +
                          std::to_string(chain) + " blocks (0 to " + std::to_string(chain - 1) + ")");
    std::vector<int> blockStage(size_t(chain), -1);
    for (int s = 0; s < stages; ++s) {
        const PipelineStage& st = schedule.stages[size_t(s)];
        if (st.device != p.rankOf(s))
            return R::failure("field 'pipeline.stages[" + std::to_string(s) + "].device' is " + std::to_string(st.device) +
                              ": stage s runs on pipeline rank s mod pp (" + std::to_string(p.rankOf(s)) + ")");
        for (int b = st.firstBlock; b < st.endBlock; ++b) blockStage[size_t(b)] = s;
        p.stageBlocks.push_back(st.endBlock - st.firstBlock);
    }
    std::vector<char> placed(g.nodes.size(), 0);
    for (int b = 0; b < chain; ++b) {
        const BlockRef& ref = folded.chain[size_t(b)];
        for (NodeId n : folded.classes[size_t(ref.classId)].instances[size_t(ref.instance)].nodes) {
            p.nodeStage[size_t(n)] = blockStage[size_t(b)];
            placed[size_t(n)] = 1;
        }
    }
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (!placed[size_t(n)]) return R::failure(nodeLabel(g, n) + " belongs to no block of the folded chain");

    // The last stage that needs each tensor: its consumers', and the last stage for graph outputs.
    std::vector<int> lastUse(g.tensors.size(), -1);
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        for (TensorId t : g.node(n).inputs)
            if (t != kNoTensor) lastUse[size_t(t)] = std::max(lastUse[size_t(t)], p.nodeStage[size_t(n)]);
    for (TensorId t : g.outputs) lastUse[size_t(t)] = stages - 1;
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) {
        const Tensor& x = g.tensor(t);
        if (x.producer == kNoNode || everywhere(t)) {
            for (NodeId c : x.consumers) p.weightStages[size_t(t)].push_back(p.nodeStage[size_t(c)]);
            std::sort(p.weightStages[size_t(t)].begin(), p.weightStages[size_t(t)].end());
            p.weightStages[size_t(t)].erase(std::unique(p.weightStages[size_t(t)].begin(), p.weightStages[size_t(t)].end()),
                                            p.weightStages[size_t(t)].end());
            continue;
        }
        const int made = p.nodeStage[size_t(x.producer)];
        for (NodeId c : x.consumers)
            if (p.nodeStage[size_t(c)] < made)
                return R::failure(nodeLabel(g, c) + " in pipeline stage " + std::to_string(p.nodeStage[size_t(c)]) + " reads '" +
                                  x.name + "', which " + nodeLabel(g, x.producer) + " makes in the later stage " +
                                  std::to_string(made) + ": the stages do not follow the data flow");
        for (int k = made; k < lastUse[size_t(t)]; ++k) p.crossing[size_t(k)].push_back(t);
    }
    return p;
}

bool StagePartition::rankReads(TensorId t, int rank) const
{
    const std::vector<int>& readers = weightStages[size_t(t)];
    return std::any_of(readers.begin(), readers.end(), [&](int s) { return rankOf(s) == rank; });
}

bool StagePartition::readOnSeveralRanks(TensorId t) const
{
    const std::vector<int>& readers = weightStages[size_t(t)];
    return std::any_of(readers.begin(), readers.end(), [&](int s) { return rankOf(s) != rankOf(readers.front()); });
}

int StagePartition::blocksOnRank(int rank) const
{
    int blocks = 0;
    for (int s = 0; s < int(stageBlocks.size()); ++s)
        if (stages <= 1 || rankOf(s) == rank) blocks += stageBlocks[size_t(s)];
    return blocks;
}

} // namespace tapas::runtime
