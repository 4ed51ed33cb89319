#include "core/shard/pipeline_schedule.h"

namespace tapas {

const char* recomputeName(Recompute r)
{
    switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    }
    return "none";
}

bool parseRecompute(const std::string& text, Recompute* out)
{
    for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
        if (text == recomputeName(r)) {
            *out = r;
            return true;
        }
    return false;
}

} // namespace tapas
