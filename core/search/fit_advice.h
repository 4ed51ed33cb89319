#pragma once
// For a model that fits nowhere on the cluster: the memory its leanest plan needs per device,
// and the smallest number of nodes of the same kind on which a plan fits (tensor parallelism
// allowed across nodes), so the user learns what to ask for instead of just "infeasible".
#include "core/search/searcher.h"

namespace tapas {

struct FitAdvice {
    double bytesPerDevice = 0; // the leanest plan on the given cluster
    int devices = 0;           // smallest device count that fits; 0 when none up to the bound
    DeviceMesh mesh;           // the mesh that fits with that many devices
};

// `searcher` is usually TAPAS. Tries whole nodes, up to `maxNodes`.
Result<FitAdvice> adviseFit(const Searcher& searcher, const SearchRequest& request, int maxNodes = 256);

} // namespace tapas
