// The Blocks dock's model: one row per repeated class with colour, ×N, sizes and scope, nested as
// the fold tree nests them; the model contract checked by QAbstractItemModelTester; singletons
// only on request.
#include "graph_test_models.h"

#include "views/blocks_model.h"
#include "views/graph/block_style.h"

#include "core/zoo/zoo.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <functional>

using namespace tapas;

class TstBlocksModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lists_repeated_classes_with_counts_and_colours()
    {
        BlocksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        auto m = graphtest::layeredModel(12);
        model.setFolded(m.folded);
        QCOMPARE(model.rowCount(), 1); // the head is a singleton: not listed by default
        QCOMPARE(model.columnCount(), int(BlocksModel::ColumnCount));
        QCOMPARE(model.data(model.index(0, BlocksModel::Name)).toString(), QStringLiteral("Block A"));
        QCOMPARE(model.data(model.index(0, BlocksModel::Instances)).toString(), QStringLiteral("×12"));
        QCOMPARE(model.data(model.index(0, BlocksModel::NodesPerInstance)).toString(), QStringLiteral("3"));
        QCOMPARE(model.data(model.index(0, BlocksModel::ParamsPerInstance), BlocksModel::SortRole).toLongLong(),
                 qlonglong(64 * 64 + 64));
        QCOMPARE(model.data(model.index(0, BlocksModel::Scope)).toString(), QStringLiteral("/layer"));
        const QVariant swatch = model.data(model.index(0, BlocksModel::Name), Qt::DecorationRole);
        QCOMPARE(swatch.value<QColor>(), BlockStyle::paletteColor(0));
        QCOMPARE(model.data(model.index(0, 0), BlocksModel::ClassIdRole).toInt(), 0);

        model.setIncludeSingletons(true);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.classIdAt(1), 1);
        QCOMPARE(model.data(model.index(1, BlocksModel::Instances)).toString(), QStringLiteral("×1"));
        QCOMPARE(model.data(model.index(1, BlocksModel::Name), Qt::DecorationRole).value<QColor>(),
                 BlockStyle::neutralColor());
        QCOMPARE(model.rowOfClass(1), 1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.classIdAt(0), -1);
    }

    void a_model_without_repeats_has_no_block_rows()
    {
        BlocksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto m = graphtest::layeredModel(4, false);
        model.setFolded(m.folded);
        QCOMPARE(model.rowCount(), 0);
        model.setIncludeSingletons(true);
        QCOMPARE(model.rowCount(), int(m.graph->nodes.size()));
    }

    void sorts_parameters_as_numbers()
    {
        // Two repeated classes: 9 params vs 10000 params. Text sorting would put "9" last.
        auto folded = std::make_shared<FoldedGraph>();
        for (int c = 0; c < 2; ++c) {
            BlockClass bc;
            bc.id = c;
            bc.nodesPerInstance = 1;
            bc.paramsPerInstance = c == 0 ? 10000 : 9;
            bc.instances = {{{NodeId(2 * c)}, {}, {}}, {{NodeId(2 * c + 1)}, {}, {}}};
            folded->classes.push_back(bc);
        }
        BlocksModel model;
        model.setFolded(folded);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(BlocksModel::SortRole);
        proxy.sort(BlocksModel::ParamsPerInstance, Qt::AscendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, BlocksModel::Name)).toString(), QStringLiteral("Block B"));
        QCOMPARE(proxy.data(proxy.index(1, BlocksModel::Name)).toString(), QStringLiteral("Block A"));
    }

    // ResNet-50 folds into four stages, each a down-sampling block and a repeat of bottlenecks:
    // the dock shows each stage as a row holding its repeated block, as the fold tree nests them.
    void shows_the_fold_tree_nested_stages_holding_their_blocks()
    {
        Result<Graph> g = zooGraph("resnet50", {});
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        Result<FoldedGraph> fg = foldGraph(*g);
        QVERIFY(fg.ok());
        auto folded = std::make_shared<const FoldedGraph>(std::move(fg).value());
        const FoldTree& tree = folded->tree;
        BlocksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFolded(folded);
        // Every row sits under the row of its parent class (the model itself has no row).
        std::function<void(const QModelIndex&, int)> check = [&](const QModelIndex& parent, int parentClass) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                const int cls = model.data(i, BlocksModel::TreeClassIdRole).toInt();
                QVERIFY(cls > 0);
                QCOMPARE(tree.classes[size_t(cls)].parent, parentClass);
                QCOMPARE(model.data(i, BlocksModel::LevelRole).toInt(), int(tree.classes[size_t(cls)].level));
                check(i, cls);
            }
        };
        check({}, 0);
        QCOMPARE(model.rowCount(), 4);
        const std::vector<QString> counts = {QStringLiteral("×2"), QStringLiteral("×3"), QStringLiteral("×5"), QStringLiteral("×2")};
        for (int s = 0; s < 4; ++s) {
            const QModelIndex stage = model.index(s, BlocksModel::Name);
            QCOMPARE(model.data(stage).toString(), QStringLiteral("Stage %1").arg(s + 1));
            QCOMPARE(model.data(stage, BlocksModel::LevelRole).toInt(), int(FoldLevel::Stage));
            QCOMPARE(model.rowCount(stage), 1); // the down-sampling block repeats nothing: hidden
            const QModelIndex block = model.index(0, BlocksModel::Instances, stage);
            QCOMPARE(model.data(block).toString(), counts[size_t(s)]);
            QCOMPARE(model.data(block, BlocksModel::LevelRole).toInt(), int(FoldLevel::Block));
            QVERIFY(model.classIdAt(block) >= 0);
        }
        model.setIncludeSingletons(true);
        check({}, 0);
        QCOMPARE(model.rowCount(), 6); // the stem, four stages, the head
        for (int s = 1; s <= 4; ++s) QCOMPARE(model.rowCount(model.index(s, 0)), 2);
    }

    void palette_is_distinct_and_names_run_past_z()
    {
        QSet<QRgb> colours;
        for (int i = 0; i < BlockStyle::paletteSize(); ++i) colours.insert(BlockStyle::paletteColor(i).rgb());
        QCOMPARE(int(colours.size()), BlockStyle::paletteSize());
        QVERIFY(!colours.contains(BlockStyle::neutralColor().rgb()));
        QCOMPARE(BlockStyle::letters(0), QStringLiteral("A"));
        QCOMPARE(BlockStyle::letters(25), QStringLiteral("Z"));
        QCOMPARE(BlockStyle::letters(26), QStringLiteral("AA"));
        QCOMPARE(BlockStyle::letters(27), QStringLiteral("AB"));
    }
};

QTEST_MAIN(TstBlocksModel)
#include "tst_blocks_model.moc"
