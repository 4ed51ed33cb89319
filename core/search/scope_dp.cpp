#include "core/search/scope_dp.h"

#include <algorithm>
#include <unordered_map>

namespace tapas {

bool tracksLayout(const Graph& g, TensorId t)
{
    if (t == kNoTensor) return false;
    const Tensor& x = g.tensor(t);
    return x.producer != kNoNode && dtypeIsFloating(x.dtype) && !x.value;
}

namespace {

std::string strategyNames(const std::vector<OpStrategy>& all)
{
    std::string names;
    for (const OpStrategy& s : all) names += (names.empty() ? "" : ", ") + s.name;
    return names;
}

} // namespace

StrategyTable::StrategyTable(const Graph& g, const CostModel& model, const DpConfig& config)
    : g_(g), model_(model), config_(config), entries_(g.nodes.size())
{
}

StrategyTable::Entry& StrategyTable::entry(NodeId n)
{
    Entry& e = entries_[size_t(n)];
    if (e.ready) return e;
    std::string warning;
    e.all = nodeStrategies(g_, n, model_.mesh().tp, &warning, model_.batchShards());
    if (!warning.empty()) warnings_.push_back(warning);
    for (size_t i = 0; i < e.all.size(); ++i) e.costs.push_back(model_.nodeCost(n, e.all[i]));
    auto pin = config_.fixed.find(n);
    if (pin != config_.fixed.end()) {
        for (size_t i = 0; i < e.all.size(); ++i)
            if (e.all[i].name == pin->second) e.allowed.push_back(int(i));
        if (e.allowed.empty())
            warnings_.push_back(nodeLabel(g_, n) + ": fixed strategy '" + pin->second + "' is not valid on tp " +
                                std::to_string(model_.mesh().tp) + " (valid: " + strategyNames(e.all) +
                                "); left to the search");
    }
    if (e.allowed.empty())
        for (size_t i = 0; i < e.all.size(); ++i)
            if (!config_.allow || config_.allow(n, e.all[i])) e.allowed.push_back(int(i));
    if (e.allowed.empty()) { // replicate is always possible; say so rather than degrade quietly
        warnings_.push_back(nodeLabel(g_, n) + ": none of its strategies on tp " + std::to_string(model_.mesh().tp) +
                            " (" + strategyNames(e.all) + ") fits the searcher's rule; replicated");
        e.allowed.push_back(0);
    }
    e.ready = true;
    return e;
}

const std::vector<int>& StrategyTable::allowed(NodeId n) { return entry(n).allowed; }
const OpStrategy& StrategyTable::strategy(NodeId n, int index) { return entry(n).all[size_t(index)]; }
const CostTerms& StrategyTable::cost(NodeId n, int index) { return entry(n).costs[size_t(index)]; }

std::string liveLayoutsKey(const LiveLayouts& live)
{
    std::string k;
    k.reserve(live.size() * 6);
    for (const auto& [t, l] : live) {
        k.append(reinterpret_cast<const char*>(&t), sizeof t);
        k.push_back(char(l.kind));
        k.push_back(char(l.dim));
    }
    return k;
}

namespace {

using Live = LiveLayouts;

struct State {
    Live live;
    CostTerms cost;
    int trace = -1;
};

struct TraceEntry {
    int parent;
    int choice;
};

const TensorLayout* findLive(const Live& live, TensorId t)
{
    auto it = std::lower_bound(live.begin(), live.end(), t, [](const auto& e, TensorId x) { return e.first < x; });
    return it != live.end() && it->first == t ? &it->second : nullptr;
}

} // namespace

std::vector<ScopeResult> runScopeDp(StrategyTable& table, const Scope& scope, const std::vector<TensorLayout>& inputLayouts,
                                    const DpConfig& config, const Progress& progress)
{
    const Graph& g = table.model().graph();
    const CostModel& model = table.model();
    // Position of each node's last in-scope use of a tensor; outputs live to the end.
    std::unordered_map<TensorId, int> lastUse;
    for (int k = 0; k < int(scope.nodes.size()); ++k)
        for (TensorId t : g.node(scope.nodes[size_t(k)]).inputs)
            if (tracksLayout(g, t)) lastUse[t] = k;
    for (TensorId t : scope.outputs) lastUse[t] = int(scope.nodes.size());

    State init;
    for (size_t i = 0; i < scope.inputs.size(); ++i)
        if (tracksLayout(g, scope.inputs[i]) && lastUse.count(scope.inputs[i]))
            init.live.emplace_back(scope.inputs[i], i < inputLayouts.size() ? inputLayouts[i] : TensorLayout{});
    std::sort(init.live.begin(), init.live.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    init.live.erase(std::unique(init.live.begin(), init.live.end(),
                                [](const auto& a, const auto& b) { return a.first == b.first; }),
                    init.live.end());

    std::vector<TraceEntry> traces;
    std::vector<State> states{init};
    for (int k = 0; k < int(scope.nodes.size()); ++k) {
        if (progress.cancelled()) return {};
        const NodeId n = scope.nodes[size_t(k)];
        const Node& node = g.node(n);
        std::unordered_map<std::string, std::vector<State>> next;
        for (const State& st : states) {
            for (int si : table.allowed(n)) {
                const OpStrategy& s = table.strategy(n, si);
                State ns;
                ns.cost = st.cost;
                ns.cost += table.cost(n, si);
                for (size_t i = 0; i < node.inputs.size(); ++i) {
                    const TensorId t = node.inputs[i];
                    if (!tracksLayout(g, t)) continue; // weights, inputs, shape values: free to slice
                    const TensorLayout* from = findLive(st.live, t);
                    const TensorLayout have = from ? *from : TensorLayout{};
                    if (have != s.inputs[i]) ns.cost += model.reshardCost(t, have, s.inputs[i]);
                }
                for (const auto& e : st.live)
                    if (lastUse[e.first] > k) ns.live.push_back(e);
                for (size_t o = 0; o < node.outputs.size(); ++o) {
                    const TensorId t = node.outputs[o];
                    if (!tracksLayout(g, t)) continue;
                    auto it = lastUse.find(t);
                    if (it != lastUse.end() && it->second > k) ns.live.emplace_back(t, s.outputs[o]);
                }
                std::sort(ns.live.begin(), ns.live.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
                ns.trace = int(traces.size());
                traces.push_back({st.trace, si});
                next[liveLayoutsKey(ns.live)].push_back(std::move(ns));
            }
        }
        states.clear();
        for (auto& [key, group] : next) {
            keepPareto(group, size_t(config.perState), [](const State& s) -> const CostTerms& { return s.cost; });
            for (State& s : group) states.push_back(std::move(s));
        }
        if (int(states.size()) > config.beam) {
            // The fastest states, plus the leanest few so a memory limit can still be met.
            std::sort(states.begin(), states.end(), [](const State& a, const State& b) { return a.cost.memory() < b.cost.memory(); });
            std::vector<State> lean(std::make_move_iterator(states.begin()),
                                    std::make_move_iterator(states.begin() + std::max(1, config.beam / 8)));
            states.erase(states.begin(), states.begin() + long(lean.size()));
            std::partial_sort(states.begin(), states.begin() + (config.beam - long(lean.size())), states.end(),
                              [](const State& a, const State& b) { return a.cost.time() < b.cost.time(); });
            states.resize(size_t(config.beam) - lean.size());
            for (State& s : lean) states.push_back(std::move(s));
        }
    }
    std::vector<ScopeResult> out;
    for (const State& st : states) {
        ScopeResult r;
        for (TensorId t : scope.outputs) {
            const TensorLayout* l = findLive(st.live, t);
            r.outputLayouts.push_back(l ? *l : TensorLayout{});
        }
        r.cost = st.cost;
        r.choices.assign(scope.nodes.size(), 0);
        int k = int(scope.nodes.size()) - 1;
        for (int tr = st.trace; tr >= 0; tr = traces[size_t(tr)].parent) r.choices[size_t(k--)] = traces[size_t(tr)].choice;
        out.push_back(std::move(r));
    }
    std::sort(out.begin(), out.end(), [](const ScopeResult& a, const ScopeResult& b) { return a.cost.time() < b.cost.time(); });
    return out;
}

} // namespace tapas
