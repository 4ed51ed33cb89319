#pragma once
// Table padding as a search choice (core/shard/table_padding.h): where tp leaves a lookup table's
// rows unsplittable, the searcher runs once on the model as given and once with those tables padded
// to the next multiple of tp, and the plans of both are ranked together (fitting first, then step
// time); a plan of the padded run carries its padding. Only then: with tp 1 or tables that split,
// it is the one search it was. Each run folds its own graph, so each keeps its shared class tables.
#include "core/search/searcher.h"

#include <functional>

namespace tapas {

using SearchOnce = std::function<Result<SearchResult>(const SearchRequest&)>;

Result<SearchResult> searchWithTablePadding(const SearchRequest& request, const SearchOnce& search);

} // namespace tapas
