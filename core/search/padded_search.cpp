#include "core/search/padded_search.h"

#include <algorithm>

namespace tapas {

Result<SearchResult> searchWithTablePadding(const SearchRequest& request, const SearchOnce& search)
{
    Result<SearchResult> asGiven = search(request);
    const std::vector<TablePadding> padding =
        request.graph ? tpTablePadding(*request.graph, request.mesh.tp) : std::vector<TablePadding>{};
    if (!asGiven || padding.empty()) return asGiven;
    const Graph padded = paddedGraph(*request.graph, padding);
    SearchRequest onPadded = request;
    onPadded.graph = &padded;
    // Padding pays only through a split over the padded rows: a plan that reads every padded
    // table whole or split otherwise is the same plan on more rows, which the first run has
    // cheaper. So the padded run pins each lookup of a padded table (that the user left free)
    // to the split over its rows, the vocabulary-parallel lookup; a tied head then reads the
    // table that way too or pays for the difference. That keeps its space, and its time, small.
    for (const TablePadding& p : padding)
        for (NodeId n : padded.tensor(p.table).consumers) {
            const Node& node = padded.node(n);
            if (node.opType != "Gather" || node.input(0) != p.table) continue;
            if (std::any_of(request.fixed.begin(), request.fixed.end(), [n](const StrategyOverride& f) { return f.node == n; }))
                continue;
            for (const OpStrategy& s : nodeStrategies(padded, n, request.mesh.tp, nullptr, request.mesh.dp))
                if (!s.inputs.empty() && s.inputs[0] == TensorLayout::split(0)) {
                    onPadded.fixed.push_back({n, s.name});
                    break;
                }
        }
    Result<SearchResult> withPadding = search(onPadded);
    if (!withPadding) return asGiven; // e.g. cancelled: the plan found on the model as given stands
    withPadding->best.plan.padding = padding;
    for (PlanCandidate& c : withPadding->runnerUps) c.plan.padding = padding;

    // Both runs' plans ranked as runBlockSearcher ranks one run's.
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
    const auto better = [limit](const PlanCandidate& a, const PlanCandidate& b) {
        const bool fa = a.report.total.memory() <= limit, fb = b.report.total.memory() <= limit;
        if (fa != fb) return fa;
        if (!fa) return a.report.total.memory() < b.report.total.memory();
        return a.report.total.time() < b.report.total.time();
    };
    const bool padWins = better(withPadding->best, asGiven->best);
    SearchResult r = padWins ? std::move(*withPadding) : std::move(*asGiven);
    SearchResult& other = padWins ? *asGiven : *withPadding;
    std::vector<PlanCandidate> rest = std::move(r.runnerUps);
    rest.push_back(std::move(other.best));
    for (PlanCandidate& c : other.runnerUps) rest.push_back(std::move(c));
    std::stable_sort(rest.begin(), rest.end(), better);
    if (int(rest.size()) > request.runnerUps) rest.resize(size_t(std::max(0, request.runnerUps)));
    r.runnerUps = std::move(rest);
    r.searchSeconds += other.searchSeconds;
    r.uniqueBlocksSearched += other.uniqueBlocksSearched;
    return r;
}

} // namespace tapas
