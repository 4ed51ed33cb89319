#include "core/search/mesh_sweep.h"

#include "core/search/pipeline_sweep.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

namespace tapas {

bool betterSearchResult(const SearchResult& a, const SearchResult& b)
{
    if (a.feasible != b.feasible) return a.feasible;
    return a.best.report.total.time() < b.best.report.total.time();
}

namespace {

std::string ms(double seconds)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3g ms", seconds * 1e3);
    return b;
}

} // namespace

std::optional<std::string> replicationWarning(const SearchResult& best, const std::vector<std::pair<DeviceMesh, std::string>>& failed,
                                              const std::vector<std::pair<DeviceMesh, double>>& stepTimes)
{
    const DeviceMesh m = best.best.plan.mesh;
    const double effective = best.best.report.effectiveDevices;
    if (m.tp <= 1 || effective > m.dp * (1 + 1e-9)) return std::nullopt;
    char devices[32];
    std::snprintf(devices, sizeof devices, "%.3g", effective);
    std::string w = "mesh " + m.toString() + ": the plan splits no computation, so each tensor-parallel group of " +
                    std::to_string(m.tp) + " devices computes the same thing: it does the work of " + devices + " of " +
                    std::to_string(m.size()) + " devices; ";
    // Why the same devices are not used for data parallelism instead.
    for (const auto& [mesh, why] : failed)
        if (mesh.dp > m.dp) return w + "data parallelism cannot use them: " + why;
    for (const auto& [mesh, time] : stepTimes)
        if (mesh.dp > m.dp)
            return w + "more data parallelism is slower here (mesh " + mesh.toString() + ": " + ms(time) + " against " +
                   ms(best.best.report.total.time()) + ")";
    return w + "no mesh with more data parallelism was searched";
}

Result<SearchResult> searchBestMesh(const Searcher& searcher, SearchRequest request, const std::vector<DeviceMesh>& meshes)
{
    if (request.pipeline) return searchPipelined(searcher, request); // sweeps dp x pp x tp itself
    if (meshes.empty()) return Result<SearchResult>::failure(searcher.name() + ": no device mesh to search on");
    const bool fixedMesh = searcher.name() == "dp"; // data parallel puts every device on dp
    const size_t runs = fixedMesh ? 1 : meshes.size();
    const Progress outer = request.progress;
    double reached = 0; // searchers restart their own bar per stage; ours only moves forward
    std::optional<SearchResult> best;
    std::vector<PlanCandidate> others;
    std::string lastError;
    std::vector<std::pair<DeviceMesh, std::string>> failed;     // mesh, why no plan there
    std::vector<std::pair<DeviceMesh, double>> stepTimes;       // mesh, its best step time
    for (size_t i = 0; i < runs; ++i) {
        if (outer.cancelled()) return Result<SearchResult>::failure(searcher.name() + " search cancelled");
        request.mesh = meshes[i];
        // Each mesh gets an equal share of the bar, so the bar never runs backwards.
        request.progress.report = [&outer, &reached, i, runs](double f, std::string_view stage) {
            reached = std::max(reached, (double(i) + std::clamp(f, 0.0, 1.0)) / double(runs));
            outer(reached, stage);
        };
        Result<SearchResult> r = searcher.search(request);
        if (!r) {
            if (outer.cancelled()) return Result<SearchResult>::failure(searcher.name() + " search cancelled");
            lastError = r.error();
            failed.emplace_back(meshes[i], r.error());
            continue;
        }
        stepTimes.emplace_back(r->best.plan.mesh, r->best.report.total.time());
        if (best && !betterSearchResult(*r, *best)) {
            others.push_back(std::move(r->best));
            for (PlanCandidate& c : r->runnerUps) others.push_back(std::move(c));
            continue;
        }
        if (best) {
            others.push_back(std::move(best->best));
            for (PlanCandidate& c : best->runnerUps) others.push_back(std::move(c));
        }
        best = std::move(r).value();
    }
    outer(1.0, "done");
    if (!best) return Result<SearchResult>::failure(lastError);
    if (std::optional<std::string> w = replicationWarning(*best, failed, stepTimes)) {
        best->warnings.push_back(*w);
        best->best.plan.warnings.push_back(*w);
    }
    // The next best plans of the whole sweep, whichever mesh they are on.
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : request.cluster.memoryBytes;
    for (PlanCandidate& c : best->runnerUps) others.push_back(std::move(c));
    std::stable_sort(others.begin(), others.end(), [limit](const PlanCandidate& a, const PlanCandidate& b) {
        const bool fa = a.report.total.memory() <= limit, fb = b.report.total.memory() <= limit;
        if (fa != fb) return fa;
        return a.report.total.time() < b.report.total.time();
    });
    if (others.size() > size_t(std::max(0, request.runnerUps))) others.resize(size_t(std::max(0, request.runnerUps)));
    best->runnerUps = std::move(others);
    return std::move(*best);
}

Result<SearchResult> searchWithStages(const Searcher& searcher, SearchRequest request, const std::vector<DeviceMesh>& meshes,
                                      const PipelineOptions& stages, bool mayAddStages, double* unstagedMemory)
{
    if (unstagedMemory) *unstagedMemory = 0;
    const bool plansBlocks = searcher.blockConfig(request).has_value();
    if (request.pipeline && !plansBlocks) request.pipeline.reset();
    Result<SearchResult> r = searchBestMesh(searcher, request, meshes);
    if (!r || r->feasible || request.pipeline || !plansBlocks || !mayAddStages) return r;
    // Nothing fits without stages: the block searchers try pipelines before giving up.
    request.pipeline = stages;
    Result<SearchResult> staged = searchBestMesh(searcher, request, meshes);
    if (!staged || !betterSearchResult(*staged, *r)) return r;
    if (unstagedMemory) *unstagedMemory = r->best.report.total.memory();
    return staged;
}

} // namespace tapas
