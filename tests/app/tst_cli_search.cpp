// `tapas search` as a user runs it: the real binary, its exit codes and output. The text output
// shows the runner-up plans beside the best; a baseline that cannot run on the cluster (data
// parallel with more replicas than samples) is listed with its reason; bad meshes and cluster
// files are refused with a message naming what is wrong; what it prints is what the core
// searchers find for the same request (mesh, step time, collectives), TAPAS never slower than
// the baselines.
#include "core/cluster/cluster_spec.h"
#include "core/onnx/onnx_importer.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "tests/common/run_tapas.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

namespace {

using Run = tapas::testing::TapasRun;
using tapas::testing::runTapas;
using tapas::testing::tapasBinary;

QString sampleGpt() { return QStringLiteral(TAPAS_SOURCE_DIR "/resources/models/sample_gpt.onnx"); }

QStringList searchArgs(const QStringList& extra)
{
    return QStringList{QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), QStringLiteral("h100x16"),
                       QStringLiteral("--dim"), QStringLiteral("batch=8"), QStringLiteral("--dim"), QStringLiteral("seq=1024")} +
           extra;
}

} // namespace

class TstCliSearch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(tapasBinary()), "build the `tapas` target before running this suite");
        QVERIFY(QFile::exists(sampleGpt()));
    }

    void text_output_lists_runner_up_plans_and_baselines_that_cannot_run()
    {
        const Run r = runTapas(searchArgs({QStringLiteral("--searchers"), QStringLiteral("tapas,dp")}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("runner-up plans (tapas):")), qPrintable(out));
        // Each runner-up row: rank, mesh, step time, memory, comm, fits.
        const QStringList lines = out.mid(out.indexOf(QStringLiteral("runner-up plans"))).split(QLatin1Char('\n'));
        int rows = 0;
        for (const QString& l : lines) {
            const QStringList f = l.simplified().split(QLatin1Char(' '));
            if (f.size() >= 8 && f[0].toInt() >= 2 && f[1].contains(QLatin1Char('x')) && (f.last() == "yes" || f.last() == "NO")) ++rows;
        }
        QVERIFY2(rows >= 1, qPrintable(out));
        // Batch 8 cannot be split over 16 data-parallel replicas: said, not silently mis-costed.
        QVERIFY2(out.contains(QStringLiteral("not run:")) && out.contains(QStringLiteral("does not divide the batch 8")), qPrintable(out));
    }

    void json_output_has_runner_ups_with_mesh_time_memory_and_fit()
    {
        const Run r = runTapas(searchArgs({QStringLiteral("--searchers"), QStringLiteral("tapas"), QStringLiteral("--json")}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonArray ups = doc.value(QStringLiteral("runner_ups")).toArray();
        QVERIFY(!ups.isEmpty());
        const double best = doc.value(QStringLiteral("plans")).toArray().at(0).toObject().value(QStringLiteral("step_time_s")).toDouble();
        for (const QJsonValue& v : ups) {
            const QJsonObject o = v.toObject();
            QVERIFY(o.value(QStringLiteral("mesh")).toString().contains(QLatin1Char('x')));
            QVERIFY(o.value(QStringLiteral("memory_bytes_per_device")).toDouble() > 0);
            QVERIFY(o.contains(QStringLiteral("feasible")));
            QVERIFY(o.value(QStringLiteral("step_time_s")).toDouble() >= best * (1 - 1e-9));
        }
    }

    // The sample GPT on h100x16, batch 16 (so that data parallelism runs too), seq 1024, every mesh tried: the CLI's plans are the
    // core searchers' plans for the same request (the same mesh, step time, memory, traffic and
    // collectives), TAPAS's mesh is the fastest of all meshes, and TAPAS is never slower than
    // Megatron or data parallelism.
    void json_and_text_report_what_the_core_searchers_find()
    {
        const QStringList args{QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), QStringLiteral("h100x16"),
                               QStringLiteral("--dim"), QStringLiteral("batch=16"), QStringLiteral("--dim"),
                               QStringLiteral("seq=1024")};
        const Run json = runTapas(args + QStringList{QStringLiteral("--searchers"), QStringLiteral("tapas,megatron,dp"),
                                                     QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonArray plans = QJsonDocument::fromJson(json.out).object().value(QStringLiteral("plans")).toArray();
        QCOMPARE(plans.size(), 3);

        tapas::ImportOptions io;
        io.dims = {{"batch", 16}, {"seq", 1024}};
        io.probeBatch = true;
        tapas::Result<tapas::Graph> g = tapas::importOnnxFile(sampleGpt().toStdString(), io);
        QVERIFY2(g.ok(), g.error().c_str());
        tapas::SearchRequest request;
        request.graph = &*g;
        request.cluster = *tapas::loadClusterSpec("h100x16");
        const std::vector<tapas::DeviceMesh> meshes = tapas::enumerateMeshes(request.cluster, true);
        QVERIFY(meshes.size() > 1);
        auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
        std::map<QString, double> stepTime;
        size_t tapasCollectives = 0;
        QString tapasMesh;
        for (const QJsonValue& v : plans) {
            const QJsonObject o = v.toObject();
            const QString name = o.value(QStringLiteral("searcher")).toString();
            QVERIFY2(!o.contains(QStringLiteral("error")), qPrintable(name + QStringLiteral(": ") +
                                                                      o.value(QStringLiteral("error")).toString()));
            tapas::Result<tapas::SearchResult> core =
                tapas::searchBestMesh(*tapas::findSearcher(name.toStdString()), request, meshes);
            QVERIFY2(core.ok(), core.error().c_str());
            const tapas::CostTerms& t = core->best.report.total;
            const QString mesh = QString::fromStdString(core->best.plan.mesh.toString());
            QCOMPARE(o.value(QStringLiteral("mesh")).toString(), mesh);
            QVERIFY2(close(o.value(QStringLiteral("step_time_s")).toDouble(), t.time()), qPrintable(name));
            QVERIFY2(close(o.value(QStringLiteral("memory_bytes_per_device")).toDouble(), t.memory()), qPrintable(name));
            QVERIFY2(close(o.value(QStringLiteral("comm_bytes_per_step")).toDouble(), t.commBytes), qPrintable(name));
            QCOMPARE(core->best.plan.mesh.size(), 16);
            stepTime[name] = t.time();
            if (name == QLatin1String("tapas")) {
                tapasCollectives = core->best.plan.reshards.size();
                tapasMesh = mesh;
            }
        }
        QVERIFY(stepTime.at(QStringLiteral("tapas")) <= stepTime.at(QStringLiteral("megatron")) * (1 + 1e-9));
        QVERIFY(stepTime.at(QStringLiteral("tapas")) <= stepTime.at(QStringLiteral("dp")) * (1 + 1e-9));
        // TAPAS's mesh is the fastest: no other mesh gives TAPAS a shorter step.
        for (const tapas::DeviceMesh& m : meshes) {
            request.mesh = m;
            tapas::Result<tapas::SearchResult> one = tapas::findSearcher("tapas")->search(request);
            if (!one) continue; // a mesh whose dp does not divide the batch
            QVERIFY2(one->best.report.total.time() >= stepTime.at(QStringLiteral("tapas")) * (1 - 1e-9),
                     m.toString().c_str());
        }
        // The text output names the same mesh and the same number of collectives.
        const Run text = runTapas(args + QStringList{QStringLiteral("--searchers"), QStringLiteral("tapas")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("plan by tapas on mesh %1 (dp x tp)").arg(tapasMesh)), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("collectives per step: %1,").arg(tapasCollectives)), qPrintable(out));
    }

    // An If on data is priced as its dearer branch, and the search says so: in the text and in
    // the JSON's pricing_notes. A model without one has no note.
    void an_if_on_data_is_named_in_the_pricing_notes()
    {
        const QString jarvis = QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/corpus/oww_hey_jarvis.onnx");
        const QStringList args{QStringLiteral("search"), jarvis, QStringLiteral("--cluster"), QStringLiteral("cpu-mpi"),
                               QStringLiteral("--mesh"), QStringLiteral("1x2")};
        const Run text = runTapas(args);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(QString::fromUtf8(text.out).contains(QStringLiteral("pricing: If 'If_32': its condition is known only when it runs")),
                 text.out.constData());
        const Run json = runTapas(args + QStringList{QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonArray plans = QJsonDocument::fromJson(json.out).object().value(QStringLiteral("plans")).toArray();
        QVERIFY(!plans.isEmpty());
        const QJsonArray notes = plans.first().toObject().value(QStringLiteral("pricing_notes")).toArray();
        QCOMPARE(notes.size(), 1);
        QVERIFY(notes.first().toString().contains(QStringLiteral("dearer branch")));
        const Run gpt = runTapas(searchArgs({QStringLiteral("--searchers"), QStringLiteral("tapas")}));
        QVERIFY2(gpt.exitCode == 0, gpt.err.constData());
        QVERIFY(!QString::fromUtf8(gpt.out).contains(QStringLiteral("pricing:")));
    }

    // --assume-branch prices such an If as the branch the workload states: a cheaper step when
    // that is the Identity branch, the note saying it was assumed; a value it cannot mean is
    // refused, naming it.
    void assume_branch_prices_an_if_on_data_as_the_stated_branch()
    {
        const QString jarvis = QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/corpus/oww_hey_jarvis.onnx");
        const QStringList args{QStringLiteral("search"), jarvis, QStringLiteral("--cluster"), QStringLiteral("cpu-mpi"),
                               QStringLiteral("--mesh"), QStringLiteral("1x2"), QStringLiteral("--searchers"), QStringLiteral("tapas"),
                               QStringLiteral("--json")};
        auto stepOf = [](const Run& r) {
            const QJsonObject best = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("plans")).toArray().first().toObject();
            return std::make_pair(best.value(QStringLiteral("step_time_s")).toDouble(),
                                  best.value(QStringLiteral("pricing_notes")).toArray().first().toString());
        };
        const Run dearer = runTapas(args);
        const Run assumed = runTapas(args + QStringList{QStringLiteral("--assume-branch"), QStringLiteral("If_32=else")});
        QVERIFY2(dearer.exitCode == 0, dearer.err.constData());
        QVERIFY2(assumed.exitCode == 0, assumed.err.constData());
        const auto [dearerStep, dearerNote] = stepOf(dearer);
        const auto [elseStep, elseNote] = stepOf(assumed);
        QVERIFY2(dearerStep > 0 && elseStep > 0 && elseStep < dearerStep, assumed.out.constData());
        QVERIFY2(elseNote.contains(QStringLiteral("priced as its else branch, as the workload assumes")), qPrintable(elseNote));
        QVERIFY2(dearerNote.contains(QStringLiteral("--assume-branch If_32=then|else")), qPrintable(dearerNote));
        const Run bad = runTapas(args + QStringList{QStringLiteral("--assume-branch"), QStringLiteral("Gemm_1=then")});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(QString::fromUtf8(bad.out + bad.err).contains(QStringLiteral("node 'Gemm_1' is a Gemm, not an If")),
                 (bad.out + bad.err).constData());
    }

    void bad_mesh_and_cluster_name_the_field()
    {
        const Run mesh = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("3x4")}));
        QCOMPARE(mesh.exitCode, 2);
        QVERIFY2(mesh.err.contains("3x4") && mesh.err.contains("16"), mesh.err.constData());
        const Run batch = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("16x1"), QStringLiteral("--searchers"),
                                               QStringLiteral("tapas")}));
        QCOMPARE(batch.exitCode, 1);
        QVERIFY2(batch.err.contains("does not divide the batch 8"), batch.err.constData());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad_cluster.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name":"x","nodes":1,"devices_per_node":0})");
        f.close();
        Run cluster = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), path});
        QCOMPARE(cluster.exitCode, 2);
        QVERIFY2(cluster.err.contains("bad_cluster.json") && cluster.err.contains("devices_per_node"), cluster.err.constData());
    }

    // A DPxPPxTP mesh plans stages: the text lists each stage, the plan file keeps them and
    // `tapas plan check` prints them again; a file whose stages miss blocks of the chain is refused.
    void pipeline_stages_are_printed_saved_and_checked()
    {
        QTemporaryDir dir;
        const QString plan = dir.filePath(QStringLiteral("staged.tapas.json"));
        const Run r = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("2x2x4"), QStringLiteral("--searchers"),
                                           QStringLiteral("tapas"), QStringLiteral("--micro-batch"), QStringLiteral("2"),
                                           QStringLiteral("--recompute"), QStringLiteral("selective"), QStringLiteral("--virtual-stages"),
                                           QStringLiteral("1"), QStringLiteral("-o"), plan}));
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("plan by tapas on mesh 2x2x4 (dp x pp x tp)")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("pipeline: 2 stage(s) on pp 2, 2 micro-batch(es) of 2")), qPrintable(out));
        // The bubble: (p-1)/(m+p-1) = 1/3 for equal stages, less when the slowest stage sets the pace.
        const QRegularExpressionMatch bubble = QRegularExpression(QStringLiteral("bubble ([0-9.]+)%")).match(out);
        QVERIFY2(bubble.hasMatch(), qPrintable(out));
        QVERIFY2(bubble.captured(1).toDouble() > 5 && bubble.captured(1).toDouble() <= 33.4, qPrintable(out));
        int stages = 0;
        for (const QString& line : out.split(QLatin1Char('\n')))
            if (line.contains(QStringLiteral(" selective ")) && line.contains(QStringLiteral(" GB"))) ++stages;
        QCOMPARE(stages, 2);
        const Run check = runTapas({QStringLiteral("plan"), QStringLiteral("check"), plan, sampleGpt(), QStringLiteral("--dim"),
                                    QStringLiteral("batch=8"), QStringLiteral("--dim"), QStringLiteral("seq=1024")});
        QCOMPARE(check.exitCode, 0);
        QVERIFY2(check.out.contains("plan ok: mesh 2x2x4") && check.out.contains("pipeline: 2 stage(s)"), check.out.constData());
        // Stages that stop short of the chain's end.
        QFile f(plan);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QJsonObject pipeline = doc.value(QStringLiteral("pipeline")).toObject();
        QJsonArray st = pipeline.value(QStringLiteral("stages")).toArray();
        QJsonObject last = st.last().toObject();
        last.insert(QStringLiteral("end_block"), last.value(QStringLiteral("end_block")).toInt() - 1);
        st.replace(st.size() - 1, last);
        pipeline.insert(QStringLiteral("stages"), st);
        doc.insert(QStringLiteral("pipeline"), pipeline);
        const QString cut = dir.filePath(QStringLiteral("cut.tapas.json"));
        QFile g(cut);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(QJsonDocument(doc).toJson());
        g.close();
        const Run bad = runTapas({QStringLiteral("plan"), QStringLiteral("check"), cut, sampleGpt(), QStringLiteral("--dim"),
                                  QStringLiteral("batch=8"), QStringLiteral("--dim"), QStringLiteral("seq=1024")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("pipeline.stages") && bad.err.contains("chain has"), bad.err.constData());
        // A mode that does not exist is refused naming the option.
        const Run mode = runTapas(searchArgs({QStringLiteral("--pipeline"), QStringLiteral("--recompute"), QStringLiteral("some")}));
        QCOMPARE(mode.exitCode, 2);
        QVERIFY2(mode.err.contains("--recompute 'some'"), mode.err.constData());
    }

    // `tapas plan check` answers whether tapas-worker can train a plan: plans with interleaved
    // stages (two per pipeline rank) and without pass; the interleaved schedule takes the
    // micro-batches in groups of pp, so the interleaved plan edited to one micro-batch is refused
    // with the worker's own reason naming the field and the file.
    void plan_check_accepts_interleaved_stages_in_groups_of_pp()
    {
        QTemporaryDir dir;
        const QStringList check = {QStringLiteral("--dim"), QStringLiteral("batch=8"), QStringLiteral("--dim"), QStringLiteral("seq=1024")};
        for (const char* v : {"2", "1"}) {
            const QString plan = dir.filePath(QStringLiteral("v%1.tapas.json").arg(QLatin1String(v)));
            const Run r = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("4x2x2"), QStringLiteral("--searchers"),
                                               QStringLiteral("tapas"), QStringLiteral("--micro-batch"), QStringLiteral("1"),
                                               QStringLiteral("--virtual-stages"), QLatin1String(v),
                                               QStringLiteral("--no-distributed-optimizer"), QStringLiteral("-o"), plan}));
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY2(r.out.contains(QStringLiteral("%1 virtual stage(s) per rank").arg(QLatin1String(v)).toUtf8()), r.out.constData());
            QVERIFY2(r.out.contains("distributed optimizer no"), r.out.constData());
            const Run c = runTapas(QStringList{QStringLiteral("plan"), QStringLiteral("check"), plan, sampleGpt()} + check);
            QVERIFY2(c.exitCode == 0, c.err.constData());
            QVERIFY2(c.out.contains("plan ok: mesh 4x2x2"), c.out.constData());
            if (QLatin1String(v) != QLatin1String("2")) continue;
            QFile f(plan);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
            f.close();
            QJsonObject pipeline = doc.value(QStringLiteral("pipeline")).toObject();
            QCOMPARE(pipeline.value(QStringLiteral("micro_batches")).toInt(), 2);
            pipeline[QStringLiteral("micro_batches")] = 1;
            pipeline[QStringLiteral("micro_batch_size")] = 2;
            doc[QStringLiteral("pipeline")] = pipeline;
            const QString uneven = dir.filePath(QStringLiteral("uneven.tapas.json"));
            QFile out(uneven);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QJsonDocument(doc).toJson());
            out.close();
            const Run u = runTapas(QStringList{QStringLiteral("plan"), QStringLiteral("check"), uneven, sampleGpt()} + check);
            QCOMPARE(u.exitCode, 2);
            QVERIFY2(u.err.contains("pipeline.micro_batches") && u.err.contains("groups of pp (2)") &&
                         u.err.contains("uneven.tapas.json"),
                     u.err.constData());
        }
    }

    // The workload is explicit: a --dim the model does not have is refused listing its dims, and
    // a search whose cost depends on unbound dims stops naming them. With --json, stdout is JSON
    // on failure too.
    void workload_errors_name_the_dims_and_json_errors_are_json()
    {
        const QString a100 = QStringLiteral("a100x8");
        const Run foo = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), a100, QStringLiteral("--dim"),
                                  QStringLiteral("foo=3"), QStringLiteral("--dim"), QStringLiteral("batch=8")});
        QCOMPARE(foo.exitCode, 2);
        QVERIFY2(foo.err.contains("--dim foo=3") && foo.err.contains("batch, seq"), foo.err.constData());
        const Run unbound = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), a100});
        QCOMPARE(unbound.exitCode, 1);
        QVERIFY2(unbound.err.contains("not bound") && unbound.err.contains("'batch'") && unbound.err.contains("'seq'"),
                 unbound.err.constData());
        QVERIFY2(unbound.out.isEmpty(), unbound.out.constData());
        const Run json = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), a100, QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 1);
        QJsonParseError pe;
        const QJsonObject doc = QJsonDocument::fromJson(json.out, &pe).object();
        QVERIFY2(pe.error == QJsonParseError::NoError, json.out.constData());
        QVERIFY2(doc.value(QStringLiteral("error")).toString().contains(QStringLiteral("not bound")), json.out.constData());
        QCOMPARE(doc.value(QStringLiteral("exit_code")).toInt(), 1);
        const Run badJson = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), a100, QStringLiteral("--json"),
                                      QStringLiteral("--dim"), QStringLiteral("foo=3")});
        QCOMPARE(badJson.exitCode, 2);
        QVERIFY2(QJsonDocument::fromJson(badJson.out).object().value(QStringLiteral("error")).toString().contains(QStringLiteral("foo=3")),
                 badJson.out.constData());
    }

    // One sample a step on two nodes of 8: data parallelism cannot split it, so the only plans
    // are on the 1x16 mesh, whose tensor-parallel group spans the nodes (at the inter-node cost).
    void tensor_parallelism_may_span_nodes()
    {
        const Run r = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), QStringLiteral("h100x16"),
                                QStringLiteral("--batch"), QStringLiteral("1"), QStringLiteral("--dim"), QStringLiteral("seq=1024"),
                                QStringLiteral("--searchers"), QStringLiteral("tapas,megatron"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray plans = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("plans")).toArray();
        QCOMPARE(plans.size(), 2);
        QCOMPARE(plans.at(0).toObject().value(QStringLiteral("mesh")).toString(), QStringLiteral("1x16"));
        // Megatron-LM gives each rank whole heads: 16 ranks cannot share the sample's 8, and at one
        // sample no other mesh runs, so its entry says why instead of a plan.
        const QJsonObject megatron = plans.at(1).toObject();
        QVERIFY(!megatron.contains(QStringLiteral("mesh")));
        QVERIFY2(megatron.value(QStringLiteral("error")).toString().contains(QStringLiteral("16 does not divide the 8 heads")),
                 qPrintable(megatron.value(QStringLiteral("error")).toString()));
        // At one sample TAPAS keeps the small model whole on every device, and says so.
        const QJsonObject tapas = plans.at(0).toObject();
        QCOMPARE(tapas.value(QStringLiteral("effective_devices")).toDouble(), 1.0);
        const QString warnings = QString::fromUtf8(QJsonDocument(tapas.value(QStringLiteral("warnings")).toArray()).toJson());
        QVERIFY2(warnings.contains(QStringLiteral("computes the same thing")) && warnings.contains(QStringLiteral("does not divide the batch 1")),
                 qPrintable(warnings));
    }
};

QTEST_GUILESS_MAIN(TstCliSearch)
#include "tst_cli_search.moc"
