// Plan exporters: every format writes deterministic files that match the expected outputs
// checked into tests/data/export/ (a 2-layer zoo GPT on the 2-node h100x16 preset, Megatron
// plan on mesh 2x8); shell scripts pass `bash -n` and shellcheck, the DTensor file passes
// py_compile; hostile host names are refused and paths with spaces and quotes reach the worker
// intact (the launch script is run against a fake mpirun that records its arguments).
//
// To regenerate the expected outputs after an intended change of a format:
//   TAPAS_UPDATE_EXPECTED=1 ./tst_plan_export     (then review `git diff tests/data/export`)
#include "core/onnx/onnx_importer.h"
#include "core/plan/export_common.h"
#include "core/plan/plan_editor.h"
#include "core/search/pipeline_sweep.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_plan.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace tapas;

namespace {

const char* kModelPath = "/shared/models/gpt 2 layers/it's \"tiny\".onnx";

struct Fixture {
    Graph g;
    FoldedGraph folded;
    ClusterSpec cluster;
    SearchResult result;
    ExportInput in;
    ExportOptions options;

    Fixture()
    {
        ZooOptions o;
        o.layers = 2;
        o.hidden = 256;
        o.heads = 8;
        o.seq = 64;
        o.batch = 8;
        o.vocab = 1024;
        g = *zooGraph("gpt", o);
        folded = *foldGraph(g);
        cluster = *loadClusterSpec("h100x16");
        result = testing::searchPlan(g, cluster, {2, 8}, "megatron");
        in.graph = &g;
        in.folded = &folded;
        in.plan = &result.best.plan;
        in.cluster = &cluster;
        in.report = &result.best.report;
        in.provenance = {"megatron", "test", 0};
        options.hosts = {"gpu-a.example", "gpu-b.example"};
        options.workerPath = "/opt/tapas/bin/tapas-worker";
        options.modelPath = kModelPath;
        options.planPath = "/shared/plans/gpt2.tapas.json";
        options.steps = 50;
    }

    ExportFiles write(const std::string& format) const
    {
        const PlanExporter* e = findPlanExporter(format);
        if (!e) qFatal("no exporter '%s'", format.c_str());
        Result<ExportFiles> f = e->write(in, options);
        if (!f) qFatal("export %s: %s", format.c_str(), f.error().c_str());
        return *f;
    }
};

QString expectedDir() { return QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/export"); }

QByteArray bytes(const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); }

struct Run {
    int code = -1;
    QString output;
};

Run run(const QString& program, const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(60000)) return {-1, QStringLiteral("did not finish")};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

const QString kPython = QStringLiteral("/usr/bin/python3");

// Loads dtensor_plan.py from `dir` in /usr/bin/python3 and builds its plan; on a torch without
// DTensor (1.13 has none) the style classes are stood in by recorders. With model "encoder" each
// styled path is looked up in a real torch nn.TransformerEncoder (d 256, 4 heads, FFN 1024, 12
// layers, as scripts/make_corpus.py builds it) and must be an nn.Linear or nn.Embedding.
Run checkPlanInPython(const QTemporaryDir& dir, const QString& model)
{
    const char* script = R"PY(
import importlib.util, sys, types
try:
    import torch.distributed.tensor.parallel  # noqa: F401
except ImportError:
    par = types.ModuleType("torch.distributed.tensor.parallel")
    for name in ("ColwiseParallel", "RowwiseParallel", "SequenceParallel"):
        setattr(par, name, type(name, (), {"__init__": lambda self, **kw: None}))
    ten = types.ModuleType("torch.distributed.tensor")
    ten.Replicate = type("Replicate", (), {})
    ten.parallel = par
    sys.modules["torch.distributed.tensor"] = ten
    sys.modules["torch.distributed.tensor.parallel"] = par
spec = importlib.util.spec_from_file_location("dtensor_plan", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
plan = mod.tensor_parallel_plan()
if sys.argv[2] == "encoder":
    import torch
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
    for path, style in plan.items():
        m = model.get_submodule(path)
        if type(style).__name__ in ("ColwiseParallel", "RowwiseParallel"):
            assert isinstance(m, (torch.nn.Linear, torch.nn.Embedding)), (path, type(m).__name__)
print("plan %d entries" % len(plan))
)PY";
    QFile f(dir.filePath(QStringLiteral("check_plan.py")));
    if (!f.open(QIODevice::WriteOnly)) return {-1, QStringLiteral("cannot write check_plan.py")};
    f.write(script);
    f.close();
    return run(kPython, {f.fileName(), dir.filePath(QStringLiteral("dtensor_plan.py")), model});
}

} // namespace

class TstPlanExport : public QObject {
    Q_OBJECT
private slots:
    void every_format_is_registered_once()
    {
        QStringList names;
        for (const auto& e : planExporters()) names << QString::fromStdString(e->name());
        QCOMPARE(names, (QStringList{"plan", "mpirun", "slurm", "dtensor", "megatron", "dot", "svg", "png"}));
        QVERIFY(findPlanExporter("slurm"));
        QVERIFY(!findPlanExporter("yaml"));
    }

    void exported_files_match_the_checked_in_expected_outputs()
    {
        Fixture f;
        const bool update = qEnvironmentVariableIntValue("TAPAS_UPDATE_EXPECTED") == 1;
        int compared = 0;
        for (const char* format : {"plan", "mpirun", "slurm", "dtensor", "megatron", "dot"}) {
            const ExportFiles files = f.write(format);
            QVERIFY(!files.empty());
            QCOMPARE(f.write(format), files); // deterministic: a second export is byte-identical
            for (const auto& [name, content] : files) {
                QFile file(expectedDir() + "/" + QString::fromStdString(name));
                if (update) {
                    QDir().mkpath(expectedDir());
                    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
                    file.write(bytes(content));
                    continue;
                }
                QVERIFY2(file.open(QIODevice::ReadOnly),
                         qPrintable("missing expected output " + file.fileName() + " (run with TAPAS_UPDATE_EXPECTED=1)"));
                const QByteArray expected = file.readAll();
                QVERIFY2(expected == bytes(content), qPrintable(QStringLiteral("%1 differs from the expected output (format %2)")
                                                                    .arg(file.fileName(), QLatin1String(format))));
                ++compared;
            }
        }
        if (update) QSKIP("expected outputs rewritten; review git diff tests/data/export");
        QCOMPARE(compared, 7); // plan, hostfile + launch script, sbatch, python, megatron args, dot
    }

    void launch_scripts_pass_bash_n_and_shellcheck()
    {
        Fixture f;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ExportFiles all;
        for (const char* format : {"mpirun", "slurm", "megatron"}) all.merge(f.write(format));
        QVERIFY(writeExportFiles(dir.path().toStdString(), all).ok());
        QStringList scripts;
        for (const auto& [name, content] : all)
            if (QString::fromStdString(name).endsWith(QLatin1String(".sh"))) scripts << dir.filePath(QString::fromStdString(name));
        QCOMPARE(scripts.size(), 3);
        for (const QString& s : scripts) {
            QVERIFY2(QFileInfo(s).isExecutable(), qPrintable(s));
            const Run r = run(QStringLiteral("bash"), {QStringLiteral("-n"), s});
            QVERIFY2(r.code == 0, qPrintable(s + ": " + r.output));
        }
        const QString shellcheck = QStandardPaths::findExecutable(QStringLiteral("shellcheck"));
        if (shellcheck.isEmpty()) QSKIP("shellcheck is not installed");
        for (const QString& s : scripts) {
            const Run r = run(shellcheck, {QStringLiteral("--shell=bash"), s});
            QVERIFY2(r.code == 0, qPrintable(s + ":\n" + r.output));
        }
    }

    // The zoo GPT is GPT-2 as transformers writes it: its projections are Conv1D modules (weight
    // stored [in, out]), which parallelize_module cannot shard, so they are named, not styled; the
    // word embedding is an nn.Embedding and the tied head an nn.Linear, column-parallel as
    // Megatron-LM runs it (parallel_lm_logits). The file loads and builds its plan without DTensor.
    void dtensor_plan_styles_only_linear_and_embedding_modules()
    {
        Fixture f;
        const ExportFiles files = f.write("dtensor");
        const std::string& py = files.at("dtensor_plan.py");
        QVERIFY2(py.find("plan[\"transformer.wte\"] = RowwiseParallel(input_layouts=Replicate())") != std::string::npos, py.c_str());
        QVERIFY2(py.find("# transformer.h.1.attn.c_proj: the plan splits it 'row', but it is a Conv1D-style module") !=
                     std::string::npos, py.c_str());
        QVERIFY2(py.find("c_attn\"] = ") == std::string::npos, py.c_str());
        QVERIFY2(py.find("plan[\"lm_head\"] = ColwiseParallel()") != std::string::npos, py.c_str());
        QVERIFY2(py.find("init_device_mesh(device_type, (DP_SIZE, TP_SIZE)") != std::string::npos, py.c_str());
        QTemporaryDir dir;
        QVERIFY(writeExportFiles(dir.path().toStdString(), files).ok());
        if (!QFileInfo::exists(kPython)) QSKIP("/usr/bin/python3 is not installed");
        const Run r = run(kPython, {QStringLiteral("-m"), QStringLiteral("py_compile"), dir.filePath(QStringLiteral("dtensor_plan.py"))});
        QVERIFY2(r.code == 0, qPrintable(r.output));
        const Run built = checkPlanInPython(dir, QStringLiteral("none"));
        QVERIFY2(built.code == 0 && built.output.contains(QStringLiteral("plan 2 entries")), qPrintable(built.output));
    }

    // A real torch export (nn.TransformerEncoder, 12 layers, 4 heads): the Megatron plan's
    // row-parallel out_proj shares its scope with the attention and is kept; the packed
    // in-projection (a raw parameter of nn.MultiheadAttention) is named, and out_proj then takes
    // its input whole; tied layers (equal initializers merged by the exporter) export every layer.
    // Python builds the plan against torch's own modules: every styled path is a Linear.
    void dtensor_plan_of_a_real_encoder_names_real_modules_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("own weights") << QStringLiteral("encoder_12l.onnx");
        QTest::newRow("tied weights") << QStringLiteral("encoder_12l_equal_init.onnx");
    }
    void dtensor_plan_of_a_real_encoder_names_real_modules()
    {
        QFETCH(QString, file);
        ImportOptions io;
        io.dims = {{"batch", 8}, {"seq", 128}};
        const Result<Graph> g = importOnnxFile(std::string(TAPAS_SOURCE_DIR) + "/tests/data/corpus/" + file.toStdString(), io);
        QVERIFY2(g.ok(), g.error().c_str());
        const FoldedGraph folded = *foldGraph(*g);
        Fixture f;
        const SearchResult m = testing::searchPlan(*g, f.cluster, {4, 4}, "megatron");
        ExportInput in = f.in;
        in.graph = &*g;
        in.folded = &folded;
        in.plan = &m.best.plan;
        in.report = &m.best.report;
        const Result<ExportFiles> files = findPlanExporter("dtensor")->write(in, f.options);
        QVERIFY2(files.ok(), files.error().c_str());
        const std::string& py = files->at("dtensor_plan.py");
        QVERIFY2(py.find("for i in range(0, 12):") != std::string::npos, py.c_str());
        QVERIFY2(py.find("plan[f\"layers.{i}.self_attn.out_proj\"] = RowwiseParallel(input_layouts=Replicate())") != std::string::npos, py.c_str());
        QVERIFY2(py.find("plan[f\"layers.{i}.linear1\"] = ColwiseParallel()") != std::string::npos, py.c_str());
        QVERIFY2(py.find("plan[f\"layers.{i}.linear2\"] = RowwiseParallel()") != std::string::npos, py.c_str());
        QVERIFY2(py.find("# layers.0.self_attn: the plan splits it 'column', but it is a raw parameter 'in_proj_bias'") !=
                     std::string::npos, py.c_str());
        QVERIFY2(py.find("self_attn\"] = ") == std::string::npos, py.c_str()); // no style on nn.MultiheadAttention
        if (!QFileInfo::exists(kPython)) QSKIP("/usr/bin/python3 is not installed");
        QTemporaryDir dir;
        QVERIFY(writeExportFiles(dir.path().toStdString(), *files).ok());
        const Run r = checkPlanInPython(dir, QStringLiteral("encoder"));
        if (r.output.contains(QStringLiteral("No module named 'torch'"))) QSKIP("python3-torch is not installed");
        QVERIFY2(r.code == 0 && r.output.contains(QStringLiteral("plan 36 entries")), qPrintable(r.output));
    }

    void hostile_host_names_are_refused_naming_host_and_position()
    {
        Fixture f;
        for (const char* bad : {"a b", "x;rm -rf /", "$(id)", "-oProxyCommand=id", "`id`", "a\nb", ""}) {
            for (const char* format : {"mpirun", "slurm"}) {
                ExportOptions o = f.options;
                o.hosts = {"good-host", bad};
                Result<ExportFiles> r = findPlanExporter(format)->write(f.in, o);
                QVERIFY2(!r.ok(), bad);
                QVERIFY2(r.error().find("position 2") != std::string::npos, r.error().c_str());
                QVERIFY2(r.error().find("not a plain host name") != std::string::npos, r.error().c_str());
                if (std::string(bad).find('\n') == std::string::npos)
                    QVERIFY2(r.error().find(std::string("'") + bad + "'") != std::string::npos, r.error().c_str());
            }
        }
    }

    void too_few_hosts_and_control_characters_are_refused()
    {
        Fixture f;
        ExportOptions o = f.options;
        o.hosts = {"only-one"};
        Result<ExportFiles> r = findPlanExporter("mpirun")->write(f.in, o);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("needs 16 ranks") != std::string::npos && r.error().find("1 host") != std::string::npos, r.error().c_str());
        o = f.options;
        o.modelPath = "/data/x\n rm -rf /";
        r = findPlanExporter("slurm")->write(f.in, o);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("model path") != std::string::npos && r.error().find("control character") != std::string::npos,
                 r.error().c_str());
        o = f.options;
        o.jobName = "job;id";
        QVERIFY(!findPlanExporter("slurm")->write(f.in, o).ok());
    }

    void paths_with_spaces_and_quotes_reach_the_worker_intact()
    {
        Fixture f;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(writeExportFiles(dir.path().toStdString(), f.write("mpirun")).ok());
        const std::string script = f.write("mpirun").at("launch_mpirun.sh");
        QVERIFY2(script.find(shellQuote(kModelPath)) != std::string::npos, script.c_str());
        // A stand-in mpirun that records its arguments, one per line.
        const QString fake = dir.filePath(QStringLiteral("fake mpirun.sh"));
        const QString log = dir.filePath(QStringLiteral("args.txt"));
        QFile stub(fake);
        QVERIFY(stub.open(QIODevice::WriteOnly));
        stub.write("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \"$ARGS_LOG\"\n");
        stub.close();
        stub.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MPIRUN"), fake);
        env.insert(QStringLiteral("ARGS_LOG"), log);
        env.insert(QStringLiteral("NCCL_SOCKET_IFNAME"), QStringLiteral("eth0"));
        const Run r = run(QStringLiteral("bash"), {dir.filePath(QStringLiteral("launch_mpirun.sh"))}, env);
        QVERIFY2(r.code == 0, qPrintable(r.output));
        QFile args(log);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList a = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'));
        auto after = [&](const char* flag) {
            const qsizetype i = a.indexOf(QLatin1String(flag));
            return i >= 0 && i + 1 < a.size() ? a[i + 1] : QString();
        };
        QCOMPARE(after("-np"), QStringLiteral("16"));
        QCOMPARE(after("--hostfile"), dir.filePath(QStringLiteral("hostfile")));
        QCOMPARE(after("--model"), QString::fromUtf8(kModelPath));
        QCOMPARE(after("--plan"), QStringLiteral("/shared/plans/gpt2.tapas.json"));
        QCOMPARE(after("--steps"), QStringLiteral("50"));
        QVERIFY(a.contains(QStringLiteral("/opt/tapas/bin/tapas-worker")));
        QVERIFY(a.contains(QStringLiteral("NCCL_SOCKET_IFNAME"))); // NCCL_* of the caller passed with -x
        QVERIFY(a.contains(QStringLiteral("NCCL_DEBUG")));
        QCOMPARE(f.write("mpirun").at("hostfile").substr(f.write("mpirun").at("hostfile").find("gpu-a")),
                 std::string("gpu-a.example slots=8\ngpu-b.example slots=8\n"));
    }

    // A relative plan or model path names a file next to the script: run from another folder,
    // the worker still gets the file beside launch_mpirun.sh.
    void relative_paths_are_taken_next_to_the_launch_script()
    {
        Fixture f;
        f.options.planPath = "plan.tapas.json";
        f.options.modelPath = "my model.onnx";
        QTemporaryDir dir, elsewhere;
        QVERIFY(dir.isValid() && elsewhere.isValid());
        QVERIFY(writeExportFiles(dir.path().toStdString(), f.write("mpirun")).ok());
        const QString fake = dir.filePath(QStringLiteral("fake-mpirun.sh"));
        const QString log = dir.filePath(QStringLiteral("args.txt"));
        QFile stub(fake);
        QVERIFY(stub.open(QIODevice::WriteOnly));
        stub.write("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \"$ARGS_LOG\"\n");
        stub.close();
        stub.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MPIRUN"), fake);
        env.insert(QStringLiteral("ARGS_LOG"), log);
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(elsewhere.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("bash"), {dir.filePath(QStringLiteral("launch_mpirun.sh"))});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAll().constData());
        QFile args(log);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList a = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'));
        const qsizetype plan = a.indexOf(QStringLiteral("--plan")), model = a.indexOf(QStringLiteral("--model"));
        QVERIFY(plan >= 0 && model >= 0);
        QCOMPARE(a[plan + 1], QDir(dir.path()).canonicalPath() + QStringLiteral("/plan.tapas.json"));
        QCOMPARE(a[model + 1], QDir(dir.path()).canonicalPath() + QStringLiteral("/my model.onnx"));
    }

    void slurm_asks_for_gpus_only_on_a_gpu_cluster()
    {
        Fixture f;
        QVERIFY(f.write("slurm").at("launch_slurm.sh").find("#SBATCH --gpus-per-node=8\n") != std::string::npos);
        ClusterSpec cpu = *loadClusterSpec("cpu-mpi");
        QVERIFY(!cpu.gpu);
        QVERIFY(loadClusterSpec("h100x16")->gpu);
        cpu.nodes = 2;
        cpu.devicesPerNode = 8;
        f.in.cluster = &cpu;
        f.in.report = nullptr;
        const std::string s = f.write("slurm").at("launch_slurm.sh");
        QVERIFY2(s.find("--gpus") == std::string::npos, s.c_str());
        QVERIFY(s.find("#SBATCH --ntasks-per-node=8\n") != std::string::npos);
        // A cluster file says which it is, and nothing else is accepted.
        QVERIFY(parseClusterSpec(clusterSpecToJson(cpu), "x").value().gpu == false);
        std::string bad = clusterSpecToJson(cpu);
        bad.replace(bad.find("\"cpu\""), 5, "\"tpu\"");
        const Result<ClusterSpec> r = parseClusterSpec(bad, "bad.json");
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("accelerator") != std::string::npos, r.error().c_str());
    }

    // The Megatron arguments are the full runnable set for pretrain_gpt.py, flag names as
    // megatron/training/arguments.py spells them, the shape read from the model.
    void megatron_export_writes_the_runnable_argument_set()
    {
        Fixture f;
        const std::string a = f.write("megatron").at("megatron_args.sh");
        for (const char* line : {"    --num-layers 2\n", "    --hidden-size 256\n", "    --num-attention-heads 8\n",
                                 "    --ffn-hidden-size 1024\n", "    --seq-length 64\n", "    --max-position-embeddings 1024\n",
                                 "    --vocab-size 1024\n", "    --make-vocab-size-divisible-by 128\n",
                                 "    --tensor-model-parallel-size 8\n", "    --pipeline-model-parallel-size 1\n",
                                 "    --micro-batch-size 4\n", "    --global-batch-size 8\n", "    --train-iters 50\n",
                                 "    --tokenizer-type NullTokenizer\n", "    --mock-data\n"})
            QVERIFY2(a.find(line) != std::string::npos, line);
        QVERIFY(a.find("--sequence-parallel") == std::string::npos); // the plan runs no norm split
        QVERIFY(a.find("--untie-embeddings-and-output-weights") == std::string::npos); // the zoo GPT ties its head
        QVERIFY(a.find("MEGATRON_ARGS=(") != std::string::npos);
        // GPT-2's vocabulary on tp 4 is padded as Megatron-LM pads it, and the baseline's own plan exports.
        ZooOptions o;
        o.layers = 2;
        o.hidden = 256;
        o.heads = 8;
        o.seq = 64;
        o.batch = 8;
        o.vocab = 50257;
        const Graph g = *zooGraph("gpt", o);
        const FoldedGraph folded = *foldGraph(g);
        const SearchResult m = testing::searchPlan(g, f.cluster, {4, 4}, "megatron");
        ExportInput in = f.in;
        in.graph = &g;
        in.folded = &folded;
        in.plan = &m.best.plan;
        in.report = &m.best.report;
        const Result<ExportFiles> padded = findPlanExporter("megatron")->write(in, f.options);
        QVERIFY2(padded.ok(), padded.error().c_str());
        const std::string pa = padded->at("megatron_args.sh");
        QVERIFY(pa.find("    --vocab-size 50257\n") != std::string::npos);
        QVERIFY2(pa.find("pads it to 50688") != std::string::npos, pa.c_str());
        QVERIFY(pa.find("    --micro-batch-size 2\n") != std::string::npos);
    }

    // A TAPAS plan that pads GPT-2's 50,257-word table to 50,264 rows on tp 8: every export says
    // so. Megatron-LM's arguments pad it the same way (--make-vocab-size-divisible-by 1, a
    // multiple of 1 x tp), the DTensor plan pads the module's table (ties kept) before
    // parallelize_module, the graph names it, the plan file carries it. The files are compared
    // with tests/data/export/padded/ (TAPAS_UPDATE_EXPECTED=1 rewrites them).
    void padded_plan_exports_say_what_is_padded()
    {
        Fixture f;
        const Graph g = *zooGraph("gpt", {.layers = 1, .hidden = 2048, .heads = 16, .vocab = 50257, .seq = 1024, .batch = 8});
        const FoldedGraph folded = *foldGraph(g);
        const ClusterSpec cluster = *loadClusterSpec("a100x8");
        const SearchResult t = testing::searchPlan(g, cluster, {1, 8}, "tapas");
        QCOMPARE(t.best.plan.padding.size(), size_t(1));
        ExportInput in = f.in;
        in.graph = &g;
        in.folded = &folded;
        in.cluster = &cluster;
        in.plan = &t.best.plan;
        in.report = &t.best.report;
        in.provenance = {"tapas", "test", 0};
        ExportOptions options = f.options;
        options.hosts = {"gpu-a.example"};
        ExportFiles files;
        for (const char* format : {"plan", "dtensor", "megatron", "dot"}) {
            Result<ExportFiles> w = findPlanExporter(format)->write(in, options);
            QVERIFY2(w.ok(), w.ok() ? "" : w.error().c_str());
            files.merge(*w);
        }
        const std::string& args = files.at("megatron_args.sh");
        for (const char* line : {"    --vocab-size 50257\n", "    --make-vocab-size-divisible-by 1\n", "pads it, and Megatron-LM with it, to 50264",
                                 "'transformer.wte.weight' padded from 50257 to 50264 rows"})
            QVERIFY2(args.find(line) != std::string::npos, (line + std::string("\n---\n") + args).c_str());
        const std::string& py = files.at("dtensor_plan.py");
        for (const char* line : {"    \"transformer.wte.weight\": (50257, 50264),\n", "def pad_tables(model):", "    pad_tables(model)"})
            QVERIFY2(py.find(line) != std::string::npos, line);
        QVERIFY(files.at("plan_graph.dot").find("(table padded 50257 -> 50264 rows)") != std::string::npos);
        QVERIFY(files.at("plan.tapas.json").find("\"padded_rows\": 50264") != std::string::npos);
        // The Python pads a tied table in a real torch module and keeps the tie.
        QTemporaryDir dir;
        QVERIFY(writeExportFiles(dir.path().toStdString(), files).ok());
        const char* script = R"PY(
import importlib.util, sys
import torch
spec = importlib.util.spec_from_file_location("dtensor_plan", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
model = torch.nn.Module()
model.transformer = torch.nn.Module()
model.transformer.wte = torch.nn.Embedding(50257, 4)
model.lm_head = torch.nn.Linear(4, 50257, bias=False)
model.lm_head.weight = model.transformer.wte.weight
before = model.transformer.wte.weight.detach().clone()
mod.pad_tables(model)
w = model.transformer.wte.weight
assert w.shape == (50264, 4) and model.transformer.wte.num_embeddings == 50264
assert model.lm_head.weight is w
assert torch.equal(w[:50257], before) and not w[50257:].any()
print("padded ok")
)PY";
        QFile check(dir.filePath(QStringLiteral("check_pad.py")));
        QVERIFY(check.open(QIODevice::WriteOnly));
        check.write(script);
        check.close();
        const Run py3 = run(kPython, {check.fileName(), dir.filePath(QStringLiteral("dtensor_plan.py"))});
        QVERIFY2(py3.code == 0 && py3.output.contains(QStringLiteral("padded ok")), qPrintable(py3.output));

        const QString goldens = expectedDir() + QStringLiteral("/padded");
        const bool update = qEnvironmentVariableIntValue("TAPAS_UPDATE_EXPECTED") == 1;
        for (const auto& [name, content] : files) {
            QFile file(goldens + "/" + QString::fromStdString(name));
            if (update) {
                QDir().mkpath(goldens);
                QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
                file.write(bytes(content));
                continue;
            }
            QVERIFY2(file.open(QIODevice::ReadOnly),
                     qPrintable("missing expected output " + file.fileName() + " (run with TAPAS_UPDATE_EXPECTED=1)"));
            QVERIFY2(file.readAll() == bytes(content), qPrintable(file.fileName() + " differs from the expected output"));
        }
        if (update) QSKIP("expected padded outputs rewritten; review git diff tests/data/export/padded");
    }

    // pretrain_gpt.py trains decoder-only language models: a model without a word embedding
    // looked up by its inputs, or without vocabulary logits, is refused with what it lacks.
    // A plan with pipeline stages: the pipeline size, virtual stages, recomputation and the
    // distributed optimizer as Megatron-LM's arguments; what it cannot express is said.
    void megatron_export_writes_pipeline_stages_as_its_flags()
    {
        Fixture f;
        ShardingPlan staged = f.result.best.plan;
        staged.mesh.dp = 1;
        staged.mesh.pp = 2;
        staged.pipeline.microBatches = 4;
        staged.pipeline.microBatchSize = 2;
        staged.pipeline.distributedOptimizer = true;
        staged.pipeline.stages = {PipelineStage{0, 1, 0, Recompute::Full}, PipelineStage{1, 2, 1, Recompute::Full}};
        ExportInput in = f.in;
        in.plan = &staged;
        Result<ExportFiles> r = findPlanExporter("megatron")->write(in, f.options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const std::string a = r->at("megatron_args.sh");
        for (const char* line : {"    --pipeline-model-parallel-size 2\n", "    --recompute-granularity full\n",
                                 "    --recompute-method uniform\n", "    --use-distributed-optimizer\n",
                                 "    --micro-batch-size 2\n", "    --global-batch-size 8\n"})
            QVERIFY2(a.find(line) != std::string::npos, (line + a).c_str());
        QVERIFY(a.find("--num-layers-per-virtual-pipeline-stage") == std::string::npos);
        QVERIFY(a.find("differently per pipeline rank") == std::string::npos);
        // Mixed recomputation: the most recomputing granularity, said in a comment.
        staged.pipeline.stages[1].recompute = Recompute::Selective;
        r = findPlanExporter("megatron")->write(in, f.options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QVERIFY(r->at("megatron_args.sh").find("differently per pipeline rank") != std::string::npos);
        QVERIFY(r->at("megatron_args.sh").find("    --recompute-granularity full\n") != std::string::npos);
        // Two layers cannot be split into 2 ranks x 2 virtual stages of whole layers.
        staged.pipeline.virtualStages = 2;
        r = findPlanExporter("megatron")->write(in, f.options);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("splits the 2 layers evenly over pipeline size 2 x 2 virtual stages") != std::string::npos,
                 r.error().c_str());
    }

    // A plan with stages (pp 2 x tp 8 over the two nodes): the launch scripts say which rank is
    // which (pp, dp, tp) coordinate and which blocks of the folded chain each stage runs; the
    // files are compared with tests/data/export/staged/ (TAPAS_UPDATE_EXPECTED=1 rewrites them).
    void launch_scripts_map_ranks_to_pipeline_stages()
    {
        Fixture f;
        SearchRequest r;
        r.graph = &f.g;
        r.cluster = f.cluster;
        PipelineOptions o;
        o.tp = {8};
        o.pp = {2};
        o.microBatchSizes = {2};
        o.virtualStages = {1};
        o.recompute = Recompute::None;
        r.pipeline = o;
        const Result<SearchResult> res = searchPipelined(*findSearcher("megatron"), r);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().c_str());
        QCOMPARE(res->best.plan.mesh, (DeviceMesh{1, 8, 2}));
        const std::vector<PipelineStage>& st = res->best.plan.pipeline.stages;
        QCOMPARE(int(st.size()), 2);
        ExportInput in = f.in;
        in.plan = &res->best.plan;
        in.report = &res->best.report;
        ExportFiles files;
        for (const char* format : {"mpirun", "slurm"}) {
            Result<ExportFiles> w = findPlanExporter(format)->write(in, f.options);
            QVERIFY2(w.ok(), w.ok() ? "" : w.error().c_str());
            files.merge(*w);
        }
        auto stageLine = [&](int i, const char* ranks) {
            return "#  stage " + std::to_string(i) + ": blocks " + std::to_string(st[size_t(i)].firstBlock) + "-" +
                   std::to_string(st[size_t(i)].endBlock - 1) + " on pp " + std::to_string(i) + ", ranks " + ranks + "\n";
        };
        for (const char* script : {"launch_mpirun.sh", "launch_slurm.sh"}) {
            const std::string s = files.at(script);
            for (const std::string& line : {std::string("rank = (pp * 1 + dp) * 8 + tp"),
                                            std::string("#  gpu-a.example: ranks 0-7 (pp 0, dp 0, tp 0-7)\n"),
                                            std::string("#  gpu-b.example: ranks 8-15 (pp 1, dp 0, tp 0-7)\n"),
                                            std::string("1F1B over 4 micro-batch(es) of 2"), stageLine(0, "0-7"),
                                            stageLine(1, "8-15"), std::string("(dp 1 x pp 2 x tp 8)")})
                QVERIFY2(s.find(line) != std::string::npos, (line + "\n---\n" + s).c_str());
        }
        const QString dir = expectedDir() + QStringLiteral("/staged");
        const bool update = qEnvironmentVariableIntValue("TAPAS_UPDATE_EXPECTED") == 1;
        for (const char* name : {"launch_mpirun.sh", "launch_slurm.sh"}) {
            QFile file(dir + "/" + name);
            if (update) {
                QDir().mkpath(dir);
                QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
                file.write(bytes(files.at(name)));
                continue;
            }
            QVERIFY2(file.open(QIODevice::ReadOnly),
                     qPrintable("missing expected output " + file.fileName() + " (run with TAPAS_UPDATE_EXPECTED=1)"));
            QVERIFY2(file.readAll() == bytes(files.at(name)), qPrintable(file.fileName() + " differs from the expected output"));
        }
        if (update) QSKIP("expected staged outputs rewritten; review git diff tests/data/export/staged");
    }

    void megatron_export_refuses_models_the_gpt_script_cannot_train()
    {
        Fixture f;
        for (const char* model : {"bert", "resnet50"}) {
            ZooOptions o;
            o.batch = 16; // one sample per data-parallel replica
            if (std::string(model) == "bert") {
                o.layers = 2;
                o.hidden = 256;
                o.heads = 8;
                o.seq = 64;
                o.vocab = 1024;
            } else {
                o.depth = 18;
                o.imageSize = 64;
            }
            const Graph g = *zooGraph(model, o);
            const FoldedGraph folded = *foldGraph(g);
            const SearchResult m = testing::searchPlan(g, f.cluster, {16, 1}, "dp");
            ExportInput in = f.in;
            in.graph = &g;
            in.folded = &folded;
            in.plan = &m.best.plan;
            in.report = &m.best.report;
            const Result<ExportFiles> r = findPlanExporter("megatron")->write(in, f.options);
            QVERIFY2(!r.ok(), model);
            QVERIFY2(r.error().find("pretrain_gpt.py trains a decoder-only language model") != std::string::npos, r.error().c_str());
            const char* lacks = std::string(model) == "bert" ? "vocabulary logits" : "no word embedding";
            QVERIFY2(r.error().find(lacks) != std::string::npos, r.error().c_str());
        }
    }

    void megatron_export_explains_a_plan_it_cannot_express()
    {
        Fixture f;
        const CostModel model(f.g, f.cluster, f.result.best.plan.mesh);
        PlanEditor editor(f.g, &f.folded, model, f.result.best.plan);
        const NodeId fc = f.g.tensor(f.g.findTensor("transformer.h.0.mlp.c_fc.weight")).consumers.front();
        QVERIFY(editor.setStrategy(fc, "row", true).ok());
        ExportInput in = f.in;
        in.plan = &editor.plan();
        in.report = &editor.report();
        Result<ExportFiles> r = findPlanExporter("megatron")->write(in, f.options);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().find("not expressible") != std::string::npos, r.error().c_str());
        QVERIFY2(r.error().find(f.g.node(fc).name) != std::string::npos, r.error().c_str());
        QVERIFY2(r.error().find("'row' where Megatron-LM runs it 'column'") != std::string::npos, r.error().c_str());
        // The searched Megatron plan itself is expressible: tp 8, no sequence parallelism.
        const std::string args = f.write("megatron").at("megatron_args.sh");
        QVERIFY(args.find("--tensor-model-parallel-size 8\n") != std::string::npos);
        QVERIFY(args.find("MEGATRON_DATA_PARALLEL_SIZE=2\n") != std::string::npos);
    }

    void graph_renders_as_svg_and_png_with_collectives_on_edges()
    {
        Fixture f;
        const std::string dot = f.write("dot").at("plan_graph.dot");
        QVERIFY(dot.find("all-reduce") != std::string::npos);
        QVERIFY(dot.find("fillcolor=\"#8ecae6\"") != std::string::npos); // column-parallel ops
        const std::string svg = f.write("svg").at("plan_graph.svg");
        QVERIFY2(svg.find("<svg") != std::string::npos, svg.substr(0, 200).c_str());
        QVERIFY(svg.find("reduce") != std::string::npos); // Graphviz writes the dash as &#45;
        const std::string png = f.write("png").at("plan_graph.png");
        QVERIFY(png.size() > 1000);
        QCOMPARE(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    }

    void written_files_replace_old_ones_and_bad_names_are_refused()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/nested/out";
        QVERIFY(writeExportFiles(d, {{"a.txt", "one"}}).ok());
        QVERIFY(writeExportFiles(d, {{"a.txt", "two"}}).ok());
        QFile a(QString::fromStdString(d + "/a.txt"));
        QVERIFY(a.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), QByteArray("two"));
        QVERIFY(!writeExportFiles(d, {{"../escape.txt", "x"}}).ok());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("nested/escape.txt"))));
    }
};

QTEST_GUILESS_MAIN(TstPlanExport)
#include "tst_plan_export.moc"
