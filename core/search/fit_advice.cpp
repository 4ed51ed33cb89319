#include "core/search/fit_advice.h"

namespace tapas {

namespace {

// Whether some plan fits on `nodes` nodes: tried with tp a node wide (dp shrinks activations)
// and with every device in one tensor-parallel group (tp shrinks weights too).
Result<bool> fitsOn(const Searcher& s, SearchRequest r, int nodes, double limit, DeviceMesh* mesh)
{
    r.cluster.nodes = nodes;
    r.memoryLimit = limit;
    r.runnerUps = 0;
    const int n = r.cluster.deviceCount(), node = r.cluster.devicesPerNode;
    for (const DeviceMesh m : {DeviceMesh{n / node, node}, DeviceMesh{1, n}}) {
        r.mesh = m;
        if (!validateRequest(r)) continue; // e.g. more replicas than samples in the batch
        Result<SearchResult> res = s.search(r);
        if (!res) return Result<bool>::failure(res.error());
        if (res->feasible) {
            *mesh = m;
            return true;
        }
    }
    return false;
}

} // namespace

Result<FitAdvice> adviseFit(const Searcher& searcher, const SearchRequest& request, int maxNodes)
{
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
    FitAdvice a;
    {
        SearchRequest r = request;
        r.memoryLimit = 1; // nothing fits: the search returns its leanest plan
        r.runnerUps = 0;
        Result<SearchResult> res = searcher.search(r);
        if (!res) return Result<FitAdvice>::failure(res.error());
        a.bytesPerDevice = res->best.report.total.memory();
        if (a.bytesPerDevice <= limit) {
            a.devices = request.cluster.deviceCount();
            a.mesh = request.mesh;
            return a;
        }
    }
    // Double the node count until a plan fits, then bisect down to the smallest count.
    int lo = request.cluster.nodes, hi = 0;
    DeviceMesh mesh;
    for (int k = std::max(1, lo) * 2; k <= maxNodes; k *= 2) {
        Result<bool> f = fitsOn(searcher, request, k, limit, &mesh);
        if (!f) return Result<FitAdvice>::failure(f.error());
        if (*f) {
            hi = k;
            break;
        }
        lo = k;
    }
    if (hi == 0) return a;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        Result<bool> f = fitsOn(searcher, request, mid, limit, &mesh);
        if (!f) return Result<FitAdvice>::failure(f.error());
        (*f ? hi : lo) = mid;
    }
    // Once more at the answer for its mesh: the last probe may have been another node count.
    Result<bool> fits = fitsOn(searcher, request, hi, limit, &a.mesh);
    if (!fits) return Result<FitAdvice>::failure(fits.error());
    a.devices = hi * request.cluster.devicesPerNode;
    return a;
}

} // namespace tapas
