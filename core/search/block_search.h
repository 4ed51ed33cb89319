#pragma once
// TAPAS's stitch: dynamic programming over the chain of block instances, the state being the
// layout of every tensor that crosses from earlier blocks to later ones. Each block class's
// table (boundary input layouts -> Pareto-best results of the scope DP) is built lazily and
// reused for every instance of the class, so depth adds stitch steps, not searches.
#include "core/search/scope_dp.h"
#include "core/search/searcher.h"

namespace tapas {

struct BlockSearchOutput {
    std::vector<std::vector<int>> plans; // strategy index per NodeId, best first
    int scopeSearches = 0;               // scope DPs actually run (table misses)
    bool cancelled = false;
};

BlockSearchOutput searchBlocks(StrategyTable& table, const FoldedGraph& folded, const DpConfig& config,
                               double memoryLimit, int keep, const Progress& progress);

// The whole graph as one block: the search with folding off.
FoldedGraph singleBlockFold(const Graph& g);

// Plan and report from one strategy index per node.
PlanCandidate makeCandidate(const CostModel& model, const std::vector<int>& choices, const FoldedGraph* folded);

// Runs searchBlocks and packages a SearchResult (shared by the TAPAS, Megatron and unfolded searchers).
Result<SearchResult> runBlockSearcher(const std::string& name, const SearchRequest& request, const FoldedGraph& folded,
                                      const DpConfig& config);

} // namespace tapas
