#include "core/plan/plan_runnable.h"
#include "core/search/searcher_factories.h"

namespace tapas {

const std::vector<std::unique_ptr<Searcher>>& searchers()
{
    static const std::vector<std::unique_ptr<Searcher>> all = [] {
        std::vector<std::unique_ptr<Searcher>> v;
        v.push_back(makeTapasSearcher());
        v.push_back(makeMegatronSearcher());
        v.push_back(makeDataParallelSearcher());
        v.push_back(makeUnfoldedSearcher());
        v.push_back(makeIlpSearcher());
        return v;
    }();
    return all;
}

const Searcher* findSearcher(const std::string& name)
{
    for (const auto& s : searchers())
        if (s->name() == name) return s.get();
    return nullptr;
}

Status validateRequest(const SearchRequest& request)
{
    if (!request.graph) return Status::failure("search: no graph given");
    if (Status s = validateMesh(request.cluster, request.mesh, true); !s) return s;
    if (Status s = checkWorkloadBound(*request.graph); !s) return s;
    if (Status s = checkBatchSplit(*request.graph, request.mesh); !s) return s;
    if (Status s = checkSamplewise(*request.graph, request.mesh); !s) return s;
    for (const StrategyOverride& f : request.fixed)
        if (f.node < 0 || f.node >= NodeId(request.graph->nodes.size()))
            return Status::failure("search: fixed strategy '" + f.strategy + "' names node #" + std::to_string(f.node) +
                                   ", which the model does not have (" + std::to_string(request.graph->nodes.size()) +
                                   " nodes)");
    return Status::success();
}

} // namespace tapas
