// TAPAS: fold the graph into block classes, search each class once, stitch; where tp leaves a
// lookup table unsplittable, once more with the table padded (padded_search.h).
#include "core/search/block_search.h"
#include "core/search/padded_search.h"
#include "core/search/searcher_factories.h"

namespace tapas {

namespace {

class TapasSearcher : public Searcher {
public:
    std::string name() const override { return "tapas"; }
    std::string description() const override { return "fold, search each unique block once, stitch"; }
    Result<SearchResult> search(const SearchRequest& request) const override
    {
        return searchWithTablePadding(request, [this](const SearchRequest& r) { return foldAndSearchBlocks(*this, r); });
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
