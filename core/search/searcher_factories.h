#pragma once
// Internal: one factory per searcher file, listed in searcher_registry.cpp.
#include "core/search/searcher.h"

namespace tapas {

std::unique_ptr<Searcher> makeTapasSearcher();
std::unique_ptr<Searcher> makeMegatronSearcher();
std::unique_ptr<Searcher> makeDataParallelSearcher();
std::unique_ptr<Searcher> makeUnfoldedSearcher();
std::unique_ptr<Searcher> makeIlpSearcher();

} // namespace tapas
