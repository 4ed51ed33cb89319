#include "runtime/comm/comm_check_options.h"

#include "runtime/worker_options.h"

namespace tapas::runtime {

std::optional<std::string> parseCommCheckArgs(int argc, char** argv, CommCheckOptions* o)
{
    WorkerOptions opts;
    opts.choice("--backend", &o->backend, {"mpi", "nccl"})
        .integer<size_t>("--count", &o->count, 1)
        .integer<size_t>("--max-count", &o->maxCount, 1)
        .integer("--iters", &o->iters, 1, 100000);
    if (Status s = opts.parse(argc, argv, 2); !s) return s.error;
    return std::nullopt;
}

} // namespace tapas::runtime
