// The graph view on pictures too big to lay out at once: a long unique stretch opens as parts
// (each a box, expanded like a block), a layout that takes long is cancelled within a second
// (by Cancel and by closing), Expand all / Collapse all, a fit that keeps boxes readable with
// the minimap for the rest, the zoom keys from anywhere in the panel, and a notice that counts
// nodes as the Summary does.
#include "graph_test_models.h"

#include "views/graph/graph_minimap.h"
#include "views/graph/graph_panel.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/number_text.h"

#include <QGraphicsItem>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QVBoxLayout>
#include <QtTest>


using namespace tapas;

namespace {

bool waitIdle(GraphView& view, int ms = 20000)
{
    QElapsedTimer t;
    t.start();
    while (view.isBusy() && t.elapsed() < ms) QTest::qWait(10);
    return !view.isBusy();
}

// Shows `view` at a fixed size, opens `m` in it and waits for its first picture.
bool openIn(GraphView& view, const graphtest::Model& m)
{
    view.resize(900, 700);
    view.show();
    view.setModel(m.graph, m.folded);
    return waitIdle(view);
}

// layeredModel without repeats, folded the way the real fold cuts a long unique stretch: into
// blocks of `chunk` nodes, one singleton class each, in chain order.
graphtest::Model uniqueStretch(int layers, int chunk)
{
    graphtest::Model m = graphtest::layeredModel(layers, false);
    auto folded = std::make_shared<FoldedGraph>();
    folded->nodeRef.assign(m.graph->nodes.size(), {});
    for (NodeId first = 0; first < NodeId(m.graph->nodes.size()); first += chunk) {
        BlockClass c;
        c.id = int(folded->classes.size());
        c.signature = uint64_t(1000 + c.id);
        BlockInstance inst;
        for (NodeId n = first; n < std::min<NodeId>(first + chunk, NodeId(m.graph->nodes.size())); ++n) {
            folded->nodeRef[size_t(n)] = {c.id, 0, int(inst.nodes.size())};
            inst.nodes.push_back(n);
        }
        c.nodesPerInstance = int(inst.nodes.size());
        c.instances.push_back(inst);
        folded->classes.push_back(c);
        folded->chain.push_back({c.id, 0});
    }
    m.folded = folded;
    return m;
}

} // namespace

class TstGraphViewScale : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void a_long_unique_stretch_opens_as_parts_and_each_expands()
    {
        auto m = uniqueStretch(300, 60); // 902 nodes: 16 parts of at most 60
        GraphView view;
        QSignalSpy notices(&view, &GraphView::notice);
        QVERIFY(openIn(view, m));
        QVERIFY(view.presentation().boxesUniqueParts());
        QCOMPARE(view.graphScene()->blockItemCount(), 16);
        QCOMPARE(view.graphScene()->nodeItemCount(), 2); // the graph input and output
        QVERIFY(int(view.presentation().items().size()) <= GraphPresentation::kDefaultLevelBoxLimit);
        QCOMPARE(notices.count(), 1);
        QVERIFY2(notices.at(0).at(0).toString().contains(QStringLiteral("902")), qPrintable(notices.at(0).at(0).toString()));
        QCOMPARE(view.presentation().instanceTitle({2, 0}), QStringLiteral("Section 3"));

        view.expand({2, 0});
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({2, 0}));
        QCOMPARE(view.graphScene()->blockItemCount(), 15);
        QCOMPARE(view.graphScene()->nodeItemCount(), 2 + 60);
        QVERIFY(view.graphScene()->frameFor({2, 0}));
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
        view.collapse({2, 0});
        QVERIFY(waitIdle(view));
        QCOMPARE(view.graphScene()->blockItemCount(), 16);

        // A small model keeps its unique ops drawn one by one.
        auto small = graphtest::layeredModel(6, false);
        view.setModel(small.graph, small.folded);
        QVERIFY(waitIdle(view));
        QVERIFY(!view.presentation().boxesUniqueParts());
        QCOMPARE(view.graphScene()->blockItemCount(), 0);
    }

    void cancel_ends_a_slow_layout_within_a_second()
    {
        const auto g = graphtest::tangle(150000);
        GraphView view;
        view.resize(900, 700);
        view.show();
        view.setModel(g, nullptr);
        QTest::qWait(50);
        QVERIFY2(view.isBusy(), "the layout finished before the cancel: the test proves nothing");
        QSignalSpy notices(&view, &GraphView::notice);
        QElapsedTimer t;
        t.start();
        view.cancelLayout();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isBusy(), 1000);
        qInfo("layout of %d boxes cancelled: idle %lld ms later", int(g->nodes.size()), t.elapsed());
        QVERIFY(!notices.isEmpty());
        QVERIFY(notices.last().at(0).toString().contains(QStringLiteral("cancelled")));
    }

    void the_progress_row_waits_before_it_shows_and_never_resizes_a_quick_expand()
    {
        // Showing the bar (and hiding it again) resizes the view, which repaints the whole graph:
        // a quick expand must not pay for that, a slow layout must still offer Cancel.
        auto m = graphtest::layeredModel(8);
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        panel.setModel(m.graph, m.folded);
        QVERIFY(panel.view()->isBusy());
        QCoreApplication::processEvents();
        QVERIFY(!panel.progressRow()->isVisible());
        QVERIFY(waitIdle(*panel.view()));
        QVERIFY(!panel.progressRow()->isVisible());
        const QSize viewSize = panel.view()->size();
        panel.view()->expand({0, 3});
        QVERIFY(panel.view()->isBusy());
        QCoreApplication::processEvents();
        QVERIFY(!panel.progressRow()->isVisible());
        QCOMPARE(panel.view()->size(), viewSize);

        const auto slow = graphtest::tangle(150000);
        panel.setModel(slow, nullptr);
        QVERIFY(!panel.progressRow()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(panel.progressRow()->isVisible(), GraphPanel::kProgressDelayMs + 2000);
        QVERIFY2(panel.view()->isBusy(), "the layout finished before the bar showed: the test proves nothing");
        panel.view()->cancelLayout();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.view()->isBusy(), 1000);
        QVERIFY(!panel.progressRow()->isVisible());
    }

    void closing_a_view_ends_its_layout_within_a_second()
    {
        const auto g = graphtest::tangle(150000);
        auto* view = new GraphView;
        view->resize(900, 700);
        view->show();
        view->setModel(g, nullptr);
        QTest::qWait(50);
        QVERIFY2(view->isBusy(), "the layout finished before the close: the test proves nothing");
        QElapsedTimer t;
        t.start();
        delete view; // cancels and waits for the worker
        qInfo("view closed during a layout of %d boxes: %lld ms", int(g->nodes.size()), t.elapsed());
        QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
    }

    void expand_all_and_collapse_all()
    {
        auto m = graphtest::layeredModel(6);
        GraphView view;
        QVERIFY(openIn(view, m));
        const GraphLayout folded = view.currentLayout();
        view.expandAll();
        QVERIFY(waitIdle(view));
        for (int i = 0; i < 6; ++i) QVERIFY(view.isExpanded({0, i}));
        QCOMPARE(view.graphScene()->blockItemCount(), 0);
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
        view.collapseAll();
        QVERIFY(waitIdle(view));
        QVERIFY(view.presentation().expanded().empty());
        QCOMPARE(view.graphScene()->blockItemCount(), 6);
        // The folded picture comes back as it was laid out at first.
        for (const PlacedNode& n : folded.nodes) {
            const PlacedNode* now = view.currentLayout().find(n.id);
            QVERIFY(now);
            QCOMPARE(now->x, n.x);
            QCOMPARE(now->y, n.y);
        }
        // Within a limit: as many as fit, in order, and a notice for the rest.
        view.setItemLimit(10 + 2 * 2); // each expansion adds two boxes
        QSignalSpy notices(&view, &GraphView::notice);
        view.expandAll();
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({0, 0}) && view.isExpanded({0, 1}) && !view.isExpanded({0, 2}));
        QCOMPARE(notices.count(), 1);
        QVERIFY(notices.at(0).at(0).toString().contains(QStringLiteral("4 stay folded")));
    }

    void fit_keeps_a_tall_model_readable_and_the_minimap_shows_the_rest()
    {
        auto m = graphtest::layeredModel(GraphPresentation::kSectionSize); // the longest run drawn unsectioned
        GraphView view;
        QVERIFY(openIn(view, m));
        QVERIFY(!view.presentation().sectioned(0));
        // 100 boxes in a column fitted whole would be a sliver at zoom ~0.08.
        QVERIFY2(view.zoom() >= GraphView::kReadableZoom - 1e-9, qPrintable(QString::number(view.zoom())));
        // It starts at the top: the first layer's box is on screen.
        QGraphicsItem* first = view.graphScene()->itemForId(view.presentation().blockItemId({0, 0}));
        QVERIFY(first);
        const QRect onScreen = view.mapFromScene(first->sceneBoundingRect()).boundingRect();
        QVERIFY(view.viewport()->rect().intersects(onScreen));
        QVERIFY(view.minimap()->isVisible());
        // A click low on the minimap moves the view down the model.
        const int before = view.verticalScrollBar()->value();
        QTest::mouseClick(view.minimap(), Qt::LeftButton, {}, QPoint(view.minimap()->width() / 2, view.minimap()->height() - 5));
        QVERIFY2(view.verticalScrollBar()->value() > before, qPrintable(QStringLiteral("%1 -> %2 of %3, minimap %4x%5").arg(before).arg(view.verticalScrollBar()->value()).arg(view.verticalScrollBar()->maximum()).arg(view.minimap()->width()).arg(view.minimap()->height())));
        // A small model fits whole, and needs no minimap.
        auto small = graphtest::layeredModel(3);
        view.setModel(small.graph, small.folded);
        QVERIFY(waitIdle(view));
        QVERIFY(!view.minimap()->isVisible());
    }

    void zoom_keys_work_wherever_the_focus_is_in_the_panel()
    {
        auto m = graphtest::layeredModel(6);
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* other = new QPushButton(QStringLiteral("elsewhere"), &window);
        auto* panel = new GraphPanel(&window);
        layout->addWidget(other);
        layout->addWidget(panel);
        window.resize(900, 700);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        panel->setModel(m.graph, m.folded);
        QVERIFY(waitIdle(*panel->view()));
        other->setFocus();
        const double fitted = panel->view()->zoom();
        QTest::keyClick(other, Qt::Key_Plus);
        QVERIFY(panel->view()->zoom() > fitted * 1.1);
        QTest::keyClick(other, Qt::Key_Minus);
        QTest::keyClick(other, Qt::Key_Minus);
        QVERIFY(panel->view()->zoom() < fitted);
        QVERIFY(panel->zoomInAction()->toolTip().contains(QStringLiteral("+")));
        QVERIFY(panel->zoomOutAction()->toolTip().contains(QStringLiteral("-")));
    }

    void the_notice_counts_nodes_as_the_summary_does()
    {
        // Constants are not drawn, but the Summary counts them: so must the notice.
        auto m = graphtest::layeredModel(6);
        BlockInstance& head = m.folded->classes[1].instances[0];
        for (int i = 0; i < 5; ++i) {
            const TensorId c = graphtest::activation(*m.graph, "const" + std::to_string(i), 1);
            const NodeId n = graphtest::op(*m.graph, "Constant", "Constant_" + std::to_string(i), {}, c, "/head");
            m.folded->nodeRef.push_back({1, 0, int(head.nodes.size())});
            head.nodes.push_back(n);
        }
        GraphView view;
        view.setItemLimit(11);
        QSignalSpy notices(&view, &GraphView::notice);
        QVERIFY(openIn(view, m));
        QCOMPARE(notices.count(), 1);
        const QString expected = groupedCount(int64_t(m.graph->nodes.size())); // 25
        QVERIFY2(notices.at(0).at(0).toString().contains(QStringLiteral("has %1 nodes").arg(expected)),
                 qPrintable(notices.at(0).at(0).toString()));
    }

    void a_long_run_of_one_class_opens_in_sections_of_a_hundred()
    {
        auto m = graphtest::layeredModel(250); // one class, 250 instances
        GraphView view;
        QVERIFY(openIn(view, m));
        const GraphPresentation& p = view.presentation();
        QVERIFY(p.sectioned(0));
        QCOMPARE(p.sectionCount(0), 3);
        // Three section boxes instead of 250 instance boxes (plus the head op, input and output).
        QCOMPARE(view.graphScene()->blockItemCount(), 3);
        QVERIFY(int(p.items().size()) < 10);
        const InstanceKey second = InstanceKey::section(0, 1);
        QCOMPARE(p.instanceTitle(second), QStringLiteral("Block A · 101–200/250"));
        QCOMPARE(p.sectionRange(InstanceKey::section(0, 2)), std::make_pair(200, 250));
        // An op of instance 150 is shown by its section's box.
        const NodeId op150 = m.folded->classes[0].instances[150].nodes[0];
        QCOMPARE(p.itemOfNode(op150), p.blockItemId(second));

        view.expand(second);
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded(second));
        QCOMPARE(view.graphScene()->blockItemCount(), 2 + 100);
        QVERIFY(view.graphScene()->frameFor(second));
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
        QCOMPARE(view.presentation().itemOfNode(op150), view.presentation().blockItemId({0, 150}));

        // An instance inside the expanded section expands like any block.
        view.expand({0, 150});
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({0, 150}));
        QCOMPARE(view.presentation().itemOfNode(op150), int(op150));
        QVERIFY(view.graphScene()->frameFor({0, 150}));
        QVERIFY(!layoutHasOverlap(view.currentLayout()));

        // Collapsing the section folds its instances with it.
        view.collapse(second);
        QVERIFY(waitIdle(view));
        QVERIFY(view.presentation().expanded().empty());
        QCOMPARE(view.graphScene()->blockItemCount(), 3);
        QVERIFY(!view.graphScene()->frameFor({0, 150}));
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
    }

    void expanding_keeps_the_scene_items_that_stay_and_moves_them()
    {
        auto m = graphtest::layeredModel(12);
        GraphView view;
        QVERIFY(openIn(view, m));
        GraphScene* scene = view.graphScene();
        const int last = view.presentation().blockItemId({0, 11});
        QGraphicsItem* lastBox = scene->itemForId(last);
        QGraphicsItem* firstBox = scene->itemForId(view.presentation().blockItemId({0, 0}));
        QVERIFY(lastBox && firstBox);
        const QPointF before = lastBox->pos();
        const int items = int(scene->items().size());

        view.expand({0, 5});
        QVERIFY(waitIdle(view));
        // The same item objects, the ones below moved down; only block 6's box went and its ops came.
        QCOMPARE(scene->itemForId(last), lastBox);
        QCOMPARE(scene->itemForId(view.presentation().blockItemId({0, 0})), firstBox);
        QVERIFY(lastBox->pos().y() > before.y());
        QCOMPARE(lastBox->pos(), QPointF(view.currentLayout().find(last)->x, view.currentLayout().find(last)->y));
        QVERIFY(!scene->itemForId(view.presentation().blockItemId({0, 5})));
        QCOMPARE(scene->blockItemCount(), 11);

        view.collapse({0, 5});
        QVERIFY(waitIdle(view));
        QCOMPARE(scene->itemForId(last), lastBox);
        QCOMPARE(int(scene->items().size()), items);
        QCOMPARE(scene->blockItemCount(), 12);
        // Every edge of the picture is drawn once, at its routed place.
        QCOMPARE(scene->edgeItemCount(), int(view.currentLayout().edges.size()));
    }
};

QTEST_MAIN(TstGraphViewScale)
#include "tst_graph_view_scale.moc"
