#include "core/search/pipeline_sweep.h"

#include "core/search/block_search.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace tapas {

std::vector<int> divisorsOf(int64_t n)
{
    std::vector<int> out;
    for (int64_t d = 1; d <= n; ++d)
        if (n % d == 0) out.push_back(int(d));
    return out;
}

namespace {

// One block search: a tp degree and a micro-batch size.
struct MicroPlan {
    int tp = 1, microBatchSize = 1;
    std::unique_ptr<CostModel> model;
    PlanCandidate candidate;
    std::vector<BlockProfile> blocks;
};

struct Choice {
    size_t micro = 0;
    PipelineConfig config;
    PipelineEvaluation eval;
};

bool better(const Choice& a, const Choice& b)
{
    if (a.eval.fits != b.eval.fits) return a.eval.fits;
    if (!a.eval.fits) return a.eval.total.memory() < b.eval.total.memory();
    return a.eval.total.time() < b.eval.total.time();
}

PlanCandidate materialise(const MicroPlan& mp, const Choice& c)
{
    PlanCandidate pc = mp.candidate;
    pc.plan.mesh = {c.config.dp, c.config.tp, c.config.pp};
    pc.plan.pipeline = c.eval.schedule;
    pc.report.total = c.eval.total;
    pc.report.pipelined = true;
    pc.report.fits = c.eval.fits;
    pc.report.effectiveDevices = mp.candidate.report.effectiveDevices * c.config.dp * c.config.pp;
    return pc;
}

} // namespace

Result<SearchResult> searchPipelined(const Searcher& searcher, const SearchRequest& request)
{
    using R = Result<SearchResult>;
    const auto start = std::chrono::steady_clock::now();
    if (!request.pipeline) return R::failure("pipeline sweep: the request asks for no pipeline");
    if (!request.graph) return R::failure("search: no graph given");
    const PipelineOptions& o = *request.pipeline;
    const std::optional<DpConfig> config = searcher.blockConfig(request);
    if (!config)
        return R::failure(searcher.name() + " plans no pipeline stages (the block searchers do: tapas, megatron)");
    const Graph& g = *request.graph;
    if (Status s = checkWorkloadBound(g); !s) return R::failure(s.error);
    Result<FoldedGraph> folded = foldGraph(g, {}, request.progress);
    if (!folded) return R::failure(folded.error());
    const ClusterSpec& cluster = request.cluster;
    const int n = cluster.deviceCount();
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : cluster.memoryBytes;
    // Without a batch axis the batch cannot be cut: one micro-batch and no data parallelism.
    const bool batched = g.batch.found() && g.batch.size > 0;
    const int64_t batch = batched ? g.batch.size : 1;
    const int chain = int(folded->chain.size());

    std::vector<int> tps = o.tp;
    if (tps.empty())
        for (int t : divisorsOf(n))
            if (o.tpAcrossNodes || (t <= cluster.devicesPerNode && cluster.devicesPerNode % t == 0)) tps.push_back(t);
    std::vector<int> sizes = o.microBatchSizes;
    if (sizes.empty())
        for (int b : divisorsOf(batch))
            if (b <= o.maxMicroBatchSize || !batched) sizes.push_back(b);
    std::vector<std::string> skipped;
    std::vector<MicroPlan> micros;
    std::vector<Choice> choices;
    int searches = 0;
    const size_t total = tps.size() * sizes.size();
    for (int tp : tps) {
        if (tp <= 0 || n % tp) {
            skipped.push_back("tp " + std::to_string(tp) + " does not divide the " + std::to_string(n) + " devices");
            continue;
        }
        for (int b : sizes) {
            if (request.progress.cancelled()) return R::failure(searcher.name() + " search cancelled");
            if (b <= 0 || batch % b) {
                skipped.push_back("micro-batch " + std::to_string(b) + " does not divide the batch " + std::to_string(batch));
                continue;
            }
            SearchRequest r = request;
            r.mesh = {1, tp, 1};
            r.cost.microBatches = int(batch / b);
            r.memoryLimit = 1e300; // the fastest micro-batch plan; the stages decide what fits
            r.runnerUps = 0;
            r.pipeline.reset();
            const double done = double(micros.size() + skipped.size()) / double(std::max<size_t>(1, total));
            r.progress.report = [&request, done, total](double f, std::string_view stage) {
                request.progress(done + f / double(std::max<size_t>(1, total)), stage);
            };
            Result<SearchResult> sr = runBlockSearcher(searcher.name(), r, *folded, *config);
            if (!sr) {
                if (request.progress.cancelled()) return R::failure(searcher.name() + " search cancelled");
                skipped.push_back("tp " + std::to_string(tp) + ", micro-batch " + std::to_string(b) + ": " + sr.error());
                continue;
            }
            searches += sr->uniqueBlocksSearched;
            MicroPlan mp;
            mp.tp = tp;
            mp.microBatchSize = b;
            mp.model = std::make_unique<CostModel>(g, cluster, r.mesh, r.cost);
            mp.candidate = std::move(sr->best);
            mp.blocks = blockProfiles(mp.candidate.plan, mp.candidate.report, *mp.model, *folded);
            micros.push_back(std::move(mp));
            const MicroPlan& m = micros.back();
            std::vector<int> pps = o.pp.empty() ? divisorsOf(n / tp) : o.pp;
            for (int pp : pps) {
                if (pp <= 0 || (n / tp) % pp || pp > chain) continue;
                const int dp = n / tp / pp;
                if ((!batched && dp > 1) || batch % (int64_t(dp) * b)) continue;
                const int microBatches = int(batch / (int64_t(dp) * b));
                std::vector<int> vs = o.virtualStages.empty() ? std::vector<int>{1, 2, 4} : o.virtualStages;
                for (int v : vs) {
                    if (v <= 0 || (pp == 1 && v > 1) || pp * v > chain) continue;
                    if (v > 1 && microBatches % pp) continue; // the interleaved schedule cycles micro-batches in groups of pp
                    PipelineConfig pc;
                    pc.pp = pp;
                    pc.dp = dp;
                    pc.tp = tp;
                    pc.microBatches = microBatches;
                    pc.microBatchSize = b;
                    pc.virtualStages = v;
                    pc.recompute = o.recompute;
                    pc.distributedOptimizer = o.distributedOptimizer.value_or(true) && dp > 1;
                    std::optional<PipelineEvaluation> e = evaluatePipeline(m.blocks, pc, *m.model, cluster, limit);
                    if (e) choices.push_back({micros.size() - 1, pc, std::move(*e)});
                }
            }
        }
    }
    request.progress(1.0, "done");
    if (choices.empty()) {
        std::string why = skipped.empty() ? "no mesh dp x pp x tp matches the devices and the batch" : skipped.back();
        return R::failure(searcher.name() + ": no pipeline configuration could be costed on " + std::to_string(n) +
                          " devices (" + why + ")");
    }
    std::stable_sort(choices.begin(), choices.end(), better);
    SearchResult res;
    res.searcher = searcher.name();
    res.best = materialise(micros[choices.front().micro], choices.front());
    res.feasible = choices.front().eval.fits;
    res.uniqueBlocksSearched = searches;
    // Runner-ups: the next best on other meshes or micro-batch sizes.
    for (size_t i = 1; i < choices.size() && int(res.runnerUps.size()) < std::max(0, request.runnerUps); ++i) {
        bool seen = false;
        const PipelineConfig& c = choices[i].config;
        auto same = [&](const PlanCandidate& x) {
            return x.plan.mesh == DeviceMesh{c.dp, c.tp, c.pp} && x.plan.pipeline.microBatchSize == c.microBatchSize;
        };
        seen = same(res.best);
        for (const PlanCandidate& x : res.runnerUps) seen = seen || same(x);
        if (!seen) res.runnerUps.push_back(materialise(micros[choices[i].micro], choices[i]));
    }
    res.warnings = res.best.plan.warnings;
    res.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
}

} // namespace tapas
