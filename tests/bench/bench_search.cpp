// `tapas bench search`: search time of TAPAS, of the same search unfolded and of the exact ILP,
// measured side by side in one run, with their ratios and each plan's predicted step time, on
// zoo GPT (GPT-3's hidden size, 12..192 layers) plus T5, ViT, ResNet-50 and an MoE model, on 8
// and 32 devices.
//
// What is timed: the CPU time of this thread (one core) for one whole Searcher::search call,
// exactly what `tapas search` runs per mesh: request validation, for TAPAS the fold, the class
// tables, the stitch, building the best plan and its runner-ups and their cost reports. CPU
// time, not wall time, because the machine is shared and wall time measures the other jobs.
// The memory limit is lifted (a 175B model fits nowhere on 8 or 32 devices), so every searcher
// solves the same problem and the ILP is feasible; each plan's memory per device is shown.
// The ILP runs under a time limit that covers model building; a run stopped by it is marked
// "limit" and its time (and the ratio) is then a bound, not a measurement to completion.
#include "tests/bench/bench.h"
#include "tests/bench/bench_measure.h"
#include "tests/bench/bench_megatron.h"

#include "core/cost/gpu_roofline.h"
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "tests/common/chain_graph.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

struct Case {
    std::string label;
    std::string model;
    ZooOptions options;
    std::string file = {}; // a real export instead of a zoo model: imported re-batched to 8 samples
};

// The row of corpus file `name` ("resnet50.onnx") in `dir`: labelled by its name, no zoo model.
Case corpusCase(const std::string& name, const std::string& dir)
{
    Case c;
    c.label = name.substr(0, name.size() - 5);
    c.file = dir + "/" + name;
    return c;
}

// Real exports of the corpus whose only open dim is the batch (torchvision, fixed batch 1):
// re-batched to 8 samples, as `tapas search --batch 8` does.
const char* const kCorpusRows[] = {"resnet50.onnx", "vit_b_16.onnx", "swin_t.onnx", "convnext_tiny.onnx"};

std::vector<int64_t> parseList(const std::string& s)
{
    std::vector<int64_t> v;
    for (size_t at = 0; at < s.size();) {
        const size_t comma = std::min(s.find(',', at), s.size());
        v.push_back(std::stoll(s.substr(at, comma - at)));
        at = comma + 1;
    }
    return v;
}

struct Timed {
    bool ok = false;
    std::string error;
    double cpu = 0;  // best CPU seconds over the repeats
    double wall = 0; // the searcher's own wall clock on that run
    SearchResult result;
};

Timed timeSearch(const Searcher& s, const SearchRequest& r, int repeats)
{
    Timed t;
    t.cpu = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const double start = threadCpuSeconds();
        Result<SearchResult> res = s.search(r);
        const double cpu = threadCpuSeconds() - start;
        if (!res) {
            t.ok = false;
            t.error = res.error();
            t.cpu = cpu;
            return t;
        }
        if (cpu < t.cpu) {
            t.cpu = cpu;
            t.wall = res->searchSeconds;
        }
        t.ok = true;
        t.result = std::move(res).value();
    }
    return t;
}

// The fold alone, timed the same way (best of `repeats`): the part of TAPAS's time that is linear
// in the graph's size, whatever the number of unique blocks.
double timeFold(const Graph& g, int repeats)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const double start = threadCpuSeconds();
        const Result<FoldedGraph> f = foldGraph(g);
        best = std::min(best, threadCpuSeconds() - start);
        if (!f) break;
    }
    return best;
}

// The request every row and the depth ratio use: the cluster preset of that size, 8-way tensor
// parallelism inside a node, and no memory limit (so that every searcher solves the same problem).
SearchRequest benchRequest(const Graph& g, int64_t devices, double ilpLimit)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = *loadClusterSpec(devices == 8 ? "a100x8" : devices == 16 ? "h100x16" : "v100x32");
    r.mesh = {int(devices / 8), 8};
    r.memoryLimit = 1e18;
    r.ilpTimeLimit = ilpLimit;
    return r;
}

std::string ms(double s)
{
    char b[32];
    std::snprintf(b, sizeof b, s < 0.1 ? "%.1f" : "%.0f", s * 1e3);
    return b;
}

// `--chain 25000,50000,...`: TAPAS on Relu chains of those lengths (8 devices, mesh 1x8), on a
// [1, 16] tensor (the fold benchmark's chain) and on [8, 1024] (splittable along both mesh axes,
// so every node has several strategies), with the time per node and the ratios to the first row
// of each series: superlinear growth shows as a rising time per node.
int runChains(const std::vector<int64_t>& chains, int repeats)
{
    std::printf("TAPAS search time on Relu chains = CPU time of one core for the whole Searcher::search call, best of %d; "
                "\"fold\": the fold alone (included); a100x8, mesh 1x8\n\n", repeats);
    std::printf("| tensor | nodes | TAPAS s | fold s | per node | x nodes | x time |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{1, 16}, std::vector<int64_t>{8, 1024}}) {
        double first = 0;
        for (int64_t n : chains) {
            const Graph g = testing::reluChain(n, dims);
            const SearchRequest r = benchRequest(g, 8, 0);
            const Timed t = timeSearch(*findSearcher("tapas"), r, repeats);
            if (!t.ok) {
                std::fprintf(stderr, "tapas bench search: chain of %lld: %s\n", (long long)n, t.error.c_str());
                return 1;
            }
            const double fold = timeFold(g, repeats);
            if (first == 0) first = t.cpu;
            std::printf("| [%lld, %lld] | %lld | %.3f | %.3f | %.2f us | %.2f | %.2f |\n", (long long)dims[0], (long long)dims[1],
                        (long long)n, t.cpu, fold, t.cpu / double(n) * 1e6, double(n) / double(chains.front()), t.cpu / first);
            std::fflush(stdout);
        }
    }
    return 0;
}

int run(const std::vector<std::string>& args)
{
    std::vector<int64_t> layers = {12, 24, 48, 96, 192};
    std::vector<int64_t> devices = {8, 32};
    int repeats = 3;
    bool unfolded = true, others = true;
    int64_t hidden = 12288, heads = 96;
    double ilpLimit = 10;
    size_t ilpMaxNodes = 1000000;
    std::vector<int64_t> chains;
    bool megatron = false;
    MegatronPricing pricing; // --roofline, --roofline-efficiency E, --flat-efficiency E: the Megatron table priced otherwise
    std::vector<std::string> megatronRows;
    std::string corpusDir;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--layers" && i + 1 < args.size()) layers = parseList(args[++i]);
        else if (args[i] == "--devices" && i + 1 < args.size()) devices = parseList(args[++i]);
        else if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::stoi(args[++i]));
        else if (args[i] == "--hidden" && i + 1 < args.size()) hidden = std::stoll(args[++i]);
        else if (args[i] == "--heads" && i + 1 < args.size()) heads = std::stoll(args[++i]);
        else if (args[i] == "--no-unfolded") unfolded = false;
        else if (args[i] == "--gpt-only") others = false;
        else if (args[i] == "--ilp-time-limit" && i + 1 < args.size()) ilpLimit = std::stod(args[++i]);
        else if (args[i] == "--ilp-max-nodes" && i + 1 < args.size()) ilpMaxNodes = size_t(std::stoll(args[++i]));
        else if (args[i] == "--chain" && i + 1 < args.size()) chains = parseList(args[++i]);
        else if (args[i] == "--megatron") megatron = true;
        else if (args[i] == "--roofline") pricing = {kA100MamfEfficiency, true, false};
        else if (args[i] == "--roofline-efficiency" && i + 1 < args.size()) pricing.efficiency = std::stod(args[++i]);
        else if (args[i] == "--flat-efficiency" && i + 1 < args.size()) pricing = {std::stod(args[++i]), false, true};
        else if (args[i] == "--corpus" && i + 1 < args.size()) corpusDir = args[++i];
        else if (args[i] == "--gpt3") return runGpt3Target();
        else if (args[i] == "--rows" && i + 1 < args.size()) {
            for (size_t at = 0; at < args[i + 1].size();) {
                const size_t comma = std::min(args[i + 1].find(',', at), args[i + 1].size());
                megatronRows.push_back(args[i + 1].substr(at, comma - at));
                at = comma + 1;
            }
            ++i;
        }
        else {
            std::fprintf(stderr, "tapas bench search: unknown option '%s' (options: --layers 12,24,... --devices 8,32 "
                                 "--repeats N --hidden H --heads A --no-unfolded --gpt-only --ilp-time-limit S "
                                 "--ilp-max-nodes N --chain 25000,50000,... --megatron [--rows 1.7B,145B,...] [--roofline | --roofline-efficiency E | --flat-efficiency E] --gpt3 --corpus DIR)\n", args[i].c_str());
            return 2;
        }
    }
    if (!chains.empty()) return runChains(chains, repeats);
    if (megatron) return runMegatronTable(megatronRows, pricing);
    std::vector<Case> cases;
    for (int64_t l : layers) {
        ZooOptions o;
        o.layers = l;
        o.hidden = hidden;
        o.heads = heads;
        o.seq = 2048;
        o.batch = 8;
        cases.push_back({"gpt-" + std::to_string(l), "gpt", o});
    }
    if (others) {
        ZooOptions t5;
        t5.seq = 512;
        t5.batch = 8;
        cases.push_back({"t5", "t5", t5});
        ZooOptions vision;
        vision.batch = 64;
        cases.push_back({"vit", "vit", vision});
        cases.push_back({"resnet50", "resnet50", vision});
        ZooOptions moe;
        moe.seq = 1024;
        moe.batch = 8;
        cases.push_back({"moe", "moe", moe});
    }
    if (!corpusDir.empty())
        for (const char* f : kCorpusRows) cases.push_back(corpusCase(f, corpusDir));

    std::printf("search time = CPU time of one core for the whole Searcher::search call (TAPAS: fold + class tables + "
                "stitch + plans and cost reports), best of %d for TAPAS and the unfolded search, 1 run for the ILP; "
                "\"fold\": the fold alone (included in TAPAS ms); \"tables\": class tables TAPAS built; no memory "
                "limit; ILP time limit %g s (model building included)\n\n", repeats, ilpLimit);
    std::printf("| model | dev | mesh | nodes | TAPAS ms | fold ms | tables | unfolded ms | unf/TAPAS | ILP ms | ILP/TAPAS | step TAPAS | step unfolded "
                "| step ILP | step Megatron | step DP | TAPAS mem/dev |\n");
    std::printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::optional<Graph> g12, g96; // kept for the depth ratio below
    std::vector<std::string> refusals; // rows a baseline cannot plan, with its reason
    for (const Case& c : cases) {
        Result<Graph> g = Result<Graph>::failure("no model");
        if (c.file.empty()) {
            g = zooGraph(c.model, c.options);
        } else {
            ImportOptions io;
            io.batch = 8;
            g = importOnnxFile(c.file, io);
        }
        if (!g) {
            std::fprintf(stderr, "tapas bench search: %s: %s\n", c.label.c_str(), g.error().c_str());
            return 1;
        }
        for (int64_t d : devices) {
            const SearchRequest r = benchRequest(*g, d, ilpLimit);
            const Timed tapas = timeSearch(*findSearcher("tapas"), r, repeats);
            const double fold = timeFold(*g, repeats);
            const Timed meg = timeSearch(*findSearcher("megatron"), r, 1);
            const Timed dp = timeSearch(*findSearcher("dp"), r, 1);
            if (!tapas.ok) {
                std::fprintf(stderr, "tapas bench search: %s on %lld devices: %s\n", c.label.c_str(), (long long)d, tapas.error.c_str());
                return 1;
            }
            // Megatron-LM's recipe refuses some models (heads that tp does not divide): n/a in
            // the table, the reason under it.
            if (!meg.ok) refusals.push_back(c.label + " on " + std::to_string(d) + " devices, Megatron: " + meg.error);
            std::string unfT = "-", unfRatio = "-", unfStep = "-", ilpT = "-", ilpRatio = "-", ilpStep = "-";
            if (unfolded) {
                const Timed u = timeSearch(*findSearcher("unfolded"), r, repeats);
                if (u.ok) {
                    unfT = ms(u.cpu);
                    char b[32];
                    std::snprintf(b, sizeof b, "%.0fx", u.cpu / tapas.cpu);
                    unfRatio = b;
                    unfStep = ms(u.result.best.report.total.time());
                } else {
                    unfT = "failed";
                }
            }
            if (g->nodes.size() <= ilpMaxNodes) {
                const Timed ilp = timeSearch(*findSearcher("ilp"), r, 1);
                const bool limitHit = ilp.ok ? ilp.result.timeLimitHit : ilp.error.find("time limit") != std::string::npos;
                char b[48];
                if (ilp.ok || limitHit) {
                    // A run stopped by the limit: its time is a lower bound, so is the ratio.
                    std::snprintf(b, sizeof b, "%s%s", limitHit ? ">=" : "", ms(ilp.cpu).c_str());
                    ilpT = b;
                    std::snprintf(b, sizeof b, "%s%.0fx", limitHit ? ">=" : "", ilp.cpu / tapas.cpu);
                    ilpRatio = b;
                    if (ilp.ok) ilpStep = ms(ilp.result.best.report.total.time()) + (ilp.result.optimal ? "" : " (not proven)");
                    else ilpStep = "limit, no plan";
                } else {
                    ilpT = ilp.error.find("no MILP") != std::string::npos ? "not built" : "failed";
                }
            }
            std::printf("| %s | %lld | %s | %zu | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f GB |\n", c.label.c_str(),
                        (long long)d, r.mesh.toString().c_str(), g->nodes.size(), ms(tapas.cpu).c_str(), ms(fold).c_str(),
                        tapas.result.uniqueBlocksSearched, unfT.c_str(),
                        unfRatio.c_str(), ilpT.c_str(), ilpRatio.c_str(), ms(tapas.result.best.report.total.time()).c_str(),
                        unfStep.c_str(), ilpStep.c_str(), meg.ok ? ms(meg.result.best.report.total.time()).c_str() : "n/a",
                        dp.ok ? ms(dp.result.best.report.total.time()).c_str() : "n/a",
                        tapas.result.best.report.total.memory() / 1e9);
            std::fflush(stdout);
        }
        if (c.label == "gpt-12") g12 = std::move(*g);
        if (c.label == "gpt-96") g96 = std::move(*g);
    }
    std::printf("\n(step times in ms, predicted by the cost model; \"limit\": the ILP hit its time limit)\n");
    for (const std::string& why : refusals) std::printf("n/a: %s\n", why.c_str());
    // The depth ratio on its own, 12 and 96 layers timed alternately so that both see the same
    // machine: on a shared VM the speed drifts within a run by more than the ratio being measured.
    if (!g12 || !g96) return runGpt3Target();
    const int pairs = std::max(repeats, 9);
    for (int64_t d : devices) {
        const SearchRequest r12 = benchRequest(*g12, d, ilpLimit), r96 = benchRequest(*g96, d, ilpLimit);
        double t12 = 1e300, t96 = 1e300, f12 = 1e300, f96 = 1e300;
        std::vector<double> ratios;
        for (int i = 0; i < pairs; ++i) {
            const double a = timeSearch(*findSearcher("tapas"), r12, 1).cpu;
            const double b = timeSearch(*findSearcher("tapas"), r96, 1).cpu;
            ratios.push_back(b / a);
            t12 = std::min(t12, a);
            t96 = std::min(t96, b);
            f12 = std::min(f12, timeFold(*g12, 1));
            f96 = std::min(f96, timeFold(*g96, 1));
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf("%lld devices: TAPAS 96 layers / 12 layers: %.2fx best vs best, %.2fx median of %d alternating pairs "
                    "(%.2f-%.2fx) (target < 2x; %.2fx without the fold); 96-layer GPT-3 search %.3f s on one core "
                    "(target < 1 s)\n",
                    (long long)d, t96 / t12, ratios[ratios.size() / 2], pairs, ratios.front(), ratios.back(),
                    (t96 - f96) / std::max(1e-9, t12 - f12), t96);
    }
    return runGpt3Target();
}

} // namespace

BenchInfo searchBenchmark() { return {"search", "sharding search time: TAPAS vs unfolded vs ILP, GPT 12-192 layers and more", run}; }

} // namespace tapas::bench
