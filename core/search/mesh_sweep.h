#pragma once
// "Let the search pick the mesh": one searcher run on every candidate dp x tp mesh, keeping the
// plan that fits first and is fastest second. Shared by `tapas search` and the Studio's Search
// dialog so both pick the same plan for the same request.
#include "core/search/searcher.h"

#include <vector>

namespace tapas {

// Runs `searcher` once per mesh (request.mesh is overwritten) and returns its best result.
// Progress is reported across the meshes as one run; a cancel stops between or inside runs and
// fails with "<searcher> search cancelled". Fails with the last error when no mesh worked.
// Searchers that fix their own mesh ("dp") run once. The result's runnerUps are the next best
// plans of the whole sweep (its own mesh's runner-ups and the other meshes' plans, fitting the
// memory limit first, then faster), at most request.runnerUps of them.
Result<SearchResult> searchBestMesh(const Searcher& searcher, SearchRequest request, const std::vector<DeviceMesh>& meshes);

// Feasible before infeasible, then the shorter predicted step time.
bool betterSearchResult(const SearchResult& a, const SearchResult& b);

} // namespace tapas
