#include "runtime/comm/comm_check_options.h"

#include <algorithm>
#include <cstdlib>

namespace tapas::runtime {

namespace {

bool parseSize(const char* text, size_t* out)
{
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (!*text || *end || text[0] == '-' || v == 0)
        return false;
    *out = size_t(v);
    return true;
}

} // namespace

std::optional<std::string> parseCommCheckArgs(int argc, char** argv, CommCheckOptions* o)
{
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--backend" && hasValue) {
            o->backend = argv[++i];
            if (o->backend != "mpi" && o->backend != "nccl")
                return "--backend must be mpi or nccl, got '" + o->backend + "'";
        } else if ((a == "--count" || a == "--max-count" || a == "--iters") && hasValue) {
            size_t v = 0;
            if (!parseSize(argv[++i], &v))
                return a + " needs a positive integer, got '" + argv[i] + "'";
            if (a == "--count") o->count = v;
            else if (a == "--max-count") o->maxCount = v;
            else o->iters = int(std::min<size_t>(v, 100000));
        } else if (a == "--backend" || a == "--count" || a == "--max-count" || a == "--iters") {
            return a + " needs a value";
        } else {
            return "unknown option '" + a + "'";
        }
    }
    return std::nullopt;
}

} // namespace tapas::runtime
