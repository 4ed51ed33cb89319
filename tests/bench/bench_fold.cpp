// `tapas bench fold`: fold time against the node count, each case in its own process, in two
// series measured side by side: a plain chain of Relu nodes (12.5k to 200k nodes) and zoo GPT
// (hidden 768) at 12 to 1,536 layers (about 190k nodes). Per row: the time per node and the
// time and node ratios to the series' first row (linear folding keeps them close: 8x the nodes
// should cost at most 9x the time). `--corpus DIR` instead folds every model of a corpus
// manifest and prints the README's corpus table.
#include "tests/bench/bench.h"
#include "tests/bench/bench_measure.h"

#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/zoo/zoo.h"
#include "tests/common/chain_graph.h"

#include <nlohmann/json.hpp>

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

double wallSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Row {
    std::string series;
    std::string label;
    std::function<Result<Graph>()> make;
};

struct Figures {
    size_t nodes = 0, classes = 0, largest = 0;
    double fold = 0, wall = 0;
    double coverage = 0;
    std::string repeats; // instance counts of the fold tree's outer repeats, "2,3,5,2"
};

bool measure(const Row& row, int repeats, Figures& f, std::string& error)
{
    const Measurement m = measureInChild(
        [&](std::string& detail) -> std::string {
            Result<Graph> g = row.make();
            if (!g) return g.error();
            double best = 1e30, bestWall = 1e30;
            size_t classes = 0, largest = 0;
            double coverage = 0;
            std::string outer;
            for (int r = 0; r < repeats; ++r) {
                const double w0 = wallSeconds(), c0 = threadCpuSeconds();
                Result<FoldedGraph> fg = foldGraph(*g);
                best = std::min(best, threadCpuSeconds() - c0);
                bestWall = std::min(bestWall, wallSeconds() - w0);
                if (!fg) return fg.error();
                classes = fg->classes.size();
                coverage = fg->coverage;
                std::vector<int> counts;
                for (int c : fg->tree.outerRepeats()) counts.push_back(int(fg->tree.classes[size_t(c)].instances.size()));
                std::sort(counts.begin(), counts.end());
                outer.clear();
                for (int c : counts) outer += (outer.empty() ? "" : ",") + std::to_string(c);
                largest = 0;
                for (const BlockClass& c : fg->classes) largest = std::max(largest, c.instances.size());
            }
            char buf[200];
            std::snprintf(buf, sizeof buf, "%zu %.6f %.6f %zu %zu %.6f ", g->nodes.size(), best, bestWall, classes, largest,
                          coverage);
            detail = buf + (outer.empty() ? std::string("-") : outer);
            return {};
        },
        1);
    if (!m.ok) {
        error = m.error;
        return false;
    }
    char outer[256] = {0};
    if (std::sscanf(m.detail.c_str(), "%zu %lf %lf %zu %zu %lf %255s", &f.nodes, &f.fold, &f.wall, &f.classes, &f.largest,
                    &f.coverage, outer) != 7) {
        error = "unreadable measurement '" + m.detail + "'";
        return false;
    }
    f.repeats = std::string(outer) == "-" ? "" : outer;
    return true;
}

std::vector<int64_t> parseList(const std::string& list)
{
    std::vector<int64_t> out;
    for (size_t at = 0; at < list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        out.push_back(std::stoll(list.substr(at, comma - at)));
        at = comma + 1;
    }
    return out;
}

int runScaling(int repeats, const std::vector<int64_t>& chains, const std::vector<int64_t>& layers)
{
    std::vector<Row> rows;
    for (int64_t n : chains)
        rows.push_back({"relu chain", std::to_string(n), [n] { return Result<Graph>(testing::reluChain(n)); }});
    for (int64_t n : layers) {
        rows.push_back({"zoo gpt", std::to_string(n) + " layers", [n] {
                            ZooOptions o;
                            o.layers = n;
                            return zooGraph("gpt", o);
                        }});
    }
    std::printf("Fold benchmark: fold time best of %d, each case in its own process\n", repeats);
    std::printf("(fold = CPU time of the folding thread; wall = elapsed, which includes waiting for a busy core;\n"
                " x nodes / x time = ratios to the first row of the series)\n\n");
    std::printf("%-11s %-12s %8s %10s %10s %12s %8s %10s %9s %9s\n", "series", "size", "nodes", "fold", "wall",
                "per node", "classes", "largest", "x nodes", "x time");
    int failures = 0;
    std::string series;
    Figures base;
    for (const Row& row : rows) {
        Figures f;
        std::string error;
        if (!measure(row, repeats, f, error)) {
            std::printf("%-11s %-12s failed: %s\n", row.series.c_str(), row.label.c_str(), error.c_str());
            ++failures;
            continue;
        }
        if (row.series != series) {
            series = row.series;
            base = f;
        }
        std::printf("%-11s %-12s %8zu %8.4f s %8.4f s %9.2f us %8zu %9zux %8.2fx %8.2fx\n", row.series.c_str(),
                    row.label.c_str(), f.nodes, f.fold, f.wall, f.fold / double(std::max<size_t>(f.nodes, 1)) * 1e6,
                    f.classes, f.largest, double(f.nodes) / double(std::max<size_t>(base.nodes, 1)),
                    f.fold / std::max(base.fold, 1e-9));
    }
    return failures ? 1 : 0;
}

int runCorpus(const std::string& dir, int repeats)
{
    std::ifstream in(dir + "/manifest.json");
    if (!in) {
        std::fprintf(stderr, "tapas bench fold: cannot read %s/manifest.json\n", dir.c_str());
        return 2;
    }
    const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, false);
    if (manifest.is_discarded() || !manifest.contains("models")) {
        std::fprintf(stderr, "tapas bench fold: %s/manifest.json is not a corpus manifest\n", dir.c_str());
        return 2;
    }
    // What a person expects, beside the corpus (tests/data/corpus_expected.json).
    nlohmann::json expected;
    if (std::ifstream e(dir + "/../corpus_expected.json"); e) expected = nlohmann::json::parse(e, nullptr, false);
    std::printf("| model | producer | nodes | expected repeats | found repeats | coverage | fold time |\n"
                "|---|---|---:|---|---|---:|---:|\n");
    int failures = 0;
    for (const nlohmann::json& m : manifest["models"]) {
        const std::string file = m.value("file", "");
        const std::string path = dir + "/" + file;
        Figures f;
        std::string error;
        if (!measure({"corpus", file, [path] { return importOnnxFile(path); }}, repeats, f, error)) {
            std::printf("| %s | failed: %s |\n", file.c_str(), error.c_str());
            ++failures;
            continue;
        }
        std::string want = "?";
        if (expected.is_object() && expected["models"].contains(file)) {
            std::vector<int> counts = expected["models"][file]["repeats"].get<std::vector<int>>();
            std::sort(counts.begin(), counts.end());
            want.clear();
            for (int c : counts) want += (want.empty() ? "" : ",") + std::to_string(c);
        }
        std::printf("| %s | %s %s | %zu | %s | %s%s | %.1f%% | %.1f ms |\n", file.c_str(), m.value("producer", "").c_str(),
                    m.value("producer_version", "").c_str(), f.nodes, want.empty() ? "none" : want.c_str(),
                    f.repeats.empty() ? "none" : f.repeats.c_str(), f.repeats == want ? "" : " ✗", f.coverage * 100.0,
                    f.fold * 1e3);
    }
    return failures ? 1 : 0;
}

int run(const std::vector<std::string>& args)
{
    int repeats = 3;
    std::vector<int64_t> layers = {12, 24, 48, 96, 192, 1536};
    std::vector<int64_t> chains = {12500, 25000, 50000, 100000, 200000};
    std::string corpus;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::stoi(args[++i]));
        else if (args[i] == "--layers" && i + 1 < args.size()) layers = parseList(args[++i]);
        else if (args[i] == "--chain" && i + 1 < args.size()) chains = parseList(args[++i]);
        else if (args[i] == "--corpus" && i + 1 < args.size()) corpus = args[++i];
        else {
            std::fprintf(stderr,
                         "tapas bench fold: unknown option '%s' (options: --repeats N, --layers 12,24,..., "
                         "--chain 12500,25000,..., --corpus DIR)\n",
                         args[i].c_str());
            return 2;
        }
    }
    return corpus.empty() ? runScaling(repeats, chains, layers) : runCorpus(corpus, repeats);
}

} // namespace

BenchInfo foldBenchmark()
{
    return {"fold", "fold time against nodes: Relu chains to 200k nodes, zoo GPT to 1,536 layers; --corpus DIR", run};
}

} // namespace tapas::bench
