#pragma once
// Measuring one case in a forked child, so each case's peak memory is its own and one case's
// heap does not flatter the next one's time.
#include "core/util/cpu_clock.h" // threadCpuSeconds: what a search costs on a shared machine

#include <functional>
#include <string>

namespace tapas::bench {

struct Measurement {
    bool ok = false;
    std::string error;
    double seconds = 0;        // wall time of the measured function (best of `repeats`)
    double peakRssMiB = 0;     // peak resident set of the child while measuring
    double baselineRssMiB = 0; // resident set just before the first run
    std::string detail;        // what the function chose to report (e.g. "523 nodes")
};

// Runs `fn` `repeats` times in a child process; `fn` returns "" on success or an error,
// and may write a short detail string.
Measurement measureInChild(const std::function<std::string(std::string& detail)>& fn, int repeats);

} // namespace tapas::bench
