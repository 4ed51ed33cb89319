// TAPAS: fold the graph into block classes, search each class once, stitch along the chain.
#include "core/search/block_search.h"
#include "core/search/searcher_factories.h"

#include <chrono>

namespace tapas {

namespace {

class TapasSearcher : public Searcher {
public:
    std::string name() const override { return "tapas"; }
    std::string description() const override { return "fold, search each unique block once, stitch"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        const auto start = std::chrono::steady_clock::now(); // the fold is part of the search's time
        if (Status s = validateRequest(request); !s) return Result<SearchResult>::failure(s.error);
        Result<FoldedGraph> folded = foldGraph(*request.graph, {}, request.progress);
        if (!folded) return Result<SearchResult>::failure(folded.error());
        Result<SearchResult> r = runBlockSearcher(name(), request, *folded, *blockConfig(request));
        if (r) r->searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return r;
    }
    std::optional<DpConfig> blockConfig(const SearchRequest& request) const override
    {
        DpConfig config;
        config.beam = request.beam;
        return config;
    }
};

} // namespace

std::unique_ptr<Searcher> makeTapasSearcher() { return std::make_unique<TapasSearcher>(); }

} // namespace tapas
