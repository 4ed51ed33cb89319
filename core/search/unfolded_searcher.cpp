// The TAPAS dynamic programming with folding switched off: one scope over the whole graph.
#include "core/search/block_search.h"
#include "core/search/searcher_factories.h"

namespace tapas {

namespace {

class UnfoldedSearcher : public Searcher {
public:
    std::string name() const override { return "unfolded"; }
    std::string description() const override { return "the same search over the whole graph, folding off"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        if (Status s = validateRequest(request); !s) return Result<SearchResult>::failure(s.error);
        DpConfig config;
        config.beam = request.beam;
        return runBlockSearcher(name(), request, singleBlockFold(*request.graph), config);
    }
};

} // namespace

std::unique_ptr<Searcher> makeUnfoldedSearcher() { return std::make_unique<UnfoldedSearcher>(); }

} // namespace tapas
