// searchBestMesh, the "let the search pick the mesh" sweep shared by `tapas search` and the
// Studio's Search dialog: it keeps the best mesh's plan, reports progress forward only, and
// stops on cancel.
#include "core/search/mesh_sweep.h"
#include "core/zoo/zoo.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <optional>

using namespace tapas;

class TstMeshSweep : public QObject {
    Q_OBJECT
private:
    std::optional<Graph> graph_;
    ClusterSpec cluster_;

    SearchRequest request() const
    {
        SearchRequest r;
        r.graph = &*graph_;
        r.cluster = cluster_;
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        Result<Graph> g = zooGraph("gpt", {.layers = 2, .hidden = 256, .heads = 4, .vocab = 1024, .seq = 64, .batch = 8});
        QVERIFY2(g.ok(), g.error().c_str());
        graph_ = std::move(g).value();
        Result<ClusterSpec> c = loadClusterSpec("a100x8");
        QVERIFY2(c.ok(), c.error().c_str());
        cluster_ = *c;
    }

    void sweep_keeps_the_best_plan_of_all_meshes()
    {
        const std::vector<DeviceMesh> meshes = enumerateMeshes(cluster_);
        QVERIFY(meshes.size() >= 2);
        const Searcher* tapas = findSearcher("tapas");
        Result<SearchResult> best = searchBestMesh(*tapas, request(), meshes);
        QVERIFY2(best.ok(), best.error().c_str());
        bool matched = false;
        for (const DeviceMesh& m : meshes) {
            SearchRequest r = request();
            r.mesh = m;
            Result<SearchResult> one = tapas->search(r);
            QVERIFY2(one.ok(), one.error().c_str());
            QVERIFY(!betterSearchResult(*one, *best)); // nothing beats the sweep's choice
            if (one->best.plan.mesh == best->best.plan.mesh) {
                QCOMPARE(one->best.report.total.time(), best->best.report.total.time());
                matched = true;
            }
        }
        QVERIFY(matched);
    }

    void progress_runs_forward_to_one()
    {
        std::vector<double> seen;
        SearchRequest r = request();
        r.progress.report = [&seen](double f, std::string_view) { seen.push_back(f); };
        QVERIFY(searchBestMesh(*findSearcher("megatron"), r, enumerateMeshes(cluster_)).ok());
        QVERIFY(!seen.empty());
        for (size_t i = 1; i < seen.size(); ++i) QVERIFY2(seen[i] >= seen[i - 1] - 1e-12, "progress ran backwards");
        QCOMPARE(seen.back(), 1.0);
    }

    void cancel_stops_the_sweep_with_a_reason()
    {
        std::atomic<bool> cancel{true};
        SearchRequest r = request();
        r.progress.cancel = &cancel;
        Result<SearchResult> res = searchBestMesh(*findSearcher("tapas"), r, enumerateMeshes(cluster_));
        QVERIFY(!res.ok());
        QVERIFY2(res.error().find("cancelled") != std::string::npos, res.error().c_str());
    }

    void no_mesh_is_an_error_not_a_crash()
    {
        Result<SearchResult> res = searchBestMesh(*findSearcher("tapas"), request(), {});
        QVERIFY(!res.ok());
        QVERIFY2(res.error().find("mesh") != std::string::npos, res.error().c_str());
    }

    void data_parallel_runs_once_on_its_own_mesh()
    {
        Result<SearchResult> res = searchBestMesh(*findSearcher("dp"), request(), enumerateMeshes(cluster_));
        QVERIFY2(res.ok(), res.error().c_str());
        QCOMPARE(res->best.plan.mesh.tp, 1);
    }

    // `tapas search` and the Search dialog run a searcher through searchWithStages: under a memory
    // limit no flat plan meets, a block searcher runs the pipeline sweep (stages, micro-batches,
    // recomputation) and says how much the flat plan needed, unless the user fixed the mesh; stages asked for are planned by the block searchers
    // only, data parallelism plans without them.
    void stages_are_added_when_nothing_fits_without_them()
    {
        const std::vector<DeviceMesh> meshes = enumerateMeshes(cluster_, true);
        const Searcher* tapas = findSearcher("tapas");
        double leanest = 1e300; // the least memory any flat plan needs
        for (const DeviceMesh& m : meshes) {
            SearchRequest r = request();
            r.mesh = m;
            Result<SearchResult> one = tapas->search(r);
            QVERIFY2(one.ok(), one.error().c_str());
            leanest = std::min(leanest, one->best.report.total.memory());
            for (const PlanCandidate& c : one->runnerUps) leanest = std::min(leanest, c.report.total.memory());
        }
        SearchRequest tight = request();
        tight.memoryLimit = leanest * 0.8;
        Result<SearchResult> unfit = searchBestMesh(*tapas, tight, meshes);
        QVERIFY2(unfit.ok(), unfit.error().c_str());
        QVERIFY(!unfit->feasible);
        double needed = -1;
        Result<SearchResult> staged = searchWithStages(*tapas, tight, meshes, PipelineOptions{}, true, &needed);
        QVERIFY2(staged.ok(), staged.error().c_str());
        QVERIFY(staged->feasible);
        // Planned by the pipeline sweep (on this node the leanest is micro-batches with recomputation).
        QVERIFY(staged->best.report.pipelined);
        QVERIFY(staged->best.report.total.memory() <= tight.memoryLimit);
        QCOMPARE(needed, unfit->best.report.total.memory());
        QVERIFY(needed > tight.memoryLimit);
        // A mesh the user fixed is kept as it is.
        Result<SearchResult> fixed = searchWithStages(*tapas, tight, {unfit->best.plan.mesh}, PipelineOptions{}, false, &needed);
        QVERIFY2(fixed.ok(), fixed.error().c_str());
        QVERIFY(!fixed->feasible);
        QCOMPARE(fixed->best.plan.mesh.pp, 1);
        QCOMPARE(needed, 0.0);
        // Stages asked for: data parallelism plans none.
        SearchRequest asked = request();
        asked.pipeline = PipelineOptions{};
        Result<SearchResult> dp = searchWithStages(*findSearcher("dp"), asked, meshes, PipelineOptions{}, true);
        QVERIFY2(dp.ok(), dp.error().c_str());
        QVERIFY(!dp->best.plan.pipeline.staged());
    }
};

QTEST_MAIN(TstMeshSweep)
#include "tst_mesh_sweep.moc"
