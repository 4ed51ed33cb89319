// Data parallel only: every device holds the whole model (mesh N x 1), gradients all-reduced.
#include "core/plan/plan_runnable.h"
#include "core/search/block_search.h"
#include "core/search/searcher_factories.h"

#include <chrono>

namespace tapas {

namespace {

class DataParallelSearcher : public Searcher {
public:
    std::string name() const override { return "dp"; }
    std::string description() const override { return "data parallel only"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        if (!request.graph) return Result<SearchResult>::failure("search: no graph given");
        const auto start = std::chrono::steady_clock::now();
        const DeviceMesh mesh{request.cluster.deviceCount(), 1};
        if (Status s = checkWorkloadBound(*request.graph); !s) return Result<SearchResult>::failure(s.error);
        if (Status s = checkBatchSplit(*request.graph, mesh); !s) return Result<SearchResult>::failure("data parallel: " + s.error);
        if (Status s = checkSamplewise(*request.graph, mesh); !s) return Result<SearchResult>::failure("data parallel: " + s.error);
        CostModel model(*request.graph, request.cluster, mesh, request.cost);
        DpConfig config;
        StrategyTable table(*request.graph, model, config);
        SearchResult r;
        r.searcher = name();
        // One plan only: every node replicated; a pin asking for anything else is reported.
        r.best = makeCandidate(table, std::vector<int>(request.graph->nodes.size(), 0), nullptr);
        for (const StrategyOverride& f : request.fixed)
            if (f.node >= 0 && f.node < NodeId(request.graph->nodes.size()) && f.strategy != "replicate")
                r.warnings.push_back("node '" + request.graph->node(f.node).name + "': fixed strategy '" + f.strategy +
                                     "' needs tensor parallelism; data parallel replicates it");
        const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
        r.feasible = r.best.report.total.memory() <= limit;
        r.optimal = true; // the only plan of its kind
        r.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return r;
    }
};

} // namespace

std::unique_ptr<Searcher> makeDataParallelSearcher() { return std::make_unique<DataParallelSearcher>(); }

} // namespace tapas
