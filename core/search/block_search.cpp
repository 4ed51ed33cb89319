#include "core/search/block_search.h"

#include "core/search/attention_heads.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace tapas {

namespace {

using Live = LiveLayouts;

struct ClassScope {
    Scope scope;
    std::vector<int> order; // scope index -> canonical position
    std::unordered_map<std::string, int> keyIndex;
    std::vector<std::vector<ScopeResult>> results;
};

struct GState {
    Live live;
    CostTerms cost;
    int trace = -1;
};

struct GTrace {
    int parent;
    int keyId;
    int result;
};

std::string layoutKey(const std::vector<TensorLayout>& ls)
{
    std::string k;
    for (const TensorLayout& l : ls) {
        k.push_back(char(l.kind));
        k.push_back(char(l.dim));
    }
    return k;
}

TensorLayout lookup(const Live& live, TensorId t)
{
    for (const auto& e : live)
        if (e.first == t) return e.second;
    return {};
}

} // namespace

FoldedGraph singleBlockFold(const Graph& g)
{
    FoldedGraph f;
    BlockClass c;
    BlockInstance inst;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) inst.nodes.push_back(n);
    inst.outputs = g.outputs;
    c.nodesPerInstance = int(inst.nodes.size());
    c.instances.push_back(std::move(inst));
    f.classes.push_back(std::move(c));
    f.nodeRef.resize(g.nodes.size());
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) f.nodeRef[size_t(n)] = {0, 0, int(n)};
    f.chain.push_back({0, 0});
    return f;
}

BlockSearchOutput searchBlocks(StrategyTable& table, const FoldedGraph& folded, const DpConfig& config,
                               double memoryLimit, int keep, const Progress& progress)
{
    const Graph& g = table.model().graph();
    BlockSearchOutput out;
    std::vector<ClassScope> classes(folded.classes.size());
    for (size_t c = 0; c < folded.classes.size(); ++c) {
        const BlockInstance& first = folded.classes[c].instances.front();
        ClassScope& cs = classes[c];
        cs.order.resize(first.nodes.size());
        std::iota(cs.order.begin(), cs.order.end(), 0);
        std::sort(cs.order.begin(), cs.order.end(), [&](int a, int b) { return first.nodes[size_t(a)] < first.nodes[size_t(b)]; });
        for (int p : cs.order) cs.scope.nodes.push_back(first.nodes[size_t(p)]);
        cs.scope.inputs = first.inputs;
        cs.scope.outputs = first.outputs;
    }
    // The last chain block reading each crossing tensor (-1: none); graph outputs stay to the
    // end. Indexed by tensor: the stitch asks for every live tensor of every state it makes.
    std::vector<int> lastBlock(g.tensors.size(), -1);
    for (int b = 0; b < int(folded.chain.size()); ++b) {
        const BlockRef& r = folded.chain[size_t(b)];
        for (TensorId t : folded.classes[size_t(r.classId)].instances[size_t(r.instance)].inputs)
            if (t != kNoTensor) lastBlock[size_t(t)] = b;
    }
    for (TensorId t : g.outputs)
        if (t != kNoTensor) lastBlock[size_t(t)] = int(folded.chain.size());
    auto readLater = [&](TensorId t, int b) { return t != kNoTensor && lastBlock[size_t(t)] > b; };

    std::vector<GTrace> traces;
    std::vector<GState> states(1);
    for (int b = 0; b < int(folded.chain.size()); ++b) {
        if (progress.cancelled()) {
            out.cancelled = true;
            return out;
        }
        progress(double(b) / double(folded.chain.size()), "stitching blocks");
        const BlockRef& ref = folded.chain[size_t(b)];
        ClassScope& cs = classes[size_t(ref.classId)];
        const BlockInstance& inst = folded.classes[size_t(ref.classId)].instances[size_t(ref.instance)];
        std::unordered_map<std::string, std::vector<GState>> next;
        // Fastest states first: once a class has kMaxTablesPerClass tables, a slower state that
        // would need yet another boundary layout is dropped (the beam bound of the stitch). T5's
        // decoder layers, which carry the encoder output and the mask beside the hidden state,
        // need 8 to reach the ILP's optimum at 8 devices (6 left it 2.7% slower).
        constexpr size_t kMaxTablesPerClass = 8;
        std::sort(states.begin(), states.end(), [](const GState& x, const GState& y) { return x.cost.time() < y.cost.time(); });
        // The block's outputs a later block (or the loss) reads, whatever the state.
        std::vector<size_t> liveOutputs;
        for (size_t o = 0; o < inst.outputs.size(); ++o)
            if (readLater(inst.outputs[o], b) && tracksLayout(g, inst.outputs[o])) liveOutputs.push_back(o);
        for (const GState& st : states) {
            std::vector<TensorLayout> in;
            for (TensorId t : inst.inputs) in.push_back(lookup(st.live, t));
            const std::string key = layoutKey(in);
            if (!next.empty() && !cs.keyIndex.count(key) && cs.results.size() >= kMaxTablesPerClass) continue;
            auto [it, fresh] = cs.keyIndex.try_emplace(key, int(cs.results.size()));
            if (fresh) {
                cs.results.push_back(runScopeDp(table, cs.scope, in, config, progress));
                ++out.scopeSearches;
                if (progress.cancelled()) {
                    out.cancelled = true;
                    return out;
                }
            }
            const std::vector<ScopeResult>& results = cs.results[size_t(it->second)];
            for (int ri = 0; ri < int(results.size()); ++ri) {
                const ScopeResult& r = results[size_t(ri)];
                GState ns;
                ns.cost = st.cost;
                ns.cost += r.cost;
                for (const auto& e : st.live)
                    if (readLater(e.first, b)) ns.live.push_back(e);
                for (size_t o : liveOutputs) ns.live.emplace_back(inst.outputs[o], r.outputLayouts[o]);
                std::sort(ns.live.begin(), ns.live.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
                ns.trace = int(traces.size());
                traces.push_back({st.trace, it->second, ri});
                next[liveLayoutsKey(ns.live)].push_back(std::move(ns));
            }
        }
        states.clear();
        for (auto& [k, group] : next) {
            keepPareto(group, size_t(config.perState), [](const GState& s) -> const CostTerms& { return s.cost; });
            for (GState& s : group) states.push_back(std::move(s));
        }
        // Every distinct boundary layout a state carries into a class costs one scope DP, so
        // the stitch keeps a narrower beam than the scope search.
        const int beam = std::max(8, config.beam / 4);
        if (int(states.size()) > beam) {
            std::sort(states.begin(), states.end(), [](const GState& x, const GState& y) { return x.cost.memory() < y.cost.memory(); });
            const long lean = std::max(1, beam / 8);
            std::partial_sort(states.begin() + lean, states.begin() + beam, states.end(),
                              [](const GState& x, const GState& y) { return x.cost.time() < y.cost.time(); });
            states.resize(size_t(beam));
        }
    }
    // Graph outputs left partial are reduced at the end.
    for (GState& st : states)
        for (const auto& [t, l] : st.live)
            if (l.kind == TensorLayout::P) st.cost += table.model().reshardCost(t, l, TensorLayout::replicated());
    std::sort(states.begin(), states.end(), [&](const GState& x, const GState& y) {
        const bool fx = x.cost.memory() <= memoryLimit, fy = y.cost.memory() <= memoryLimit;
        if (fx != fy) return fx;
        if (!fx) return x.cost.memory() < y.cost.memory(); // nothing fits: the leanest first
        return x.cost.time() < y.cost.time();
    });
    for (const GState& st : states) {
        if (int(out.plans.size()) >= keep) break;
        std::vector<int> choice(g.nodes.size(), 0);
        int b = int(folded.chain.size()) - 1;
        for (int tr = st.trace; tr >= 0; tr = traces[size_t(tr)].parent, --b) {
            const BlockRef& ref = folded.chain[size_t(b)];
            const ClassScope& cs = classes[size_t(ref.classId)];
            const BlockInstance& inst = folded.classes[size_t(ref.classId)].instances[size_t(ref.instance)];
            const ScopeResult& r = cs.results[size_t(traces[size_t(tr)].keyId)][size_t(traces[size_t(tr)].result)];
            for (size_t k = 0; k < cs.order.size(); ++k) choice[size_t(inst.nodes[size_t(cs.order[k])])] = r.choices[k];
        }
        if (std::find(out.plans.begin(), out.plans.end(), choice) == out.plans.end()) out.plans.push_back(std::move(choice));
    }
    progress(1.0, "stitching blocks");
    return out;
}

FoldedGraph peelPinnedInstances(const FoldedGraph& folded, const std::vector<StrategyOverride>& pinned)
{
    std::vector<std::vector<char>> peel(folded.classes.size());
    bool any = false;
    for (size_t c = 0; c < folded.classes.size(); ++c) peel[c].assign(folded.classes[c].instances.size(), 0);
    for (const StrategyOverride& p : pinned) {
        if (p.node < 0 || size_t(p.node) >= folded.nodeRef.size()) continue;
        const NodeBlockRef& r = folded.nodeRef[size_t(p.node)];
        if (r.classId < 0 || folded.classes[size_t(r.classId)].instances.size() < 2) continue; // already alone
        peel[size_t(r.classId)][size_t(r.instance)] = 1;
        any = true;
    }
    if (!any) return folded;
    FoldedGraph out = folded;
    out.classes.clear();
    // (class, instance) -> new (class, instance)
    std::vector<std::vector<BlockRef>> moved(folded.classes.size());
    std::vector<BlockClass> extra;
    for (size_t c = 0; c < folded.classes.size(); ++c) {
        const BlockClass& old = folded.classes[c];
        BlockClass kept = old;
        kept.instances.clear();
        moved[c].resize(old.instances.size());
        // A class whose every instance is pinned keeps its first one.
        const bool allPinned = std::all_of(peel[c].begin(), peel[c].end(), [](char x) { return x != 0; });
        for (size_t i = 0; i < old.instances.size(); ++i) {
            if (!peel[c][i] || (allPinned && i == 0)) {
                moved[c][i] = {int(c), int(kept.instances.size())};
                kept.instances.push_back(old.instances[i]);
                continue;
            }
            BlockClass alone = old;
            alone.instances = {old.instances[i]};
            moved[c][i] = {int(folded.classes.size() + extra.size()), 0};
            extra.push_back(std::move(alone));
        }
        out.classes.push_back(std::move(kept));
    }
    for (BlockClass& e : extra) out.classes.push_back(std::move(e));
    for (size_t c = 0; c < out.classes.size(); ++c) out.classes[c].id = int(c);
    for (BlockRef& b : out.chain) b = moved[size_t(b.classId)][size_t(b.instance)];
    for (NodeBlockRef& r : out.nodeRef) {
        if (r.classId < 0) continue;
        const BlockRef b = moved[size_t(r.classId)][size_t(r.instance)];
        r.classId = b.classId;
        r.instance = b.instance;
    }
    return out;
}

std::unordered_map<NodeId, std::string> fixedStrategies(const SearchRequest& request)
{
    std::unordered_map<NodeId, std::string> out;
    for (const StrategyOverride& f : request.fixed) out[f.node] = f.strategy;
    return out;
}

PlanCandidate makeCandidate(StrategyTable& table, const std::vector<int>& choices, const FoldedGraph* folded)
{
    const CostModel& model = table.model();
    const Graph& g = model.graph();
    std::vector<OpStrategy> strategies;
    std::vector<CostTerms> perNode;
    strategies.reserve(g.nodes.size());
    perNode.reserve(g.nodes.size());
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        NodeId rep = n;
        if (folded && size_t(n) < folded->nodeRef.size() && folded->nodeRef[size_t(n)].classId >= 0) {
            const NodeBlockRef& ref = folded->nodeRef[size_t(n)];
            rep = folded->classes[size_t(ref.classId)].instances.front().nodes[size_t(ref.position)];
        }
        int c = choices[size_t(n)];
        if (c < 0 || c >= table.count(rep)) c = 0;
        strategies.push_back(table.strategy(rep, c));
        // A shared weight's share depends on the tensor a node really reads: an instance may read
        // an exporter's alias where the representative reads the weight itself.
        if (rep != n && (model.readsSharedWeight(n) || model.readsSharedWeight(rep))) perNode.push_back(model.nodeCost(n, strategies.back()));
        else perNode.push_back(table.cost(rep, c));
    }
    PlanCandidate pc;
    pc.plan = buildPlan(g, model.mesh(), std::move(strategies));
    pc.report = reportFromNodeCosts(pc.plan, model, std::move(perNode), folded);
    return pc;
}

namespace {

using UseClass = std::pair<TensorLayout, bool>; // a weight use's layout and whether its compute is split

UseClass useClass(const OpStrategy& s, int slot)
{
    return {size_t(slot) < s.inputs.size() ? s.inputs[size_t(slot)] : TensorLayout{}, s.computeFraction < 1};
}

using WeightUses = std::vector<std::pair<NodeId, int>>;

// The shared weights some plan uses in different classes, largest first (at most a few: each
// costs the search again per class).
std::vector<std::pair<TensorId, WeightUses>> mixedSharedWeights(StrategyTable& table, const std::vector<std::vector<int>>& plans)
{
    constexpr size_t kMaxWeights = 4;
    const CostModel& model = table.model();
    std::vector<std::pair<TensorId, WeightUses>> out;
    for (const auto& [t, uses] : model.sharedWeights()) {
        const bool mixed = std::any_of(plans.begin(), plans.end(), [&, &uses = uses](const std::vector<int>& p) {
            const UseClass first = useClass(table.strategy(uses.front().first, p[size_t(uses.front().first)]), uses.front().second);
            return std::any_of(uses.begin(), uses.end(), [&](const std::pair<NodeId, int>& u) {
                return useClass(table.strategy(u.first, p[size_t(u.first)]), u.second) != first;
            });
        });
        if (mixed) out.emplace_back(t, uses);
    }
    const Graph& g = model.graph();
    std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
        const int64_t ea = g.tensor(a.first).shape.numElementsOr(1), eb = g.tensor(b.first).shape.numElementsOr(1);
        return ea != eb ? ea > eb : a.first < b.first;
    });
    if (out.size() > kMaxWeights) out.resize(kMaxWeights);
    return out;
}

// The classes every use of a weight can take (by some allowed strategy of its node).
std::vector<UseClass> commonUseClasses(StrategyTable& table, const WeightUses& uses)
{
    std::vector<UseClass> common;
    for (size_t u = 0; u < uses.size(); ++u) {
        std::vector<UseClass> mine;
        for (int s : table.allowed(uses[u].first)) {
            const UseClass c = useClass(table.strategy(uses[u].first, s), uses[u].second);
            if (std::find(mine.begin(), mine.end(), c) == mine.end()) mine.push_back(c);
        }
        if (u == 0) common = mine;
        else common.erase(std::remove_if(common.begin(), common.end(),
                                         [&](const UseClass& c) { return std::find(mine.begin(), mine.end(), c) == mine.end(); }),
                          common.end());
    }
    return common;
}

// Heads that the tensor-parallel degree does not divide keep attention replicated: said once,
// naming the reshape that splits the heads, so a user sees why a mesh did not help.
std::vector<std::string> headWarnings(const Graph& g, int tp)
{
    std::vector<std::string> out;
    const std::optional<AttentionHeads> h = tp > 1 ? attentionHeads(g) : std::nullopt;
    if (h && h->heads % tp != 0)
        out.push_back(nodeLabel(g, h->reshape) + ": " + std::to_string(h->heads) +
                      " attention heads are not divisible by the tensor-parallel degree " + std::to_string(tp) +
                      "; attention stays unsplit there");
    return out;
}

} // namespace

Result<SearchResult> runBlockSearcher(const std::string& name, const SearchRequest& request, const FoldedGraph& foldedIn,
                                      const DpConfig& configIn)
{
    const auto start = std::chrono::steady_clock::now();
    // Pinned nodes: their instances are searched on their own, and only with their pin.
    std::optional<FoldedGraph> peeled;
    if (!request.fixed.empty()) peeled = peelPinnedInstances(foldedIn, request.fixed);
    const FoldedGraph& folded = peeled ? *peeled : foldedIn;
    DpConfig config = configIn;
    config.fixed = fixedStrategies(request);
    CostModel model(*request.graph, request.cluster, request.mesh, request.cost);
    StrategyTable table(*request.graph, model, config);
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
    BlockSearchOutput bs = searchBlocks(table, folded, config, limit, 1 + request.runnerUps, request.progress);
    if (bs.cancelled) return Result<SearchResult>::failure(name + " search cancelled");
    if (bs.plans.empty()) return Result<SearchResult>::failure(name + " search found no plan");
    // The search sums the nodes' terms; the report adds what spans the plan. Other views of those
    // terms find the plans the sum ranks too low; every view's plans are ranked by their reports.
    // Strategy indices do not depend on the cost model or the allowed set, so plans mix freely.
    const auto addPlans = [&](const CostModel& m, const DpConfig& c) {
        StrategyTable t(*request.graph, m, c);
        BlockSearchOutput more = searchBlocks(t, folded, c, limit, 1 + request.runnerUps, request.progress);
        for (std::vector<int>& p : more.plans)
            if (std::find(bs.plans.begin(), bs.plans.end(), p) == bs.plans.end()) bs.plans.push_back(std::move(p));
        return !more.cancelled;
    };
    // The nodes carry the bandwidth of their gradients' all-reduce, which is the plan's exposed
    // sync while the gradients fit one DDP bucket. Beyond one, DDP hides all but the last bucket
    // under the backward, or the sync outlasts the backward and more compute hides more of it:
    // the plans best under each of those views are searched too.
    std::vector<CostModel> syncViews;
    syncViews.reserve(2);
    if (request.mesh.dp > 1 && model.wholeGradientBytes() > kDdpBucketBytes)
        for (CostOptions::SyncView v : {CostOptions::SyncView::Hidden, CostOptions::SyncView::OutlastsBackward}) {
            CostOptions o = request.cost;
            o.syncView = v;
            syncViews.emplace_back(*request.graph, request.cluster, request.mesh, o);
        }
    for (const CostModel& m : syncViews)
        if (!addPlans(m, config)) return Result<SearchResult>::failure(name + " search cancelled");
    // A shared weight's uses each carry a share of its cost, which sums to the weight's cost when
    // the uses agree and understates it when they differ (the report settles them as one). Where
    // the plans found use a shared weight in different layouts, the search is run again with each
    // layout the uses can agree on, in which the sum is the report's.
    for (const auto& [t, uses] : mixedSharedWeights(table, bs.plans))
        for (const UseClass& c : commonUseClasses(table, uses)) {
            DpConfig pinned = config;
            pinned.allow = [base = config.allow, uses = uses, c](NodeId n, const OpStrategy& s) {
                if (base && !base(n, s)) return false;
                for (const auto& [u, slot] : uses)
                    if (u == n && useClass(s, slot) != c) return false;
                return true;
            };
            if (!addPlans(model, pinned)) return Result<SearchResult>::failure(name + " search cancelled");
            for (const CostModel& m : syncViews)
                if (!addPlans(m, pinned)) return Result<SearchResult>::failure(name + " search cancelled");
        }
    SearchResult r;
    r.searcher = name;
    r.uniqueBlocksSearched = bs.scopeSearches; // of the first view (the other views build the same classes' tables)
    std::vector<PlanCandidate> all;
    for (const std::vector<int>& p : bs.plans) all.push_back(makeCandidate(table, p, &folded));
    std::stable_sort(all.begin(), all.end(), [limit](const PlanCandidate& a, const PlanCandidate& b) {
        const bool fa = a.report.total.memory() <= limit, fb = b.report.total.memory() <= limit;
        if (fa != fb) return fa;
        if (!fa) return a.report.total.memory() < b.report.total.memory();
        return a.report.total.time() < b.report.total.time();
    });
    r.best = std::move(all.front());
    for (size_t i = 1; i < all.size() && int(i) <= request.runnerUps; ++i) r.runnerUps.push_back(std::move(all[i]));
    r.feasible = r.best.report.total.memory() <= limit;
    r.warnings = table.warnings();
    for (std::string& w : headWarnings(*request.graph, request.mesh.tp)) r.warnings.push_back(std::move(w));
    r.best.plan.warnings = r.warnings;
    r.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

Result<SearchResult> foldAndSearchBlocks(const Searcher& searcher, const SearchRequest& request)
{
    const auto start = std::chrono::steady_clock::now();
    if (Status s = validateRequest(request); !s) return Result<SearchResult>::failure(s.error);
    Result<FoldedGraph> folded = foldGraph(*request.graph, {}, request.progress);
    if (!folded) return Result<SearchResult>::failure(folded.error());
    Result<SearchResult> r = runBlockSearcher(searcher.name(), request, *folded, *searcher.blockConfig(request));
    if (r) r->searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

} // namespace tapas
