#include "app/cli/cli_commands.h"

#include "tests/bench/bench.h"

#include <cstdio>

namespace tapas::cli {

int runBenchCommand(const QStringList& args)
{
    if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h")) {
        std::fprintf(args.size() < 2 ? stderr : stdout, "usage: tapas bench <benchmark> [options]\n\nbenchmarks:\n");
        for (const bench::BenchInfo& b : bench::benchmarks())
            std::fprintf(args.size() < 2 ? stderr : stdout, "  %-8s %s\n", b.name, b.summary);
        return args.size() < 2 ? 2 : 0;
    }
    std::vector<std::string> rest;
    for (qsizetype i = 2; i < args.size(); ++i) rest.push_back(args[i].toStdString());
    return bench::runBenchmark(args[1].toStdString(), rest);
}

} // namespace tapas::cli
