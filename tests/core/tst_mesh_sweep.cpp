// searchBestMesh, the "let the search pick the mesh" sweep shared by `tapas search` and the
// Studio's Search dialog: it keeps the best mesh's plan, reports progress forward only, and
// stops on cancel.
#include "core/search/mesh_sweep.h"
#include "core/zoo/zoo.h"

#include <QtTest>

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
        ZooOptions o;
        o.layers = 2;
        o.hidden = 256;
        o.heads = 4;
        o.seq = 64;
        o.batch = 8;
        o.vocab = 1024;
        Result<Graph> g = zooGraph("gpt", o);
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
};

QTEST_MAIN(TstMeshSweep)
#include "tst_mesh_sweep.moc"
