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

// Every block instance holding a node in `pinned` leaves its class for a class of its own, so
// the class's shared table stays right for the other instances and the pinned copy is searched
// with its pin. Instances keep their chain order; nothing changes when no instance is pinned.
FoldedGraph peelPinnedInstances(const FoldedGraph& folded, const std::vector<StrategyOverride>& pinned);

// DpConfig::fixed from the request's pinned strategies.
std::unordered_map<NodeId, std::string> fixedStrategies(const SearchRequest& request);

// Plan and report from one strategy index per node. A node's strategy and node cost come from
// its class representative's entry in `table` (corresponding nodes of a class's instances are
// structurally identical), so an instance replays its class's work instead of redoing it.
PlanCandidate makeCandidate(StrategyTable& table, const std::vector<int>& choices, const FoldedGraph* folded);

// A block searcher's whole search: validate the request, fold (timed as part of the search) and
// run the block search with searcher.blockConfig(request).
Result<SearchResult> foldAndSearchBlocks(const Searcher& searcher, const SearchRequest& request);

// Runs searchBlocks and packages a SearchResult (shared by the TAPAS, Megatron and unfolded searchers).
Result<SearchResult> runBlockSearcher(const std::string& name, const SearchRequest& request, const FoldedGraph& folded,
                                      const DpConfig& config);

} // namespace tapas
