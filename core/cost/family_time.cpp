#include "core/cost/family_time.h"

#include <algorithm>

namespace tapas {

std::optional<double> familyComputeSeconds(const ClusterSpec& c, const std::string& family, double flops, double bytes)
{
    const auto it = c.opFamilies.find(family);
    if (it == c.opFamilies.end()) return std::nullopt;
    const OpFamilyRate& r = it->second;
    const double byFlops = r.flopRate > 0 ? flops / r.flopRate : 0;
    const double byBytes = r.byteRate > 0 ? bytes / r.byteRate : 0;
    return r.overhead + std::max(byFlops, byBytes);
}

double optimizerSeconds(const ClusterSpec& c, double paramBytes)
{
    const auto it = c.opFamilies.find("optimizer");
    if (it == c.opFamilies.end()) return 0;
    const OpFamilyRate& r = it->second;
    return r.overhead + (r.byteRate > 0 ? paramBytes / r.byteRate : 0);
}

} // namespace tapas
