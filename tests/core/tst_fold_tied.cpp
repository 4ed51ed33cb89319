// Weight-tied folds: one module applied several times with one set of weights is one repeat, whether
// its applications see inputs of other shapes (a detector head on every pyramid level) or the first
// iteration of an unrolled loop reads constants where the later ones read the iteration before.
#include "core/fold/folded_graph.h"
#include "core/report/fold_report.h"
#include "tests/common/fold_checks.h"
#include "tests/common/tied_head_graph.h"
#include "tests/common/unrolled_loop_graph.h"

#include <QtTest>

#include <algorithm>

using namespace tapas;
using tapas::testing::checkPartition;
using tapas::testing::scrubbed;
using tapas::testing::shuffled;

namespace {

FoldedGraph fold(const Graph& g)
{
    Result<FoldedGraph> fg = foldGraph(g);
    if (!fg) qFatal("fold failed: %s", fg.error().c_str());
    return std::move(fg).value();
}

QString treeText(const Graph& g, const FoldedGraph& fg)
{
    return QString::fromStdString(foldTreeToText(g, fg));
}

} // namespace

class TstFoldTied : public QObject {
    Q_OBJECT

private slots:
    // One head, one set of weights, on three levels of other sizes: one repeat (x3) in the tree,
    // while every block class holds one shape, so the search costs each level's shapes.
    void fold_weight_tied_head_on_levels_of_other_sizes_is_one_repeat()
    {
        const Graph g = tapas::testing::tiedHeadOnThreeLevels();
        for (const Graph& variant : {g, scrubbed(g)}) {
            const FoldedGraph fg = fold(variant);
            QString why;
            QVERIFY2(checkPartition(variant, fg, &why), qPrintable(why));
            const std::vector<int> outer = fg.tree.outerRepeats();
            QVERIFY2(outer.size() == 1, qPrintable(QString::fromStdString(foldTreeToText(variant, fg))));
            const FoldTreeClass& head = fg.tree.classes[size_t(outer.front())];
            QCOMPARE(head.level, FoldLevel::Block);
            QCOMPARE(head.instances.size(), size_t(3));
            QCOMPARE(head.nodesPerInstance, 4);
            QCOMPARE(head.paramsPerInstance, int64_t(256 * 512 + 512 + 512 * 64));
            QVERIFY(head.tied);
            QVERIFY(head.shapesDiffer);
            const std::vector<int> perShape = fg.blockClassesOf(head.id);
            QCOMPARE(perShape.size(), size_t(3));
            for (int c : perShape) QCOMPARE(fg.classes[size_t(c)].instances.size(), size_t(1));
            // The tied weights count once in the model.
            QCOMPARE(fg.tree.classes[0].paramsPerInstance, variant.parameterCount());
            const nlohmann::json j = foldToJson(variant, fg);
            const nlohmann::json& jc = j["classes"][size_t(head.id)];
            QVERIFY(jc.value("tied", false) && jc.value("shapes_differ", false));
            QCOMPARE(jc["block_classes"].get<std::vector<int>>(), perShape);
        }
        // Heads of equal shapes side by side are one block class of three, still tied.
        Graph same = g;
        for (TensorId t = 0; t < TensorId(same.tensors.size()); ++t) {
            Tensor& tensor = same.tensor(t);
            if (tensor.kind != TensorKind::Weight && tensor.shape.rank() == 3) tensor.shape.dims[1] = Dim::known(16);
        }
        const FoldedGraph fs = fold(same);
        const std::vector<int> outer = fs.tree.outerRepeats();
        QVERIFY2(outer.size() == 1, qPrintable(QString::fromStdString(foldTreeToText(same, fs))));
        QCOMPARE(fs.tree.classes[size_t(outer.front())].instances.size(), size_t(3));
        QVERIFY(!fs.tree.classes[size_t(outer.front())].shapesDiffer);
        QCOMPARE(fs.blockClassesOf(outer.front()).size(), size_t(1));
    }

    // RAFT's case in miniature. The loop's copies run from one update's coordinate step to the next
    // update's state (the repeat's phase), so 11 of 12 updates are whole copies; the first of them
    // adds its step to the constant grid c0 where the others add it to the coordinates before, so
    // it is no copy of the others (the run has 10), yet it applies the same weights: all 11 are one
    // tied class, the first with a block class of its own, placed first and matched position by
    // position. (RAFT itself, in the corpus, also has the flow branch computed from constants.)
    void fold_unrolled_loop_counts_the_iteration_that_starts_from_constants_data()
    {
        QTest::addColumn<int>("iterations");
        QTest::newRow("9") << 9;
        QTest::newRow("12") << 12;
    }

    void fold_unrolled_loop_counts_the_iteration_that_starts_from_constants()
    {
        QFETCH(int, iterations);
        const Graph g = tapas::testing::unrolledLoopWithConstantStart(iterations);
        const TensorId c0 = g.findTensor("coords0");
        QVERIFY(c0 != kNoTensor);
        for (const Graph& variant : {g, scrubbed(g), shuffled(g, 7)}) {
            const FoldedGraph fg = fold(variant);
            QString why;
            QVERIFY2(checkPartition(variant, fg, &why), qPrintable(why));
            const std::vector<int> outer = fg.tree.outerRepeats();
            QVERIFY2(outer.size() == 1, qPrintable(treeText(variant, fg)));
            const FoldTreeClass& loop = fg.tree.classes[size_t(outer.front())];
            QVERIFY2(int(loop.instances.size()) == iterations - 1, qPrintable(treeText(variant, fg)));
            QCOMPARE(loop.level, FoldLevel::Block);
            QCOMPARE(loop.nodesPerInstance, 10);
            QVERIFY(loop.tied && loop.fromRun && loop.shapesDiffer);
            // Two block classes: the first iteration (it reads constants), then the run of the rest.
            const std::vector<int> forms = fg.blockClassesOf(loop.id);
            QCOMPARE(forms.size(), size_t(2));
            QCOMPARE(fg.classes[size_t(forms[0])].instances.size(), size_t(1));
            QCOMPARE(int(fg.classes[size_t(forms[1])].instances.size()), iterations - 2);
            const FoldTreeNode& first = fg.tree.nodes[size_t(loop.instances.front())];
            const BlockRef& ref = fg.chain[size_t(first.chainBegin)];
            const BlockInstance& inst = fg.classes[size_t(ref.classId)].instances[size_t(ref.instance)];
            QCOMPARE(ref.classId, forms[0]);
            NodeId start = kNoNode; // c0 + the first step
            for (NodeId c : variant.tensor(c0).consumers)
                if (variant.node(c).opType == "Add") start = c;
            QVERIFY(std::find(inst.nodes.begin(), inst.nodes.end(), start) != inst.nodes.end());
            // Its positions are the run's: position p is the same op in every iteration.
            const BlockInstance& second = fg.classes[size_t(forms[1])].instances[0];
            for (size_t p = 0; p < inst.nodes.size(); ++p)
                QCOMPARE(variant.node(inst.nodes[p]).opType, variant.node(second.nodes[p]).opType);
        }
    }

    // A first step with weights of its own is another module: the run stays the others.
    void fold_unrolled_loop_with_other_first_weights_keeps_the_first_apart()
    {
        Graph g = tapas::testing::unrolledLoopWithConstantStart(12);
        Tensor own = g.tensor(g.findTensor("update.wd"));
        own.name = "update.wd.first";
        const TensorId first = g.addTensor(own);
        for (Node& n : g.nodes)
            if (n.name == "/update_0/delta/MatMul") n.inputs[1] = first;
        g.rebuildLinks();
        const FoldedGraph fg = fold(g);
        const std::vector<int> outer = fg.tree.outerRepeats();
        QVERIFY2(outer.size() == 1, qPrintable(treeText(g, fg)));
        QCOMPARE(fg.tree.classes[size_t(outer.front())].instances.size(), size_t(10));
        QVERIFY(!fg.tree.classes[size_t(outer.front())].tied);
    }
};

QTEST_GUILESS_MAIN(TstFoldTied)
#include "tst_fold_tied.moc"
