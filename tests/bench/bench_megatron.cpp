// Megatron-LM's published weak-scaling runs checked against the cost model: each row is predicted
// under the configuration it was run with (Megatron's tensor-parallel roles, its tp, pp, dp,
// micro-batch, interleaving and full recomputation, no distributed optimizer), its throughput
// counted as Megatron counts it (megatronGptFlops / step time / GPUs), and set against the
// published TFLOP/s; then TAPAS plans the same model on the same cluster with everything free.
#include "tests/bench/bench_megatron.h"

#include "tests/bench/bench_measure.h"

#include "core/cost/gpu_roofline.h"
#include "core/cost/pipeline_cost.h"
#include "core/search/pipeline_sweep.h"
#include "core/zoo/zoo.h"

#include <QFile>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace tapas::bench {

namespace {

using nlohmann::json;

std::optional<json> loadReference()
{
    QFile f(QStringLiteral(":/reference/megatron_sc21.json"));
    if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
    json j = json::parse(f.readAll().toStdString(), nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
}

struct Run {
    bool ok = false;
    std::string error;
    double seconds = 0; // CPU time of the search
    SearchResult result;
};

Run plan(const Searcher& s, const Graph& g, const ClusterSpec& c, const PipelineOptions& o)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = c;
    r.pipeline = o;
    Run run;
    const double t0 = threadCpuSeconds();
    Result<SearchResult> res = searchPipelined(s, r);
    run.seconds = threadCpuSeconds() - t0;
    if (!res) {
        run.error = res.error();
        return run;
    }
    run.ok = true;
    run.result = std::move(res).value();
    return run;
}

std::string describe(const PlanCandidate& c)
{
    const PipelineSchedule& p = c.plan.pipeline;
    std::string rec;
    for (const PipelineStage& s : p.stages)
        if (rec.find(recomputeName(s.recompute)) == std::string::npos) rec += (rec.empty() ? "" : "+") + std::string(recomputeName(s.recompute));
    char b[160];
    std::snprintf(b, sizeof b, "%dx%dx%d b%d v%d %s%s", c.plan.mesh.dp, c.plan.mesh.pp, c.plan.mesh.tp, p.microBatchSize,
                  p.virtualStages, rec.empty() ? "none" : rec.c_str(), p.distributedOptimizer ? " zero1" : "");
    return b;
}

struct Row {
    std::string name;
    int64_t heads, hidden, layers, batch;
    int tp, pp, gpus, micro, layersPerVirtual;
    double tflops;
};

Row readRow(const json& j)
{
    return {j.at("name").get<std::string>(), j.at("heads").get<int64_t>(), j.at("hidden").get<int64_t>(),
            j.at("layers").get<int64_t>(), j.at("batch").get<int64_t>(), j.at("tp").get<int>(), j.at("pp").get<int>(),
            j.at("gpus").get<int>(), j.at("micro_batch").get<int>(), j.value("layers_per_virtual_stage", 0),
            j.at("tflops_per_gpu").get<double>()};
}

struct Compared {
    bool ok = false;
    std::string error;
    Run published, tapas;
    double flops = 0; // Megatron's count for one step
    size_t nodes = 0;
};

Compared compare(const Row& row, const json& ref, const MegatronPricing& pricing = {})
{
    Compared out;
    const int64_t seq = ref.at("seq").get<int64_t>(), vocab = ref.at("vocab").get<int64_t>();
    ZooOptions o;
    o.layers = row.layers;
    o.hidden = row.hidden;
    o.heads = row.heads;
    o.seq = seq;
    o.batch = row.batch;
    o.vocab = vocab;
    o.dropout = ref.value("dropout", 0.0); // as Megatron-LM ran: training-mode dropout
    Result<Graph> g = zooGraph("gpt", o);
    if (!g) {
        out.error = g.error();
        return out;
    }
    out.nodes = g->nodes.size();
    Result<ClusterSpec> c = loadClusterSpec(ref.at("cluster_preset").get<std::string>());
    if (!c) {
        out.error = c.error();
        return out;
    }
    c->nodes = row.gpus / ref.at("gpus_per_node").get<int>();
    if (pricing.datasheet) c->roofline = kA100SxmRoofline;
    if (pricing.flat) c->roofline = DeviceRoofline{};
    if (pricing.efficiency > 0) c->efficiency = pricing.efficiency;
    PipelineOptions fixed;
    fixed.tp = {row.tp};
    fixed.pp = {row.pp};
    fixed.microBatchSizes = {row.micro};
    fixed.virtualStages = {row.layersPerVirtual > 0 ? int(row.layers / row.pp / row.layersPerVirtual) : 1};
    fixed.recompute = Recompute::Full;
    fixed.distributedOptimizer = false;
    out.published = plan(*findSearcher("megatron"), *g, *c, fixed);
    out.tapas = plan(*findSearcher("tapas"), *g, *c, PipelineOptions{});
    out.flops = megatronGptFlops(double(row.batch), double(seq), double(row.layers), double(row.hidden), double(vocab));
    out.ok = out.published.ok && out.tapas.ok;
    if (!out.ok) out.error = out.published.ok ? out.tapas.error : out.published.error;
    return out;
}

double tflops(const Compared& c, const Run& r, int gpus)
{
    return c.flops / r.result.best.report.total.time() / gpus / 1e12;
}

} // namespace

int runMegatronTable(const std::vector<std::string>& rows, const MegatronPricing& pricing)
{
    const std::optional<json> ref = loadReference();
    if (!ref) {
        std::fprintf(stderr, "tapas bench search: the Megatron reference table is not compiled in (:/reference/megatron_sc21.json)\n");
        return 1;
    }
    std::printf("Megatron-LM, Narayanan et al. SC'21 Table 1 (resources/reference/megatron_sc21.json), preset %s with the row's "
                "node count. \"pred.\": the cost model under the published configuration (Megatron's tp roles, tp x pp, "
                "micro-batch, interleaving, full recomputation, no distributed optimizer); TFLOP/s counted as Megatron "
                "counts them (96 B s l h^2 (1 + s/6h + V/16lh) per step / step time / GPUs), so they compare step times. "
                "\"TAPAS\": the pipeline sweep with every choice free. mem: per GPU, the fullest rank.\n\n",
                ref->at("cluster_preset").get<std::string>().c_str());
    if (pricing.flat)
        std::printf("Priced flat: every op at %.3f of peak, no roofline (not the preset's pricing).\n\n", pricing.efficiency);
    else if (pricing.datasheet || pricing.efficiency > 0)
        std::printf("Priced on the A100 roofline at %s constants, GEMM efficiency %s (not the preset's pricing).\n\n",
                    pricing.datasheet ? "the datasheet's" : "the preset's achieved",
                    pricing.efficiency > 0 ? std::to_string(pricing.efficiency).c_str() : "of the preset");
    std::printf("| model | GPUs | published config | published TF/GPU | pred. TF/GPU | pred./published | pred. step s | pred. mem | "
                "TAPAS plan (dp x pp x tp, micro-batch, v, recompute) | TAPAS TF/GPU | TAPAS/published | TAPAS mem | TAPAS search s |\n");
    std::printf("|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
    std::vector<json> all = ref->at("rows").get<std::vector<json>>();
    all.push_back(ref->at("gpt3_175b"));
    int failures = 0;
    for (const json& j : all) {
        const Row row = readRow(j);
        if (!rows.empty() && std::find(rows.begin(), rows.end(), row.name) == rows.end()) continue;
        const Compared c = compare(row, *ref, pricing);
        if (!c.ok) {
            std::fprintf(stderr, "tapas bench search: Megatron row %s: %s\n", row.name.c_str(), c.error.c_str());
            ++failures;
            continue;
        }
        const double pred = tflops(c, c.published, row.gpus), mine = tflops(c, c.tapas, row.gpus);
        const CostTerms& pt = c.published.result.best.report.total;
        const CostTerms& tt = c.tapas.result.best.report.total;
        std::printf("| %s | %d | %s | %.0f | %.1f | %.2f | %.2f | %.1f GB%s | %s | %.1f | %.2f | %.1f GB%s | %.2f |\n", row.name.c_str(),
                    row.gpus, describe(c.published.result.best).c_str(), row.tflops, pred, pred / row.tflops, pt.time(),
                    pt.memory() / 1e9, c.published.result.feasible ? "" : " (over)", describe(c.tapas.result.best).c_str(), mine,
                    mine / row.tflops, tt.memory() / 1e9, c.tapas.result.feasible ? "" : " (over)", c.tapas.seconds);
        if (std::getenv("TAPAS_BENCH_BREAKDOWN"))
            std::printf("|   breakdown pred.: compute %.2f tp %.2f pp %.2f bubble %.2f dp %.2f s |\n", pt.compute, pt.tpComm, pt.ppComm,
                        pt.bubble, pt.dpComm);
        std::fflush(stdout);
    }
    return failures ? 1 : 0;
}

int runGpt3Target()
{
    const std::optional<json> ref = loadReference();
    if (!ref) {
        std::fprintf(stderr, "tapas bench search: the Megatron reference table is not compiled in\n");
        return 1;
    }
    const json& j = ref->at("gpt3_175b");
    const Row row = readRow(j);
    const Compared c = compare(row, *ref);
    if (!c.ok) {
        std::fprintf(stderr, "tapas bench search: GPT-3 175B: %s\n", c.error.c_str());
        return 1;
    }
    const double pred = tflops(c, c.published, row.gpus), mine = tflops(c, c.tapas, row.gpus);
    std::printf("GPT-3 175B on %d A100 (%s, %zu nodes in the graph): TAPAS plan %s, %s, predicted %.1f s/step = %.1f TFLOP/s per "
                "GPU, %.1f GB per GPU, found in %.2f s on one core (target < 2 s); Megatron-LM's run %s: %.0f TFLOP/s per GPU, "
                "%.0f s/step published, predicted %.1f s/step = %.1f TFLOP/s (%.2fx of published)\n",
                row.gpus, ref->at("cluster_preset").get<std::string>().c_str(), c.nodes, describe(c.tapas.result.best).c_str(),
                c.tapas.result.feasible ? "fits" : "DOES NOT FIT", c.tapas.result.best.report.total.time(), mine,
                c.tapas.result.best.report.total.memory() / 1e9, c.tapas.seconds, describe(c.published.result.best).c_str(),
                row.tflops, j.value("iteration_seconds", 0.0), c.published.result.best.report.total.time(), pred,
                pred / row.tflops);
    return c.tapas.result.feasible ? 0 : 1;
}

} // namespace tapas::bench
