// `tapas fold` as a user runs it: the real binary on a real export of the corpus (RAFT: a
// feature and a context encoder, then 12 unrolled flow updates with one set of weights), its
// --json tree (every class with its instances, parent and coverage) and its --tree text.
#include "tests/common/run_tapas.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <set>

namespace {

using tapas::testing::runTapas;

QString raft() { return QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/corpus/raft_small.onnx"); }

} // namespace

class TstCliFold : public QObject {
    Q_OBJECT
private slots:
    void cli_fold_json_lists_the_tree_with_parents_and_coverage()
    {
        const tapas::testing::TapasRun r = runTapas({QStringLiteral("fold"), raft(), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonParseError error;
        const QJsonObject j = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, r.out.left(300).constData());
        const double nodes = j[QStringLiteral("nodes")].toDouble();
        QCOMPARE(nodes, 1757.0);
        const QJsonArray classes = j[QStringLiteral("classes")].toArray();
        QVERIFY(classes.size() > 10);
        std::set<int> seen;
        int updates = -1;
        for (const QJsonValue& v : classes) {
            const QJsonObject c = v.toObject();
            const int id = c[QStringLiteral("id")].toInt();
            // Parents come first, and the model is the one class without a parent.
            if (c[QStringLiteral("parent")].isNull()) QCOMPARE(c[QStringLiteral("level")].toString(), QStringLiteral("model"));
            else QVERIFY2(seen.count(c[QStringLiteral("parent")].toInt()), qPrintable(QString::number(id)));
            seen.insert(id);
            const double instances = c[QStringLiteral("instances")].toDouble();
            QVERIFY(instances >= 1);
            QCOMPARE(c[QStringLiteral("coverage")].toDouble(), instances * c[QStringLiteral("nodes_per_instance")].toDouble() / nodes);
            if (c[QStringLiteral("level")].toString() == QStringLiteral("block") && instances == 12) updates = id;
        }
        // The 12 flow updates: one tied class under a stage, the first (which reads the constant
        // initial coordinates) a block class of its own.
        QVERIFY(updates >= 0);
        const QJsonObject u = classes[updates].toObject();
        QVERIFY(u[QStringLiteral("tied")].toBool());
        QCOMPARE(u[QStringLiteral("block_classes")].toArray().size(), 2);
        QCOMPARE(classes[u[QStringLiteral("parent")].toInt()].toObject()[QStringLiteral("level")].toString(), QStringLiteral("stage"));
        QCOMPARE(u[QStringLiteral("children")].toArray().size(), 5); // its sub-blocks
    }

    void cli_fold_tree_prints_one_line_per_class_nested()
    {
        const tapas::testing::TapasRun r = runTapas({QStringLiteral("fold"), raft(), QStringLiteral("--tree")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const tapas::testing::TapasRun js = runTapas({QStringLiteral("fold"), raft(), QStringLiteral("--json")});
        const QJsonArray classes = QJsonDocument::fromJson(js.out).object()[QStringLiteral("classes")].toArray();
        QCOMPARE(lines.size(), classes.size() + 1); // one per class, then the coverage
        QVERIFY(lines.front().startsWith(QStringLiteral("model")));
        QVERIFY(lines.back().startsWith(QStringLiteral("coverage: ")));
        const QStringList updates = lines.filter(QStringLiteral(" 12x "));
        QCOMPARE(updates.size(), 6); // the block and its 5 sub-blocks
        QVERIFY2(updates.front().contains(QStringLiteral("[one set of weights, 2 block classes]")), qPrintable(updates.front()));
        // Nested: the block under its stage, its sub-blocks one level further in.
        QVERIFY2(updates.front().startsWith(QStringLiteral("   └─ block")), qPrintable(updates.front()));
        QVERIFY2(updates.back().startsWith(QStringLiteral("      └─ sub-block")), qPrintable(updates.back()));
    }

    void cli_fold_names_a_missing_file()
    {
        const tapas::testing::TapasRun r = runTapas({QStringLiteral("fold"), QStringLiteral("/nonexistent/model.onnx"), QStringLiteral("--tree")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("/nonexistent/model.onnx"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstCliFold)
#include "tst_cli_fold.moc"
