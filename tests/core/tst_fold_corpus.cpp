// The fold on the corpus of real exports (tests/data/corpus): every model folds into exactly
// the repeats a person expects (tests/data/corpus_expected.json, written from the architectures
// before the fold ran), into a true partition, with no unique block over the size limit, and
// the same with every name scrubbed.
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/report/fold_report.h"
#include "tests/common/corpus.h"
#include "tests/common/fold_checks.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace tapas;
using tapas::testing::CorpusModel;

namespace {

// Counts of the outermost repeats of the fold tree, sorted: what corpus_expected.json lists.
std::vector<int> outerRepeatCounts(const FoldedGraph& fg)
{
    std::vector<int> counts;
    for (int c : fg.tree.outerRepeats()) counts.push_back(int(fg.tree.classes[size_t(c)].instances.size()));
    std::sort(counts.begin(), counts.end());
    return counts;
}

QString list(const std::vector<int>& v)
{
    QStringList parts;
    for (int x : v) parts << QString::number(x);
    return "[" + parts.join(", ") + "]";
}

const CorpusModel* findModel(const std::vector<CorpusModel>& corpus, const QString& file)
{
    for (const CorpusModel& m : corpus)
        if (QString::fromStdString(m.file) == file) return &m;
    return nullptr;
}

} // namespace

class TstFoldCorpus : public QObject {
    Q_OBJECT

    std::vector<CorpusModel> corpus_;

private slots:
    void initTestCase() { corpus_ = tapas::testing::loadCorpus(); }

    void corpus_has_twenty_real_models_from_three_producers_kept_small()
    {
        QVERIFY2(corpus_.size() >= 20, qPrintable(QString::number(corpus_.size())));
        std::set<std::string> producers;
        int64_t bytes = 0;
        int withWeights = 0;
        for (const CorpusModel& m : corpus_) {
            QVERIFY2(std::filesystem::is_regular_file(m.path), m.path.c_str());
            QCOMPARE(int64_t(std::filesystem::file_size(m.path)), m.bytes);
            producers.insert(m.producer);
            bytes += m.bytes;
            if (m.weightsKept) {
                ++withWeights;
                QVERIFY2(m.bytes <= 2 * 1024 * 1024 + 512 * 1024, m.file.c_str());
            }
            QVERIFY2(!m.origin.empty(), m.file.c_str());
            QVERIFY2(m.opset > 0, m.file.c_str());
        }
        QVERIFY2(producers.size() >= 3, qPrintable(QString::number(producers.size())));
        QVERIFY2(bytes < 25 * 1000 * 1000, qPrintable(QString::number(bytes)));
        QVERIFY(withWeights >= 3); // small models keep weights to train with
    }

    void fold_corpus_model_as_a_person_expects_data()
    {
        QTest::addColumn<QString>("file");
        for (const CorpusModel& m : tapas::testing::loadCorpus()) QTest::newRow(m.file.c_str()) << QString::fromStdString(m.file);
    }

    void fold_corpus_model_as_a_person_expects()
    {
        QFETCH(QString, file);
        const CorpusModel* m = findModel(corpus_, file);
        QVERIFY(m);
        Result<Graph> g = importOnnxFile(m->path);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        QCOMPARE(int(g->nodes.size()), m->nodes);
        Result<FoldedGraph> fg = foldGraph(*g);
        QVERIFY2(fg.ok(), fg.ok() ? "" : fg.error().c_str());
        QString why;
        QVERIFY2(tapas::testing::checkPartition(*g, *fg, &why), qPrintable(why));
        // A stretch that repeats nothing is never one big blob.
        for (const BlockClass& c : fg->classes)
            if (!c.repeated()) QVERIFY2(c.nodesPerInstance <= 200, qPrintable(QString::fromStdString(foldToText(*g, *fg))));
        const std::vector<int> found = outerRepeatCounts(*fg);
        QVERIFY2(found == m->expectedRepeats,
                 qPrintable(QStringLiteral("%1: expected repeats %2, found %3 (%4)\n%5")
                                .arg(file, list(m->expectedRepeats), list(found), QString::fromStdString(m->read),
                                     QString::fromStdString(foldTreeToText(*g, *fg)))));
    }

    void fold_corpus_scrubbed_folds_the_same_data() { fold_corpus_model_as_a_person_expects_data(); }

    void fold_corpus_scrubbed_folds_the_same()
    {
        QFETCH(QString, file);
        const CorpusModel* m = findModel(corpus_, file);
        QVERIFY(m);
        Result<Graph> g = importOnnxFile(m->path);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const Graph s = tapas::testing::scrubbed(*g);
        Result<FoldedGraph> named = foldGraph(*g);
        Result<FoldedGraph> plain = foldGraph(s);
        QVERIFY(named.ok() && plain.ok());
        QCOMPARE(outerRepeatCounts(*plain), outerRepeatCounts(*named));
        QCOMPARE(plain->coverage, named->coverage);
        QCOMPARE(plain->tree.classes.size(), named->tree.classes.size());
        for (size_t c = 0; c < plain->tree.classes.size(); ++c) {
            QCOMPARE(plain->tree.classes[c].instances.size(), named->tree.classes[c].instances.size());
            QCOMPARE(plain->tree.classes[c].parent, named->tree.classes[c].parent);
        }
    }
};

QTEST_GUILESS_MAIN(TstFoldCorpus)
#include "tst_fold_corpus.moc"
