#pragma once
// A sharding searcher: one class per strategy-finding method (TAPAS, Megatron-LM, data parallel,
// unfolded, ...), all behind this interface and listed in one registry (searcher_registry.cpp),
// so adding a searcher is one new file and one line there. All share the same cost model.
#include "core/cost/cost_model.h"
#include "core/cost/pipeline_cost.h"
#include "core/search/scope_dp.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tapas {

struct SearchRequest {
    const Graph* graph = nullptr;
    ClusterSpec cluster;
    DeviceMesh mesh;          // dp x tp; searchers that fix their own mesh (dp) ignore tp
    CostOptions cost;
    double memoryLimit = 0;   // bytes per device; 0 = the cluster's device memory
    int beam = 64;
    int runnerUps = 3;        // next-best plans to report
    double ilpTimeLimit = 60; // seconds
    Progress progress;
    // Strategies the plan must keep ("Re-search with my overrides fixed"); a searcher that
    // cannot honour one reports it in SearchResult::warnings.
    std::vector<StrategyOverride> fixed;
    // Set: plan pipeline stages too (searchBestMesh then sweeps tp, pp, dp, micro-batch size,
    // interleaving and recomputation; see pipeline_sweep.h).
    std::optional<PipelineOptions> pipeline;
};

struct PlanCandidate {
    ShardingPlan plan;
    CostReport report;
};

struct SearchResult {
    std::string searcher;
    PlanCandidate best;
    std::vector<PlanCandidate> runnerUps;
    double searchSeconds = 0;
    bool feasible = true;          // best fits in the memory limit
    bool optimal = false;          // proven optimal (ILP)
    bool timeLimitHit = false;     // ILP stopped at its time limit
    double solverObjective = 0;    // ILP: the solver's step time for its plan, which the report's total equals
    int uniqueBlocksSearched = 0;  // TAPAS: classes whose table was built
    std::vector<std::string> warnings;
};

class Searcher {
public:
    virtual ~Searcher() = default;
    virtual std::string name() const = 0;        // "tapas", "megatron", "dp", "unfolded"
    virtual std::string description() const = 0;
    virtual Result<SearchResult> search(const SearchRequest& request) const = 0;
    // The block search this searcher runs over the folded chain, for the pipeline sweep to run it
    // per micro-batch and tp degree; nullopt for searchers that do not plan block by block.
    virtual std::optional<DpConfig> blockConfig(const SearchRequest&) const { return std::nullopt; }
};

const std::vector<std::unique_ptr<Searcher>>& searchers();
const Searcher* findSearcher(const std::string& name);

// Checks the request (mesh against cluster) before any searcher runs.
Status validateRequest(const SearchRequest& request);

} // namespace tapas
