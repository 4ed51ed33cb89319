// `tapas bench search`: search time of TAPAS and of the same search unfolded, measured side by
// side in one run, with their ratio and each plan's predicted step time, on zoo GPT (GPT-3's
// hidden size, 12..192 layers) plus T5, ViT, ResNet-50 and an MoE model, on 8 and 32 devices.
// The ILP (CBC) runs with a time limit on graphs up to --ilp-max-nodes; "limit" marks a run
// stopped by its time limit (its time is then a lower bound), "-" one not attempted.
#include "tests/bench/bench.h"

#include "core/search/searcher.h"
#include "core/zoo/zoo.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

struct Case {
    std::string label;
    std::string model;
    ZooOptions options;
};

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

// Best of `repeats` wall times of one searcher, and its last result.
bool timeSearch(const Searcher& s, const SearchRequest& r, int repeats, double& seconds, SearchResult& out, std::string& error)
{
    seconds = 1e300;
    for (int i = 0; i < repeats; ++i) {
        Result<SearchResult> res = s.search(r);
        if (!res) {
            error = res.error();
            return false;
        }
        seconds = std::min(seconds, res->searchSeconds);
        out = std::move(res).value();
    }
    return true;
}

int run(const std::vector<std::string>& args)
{
    std::vector<int64_t> layers = {12, 24, 48, 96, 192};
    std::vector<int64_t> devices = {8, 32};
    int repeats = 3;
    bool unfolded = true;
    int64_t hidden = 12288, heads = 96;
    double ilpLimit = 10;
    size_t ilpMaxNodes = 2000;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--layers" && i + 1 < args.size()) layers = parseList(args[++i]);
        else if (args[i] == "--devices" && i + 1 < args.size()) devices = parseList(args[++i]);
        else if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::stoi(args[++i]));
        else if (args[i] == "--hidden" && i + 1 < args.size()) hidden = std::stoll(args[++i]);
        else if (args[i] == "--heads" && i + 1 < args.size()) heads = std::stoll(args[++i]);
        else if (args[i] == "--no-unfolded") unfolded = false;
        else if (args[i] == "--ilp-time-limit" && i + 1 < args.size()) ilpLimit = std::stod(args[++i]);
        else if (args[i] == "--ilp-max-nodes" && i + 1 < args.size()) ilpMaxNodes = size_t(std::stoll(args[++i]));
        else {
            std::fprintf(stderr, "tapas bench search: unknown option '%s' (options: --layers 12,24,... --devices 8,32 "
                                 "--repeats N --hidden H --heads A --no-unfolded --ilp-time-limit S --ilp-max-nodes N)\n", args[i].c_str());
            return 2;
        }
    }
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

    std::printf("%-10s %4s %6s %7s %12s %12s %9s %24s %12s %12s %10s %5s\n", "model", "dev", "mesh", "nodes", "tapas (ms)",
                "unfold (ms)", "unf/tapas", "ilp ms (step)", "tapas step", "megatron", "dp step", "fits");
    double gpt12 = 0, gpt96 = 0;
    for (const Case& c : cases) {
        Result<Graph> g = zooGraph(c.model, c.options);
        if (!g) {
            std::fprintf(stderr, "tapas bench search: %s: %s\n", c.label.c_str(), g.error().c_str());
            return 1;
        }
        for (int64_t d : devices) {
            SearchRequest r;
            r.graph = &*g;
            r.cluster = *loadClusterSpec(d == 8 ? "a100x8" : d == 16 ? "h100x16" : "v100x32");
            r.mesh = {int(d / 8), 8};
            double tT = 0, tU = 0, tM = 0, tD = 0;
            SearchResult tapas, unf, meg, dp;
            std::string err;
            if (!timeSearch(*findSearcher("tapas"), r, repeats, tT, tapas, err) ||
                !timeSearch(*findSearcher("megatron"), r, 1, tM, meg, err) ||
                !timeSearch(*findSearcher("dp"), r, 1, tD, dp, err) ||
                (unfolded && !timeSearch(*findSearcher("unfolded"), r, 1, tU, unf, err))) {
                std::fprintf(stderr, "tapas bench search: %s on %lld devices: %s\n", c.label.c_str(), (long long)d, err.c_str());
                return 1;
            }
            char unfCol[32] = "-", ratio[32] = "-", ilpCol[48] = "-";
            if (g->nodes.size() <= ilpMaxNodes) {
                SearchRequest ir = r;
                ir.ilpTimeLimit = ilpLimit;
                Result<SearchResult> ilp = findSearcher("ilp")->search(ir);
                if (ilp)
                    std::snprintf(ilpCol, sizeof ilpCol, "%.0f%s (%.1fms)", ilp->searchSeconds * 1e3, ilp->optimal ? "" : " limit",
                                  ilp->best.report.total.time() * 1e3);
                else
                    std::snprintf(ilpCol, sizeof ilpCol, "%s", ilp.error().find("no MILP") != std::string::npos ? "not built"
                                  : ilp.error().find("fits") != std::string::npos ? "no fit" : "failed");
            }
            if (unfolded) {
                std::snprintf(unfCol, sizeof unfCol, "%.1f", tU * 1e3);
                std::snprintf(ratio, sizeof ratio, "%.1fx", tU / tT);
            }
            // "fits" is the TAPAS plan's memory against the device; when nothing fits, every
            // searcher reports its leanest plan and the step times compare those.
            std::printf("%-10s %4lld %6s %7zu %12.1f %12s %9s %24s %10.1fms %10.1fms %8.1fms %5s\n", c.label.c_str(),
                        (long long)d, r.mesh.toString().c_str(), g->nodes.size(), tT * 1e3, unfCol, ratio, ilpCol,
                        tapas.best.report.total.time() * 1e3, meg.best.report.total.time() * 1e3,
                        dp.best.report.total.time() * 1e3, tapas.feasible ? "yes" : "no");
            std::fflush(stdout);
            if (d == devices.front() && c.label == "gpt-12") gpt12 = tT;
            if (d == devices.front() && c.label == "gpt-96") gpt96 = tT;
        }
    }
    if (gpt12 > 0 && gpt96 > 0)
        std::printf("\nTAPAS search time 96 layers / 12 layers: %.2fx (target < 2x); 96-layer search %.3f s (target < 1 s)\n",
                    gpt96 / gpt12, gpt96);
    return 0;
}

} // namespace

BenchInfo searchBenchmark() { return {"search", "sharding search time: TAPAS vs unfolded (vs ILP), GPT 12-192 layers and more", run}; }

} // namespace tapas::bench
