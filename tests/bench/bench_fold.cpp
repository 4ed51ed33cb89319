// `tapas bench fold`: fold time of zoo GPT at 12, 24, 48, 96 and 192 layers, each in its own
// process, with the time per node and the ratio to 12 layers (folding should grow about
// linearly with the node count).
#include "tests/bench/bench.h"
#include "tests/bench/bench_measure.h"

#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/zoo/zoo.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of this thread: folding is single-threaded, and on a shared machine the wall clock
// also counts the time other processes held the core.
double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int run(const std::vector<std::string>& args)
{
    int repeats = 5;
    std::vector<int64_t> layers = {12, 24, 48, 96, 192};
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--repeats" && i + 1 < args.size()) {
            repeats = std::max(1, std::stoi(args[++i]));
        } else if (args[i] == "--layers" && i + 1 < args.size()) {
            layers.clear();
            std::string list = args[++i];
            for (size_t at = 0; at < list.size();) {
                const size_t comma = std::min(list.find(',', at), list.size());
                layers.push_back(std::stoll(list.substr(at, comma - at)));
                at = comma + 1;
            }
        } else {
            std::fprintf(stderr, "tapas bench fold: unknown option '%s' (options: --repeats N, --layers 12,24,...)\n",
                         args[i].c_str());
            return 2;
        }
    }
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("tapas-bench-fold-" + std::to_string(::getpid()));
    fs::create_directories(dir);

    std::printf("Fold benchmark: zoo GPT (hidden 768), fold time best of %d, each size in its own process\n", repeats);
    std::printf("(fold = CPU time of the folding thread; wall = elapsed, which includes waiting for a busy core)\n\n");
    std::printf("%7s %8s %10s %10s %10s %14s %9s %14s %10s\n", "layers", "nodes", "import", "fold", "wall",
                "fold per node", "classes", "largest class", "ratio");
    double base = 0;
    int failures = 0;
    for (int64_t n : layers) {
        ZooOptions o;
        o.layers = n;
        const std::string path = (dir / ("gpt" + std::to_string(n) + ".onnx")).string();
        if (const Status s = writeZooModel("gpt", o, path); !s) {
            std::printf("%7lld failed: %s\n", static_cast<long long>(n), s.error.c_str());
            ++failures;
            continue;
        }
        const Measurement m = measureInChild(
            [&](std::string& detail) -> std::string {
                auto t0 = std::chrono::steady_clock::now();
                Result<Graph> g = importOnnxFile(path);
                if (!g) return g.error();
                const double importSeconds = secondsSince(t0);
                double best = 1e30, bestWall = 1e30;
                size_t classes = 0, largest = 0;
                for (int r = 0; r < repeats; ++r) {
                    t0 = std::chrono::steady_clock::now();
                    const double c0 = threadCpuSeconds();
                    Result<FoldedGraph> fg = foldGraph(*g);
                    best = std::min(best, threadCpuSeconds() - c0);
                    bestWall = std::min(bestWall, secondsSince(t0));
                    if (!fg) return fg.error();
                    classes = fg->classes.size();
                    largest = 0;
                    for (const BlockClass& c : fg->classes) largest = std::max(largest, c.instances.size());
                }
                char buf[160];
                std::snprintf(buf, sizeof buf, "%zu %.6f %.6f %.6f %zu %zu", g->nodes.size(), importSeconds, best,
                              bestWall, classes, largest);
                detail = buf;
                return {};
            },
            1);
        if (!m.ok) {
            std::printf("%7lld failed: %s\n", static_cast<long long>(n), m.error.c_str());
            ++failures;
            continue;
        }
        size_t nodes = 0, classes = 0, largest = 0;
        double importSeconds = 0, foldSeconds = 0, wallSeconds = 0;
        if (std::sscanf(m.detail.c_str(), "%zu %lf %lf %lf %zu %zu", &nodes, &importSeconds, &foldSeconds,
                        &wallSeconds, &classes, &largest) != 6) {
            std::printf("%7lld failed: unreadable measurement '%s'\n", static_cast<long long>(n), m.detail.c_str());
            ++failures;
            continue;
        }
        if (base == 0) base = foldSeconds;
        std::printf("%7lld %8zu %8.3f s %8.4f s %8.4f s %11.2f us %9zu %13zux %9.2fx\n", static_cast<long long>(n),
                    nodes, importSeconds, foldSeconds, wallSeconds, foldSeconds / double(nodes) * 1e6, classes,
                    largest, foldSeconds / base);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return failures ? 1 : 0;
}

} // namespace

BenchInfo foldBenchmark()
{
    return {"fold", "fold time for zoo GPT at 12, 24, 48, 96 and 192 layers (linear in nodes?)", run};
}

} // namespace tapas::bench
