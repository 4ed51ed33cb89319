#include "tests/bench/bench.h"

#include <cstdio>

namespace tapas::bench {

const std::vector<BenchInfo>& benchmarks()
{
    // One line per benchmark: adding one touches its own file and this list.
    static const std::vector<BenchInfo> list = {
        importBenchmark(),
        foldBenchmark(),
        searchBenchmark(),
        launchRunBenchmark(),
        editBenchmark(),
        ganBenchmark(),
    };
    return list;
}

int runBenchmark(const std::string& name, const std::vector<std::string>& args)
{
    for (const BenchInfo& b : benchmarks())
        if (name == b.name) return b.run(args);
    std::fprintf(stderr, "tapas bench: unknown benchmark '%s'\n\nbenchmarks:\n", name.c_str());
    for (const BenchInfo& b : benchmarks()) std::fprintf(stderr, "  %-8s %s\n", b.name, b.summary);
    return 2;
}

} // namespace tapas::bench
