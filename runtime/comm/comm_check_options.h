#pragma once
// The options of `tapas-worker comm-check` and their parsing (see comm_check.h for the command).
#include <cstddef>
#include <optional>
#include <string>

namespace tapas::runtime {

struct CommCheckOptions {
    std::string backend = "mpi";
    size_t count = 1031; // odd, so no collective gets away with aligned-only code paths
    size_t maxCount = 0; // 0: the backend's default
    int iters = 10;
};

// argv[2..] (argv[1] is "comm-check"); the error message for a bad option, none when all parsed.
std::optional<std::string> parseCommCheckArgs(int argc, char** argv, CommCheckOptions* o);

} // namespace tapas::runtime
