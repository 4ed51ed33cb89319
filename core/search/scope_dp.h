#pragma once
// The search's inner loop: dynamic programming over a set of nodes (one block instance, or the
// whole graph when folding is off) in topological order. A state is the layout of every live
// tensor on the frontier; per state the (time, memory) Pareto set is kept, and a beam bounds the
// number of states. Node strategies and costs are computed once per node and shared.
#include "core/cost/cost_model.h"
#include "core/util/progress.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tapas {

struct DpConfig {
    int beam = 64;     // states kept after each node
    int perState = 3;  // Pareto entries kept per frontier layout
    // Restricts a node's strategies (Megatron's fixed roles); null = every strategy allowed.
    std::function<bool(NodeId, const OpStrategy&)> allow;
    // Strategies pinned by name (SearchRequest::fixed): such a node gets only that strategy,
    // whatever `allow` says. A name the node's rule does not offer is reported, not pinned.
    std::unordered_map<NodeId, std::string> fixed;
};

// Each node's valid strategies and their node costs, computed lazily once.
class StrategyTable {
public:
    StrategyTable(const Graph& g, const CostModel& model, const DpConfig& config);
    // Indices into nodeStrategies(g, n, tp) that the config allows (never empty).
    const std::vector<int>& allowed(NodeId n);
    const OpStrategy& strategy(NodeId n, int index);
    const CostTerms& cost(NodeId n, int index);
    int count(NodeId n) { return int(entry(n).all.size()); } // strategies of n, allowed or not
    const CostModel& model() const { return model_; }
    std::vector<std::string> warnings() const { return warnings_; }

private:
    struct Entry {
        bool ready = false;
        std::vector<OpStrategy> all;
        std::vector<CostTerms> costs;
        std::vector<int> allowed;
    };
    Entry& entry(NodeId n);
    const Graph& g_;
    const CostModel& model_;
    const DpConfig& config_;
    std::vector<Entry> entries_;
    std::vector<std::string> warnings_;
};

struct Scope {
    std::vector<NodeId> nodes;     // topological order
    std::vector<TensorId> inputs;  // boundary tensors whose layout is given
    std::vector<TensorId> outputs; // boundary tensors whose layout is returned
};

struct ScopeResult {
    std::vector<TensorLayout> outputLayouts; // per Scope::outputs
    CostTerms cost;
    std::vector<int> choices; // per Scope::nodes: index into nodeStrategies
};

// Layouts of the live tensors on a frontier, sorted by tensor, and a hashable key for them.
using LiveLayouts = std::vector<std::pair<TensorId, TensorLayout>>;
std::string liveLayoutsKey(const LiveLayouts& live);

// Tensors whose layout the search tracks: floating-point activations without a known value.
bool tracksLayout(const Graph& g, TensorId t);

// The Pareto-best results per distinct output layout. Empty when cancelled.
std::vector<ScopeResult> runScopeDp(StrategyTable& table, const Scope& scope, const std::vector<TensorLayout>& inputLayouts,
                                    const DpConfig& config, const Progress& progress = {});

// Keeps the entries not dominated in (time, memory), at most `keep`, fastest first.
template <class T, class Cost>
void keepPareto(std::vector<T>& v, size_t keep, Cost costOf)
{
    std::sort(v.begin(), v.end(), [&](const T& a, const T& b) {
        const CostTerms &ca = costOf(a), &cb = costOf(b);
        return ca.time() != cb.time() ? ca.time() < cb.time() : ca.memory() < cb.memory();
    });
    std::vector<T> out;
    double bestMem = 0;
    for (T& x : v) {
        const double m = costOf(x).memory();
        if (!out.empty() && m >= bestMem) continue;
        bestMem = m;
        out.push_back(std::move(x));
        if (out.size() >= keep) break;
    }
    v = std::move(out);
}

} // namespace tapas
