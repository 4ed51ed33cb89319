// The summary view and its table models: figures, sorting, and the models' contracts
// (checked by QAbstractItemModelTester, which fails the test on any broken invariant).
#include "views/log_model.h"
#include "views/model_summary_view.h"
#include "views/number_text.h"
#include "views/op_histogram_model.h"
#include "views/tensor_list_model.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QLabel>
#include <QtTest>

using namespace tapas;

namespace {

ModelSummary sampleSummary()
{
    ModelSummary s;
    s.file = "/models/tiny.onnx";
    s.producer = "pytorch 1.13";
    s.opset = 14;
    s.nodes = 29;
    s.params = 11680872;
    s.paramBytes = 46723488;
    s.flops = 3.64e9;
    s.activationBytes = 1.2e7;
    // 9 vs 10 and 100: sorting by display text would put "9" after "100".
    s.ops = {{"Relu", 9}, {"Conv", 10}, {"Add", 100}, {"Gemm", 1}};
    s.inputs = {{"image", "float32", "[batch,3,224,224]"}};
    s.outputs = {{"logits", "float32", "[batch,1000]"}, {"features", "float32", "[batch,512]"}};
    s.symbolicDims = {"batch"};
    s.warnings = {"tensor 'x': shape depends on runtime data", "node 'n': unknown op Foo"};
    return s;
}

QString digitsOnly(const QString& s)
{
    QString out;
    for (QChar c : s) {
        if (c.isDigit()) out += c;
        else if (c == QLatin1Char('(')) break; // the short form "(11.7M)" follows the exact figure
    }
    return out;
}

} // namespace

class TstModelSummaryView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void op_histogram_model_passes_item_model_tester()
    {
        OpHistogramModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setHistogram(sampleSummary().ops);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.total(), 120);
        const int conv = model.rowOf(QStringLiteral("Conv"));
        QVERIFY(conv >= 0);
        QCOMPARE(model.index(conv, OpHistogramModel::Count).data(OpHistogramModel::SortRole).toLongLong(), 10);
        QCOMPARE(model.rowOf(QStringLiteral("NoSuchOp")), -1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        model.setHistogram({{"MatMul", 3}});
        QCOMPARE(model.rowCount(), 1);
    }

    void op_histogram_sorts_counts_as_numbers_not_text()
    {
        OpHistogramModel model;
        model.setHistogram(sampleSummary().ops);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(OpHistogramModel::SortRole);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.sort(OpHistogramModel::Count, Qt::DescendingOrder);
        QStringList order;
        for (int r = 0; r < proxy.rowCount(); ++r) order << proxy.index(r, OpHistogramModel::OpType).data().toString();
        QCOMPARE(order, (QStringList{"Add", "Conv", "Relu", "Gemm"}));
        proxy.sort(OpHistogramModel::Share, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, OpHistogramModel::OpType).data().toString(), QStringLiteral("Gemm"));
        QCOMPARE(proxy.index(3, OpHistogramModel::OpType).data().toString(), QStringLiteral("Add"));
    }

    void tensor_list_model_passes_item_model_tester()
    {
        TensorListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensors(sampleSummary().outputs);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.index(0, TensorListModel::Name).data().toString(), QStringLiteral("logits"));
        QCOMPARE(model.index(1, TensorListModel::ShapeColumn).data().toString(), QStringLiteral("[batch,512]"));
        QCOMPARE(model.index(1, TensorListModel::DTypeColumn).data().toString(), QStringLiteral("float32"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void log_model_passes_item_model_tester_and_counts_severities()
    {
        LogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append(LogSeverity::Info, QStringLiteral("opened"));
        model.append(LogSeverity::Error, QStringLiteral("broken.onnx: not an ONNX model"));
        model.append(LogSeverity::Warning, QStringLiteral("w"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.count(LogSeverity::Error), 1);
        QCOMPARE(model.index(1, LogModel::Message).data().toString(), QStringLiteral("broken.onnx: not an ONNX model"));
        QCOMPARE(model.index(1, LogModel::SeverityColumn).data().toString(), LogModel::severityName(LogSeverity::Error));
        QVERIFY(!model.index(0, LogModel::Time).data().toString().isEmpty());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void summary_view_shows_headline_figures_and_tables()
    {
        ModelSummaryView view;
        QVERIFY(!view.hasSummary());
        const ModelSummary s = sampleSummary();
        view.setSummary(s);
        QVERIFY(view.hasSummary());
        // Short on the card, exact in its tooltip.
        QCOMPARE(view.figureText(ModelSummaryView::Figure::Parameters), shortCount(11680872));
        QVERIFY(view.figureValueLabel(ModelSummaryView::Figure::Parameters)->toolTip().contains(groupedCount(11680872)));
        QCOMPARE(digitsOnly(view.figureValueLabel(ModelSummaryView::Figure::Parameters)->toolTip()), QStringLiteral("11680872"));
        QCOMPARE(view.figureText(ModelSummaryView::Figure::Nodes), QStringLiteral("29"));
        QCOMPARE(view.figureText(ModelSummaryView::Figure::Opset), QStringLiteral("14"));
        QCOMPARE(view.figureText(ModelSummaryView::Figure::Producer), QStringLiteral("pytorch 1.13"));
        QCOMPARE(view.figureText(ModelSummaryView::Figure::SymbolicDims), QStringLiteral("batch"));
        QCOMPARE(view.figureText(ModelSummaryView::Figure::Flops), shortCount(3.64e9));
        QVERIFY(!view.figureText(ModelSummaryView::Figure::ParameterBytes).isEmpty());
        // The table as shown: sorted by count, largest first.
        QCOMPARE(view.opTable()->model()->index(0, OpHistogramModel::OpType).data().toString(), QStringLiteral("Add"));
        QCOMPARE(view.inputs()->rowCount(), 1);
        QCOMPARE(view.outputs()->rowCount(), 2);
        QCOMPARE(view.warnings().size(), 2);
        QVERIFY(view.warnings().at(1).contains(QStringLiteral("unknown op Foo")));
        QCOMPARE(view.runnableText(), QStringLiteral("Runnable by tapas-worker: yes"));
    }

    void summary_view_says_what_the_worker_cannot_run()
    {
        ModelSummaryView view;
        ModelSummary s = sampleSummary();
        s.workerGaps = {{"If", "control flow (subgraphs) is not run by the executor", 3, "/model/decoder/If"},
                        {"com.acme::Foo", "ops of domain 'com.acme' are not run by the executor", 1, "/x/Foo_3"}};
        view.setSummary(s);
        const QString text = view.runnableText();
        QVERIFY2(text.startsWith(QStringLiteral("Runnable by tapas-worker: no. If (3 nodes, first '/model/decoder/If')")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("com.acme::Foo (1 node, first '/x/Foo_3')")), qPrintable(text));
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("runnableLabel"))->isVisibleTo(&view));
        // TAPAS_SHOT_DIR=dir: also save the view as a user sees it, to look at.
        if (const QString shots = qEnvironmentVariable("TAPAS_SHOT_DIR"); !shots.isEmpty()) {
            view.resize(900, 600);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            QVERIFY(view.grab().save(shots + QStringLiteral("/summary_not_runnable.png")));
        }
    }

    void summary_view_clear_returns_to_placeholder()
    {
        ModelSummaryView view;
        view.setSummary(sampleSummary());
        view.clear();
        QVERIFY(!view.hasSummary());
        QCOMPARE(view.opHistogram()->rowCount(), 0);
        QVERIFY(view.warnings().isEmpty());
    }

    void grouped_count_keeps_every_digit()
    {
        QCOMPARE(digitsOnly(groupedCount(1234567890123)), QStringLiteral("1234567890123"));
        QCOMPARE(groupedCount(7), QStringLiteral("7"));
        QCOMPARE(countWithShortForm(512), QStringLiteral("512"));
    }
};

QTEST_MAIN(TstModelSummaryView)
#include "tst_model_summary_view.moc"
