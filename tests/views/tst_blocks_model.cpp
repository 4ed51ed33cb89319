// The Blocks dock's model: one row per repeated class with colour, ×N, sizes and scope; the
// model contract checked by QAbstractItemModelTester; singletons only on request.
#include "graph_test_models.h"

#include "views/blocks_model.h"
#include "views/graph/block_style.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSortFilterProxyModel>
#include <QtTest>

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
