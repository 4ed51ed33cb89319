// `tapas bench import`: import time and peak memory for zoo GPT at 12, 48 and 96 layers, the
// GPT-3 175B configuration, and real exported models, each measured in its own process.
#include "tests/bench/bench.h"
#include "tests/bench/bench_measure.h"
#include "tests/bench/bench_models.h"

#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"
#include "core/zoo/zoo.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

struct Case {
    std::string label;
    std::string path;
};

std::string makeZooFile(const std::filesystem::path& dir, const std::string& label, int64_t layers,
                        int64_t hidden, int64_t heads, int64_t seq)
{
    ZooOptions o;
    o.layers = layers;
    o.hidden = hidden;
    o.heads = heads;
    o.seq = seq;
    const std::string path = (dir / (label + ".onnx")).string();
    const Status s = writeZooModel("gpt", o, path);
    if (!s) {
        std::fprintf(stderr, "tapas bench import: %s\n", s.error.c_str());
        return {};
    }
    return path;
}

int run(const std::vector<std::string>& args)
{
    int repeats = 3;
    std::string modelsOption;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--repeats" && i + 1 < args.size()) repeats = std::max(1, std::stoi(args[++i]));
        else if (args[i] == "--models" && i + 1 < args.size()) modelsOption = args[++i];
        else {
            std::fprintf(stderr, "tapas bench import: unknown option '%s' (options: --repeats N, --models DIR)\n",
                         args[i].c_str());
            return 2;
        }
    }
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("tapas-bench-import-" + std::to_string(::getpid()));
    fs::create_directories(dir);

    std::vector<Case> cases = {
        {"zoo gpt 12L h768", makeZooFile(dir, "gpt12", 12, 768, 12, 1024)},
        {"zoo gpt 48L h768", makeZooFile(dir, "gpt48", 48, 768, 12, 1024)},
        {"zoo gpt 96L h768", makeZooFile(dir, "gpt96", 96, 768, 12, 1024)},
        {"zoo gpt-3 175B 96L h12288", makeZooFile(dir, "gpt175b", 96, 12288, 96, 2048)},
    };
    // A real model that cannot be found is a failed row, said with where it was looked for.
    int failures = 0;
    const Result<std::string> modelsDir = findModelsDir(modelsOption, currentExecutable());
    if (!modelsDir) {
        std::fprintf(stderr, "tapas bench import: %s\n", modelsDir.error().c_str());
        ++failures;
    }
    for (const char* real : {"bert_mini_4l.onnx", "resnet18.onnx"}) {
        if (!modelsDir) break;
        const fs::path p = fs::path(*modelsDir) / real;
        if (fs::exists(p)) {
            cases.push_back({std::string("real ") + real, p.string()});
        } else {
            std::fprintf(stderr, "tapas bench import: %s not found\n", p.string().c_str());
            ++failures;
        }
    }

    std::printf("Import benchmark: best of %d runs, each model in its own process\n", repeats);
    std::printf("(peak RSS = the process's high-water mark while importing, including the program itself)\n\n");
    std::printf("%-28s %8s %10s %10s %11s %13s %11s\n", "model", "nodes", "params", "file", "import", "peak RSS",
                "time ratio");
    double baseTime = 0;
    for (const Case& c : cases) {
        if (c.path.empty()) { ++failures; continue; }
        std::error_code ec;
        const double fileMiB = double(fs::file_size(c.path, ec)) / (1024.0 * 1024.0);
        const Measurement m = measureInChild(
            [&](std::string& detail) -> std::string {
                Result<Graph> g = importOnnxFile(c.path);
                if (!g) return g.error();
                detail = std::to_string(g->nodes.size()) + " " + humanCount(double(g->parameterCount()));
                return {};
            },
            repeats);
        if (!m.ok) {
            std::printf("%-28s failed: %s\n", c.label.c_str(), m.error.c_str());
            ++failures;
            continue;
        }
        if (baseTime == 0) baseTime = m.seconds;
        const size_t sp = m.detail.find(' ');
        std::printf("%-28s %8s %10s %7.2f MB %9.3f s %9.1f MiB %10.2fx\n", c.label.c_str(),
                    m.detail.substr(0, sp).c_str(), m.detail.substr(sp + 1).c_str(), fileMiB, m.seconds,
                    m.peakRssMiB, m.seconds / baseTime);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return failures ? 1 : 0;
}

} // namespace

BenchInfo importBenchmark()
{
    return {"import", "ONNX import time and peak memory (zoo GPT 12/48/96 layers, GPT-3 175B, real models)", run};
}

} // namespace tapas::bench
