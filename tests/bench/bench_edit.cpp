// `tapas bench edit`: the Plan dock's override, measured as the GUI does it: store one MLP
// weight of a zoo GPT (GPT-3's hidden size) in another layout for every instance of its class,
// re-placing the collectives and re-costing the plan (PlanEditor::setWeightLayout), on 12 and 96
// layers. Beside it, the from-scratch placeCollectives + evaluatePlan the editor avoids.
// Target: the 96-layer override under 100 ms.
#include "tests/bench/bench.h"

#include "core/plan/plan_editor.h"
#include "core/search/searcher.h"
#include "core/util/median.h"
#include "core/zoo/zoo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(const std::vector<std::string>& args)
{
    std::vector<int64_t> layers = {12, 96};
    int repeats = 20;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--layers" && i + 1 < args.size()) {
            layers.clear();
            for (size_t at = 0; at < args[i + 1].size();) {
                const size_t comma = std::min(args[i + 1].find(',', at), args[i + 1].size());
                layers.push_back(std::stoll(args[i + 1].substr(at, comma - at)));
                at = comma + 1;
            }
            ++i;
        } else if (args[i] == "--repeats" && i + 1 < args.size()) {
            repeats = std::max(2, std::stoi(args[++i]));
        } else {
            std::fprintf(stderr, "tapas bench edit: unknown option '%s' (options: --layers 12,96 --repeats N)\n", args[i].c_str());
            return 2;
        }
    }
    std::printf("%-8s %7s %9s %11s %12s %12s %12s %14s %9s\n", "model", "nodes", "changed", "collectives", "edit med ms",
                "edit max ms", "undo med ms", "scratch med ms", "scratch/edit");
    double edit96 = -1;
    for (int64_t l : layers) {
        ZooOptions o;
        o.layers = l;
        o.hidden = 12288;
        o.heads = 96;
        o.seq = 2048;
        o.batch = 8;
        Result<Graph> g = zooGraph("gpt", o);
        if (!g) {
            std::fprintf(stderr, "tapas bench edit: gpt-%lld: %s\n", (long long)l, g.error().c_str());
            return 1;
        }
        Result<FoldedGraph> folded = foldGraph(*g);
        if (!folded) {
            std::fprintf(stderr, "tapas bench edit: gpt-%lld: %s\n", (long long)l, folded.error().c_str());
            return 1;
        }
        SearchRequest r;
        r.graph = &*g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        Result<SearchResult> searched = findSearcher("tapas")->search(r);
        if (!searched) {
            std::fprintf(stderr, "tapas bench edit: gpt-%lld: %s\n", (long long)l, searched.error().c_str());
            return 1;
        }
        const CostModel model(*g, r.cluster, r.mesh);
        PlanEditor editor(*g, &*folded, model, searched->best.plan);
        const TensorId w = g->findTensor("transformer.h.0.mlp.c_fc.weight");
        if (w == kNoTensor) {
            std::fprintf(stderr, "tapas bench edit: gpt-%lld has no MLP weight 'transformer.h.0.mlp.c_fc.weight'\n", (long long)l);
            return 1;
        }
        // Alternate between the weight's current layout and another one its rule allows, so
        // every timed call is a real change of every instance.
        const NodeId consumer = g->tensor(w).consumers.front();
        const TensorLayout original = editor.plan().nodes[size_t(consumer)].inputs[1];
        TensorLayout other = original;
        for (const OpStrategy& s : editor.allowedStrategies(consumer))
            if (s.inputs[1] != original && s.inputs[1].kind == TensorLayout::S) other = s.inputs[1];
        std::vector<double> edits, undos, scratch;
        size_t changed = 0;
        for (int i = 0; i < repeats; ++i) {
            auto t0 = std::chrono::steady_clock::now();
            Result<PlanChange> c = editor.setWeightLayout(w, other, true);
            edits.push_back(secondsSince(t0));
            if (!c || c->after.empty()) {
                std::fprintf(stderr, "tapas bench edit: gpt-%lld: override refused or empty: %s\n", (long long)l,
                             c ? "no node changed" : c.error().c_str());
                return 1;
            }
            changed = c->after.size();
            t0 = std::chrono::steady_clock::now();
            Result<PlanChange> u = editor.apply(c->before);
            undos.push_back(secondsSince(t0));
            if (!u) {
                std::fprintf(stderr, "tapas bench edit: gpt-%lld: undo refused: %s\n", (long long)l, u.error().c_str());
                return 1;
            }
            t0 = std::chrono::steady_clock::now();
            ShardingPlan p = editor.plan();
            placeCollectives(*g, p);
            const CostReport full = evaluatePlan(p, model, &*folded);
            scratch.push_back(secondsSince(t0));
            if (full.total.time() != editor.report().total.time()) {
                std::fprintf(stderr, "tapas bench edit: gpt-%lld: incremental report differs from scratch\n", (long long)l);
                return 1;
            }
        }
        const double e = median(edits);
        std::printf("gpt-%-4lld %7zu %9zu %11zu %12.2f %12.2f %12.2f %14.2f %8.1fx\n", (long long)l, g->nodes.size(), changed,
                    editor.plan().reshards.size(), e * 1e3, *std::max_element(edits.begin(), edits.end()) * 1e3,
                    median(undos) * 1e3, median(scratch) * 1e3, median(scratch) / e);
        std::fflush(stdout);
        if (l == 96) edit96 = e;
    }
    if (edit96 >= 0)
        std::printf("\n96-layer override of every instance + re-cost: %.2f ms median (target < 100 ms)\n", edit96 * 1e3);
    return 0;
}

} // namespace

BenchInfo editBenchmark() { return {"edit", "plan override of one MLP weight in every layer + re-cost, GPT 12/96 layers", run}; }

} // namespace tapas::bench
