#pragma once
// Benchmarks print one table each, with ratios measured side by side in the same run.
#include <string>
#include <vector>

namespace tapas::bench {

struct BenchInfo {
    const char* name;
    const char* summary;
    int (*run)(const std::vector<std::string>& args);
};

const std::vector<BenchInfo>& benchmarks();
BenchInfo importBenchmark(); // bench_import.cpp
BenchInfo foldBenchmark();   // bench_fold.cpp
BenchInfo searchBenchmark(); // bench_search.cpp
BenchInfo launchRunBenchmark(); // bench_run.cpp: `tapas bench run`
BenchInfo editBenchmark();   // bench_edit.cpp
BenchInfo ganBenchmark();    // bench_gan.cpp
// Runs benchmark `name` with its arguments; prints usage and returns 2 for an unknown name.
int runBenchmark(const std::string& name, const std::vector<std::string>& args);

} // namespace tapas::bench
