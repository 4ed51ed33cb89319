// Runs the real `tapas cluster calibrate` (mpirun + tapas-worker calibrate) with small sizes and
// checks that what it writes is a cluster spec the search would accept, with measured figures.
#include "core/cluster/cluster_spec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

class TstClusterCalibrate : public QObject {
    Q_OBJECT

private:
    struct Outcome {
        int exitCode = -1;
        QString out, err;
    };

    // Small GEMMs and messages so the whole measurement takes a few seconds.
    static QStringList quickOptions()
    {
        return {QStringLiteral("--gemm"), QStringLiteral("64x64x64,128x96x160"), QStringLiteral("--gemm-seconds"),
                QStringLiteral("0.05"), QStringLiteral("--family-seconds"), QStringLiteral("0.02"), QStringLiteral("--collective-seconds"),
                QStringLiteral("0.05"), QStringLiteral("--large-bytes"), QStringLiteral("65536"), QStringLiteral("--small-reps"),
                QStringLiteral("20"), QStringLiteral("--large-reps"), QStringLiteral("3")};
    }

    static Outcome tapas(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(TAPAS_BIN_DIR "/tapas"), QStringList{QStringLiteral("cluster"), QStringLiteral("calibrate")} + args);
        Outcome o;
        if (!p.waitForFinished(180000)) {
            p.kill();
            p.waitForFinished();
            o.err = QStringLiteral("tapas cluster calibrate did not finish in 180 s");
            return o;
        }
        o.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

private Q_SLOTS:
    void calibrate_on_two_ranks_writes_a_loadable_spec_with_measured_figures()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("measured.json"));
        const Outcome o = tapas(QStringList{QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral("-o"), path,
                                            QStringLiteral("--name"), QStringLiteral("here")} + quickOptions());
        QVERIFY2(o.exitCode == 0, qPrintable(o.out + o.err));

        const tapas::Result<tapas::ClusterSpec> spec = tapas::loadClusterSpecFile(path.toStdString());
        QVERIFY2(spec.ok(), spec.error().c_str());
        QCOMPARE(spec->name, std::string("here"));
        QCOMPARE(spec->nodes, 1); // one host
        QCOMPARE(spec->devicesPerNode, 2);
        QVERIFY(spec->peakFp32 > 1e6); // any CPU multiplies faster than a MFLOP/s
        QVERIFY(spec->efficiency > 0 && spec->efficiency <= 1);
        QVERIFY(spec->memoryBytes > 0);
        QVERIFY(spec->intraNode.bandwidth > 0 && spec->intraNode.latency > 0);
        QVERIFY(spec->interNode.bandwidth > 0 && spec->interNode.latency > 0);
        QVERIFY(spec->device.find("calibrate") != std::string::npos); // says where the numbers came from

        // The per-size table: one row per requested shape, a positive rate for each rank, and the
        // spec's peak is the best of them.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject cal = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("calibration")).toObject();
        const QJsonArray rows = cal.value(QStringLiteral("gemm")).toArray();
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].toObject().value(QStringLiteral("shape")).toString(), QStringLiteral("64x64x64"));
        double best = 0;
        for (const auto& r : rows) {
            const QJsonArray perRank = r.toObject().value(QStringLiteral("flops_per_rank")).toArray();
            QCOMPARE(perRank.size(), 2);
            for (const auto& x : perRank) QVERIFY(x.toDouble() > 0);
            best = std::max(best, r.toObject().value(QStringLiteral("flops_slowest_rank")).toDouble());
        }
        QCOMPARE(spec->peakFp32, best);
        QVERIFY(o.out.contains(QStringLiteral("bus bandwidth")));

        // The op families with kernels of their own are measured, and the weight update: an
        // overhead per node, and the rate that bounds the family (FLOPs for matmul and conv, bytes
        // for the memory-bound ones); shape views and generators cost their overhead alone.
        // Grouped/depthwise convolutions and pooling are measured apart from the dense
        // convolutions (their own rates: a FLOP rate, and bytes for pooling), and so is the fused
        // GELU the worker runs for an exported erf chain (bytes). (Control flow and
        // recurrences are not timed: the cost model prices them by the nodes they run.)
        for (const char* family : {"matmul", "conv", "conv_grouped", "pool", "elementwise", "normalization", "reduce", "shape",
                                   "indexing", "resize", "generator", "optimizer", "gelu"}) {
            const auto it = spec->opFamilies.find(family);
            QVERIFY2(it != spec->opFamilies.end(), family);
            QVERIFY2(it->second.overhead > 0 && it->second.overhead < 0.1, family);
        }
        // matmul has both: FLOPs bound the training-sized GEMMs, bytes the 2-row classifier heads.
        QVERIFY(spec->opFamilies.at("matmul").flopRate > 1e6 && spec->opFamilies.at("matmul").byteRate > 1e5);
        QVERIFY(spec->opFamilies.at("conv").flopRate > 1e6);
        QVERIFY(spec->opFamilies.at("conv_grouped").flopRate > 1e5 && spec->opFamilies.at("conv_grouped").byteRate == 0);
        for (const char* family : {"elementwise", "normalization", "reduce", "indexing", "resize", "pool", "optimizer", "gelu"})
            QVERIFY2(spec->opFamilies.at(family).byteRate > 1e6 && spec->opFamilies.at(family).flopRate == 0, family);
        QCOMPARE(spec->opFamilies.at("shape").byteRate, 0.0);
        const QJsonArray cases = cal.value(QStringLiteral("op_family_cases")).toArray();
        QVERIFY(cases.size() >= 20);
        int bytesBound = 0;
        for (const auto& c : cases) {
            QVERIFY(c.toObject().value(QStringLiteral("forward_backward_seconds")).toDouble() > 0);
            bytesBound += c.toObject().value(QStringLiteral("bytes_bound")).toBool();
        }
        QVERIFY(bytesBound >= 1); // the GEMM heads that give matmul its byte rate say so
        QVERIFY(o.out.contains(QStringLiteral("op families")));

        // LayerNorm as the worker runs it (torch's layer_norm with scale and shift) has a family
        // of its own, bound by bytes.
        QVERIFY(spec->opFamilies.count("layer_norm"));
        QVERIFY(spec->opFamilies.at("layer_norm").byteRate > 1e6 && spec->opFamilies.at("layer_norm").overhead > 0);
        // Matmul's rate by product size: the small GEMMs, the batched attention products and the
        // large cases, sizes ascending, each a positive rate.
        const auto& bySize = spec->opFamilies.at("matmul").bySize;
        QVERIFY(bySize.size() >= 6);
        for (size_t i = 0; i < bySize.size(); ++i) {
            QVERIFY(bySize[i].flopRate > 1e6);
            if (i > 0) QVERIFY(bySize[i].unitFlops > bySize[i - 1].unitFlops);
        }
        QVERIFY(bySize.front().unitFlops <= 2.0 * 32 * 32 * 32); // one product of the 8 x (32x32x32) case
        // The convolutions by the kind torch runs, each with its rate by size (the corpus's small
        // nodes apart from the large cases), and the memory-bound families the corpus's small
        // tensors run far faster per byte than large ones with a byte rate by size.
        // Dense and 1-D ones also by the kernel torch picks for the case (core/cost/torch_conv_kernel).
        for (const char* family : {"conv", "conv.native", "conv_pointwise", "conv_depthwise", "conv_depthwise_strided", "conv_grouped",
                                   "conv1d", "conv1d.onednn"}) {
            const tapas::OpFamilyRate& r = spec->opFamilies.at(family);
            QVERIFY2(r.overhead > 0 && r.flopRate > 1e5 && r.bySize.size() >= 2, family);
            for (size_t i = 1; i < r.bySize.size(); ++i) QVERIFY2(r.bySize[i].unitFlops > r.bySize[i - 1].unitFlops, family);
        }
        // What the worker's step runs beside the nodes, timed through the worker's own functions
        // (docs/step-pricing.md): Adam's one pass over flat buffers, the seeded inputs and the
        // loss's seeded targets, and a Gather whose backward fills its table's gradient.
        for (const char* family : {"elementwise", "batchnorm", "max_pool", "global_pool", "elementwise.Clip", "elementwise.Max",
                                   "elementwise.HardSigmoid", "elementwise.LeakyRelu", "elementwise.maximum", "elementwise.minimum",
                                   "optimizer", "loss", "synthetic_input", "gather"}) {
            const auto it = spec->opFamilies.find(family);
            QVERIFY2(it != spec->opFamilies.end(), family);
            QVERIFY2(it->second.overhead > 0 && it->second.byteRate > 1e6 && it->second.byteBySize.size() >= 2, family);
            for (size_t i = 0; i < it->second.byteBySize.size(); ++i) {
                QVERIFY2(it->second.byteBySize[i].byteRate > 1e6, family);
                if (i > 0) QVERIFY2(it->second.byteBySize[i].bytes > it->second.byteBySize[i - 1].bytes, family);
            }
        }
        // A Max of two tensors (torch's maximum, whose backward masks both gradients) costs more
        // than a Max against a constant (one clamp) of the same output: the case the worker runs
        // for each is timed apart, so neither prices the other.
        auto caseSeconds = [&](const QString& name) {
            for (const auto& c : cases)
                if (c.toObject().value(QStringLiteral("case")).toString() == name)
                    return c.toObject().value(QStringLiteral("forward_backward_seconds")).toDouble();
            return 0.0;
        };
        const double pairMax = caseSeconds(QStringLiteral("maximum 1x144x56x56")), clampMax = caseSeconds(QStringLiteral("Max 1x144x56x56"));
        QVERIFY2(pairMax > 0 && clampMax > 0, "the Max cases at 1x144x56x56");
        QVERIFY2(pairMax > clampMax, qPrintable(QStringLiteral("maximum %1 s, clamp %2 s").arg(pairMax).arg(clampMax)));
        QVERIFY(spec->opFamilies.at("matmul").byteBySize.empty()); // its bytes-bound heads count FLOPs too
        // Chains of tiny nodes through the worker's interpreter, at two lengths each: the longer
        // takes longer, and what one more node (or trained weight) costs beyond the families'
        // prices is written as the in-step families the cost model adds per node and weight.
        auto slope = [&](const QString& kind) {
            const double shortChain = caseSeconds(kind + QStringLiteral(" chain 32")), longChain = caseSeconds(kind + QStringLiteral(" chain 256"));
            return shortChain > 0 && longChain > shortChain ? (longChain - shortChain) / (256 - 32) : -1.0;
        };
        const double node = slope(QStringLiteral("relu")), weighted = slope(QStringLiteral("add-weight"));
        QVERIFY2(node > 0 && weighted > 0, "the chains at 32 and 256 nodes");
        QVERIFY(node < 1e-3 && weighted < 1e-3); // a node's dispatch, not a time slice
        // Beyond what the families price: a Relu node at the element-wise tiny case's price (its
        // first case), a trained weight over a node without one; left out when not positive.
        const double expect[2] = {node - caseSeconds(QStringLiteral("add 4")), weighted - node};
        const char* names[2] = {"node_in_step", "weight_in_step"};
        for (int i = 0; i < 2; ++i) {
            if (expect[i] <= 0) {
                QVERIFY2(!spec->opFamilies.count(names[i]), names[i]);
                continue;
            }
            QVERIFY2(spec->opFamilies.count(names[i]), names[i]);
            QVERIFY2(std::abs(spec->opFamilies.at(names[i]).overhead - expect[i]) < 1e-9, names[i]);
        }
        // Attention's products as the worker gets them (operands that are Transpose outputs,
        // 3-D and 4-D): a family of their own, with its overhead and its rate by product size
        // from the encoder's 16 x (16x16x16) up.
        QVERIFY(spec->opFamilies.count("matmul_strided"));
        const tapas::OpFamilyRate& strided = spec->opFamilies.at("matmul_strided");
        QVERIFY(strided.overhead > 0 && strided.overhead < 0.1 && strided.flopRate > 1e6);
        QVERIFY(strided.bySize.size() >= 3);
        for (size_t i = 0; i < strided.bySize.size(); ++i) {
            QVERIFY(strided.bySize[i].flopRate > 1e6);
            if (i > 0) QVERIFY(strided.bySize[i].unitFlops > strided.bySize[i - 1].unitFlops);
        }
        QCOMPARE(strided.bySize.front().unitFlops, 2.0 * 16 * 16 * 16);
        int views = 0;
        for (const auto& c : cases) {
            const QJsonObject o = c.toObject();
            if (o.value(QStringLiteral("family")).toString() != QStringLiteral("matmul_strided")) continue;
            ++views;
            QVERIFY(o.value(QStringLiteral("case")).toString().contains(QStringLiteral("view")));
        }
        QVERIFY(views >= 6);
        // The all-reduce between torch ops: timed over many calls, and what its median call costs
        // beyond the same all-reduce back to back is the "collective" family's overhead.
        const QJsonObject step = cal.value(QStringLiteral("collective_in_step")).toObject();
        QVERIFY(step.value(QStringLiteral("calls")).toInt() >= 20);
        QVERIFY(step.value(QStringLiteral("median_seconds")).toDouble() > 0);
        QVERIFY(step.value(QStringLiteral("tight_loop_seconds")).toDouble() > 0);
        const double overhead = step.value(QStringLiteral("overhead_s")).toDouble();
        QCOMPARE(overhead, std::max(0.0, step.value(QStringLiteral("median_seconds")).toDouble() -
                                             step.value(QStringLiteral("tight_loop_seconds")).toDouble()));
        if (overhead > 0) QCOMPARE(spec->opFamilies.at("collective").overhead, overhead);
        else QVERIFY(!spec->opFamilies.count("collective"));
        QVERIFY(o.out.contains(QStringLiteral("between torch ops")));
    }

    void bad_rank_count_fails_with_a_clear_error_data()
    {
        QTest::addColumn<QString>("np");
        QTest::newRow("one rank") << QStringLiteral("1");
        QTest::newRow("zero") << QStringLiteral("0");
        QTest::newRow("not a number") << QStringLiteral("two");
    }

    void bad_rank_count_fails_with_a_clear_error()
    {
        QFETCH(QString, np);
        const Outcome o = tapas({QStringLiteral("-np"), np});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("-np must be an integer >= 2")) && o.err.contains(np), qPrintable(o.err));
    }

    void missing_rank_count_is_refused()
    {
        const Outcome o = tapas({QStringLiteral("-o"), QStringLiteral("x.json")});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("-np is required")), qPrintable(o.err));
    }

    void unwritable_output_fails_before_measuring()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString missing = dir.filePath(QStringLiteral("no/such/dir/spec.json"));
        Outcome o = tapas({QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral("-o"), missing});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("cannot write -o")) && o.err.contains(QStringLiteral("does not exist")),
                 qPrintable(o.err));
        QVERIFY2(!o.out.contains(QStringLiteral("mpiexec")) && !o.out.contains(QStringLiteral("mpirun")),
                 "nothing may be launched for an output that cannot be written");

        o = tapas({QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral("-o"), dir.path()});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("is a directory")), qPrintable(o.err));
    }

    void bad_worker_option_is_reported_from_the_worker()
    {
        const Outcome o = tapas({QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral("--gemm"), QStringLiteral("64x0x64")});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QStringLiteral("--gemm: '64x0x64' is not MxKxN")), qPrintable(o.err));
    }
};

QTEST_MAIN(TstClusterCalibrate)
#include "tst_cluster_calibrate.moc"
