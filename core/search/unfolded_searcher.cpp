// The TAPAS dynamic programming with folding switched off: one scope over the whole graph.
#include "core/search/block_search.h"
#include "core/search/padded_search.h"
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
        // The padded table too, as TAPAS searches it: the unfolded search stays the check of the stitch.
        return searchWithTablePadding(request, [&](const SearchRequest& r) {
            return runBlockSearcher(name(), r, singleBlockFold(*r.graph), config);
        });
    }
};

} // namespace

std::unique_ptr<Searcher> makeUnfoldedSearcher() { return std::make_unique<UnfoldedSearcher>(); }

} // namespace tapas
