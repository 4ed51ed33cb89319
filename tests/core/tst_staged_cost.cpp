// A plan with stages re-costed over its own stages (core/cost/staged_cost.h), as the plan editor,
// a reopened plan file and a restored project do: the sweep's figures come back exactly (plain and
// interleaved), each pipeline rank keeps the recomputation the plan gives it even where less would
// fit, stages that do not cut the chain are refused naming the field, and a plan without stages
// costs what evaluatePlan says.
#include "core/cost/pipeline_cost.h"
#include "core/cost/staged_cost.h"
#include "core/search/pipeline_sweep.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

#include <cmath>

using namespace tapas;

namespace {

Graph smallGpt()
{
    return testing::zooGraphOf("gpt", {.layers = 4, .hidden = 256, .heads = 8, .vocab = 1024, .seq = 128, .batch = 16});
}

bool same(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

// The plan re-costed as the editor does it: per-node costs of one micro-batch, then its stages.
Result<CostReport> recost(const Graph& g, const FoldedGraph& folded, const ClusterSpec& c, ShardingPlan& plan)
{
    const CostModel model(g, c, costMeshOf(plan), costOptionsOf(plan, {}));
    return evaluatePlanWithStages(plan, model, &folded, c.memoryBytes);
}

// TAPAS's pipeline sweep held to pp 2 x tp 2 with `virtualStages` per rank (and micro-batches
// of 2 unless `anyMicroBatch`).
SearchResult sweptPlan(const Graph& g, const ClusterSpec& c, int virtualStages, bool anyMicroBatch = false)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = c;
    PipelineOptions o;
    o.pp = {2};
    o.tp = {2};
    if (!anyMicroBatch) o.microBatchSizes = {2};
    o.virtualStages = {virtualStages};
    r.pipeline = o;
    Result<SearchResult> s = searchPipelined(*findSearcher("tapas"), r);
    if (!s) qFatal("pipeline sweep: %s", s.error().c_str());
    return std::move(s).value();
}

} // namespace

class TstStagedCost : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void a_swept_plan_recosted_over_its_own_stages_gives_the_sweeps_figures()
    {
        const Graph g = smallGpt();
        const FoldedGraph folded = *foldGraph(g);
        const ClusterSpec c = *loadClusterSpec("a100x8");
        for (int v : {1, 2}) {
            const SearchResult s = sweptPlan(g, c, v);
            const ShardingPlan& swept = s.best.plan;
            QCOMPARE(int(swept.pipeline.stages.size()), 2 * v);
            ShardingPlan plan = swept;
            Result<CostReport> report = recost(g, folded, c, plan);
            QVERIFY2(report.ok(), report.error().c_str());
            QVERIFY(report->pipelined);
            const CostTerms &a = report->total, &b = s.best.report.total;
            QVERIFY2(same(a.time(), b.time()), qPrintable(QStringLiteral("v %1: %2 vs %3").arg(v).arg(a.time()).arg(b.time())));
            QVERIFY(same(a.bubble, b.bubble) && same(a.ppComm, b.ppComm) && same(a.dpComm, b.dpComm));
            QVERIFY(same(a.memory(), b.memory()));
            QCOMPARE(report->fits, s.best.report.fits);
            QVERIFY(same(report->effectiveDevices, s.best.report.effectiveDevices));
            QCOMPARE(plan.pipeline.bubbleFraction, swept.pipeline.bubbleFraction);
            for (size_t i = 0; i < plan.pipeline.stages.size(); ++i) {
                const PipelineStage &x = plan.pipeline.stages[i], &y = swept.pipeline.stages[i];
                QCOMPARE(x.firstBlock, y.firstBlock);
                QCOMPARE(x.endBlock, y.endBlock);
                QCOMPARE(x.device, y.device);
                QCOMPARE(x.recompute, y.recompute);
                QVERIFY(same(x.timePerMicroBatch, y.timePerMicroBatch) && same(x.activationMemory, y.activationMemory));
            }
        }
    }

    // The least recomputation that fits would be none on this roomy node; the plan says selective
    // on pipeline rank 0 and that is what it is costed with.
    void each_rank_keeps_the_recomputation_the_plan_gives_it()
    {
        const Graph g = smallGpt();
        const FoldedGraph folded = *foldGraph(g);
        const ClusterSpec c = *loadClusterSpec("a100x8");
        const SearchResult s = sweptPlan(g, c, 1);
        ShardingPlan plan = s.best.plan;
        QCOMPARE(plan.pipeline.stages[0].recompute, Recompute::None);
        QCOMPARE(plan.pipeline.stages[1].recompute, Recompute::None);
        plan.pipeline.stages[0].recompute = Recompute::Selective;
        Result<CostReport> report = recost(g, folded, c, plan);
        QVERIFY2(report.ok(), report.error().c_str());
        QCOMPARE(plan.pipeline.stages[0].recompute, Recompute::Selective);
        QCOMPARE(plan.pipeline.stages[1].recompute, Recompute::None);
        const PipelineStage &mine = plan.pipeline.stages[0], &swept = s.best.plan.pipeline.stages[0];
        QVERIFY(mine.timePerMicroBatch > swept.timePerMicroBatch);   // the attention core runs twice
        QVERIFY(mine.activationMemory < swept.activationMemory);     // and its scores are not kept
        QVERIFY(same(plan.pipeline.stages[1].timePerMicroBatch, s.best.plan.pipeline.stages[1].timePerMicroBatch));
    }

    void stages_that_do_not_cut_the_chain_are_refused_naming_the_field()
    {
        const Graph g = smallGpt();
        const FoldedGraph folded = *foldGraph(g);
        const ClusterSpec c = *loadClusterSpec("a100x8");
        const SearchResult s = sweptPlan(g, c, 1, true);
        ShardingPlan shortOfTheEnd = s.best.plan;
        shortOfTheEnd.pipeline.stages.back().endBlock -= 1;
        Result<CostReport> a = recost(g, folded, c, shortOfTheEnd);
        QVERIFY(!a.ok());
        QVERIFY2(a.error().find("pipeline.stages") != std::string::npos && a.error().find("chain") != std::string::npos,
                 a.error().c_str());
        ShardingPlan offMesh = s.best.plan;
        offMesh.pipeline.stages.back().device = 5;
        Result<CostReport> b = recost(g, folded, c, offMesh);
        QVERIFY(!b.ok());
        QVERIFY2(b.error().find("pipeline rank 5 of pp 2") != std::string::npos, b.error().c_str());
    }

    void a_plan_without_stages_costs_what_evaluate_plan_says()
    {
        const Graph g = smallGpt();
        const FoldedGraph folded = *foldGraph(g);
        const ClusterSpec c = *loadClusterSpec("a100x8");
        SearchRequest r;
        r.graph = &g;
        r.cluster = c;
        r.mesh = {2, 4};
        Result<SearchResult> s = findSearcher("tapas")->search(r);
        QVERIFY2(s.ok(), s.error().c_str());
        ShardingPlan plan = s->best.plan;
        QCOMPARE(costMeshOf(plan), plan.mesh);
        QCOMPARE(costOptionsOf(plan, {}).microBatches, 1);
        Result<CostReport> report = recost(g, folded, c, plan);
        QVERIFY2(report.ok(), report.error().c_str());
        const CostModel model(g, c, plan.mesh);
        const CostReport direct = evaluatePlan(plan, model, &folded);
        QVERIFY(!report->pipelined);
        QCOMPARE(report->total.time(), direct.total.time());
        QCOMPARE(report->total.memory(), direct.total.memory());
    }
};

QTEST_MAIN(TstStagedCost)
#include "tst_staged_cost.moc"
