#pragma once
// The search over meshes dp x pp x tp for plans that need pipeline stages (or profit from them):
// for each tensor-parallel degree and micro-batch size the searcher's block search runs once on
// one micro-batch (its per-class tables serve every stage), then every pipeline depth, data-
// parallel degree, interleaving and recomputation is costed from those per-block figures, which
// is cheap. The plan that fits first, then the fastest, wins. searchBestMesh calls this when the
// request asks for pipelines.
#include "core/search/searcher.h"

namespace tapas {

// request.pipeline must be set. Fails when the searcher plans no blocks (dp, ilp, unfolded) or
// when no configuration could be costed; a plan that does not fit is returned with feasible false.
Result<SearchResult> searchPipelined(const Searcher& searcher, const SearchRequest& request);

// The divisors of n, ascending.
std::vector<int> divisorsOf(int64_t n);

} // namespace tapas
