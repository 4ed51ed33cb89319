#pragma once
// "Let the search pick the mesh": one searcher run on every candidate dp x tp mesh, keeping the
// plan that fits first and is fastest second. Shared by `tapas search` and the Studio's Search
// dialog so both pick the same plan for the same request.
#include "core/search/searcher.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tapas {

// Runs `searcher` once per mesh (request.mesh is overwritten) and returns its best result.
// Progress is reported across the meshes as one run; a cancel stops between or inside runs and
// fails with "<searcher> search cancelled". Fails with the last error when no mesh worked.
// Searchers that fix their own mesh ("dp") run once. The result's runnerUps are the next best
// plans of the whole sweep (its own mesh's runner-ups and the other meshes' plans, fitting the
// memory limit first, then faster), at most request.runnerUps of them.
Result<SearchResult> searchBestMesh(const Searcher& searcher, SearchRequest request, const std::vector<DeviceMesh>& meshes);

// The sweep's word on a best plan whose tensor-parallel groups split nothing (each of their
// devices computes the same thing): its effective device count, and why data parallelism does
// not use those devices instead (the reason a mesh with more dp had no plan, e.g. a batch of 1,
// or that it was slower). nullopt when the plan splits work over its tensor-parallel groups.
std::optional<std::string> replicationWarning(const SearchResult& best, const std::vector<std::pair<DeviceMesh, std::string>>& failed,
                                              const std::vector<std::pair<DeviceMesh, double>>& stepTimes);

// One searcher as `tapas search` and the Search dialog run it. With request.pipeline set, a block
// searcher (tapas, megatron) plans stages too and the others (dp, ilp, unfolded) plan without
// them. Without it, when the best plan does not fit and `mayAddStages` (the user fixed no mesh), a
// block searcher tries again with `stages` and the better of the two is kept; `unstagedMemory`
// then receives the bytes per device the best plan without stages needed (0 otherwise).
Result<SearchResult> searchWithStages(const Searcher& searcher, SearchRequest request, const std::vector<DeviceMesh>& meshes,
                                      const PipelineOptions& stages, bool mayAddStages, double* unstagedMemory = nullptr);

// Feasible before infeasible, then the shorter predicted step time.
bool betterSearchResult(const SearchResult& a, const SearchResult& b);

} // namespace tapas
