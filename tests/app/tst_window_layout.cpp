// The window as a daily tool, offscreen, asserting what a user sees: the graph gets most of the
// window on a first launch, a welcome page stands in for a missing model, every figure and label
// fits its widget (English and Chinese), the Inspector elides rather than cuts, each block
// instance shows its own scope, tooltips promise keys that work, and --help needs no display.
#include "app/studio/docks.h"
#include "app/studio/export_dialog.h"
#include "app/studio/language_manager.h"
#include "app/studio/main_window.h"
#include "app/studio/model_document.h"
#include "app/studio/plan_docks.h"
#include "app/studio/plan_session.h"
#include "app/studio/recent_files.h"
#include "core/plan/plan_exporter.h"
#include "core/zoo/zoo.h"
#include "views/graph/block_item.h"
#include "views/graph/graph_panel.h"
#include "views/graph/graph_scene.h"
#include "views/graph/sharding_style.h"
#include "views/inspector_view.h"
#include "views/model_summary_view.h"
#include "views/number_text.h"
#include "views/op_histogram_model.h"
#include "views/plan/plan_panel.h"
#include "views/welcome_view.h"
#include "tests/app/studio_suite.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <memory>

using namespace tapas;

namespace {

constexpr int kLoadTimeoutMs = 120000;
const QString kStudio = QStringLiteral(TAPAS_BIN_DIR "/tapas-studio");

bool waitIdle(const GraphView* view, int ms = 60000)
{
    QElapsedTimer t;
    t.start();
    while (view->isBusy() && t.elapsed() < ms) QTest::qWait(10);
    return !view->isBusy();
}

// A label shows all of its text: one line that fits, or wrapped lines with the height they need.
QString clipped(const QLabel* label)
{
    const QRect room = label->contentsRect();
    if (label->wordWrap()) {
        if (label->height() < label->heightForWidth(label->width()))
            return QStringLiteral("'%1' needs %2 px of height, has %3").arg(label->text()).arg(label->heightForWidth(label->width())).arg(label->height());
        return {};
    }
    const int need = label->fontMetrics().horizontalAdvance(label->text());
    if (need > room.width())
        return QStringLiteral("'%1' needs %2 px, has %3").arg(label->text()).arg(need).arg(room.width());
    return {};
}

} // namespace

class TstWindowLayout : public QObject {
    Q_OBJECT
private:
    testing::SuiteSettings settings_{"tst_window_layout"};
    QTemporaryDir tmp_;
    QString gpt_;

    static void freshSettings()
    {
        QSettings().clear();
    }
    static std::unique_ptr<MainWindow> firstLaunch(QSize size)
    {
        freshSettings();
        auto w = std::make_unique<MainWindow>();
        if (!testing::showExposed(*w, size)) return nullptr;
        return w;
    }
    static bool open(MainWindow* w, const QString& path)
    {
        return testing::openAndWait(*w, path, kLoadTimeoutMs) && waitIdle(w->graphPanel()->view());
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<GraphSelection>();
        QVERIFY(tmp_.isValid());
        ZooOptions o;
        o.layers = 12;
        o.hidden = 256;
        o.heads = 4;
        gpt_ = tmp_.filePath(QStringLiteral("gpt12.onnx"));
        const Status s = writeZooModel("gpt", o, gpt_.toStdString());
        QVERIFY2(s.ok(), s.error.c_str());
    }

    void graph_gets_most_of_the_window_on_first_launch_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1366x768") << QSize(1366, 768);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void graph_gets_most_of_the_window_on_first_launch()
    {
        QFETCH(QSize, size);
        std::unique_ptr<MainWindow> w = firstLaunch(size);
        QVERIFY(w);
        QCOMPARE(w->size(), size);
        QVERIFY(open(w.get(), gpt_));
        const GraphView* view = w->graphPanel()->view();
        QVERIFY(view->isVisible());
        const double share = double(view->width()) * view->height() / (double(w->width()) * w->height());
        qInfo("graph view %dx%d in a %dx%d window: %.1f%% of its area", view->width(), view->height(), w->width(),
              w->height(), share * 100);
        QVERIFY2(share >= 0.60, qPrintable(QStringLiteral("the graph view is %1x%2 = %3% of the %4x%5 window")
                                               .arg(view->width()).arg(view->height()).arg(share * 100, 0, 'f', 1)
                                               .arg(w->width()).arg(w->height())));
        // The docks a first launch does not need wait hidden; the model's own are shown.
        QVERIFY(w->docks()->blocksDock()->isVisible());
        QVERIFY(w->docks()->inspectorDock()->isVisible());
        QVERIFY(!w->runsDock()->isVisible());
        QVERIFY(!w->planDocks()->planDock()->isVisible());
        // The hidden Plan dock builds its tree of every op only when it is shown (it cost the
        // GUI thread 0.2 s on every open of Swin-T).
        auto* tree = w->planDocks()->panel()->findChild<QTreeView*>(QStringLiteral("planTree"));
        QVERIFY(tree && tree->model());
        QCOMPARE(tree->model()->rowCount(), 0);
        w->planDocks()->planDock()->show();
        QTRY_VERIFY(tree->model()->rowCount() > 0);
    }

    void welcome_page_offers_open_sample_and_recent_models()
    {
        freshSettings();
        const QString missing = tmp_.filePath(QStringLiteral("gone.onnx"));
        {
            RecentFiles recent;
            recent.add(missing);
            recent.add(gpt_);
        }
        auto w = std::make_unique<MainWindow>();
        QVERIFY(testing::showExposed(*w, {1366, 768}));
        WelcomeView* welcome = w->welcomeView();
        QVERIFY(welcome->isVisible());
        QVERIFY(!w->graphPanel()->view()->isVisible());
        QVERIFY(welcome->openButton()->isVisible());
        QVERIFY(welcome->sampleButton()->isEnabled());
        QCOMPARE(welcome->recentList()->count(), 2);
        QVERIFY(welcome->recentList()->item(0)->text().contains(QStringLiteral("gpt12.onnx")));
        QVERIFY(!(welcome->recentList()->item(1)->flags() & Qt::ItemIsEnabled)); // the missing file
        // One click on a recent model opens it, and the graph takes the page's place.
        QSignalSpy loaded(w.get(), &MainWindow::modelLoaded);
        const QRect row = welcome->recentList()->visualItemRect(welcome->recentList()->item(0));
        QTest::mouseClick(welcome->recentList()->viewport(), Qt::LeftButton, {}, row.center());
        QVERIFY(loaded.wait(kLoadTimeoutMs));
        QTRY_VERIFY(!welcome->isVisible());
        QVERIFY(w->graphPanel()->view()->isVisible());
        QCOMPARE(w->document()->displayName(), QStringLiteral("gpt12.onnx"));
    }

    void summary_card_labels_fit_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("en");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }
    void summary_card_labels_fit()
    {
        QFETCH(QString, language);
        std::unique_ptr<MainWindow> w = firstLaunch(QSize(1366, 768));
        QVERIFY(w);
        QVERIFY(w->languageManager()->setLanguage(language));
        QVERIFY(open(w.get(), gpt_));
        w->docks()->summaryDock()->show();
        w->docks()->summaryDock()->raise();
        QTest::qWait(50);
        ModelSummaryView* s = w->summaryView();
        QTRY_VERIFY(s->figureValueLabel(ModelSummaryView::Figure::Parameters)->isVisible());
        // Parameters read at a glance, the exact count in the tooltip.
        QLabel* params = s->figureValueLabel(ModelSummaryView::Figure::Parameters);
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+(\\.\\d+)?[KMGT]$")).match(params->text()).hasMatch(),
                 qPrintable(params->text()));
        const qint64 count = w->document()->summary().params;
        QVERIFY2(params->toolTip().contains(QLocale().toString(count)), qPrintable(params->toolTip()));
        for (int f = 0; f < ModelSummaryView::kFigureCount; ++f) {
            const auto figure = ModelSummaryView::Figure(f);
            QLabel* value = s->figureValueLabel(figure);
            QLabel* caption = s->figureCaptionLabel(figure);
            QVERIFY2(clipped(value).isEmpty(), qPrintable(clipped(value)));
            QVERIFY2(clipped(caption).isEmpty(), qPrintable(clipped(caption)));
            // Figures are short: shown whole, not elided.
            if (figure != ModelSummaryView::Figure::Producer)
                QVERIFY2(value->text() == s->figureText(figure), qPrintable(value->text() + " vs " + s->figureText(figure)));
        }
        QVERIFY(w->languageManager()->setLanguage(QStringLiteral("en")));
    }

    // To Qt a dock behind another's tab is only covered, not hidden: the Summary behind the
    // Blocks tab used to lay out its cards and tables for every model opened, about half of the
    // GUI thread's longest step in opening one. It is filled at once, hidden, and laid out when
    // its tab comes to the front, with the model opened last.
    void summary_behind_the_blocks_tab_is_hidden_until_shown()
    {
        std::unique_ptr<MainWindow> w = firstLaunch(QSize(1366, 768));
        QVERIFY(w);
        QVERIFY(open(w.get(), gpt_));
        ModelSummaryView* s = w->summaryView();
        QLabel* nodes = s->figureValueLabel(ModelSummaryView::Figure::Nodes);
        QVERIFY(!w->docks()->blocksDock()->visibleRegion().isEmpty());
        QVERIFY(!s->isVisible());
        QVERIFY(!nodes->isVisible());
        QCOMPARE(s->figureText(ModelSummaryView::Figure::Nodes), groupedCount(w->document()->summary().nodes));

        w->docks()->summaryDock()->raise();
        QTRY_VERIFY(nodes->isVisible());
        const QString bigNodes = groupedCount(w->document()->summary().nodes);
        QCOMPARE(nodes->text(), bigNodes);
        QVERIFY2(clipped(nodes).isEmpty(), qPrintable(clipped(nodes)));

        // Another model opened behind the Blocks tab is the one shown when the Summary comes back.
        w->docks()->blocksDock()->raise();
        QTRY_VERIFY(!s->isVisible());
        ZooOptions o;
        o.layers = 2;
        const QString small = tmp_.filePath(QStringLiteral("gpt2.onnx"));
        const Status written = writeZooModel("gpt", o, small.toStdString());
        QVERIFY2(written.ok(), written.error.c_str());
        QVERIFY(open(w.get(), small));
        const QString smallNodes = groupedCount(w->document()->summary().nodes);
        QVERIFY(smallNodes != bigNodes);
        QVERIFY(!s->isVisible());
        w->docks()->summaryDock()->raise();
        QTRY_VERIFY(nodes->isVisible());
        QCOMPARE(nodes->text(), smallNodes);
        QCOMPARE(s->opTable()->isVisible(), true);
        QVERIFY(s->opHistogram()->rowCount() > 0);
    }

    void inspector_values_are_elided_with_tooltips_not_cut()
    {
        std::unique_ptr<MainWindow> w = firstLaunch(QSize(1366, 768));
        QVERIFY(w);
        QVERIFY(open(w.get(), gpt_));
        InspectorView* inspector = w->docks()->inspector();
        const Graph& g = *w->document()->graph();
        // The first MatMul that reads a weight: its input rows are long ("float32 [256,768] · weight, …").
        NodeId matmul = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && matmul == kNoNode; ++n)
            if (g.node(n).opType == "MatMul") matmul = n;
        QVERIFY(matmul != kNoNode);
        inspector->showNode(matmul);
        QTest::qWait(20);
        QTreeView* tree = inspector->tree();
        QCOMPARE(tree->horizontalScrollBar()->maximum(), 0); // nothing runs off the dock's edge
        QVERIFY(tree->columnWidth(0) <= tree->viewport()->width() / 2);
        const QStandardItemModel* m = inspector->model();
        int longRows = 0;
        for (int s = 0; s < m->rowCount(); ++s) {
            const QStandardItem* sec = m->item(s, 0);
            for (int r = 0; r < sec->rowCount(); ++r) {
                const QStandardItem* v = sec->child(r, 1);
                QVERIFY2(v->toolTip().contains(v->text()), qPrintable(v->text()));
                const QRect cell = tree->visualRect(v->index());
                if (tree->fontMetrics().horizontalAdvance(v->text()) > cell.width()) ++longRows;
                QVERIFY2(cell.right() <= tree->viewport()->width(), qPrintable(v->text()));
            }
        }
        QVERIFY2(longRows > 0, "the case needs a value wider than the dock, elided");
    }

    void each_block_instance_shows_its_own_scope_and_enter_expands_it()
    {
        std::unique_ptr<MainWindow> w = firstLaunch(QSize(1366, 768));
        QVERIFY(w);
        QVERIFY(open(w.get(), gpt_));
        const FoldedGraph& folded = *w->document()->folded();
        int layers = -1;
        for (const BlockClass& c : folded.classes)
            if (c.instances.size() == 12) layers = c.id;
        QVERIFY(layers >= 0);
        InspectorView* inspector = w->docks()->inspector();
        inspector->showBlock(layers, 7);
        const QString scope = inspector->valueOf(QStringLiteral("Block"), QStringLiteral("Scope"));
        QVERIFY2(scope.endsWith(QStringLiteral("h.7")), qPrintable(scope));
        inspector->showBlock(layers, 0);
        QVERIFY2(inspector->valueOf(QStringLiteral("Block"), QStringLiteral("Scope")).endsWith(QStringLiteral("h.0")), qPrintable(scope));

        GraphView* view = w->graphPanel()->view();
        BlockItem* eighth = nullptr;
        for (QGraphicsItem* item : view->graphScene()->items())
            if (item->type() == BlockItem::Type && static_cast<BlockItem*>(item)->key().classId == layers &&
                static_cast<BlockItem*>(item)->key().instance == 7)
                eighth = static_cast<BlockItem*>(item);
        QVERIFY(eighth);
        QVERIFY2(eighth->toolTip().contains(QStringLiteral("h.7")), qPrintable(eighth->toolTip()));
        // The tooltip names a key; that key does what it says (+ zooms, so it must not be +).
        QVERIFY2(eighth->toolTip().contains(QStringLiteral("press Enter to expand")), qPrintable(eighth->toolTip()));
        QVERIFY(!eighth->toolTip().contains(QStringLiteral("press +")));
        view->graphScene()->clearSelection();
        eighth->setSelected(true);
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Return);
        QVERIFY(waitIdle(view));
        QTRY_VERIFY(view->presentation().isExpanded({layers, 7}));
    }

    void export_dialog_labels_are_buddies_and_formats_translated()
    {
        PlanSession session;
        ExportDialog d(&session);
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        LanguageManager language;
        for (const QString& code : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            QVERIFY(language.setLanguage(code));
            QTest::qWait(20);
            QCOMPARE(d.formLabels().size(), 5);
            for (QLabel* label : d.formLabels()) {
                // A label with a buddy shows "Formats:" with F underlined; one without prints "&Formats:".
                QVERIFY2(label->buddy(), qPrintable(label->text()));
                QVERIFY2(label->text().contains(QLatin1Char('&')), qPrintable(label->text()));
            }
        }
        // In Chinese the descriptions read in Chinese: none is the exporter's English sentence.
        for (int i = 0; i < d.formatList()->count(); ++i) {
            const QString text = d.formatList()->item(i)->text();
            const std::string name = d.formatList()->item(i)->data(Qt::UserRole).toString().toStdString();
            const PlanExporter* e = findPlanExporter(name);
            QVERIFY(e);
            QVERIFY2(!text.contains(QString::fromStdString(e->description())), qPrintable(text));
        }
        QVERIFY(ShardingStyle::strategyText("column") != QStringLiteral("column"));
        QCOMPARE(ShardingStyle::strategyText("S(1)"), QStringLiteral("S(1)")); // notation stays
        QVERIFY(language.setLanguage(QStringLiteral("en")));
        QCOMPARE(ShardingStyle::strategyText("column"), QStringLiteral("column"));
    }

    void help_works_without_a_display()
    {
        QVERIFY2(QFile::exists(kStudio), "build the tapas-studio target before this suite");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* v : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) env.remove(QLatin1String(v));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(kStudio, {QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY2(out.contains("--screenshot") && out.contains("--dim"), out.constData());
        p.start(kStudio, {QStringLiteral("--version")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(p.readAllStandardOutput().startsWith("Tapas Studio "), "--version names the program");
    }
};

QTEST_MAIN(TstWindowLayout)
#include "tst_window_layout.moc"
