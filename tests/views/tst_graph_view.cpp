// The graph view end to end, offscreen: opens folded (one box per repeated instance), expands
// an instance by double-click and collapses it with its − control (only that part moves),
// finds by op type with next/previous (expanding folded hits), guards the size, exports PNG
// and SVG, and feeds the Inspector.
#include "tests/common/image_checks.h"
#include "graph_test_models.h"

#include "core/fold/folded_graph.h"
#include "core/zoo/zoo.h"
#include "views/graph/block_item.h"
#include "views/graph/edge_item.h"
#include "views/graph/graph_panel.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_search.h"
#include "views/graph/graph_view.h"
#include "views/graph/node_item.h"
#include "views/inspector_view.h"

#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace tapas;

namespace {

constexpr int kLayers = 6;

bool waitIdle(GraphView& view, int ms = 20000)
{
    QElapsedTimer t;
    t.start();
    while (view.isBusy() && t.elapsed() < ms) QTest::qWait(10);
    return !view.isBusy();
}

std::map<int, QPointF> blockPositions(const GraphView& view)
{
    std::map<int, QPointF> out;
    for (QGraphicsItem* item : view.graphScene()->items())
        if (item->type() == BlockItem::Type) out[static_cast<BlockItem*>(item)->key().instance] = item->pos();
    return out;
}

const NodeItem* selectedNode(const GraphView& view)
{
    for (QGraphicsItem* item : view.graphScene()->selectedItems())
        if (item->type() == NodeItem::Type) return static_cast<NodeItem*>(item);
    return nullptr;
}

// Shows `view`, opens `m` in it and expands its second instance.
bool openWithSecondExpanded(GraphView& view, const graphtest::Model& m)
{
    view.resize(900, 700);
    view.show();
    view.setModel(m.graph, m.folded);
    if (!waitIdle(view)) return false;
    view.expand({0, 1});
    return waitIdle(view);
}

} // namespace

class TstGraphView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<tapas::GraphSelection>(); }

    void opens_folded_with_one_box_per_instance()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        QSignalSpy applied(&view, &GraphView::layoutApplied);
        view.setModel(m.graph, m.folded);
        QVERIFY(view.isBusy());
        QVERIFY(waitIdle(view));
        QCOMPARE(applied.count(), 1);
        GraphScene* s = view.graphScene();
        QCOMPARE(s->blockItemCount(), kLayers);
        QCOMPARE(s->nodeItemCount(), 2 + 2); // head MatMul + Softmax, input x, output probs
        QCOMPARE(s->edgeItemCount(), kLayers + 3);
        // Blocks read top to bottom in chain order.
        auto pos = blockPositions(view);
        for (int i = 1; i < kLayers; ++i) QVERIFY(pos[i].y() > pos[i - 1].y());
        // Fit-to-window shows everything.
        QVERIFY(view.mapToScene(view.viewport()->rect()).boundingRect().contains(s->itemsBoundingRect()));
    }

    void edge_bounds_hold_the_line_its_hover_lane_and_label_and_follow_a_new_route()
    {
        // Edge bounds come from the curve's control points (stroking a hover lane per new edge
        // made the first paint after a big expand slow): they must still hold all that is drawn
        // or hit-tested, or the view would leave bits of lines unpainted.
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        QVERIFY(openWithSecondExpanded(view, m));
        // (QRectF::contains(QRectF) is false for a rect of no width: a straight vertical line's.)
        auto holds = [](const QRectF& outer, const QRectF& inner) {
            return outer.contains(inner.topLeft()) && outer.contains(inner.bottomRight());
        };
        int edges = 0;
        for (QGraphicsItem* item : view.graphScene()->items()) {
            if (item->type() != EdgeItem::Type) continue;
            auto* e = static_cast<EdgeItem*>(item);
            ++edges;
            QVERIFY(holds(e->boundingRect(), e->path().controlPointRect()));
            QVERIFY(holds(e->boundingRect(), e->shape().boundingRect()));
            // A collectives label sits on the middle of the line.
            e->setCollectives(QStringLiteral("all-reduce"), QStringLiteral("note"));
            const QPointF mid = e->path().pointAtPercent(0.5);
            QVERIFY(holds(e->boundingRect(), QRectF(mid.x() - 40, mid.y() - 8, 80, 16)));
            // Moved: the bounds go with the line.
            RoutedEdge moved;
            moved.src = e->visual().src;
            moved.dst = e->visual().dst;
            for (int i = 0; i < 4; ++i) moved.points.push_back({5000.0 + 10 * i, 7000.0 + 40 * i});
            e->setRoute(moved);
            QVERIFY(holds(e->boundingRect(), e->shape().boundingRect()));
            QVERIFY(e->boundingRect().contains(QPointF(5030, 7120)));
            QVERIFY(!e->boundingRect().intersects(QRectF(0, 0, 4000, 4000)));
        }
        QVERIFY(edges > kLayers);
    }

    void double_click_expands_one_instance_in_place_and_minus_collapses_it()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        const auto before = blockPositions(view);
        const int target = 2;
        QGraphicsItem* box = view.graphScene()->itemForId(view.presentation().blockItemId({0, target}));
        QVERIFY(box);
        view.centerOn(box);
        const QPoint at = view.mapFromScene(box->scenePos() + QPointF(-20, 0)); // left of the + control
        QSignalSpy applied(&view, &GraphView::layoutApplied);
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, at);
        QVERIFY(waitIdle(view));
        QCOMPARE(applied.count(), 1);
        QVERIFY(view.isExpanded({0, target}));
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers - 1);
        QCOMPARE(view.graphScene()->nodeItemCount(), 4 + 3);
        QVERIFY(view.graphScene()->frameFor({0, target}));

        // Only the expanded part was laid out: blocks above did not move at all, blocks below
        // moved straight down by one common amount, and the order is unchanged.
        auto after = blockPositions(view);
        for (int i = 0; i < target; ++i) QCOMPARE(after[i], before.at(i));
        const double shift = after[target + 1].y() - before.at(target + 1).y();
        QVERIFY(shift > 60);
        for (int i = target + 1; i < kLayers; ++i) {
            QCOMPARE(after[i].x(), before.at(i).x());
            QVERIFY(qAbs(after[i].y() - before.at(i).y() - shift) < 0.01);
        }
        // The instance's ops sit between the blocks around it, in data-flow order.
        double lastY = after[target - 1].y();
        for (NodeId n : m.folded->classes[0].instances[target].nodes) {
            QGraphicsItem* item = view.graphScene()->itemForId(view.presentation().itemOfNode(n));
            QVERIFY(item && item->type() == NodeItem::Type);
            QVERIFY(item->y() > lastY);
            lastY = item->y();
        }
        QVERIFY(lastY < after[target + 1].y());
        // No two boxes overlap.
        QVERIFY(!layoutHasOverlap(view.currentLayout()));

        // Collapse with the frame's − control: the picture returns to exactly what it was.
        auto* frame = view.graphScene()->frameFor({0, target});
        view.centerOn(frame);
        const QPoint minus = view.mapFromScene(frame->mapToScene(frame->controlRect().center()));
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, minus);
        QVERIFY(waitIdle(view));
        QVERIFY(!view.isExpanded({0, target}));
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers);
        QCOMPARE(view.graphScene()->nodeItemCount(), 4);
        const auto restored = blockPositions(view);
        for (int i = 0; i < kLayers; ++i) {
            QVERIFY2(qAbs(restored.at(i).x() - before.at(i).x()) < 0.5 && qAbs(restored.at(i).y() - before.at(i).y()) < 0.5,
                     qPrintable(QString::number(i)));
        }
    }

    void plus_control_expands_and_requests_queue_behind_a_running_layout()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        // Requested while the first layout still runs: queued, applied in order.
        view.expand({0, 0});
        view.expand({0, 4});
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({0, 0}) && view.isExpanded({0, 4}));
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers - 2);
        QVERIFY(!layoutHasOverlap(view.currentLayout()));

        auto* box = static_cast<BlockItem*>(view.graphScene()->itemForId(view.presentation().blockItemId({0, 1})));
        view.centerOn(box);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(box->mapToScene(box->controlRect().center())));
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({0, 1}));
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers - 3);
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
    }

    void find_by_op_type_steps_through_hits_and_expands_folded_ones()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        GraphSearch* search = view.search();
        QCOMPARE(search->find(QStringLiteral("relu")), kLayers); // case-insensitive op type
        QCOMPARE(search->find(QStringLiteral("MatMul")), kLayers + 1);
        QCOMPARE(search->find(QStringLiteral("head/")), 2);      // node name
        QCOMPARE(search->find(QStringLiteral("batch, 10")), 2);  // shape text, spaces ignored
        QCOMPARE(search->find(QStringLiteral("nothing like this")), 0);
        QCOMPARE(search->next(), kNoNode);

        QCOMPARE(search->find(QStringLiteral("Relu")), kLayers);
        const NodeId first = search->next(); // in layer 0, folded: the view expands it
        QCOMPARE(m.graph->node(first).name, std::string("/layer.0/Relu"));
        QVERIFY(waitIdle(view));
        QVERIFY(view.isExpanded({0, 0}));
        QVERIFY(selectedNode(view));
        QCOMPARE(selectedNode(view)->visual().node, first);
        QVERIFY(view.mapToScene(view.viewport()->rect()).boundingRect().contains(selectedNode(view)->scenePos()));

        const NodeId second = search->next();
        QCOMPARE(m.graph->node(second).name, std::string("/layer.1/Relu"));
        QVERIFY(waitIdle(view));
        QCOMPARE(selectedNode(view)->visual().node, second);
        QCOMPARE(search->currentIndex(), 1);

        QCOMPARE(search->previous(), first); // already expanded: immediate
        QVERIFY(waitIdle(view));
        QCOMPARE(selectedNode(view)->visual().node, first);
        QCOMPARE(search->previous(), search->hits().back()); // wraps around
        QCOMPARE(search->currentIndex(), kLayers - 1);
    }

    void panel_find_bar_reports_position()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        panel.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(*panel.view()));
        panel.showFindBar();
        panel.findEdit()->setText(QStringLiteral("Softmax"));
        panel.findNext();
        QVERIFY(waitIdle(*panel.view()));
        QCOMPARE(panel.findStatus(), QStringLiteral("1 of 1"));
        QCOMPARE(selectedNode(*panel.view())->visual().title, QStringLiteral("Softmax"));
    }

    void too_large_models_open_folded_with_a_notice_and_expansion_is_refused_past_the_limit()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        const int folded = kLayers + 4;
        view.setItemLimit(folded + 1); // the expanded graph (3*6+4 = 22 items) is "too large"
        QSignalSpy notices(&view, &GraphView::notice);
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        QCOMPARE(notices.count(), 1);
        QVERIFY(notices.at(0).at(0).toString().contains(QStringLiteral("folded")));
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers);
        // One instance adds 3 ops and removes 1 box: folded + 2 > limit.
        view.expand({0, 3});
        QVERIFY(waitIdle(view));
        QVERIFY(!view.isExpanded({0, 3}));
        QCOMPARE(notices.count(), 2);
        QCOMPARE(view.graphScene()->blockItemCount(), kLayers);
    }

    void a_model_without_repeats_shows_every_node_unique()
    {
        auto m = graphtest::layeredModel(kLayers, false);
        GraphView view;
        view.resize(900, 700);
        view.show();
        QSignalSpy notices(&view, &GraphView::notice);
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        QCOMPARE(view.graphScene()->blockItemCount(), 0);
        QCOMPARE(view.graphScene()->nodeItemCount(), 3 * kLayers + 2 + 2);
        QCOMPARE(notices.count(), 1);
        for (const VisualItem& v : view.presentation().items()) {
            QVERIFY(v.kind != VisualItem::Kind::Block);
            if (v.kind == VisualItem::Kind::Op) QCOMPARE(v.fill, BlockStyle::neutralFill()); // unique: neutral grey
        }
        // And without any fold at all.
        view.setModel(m.graph, nullptr);
        QVERIFY(waitIdle(view));
        QCOMPARE(view.graphScene()->nodeItemCount(), 3 * kLayers + 2 + 2);
    }

    void export_writes_a_real_png_and_a_parseable_svg()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        QVERIFY(openWithSecondExpanded(view, m));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const QString png = dir.filePath(QStringLiteral("graph.png"));
        const QString svg = dir.filePath(QStringLiteral("graph.svg"));
        QVERIFY2(view.exportPng(png, &error), qPrintable(error));
        QVERIFY2(view.exportSvg(svg, &error), qPrintable(error));
        QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.height() > img.width()); // a top-to-bottom chain
        QVERIFY(tapas::testing::inkPixels(img) > 500);       // boxes, text and edges, not a blank page
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QVERIFY(renderer.defaultSize().height() > 300);
        // Exporting to a folder that does not exist fails with the path in the message.
        QVERIFY(!view.exportPng(dir.filePath(QStringLiteral("no/such/dir/g.png")), &error));
        QVERIFY(error.contains(QStringLiteral("g.png")));
        if (qEnvironmentVariableIsSet("TAPAS_GRAPH_SCREENSHOT"))
            view.grab().save(qEnvironmentVariable("TAPAS_GRAPH_SCREENSHOT"));
    }

    void selection_reaches_the_inspector()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        InspectorView inspector;
        inspector.setModel(m.graph, m.folded);
        QObject::connect(&view, &GraphView::selectionChanged, &inspector, &InspectorView::showSelection);
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        QSignalSpy selections(&view, &GraphView::selectionChanged);
        const NodeId head = NodeId(m.graph->nodes.size()) - 2; // the head MatMul
        QGraphicsItem* item = view.graphScene()->itemForId(view.presentation().itemOfNode(head));
        view.centerOn(item);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(item->scenePos()));
        QVERIFY(selections.count() >= 1);
        QCOMPARE(selections.last().at(0).value<GraphSelection>(), GraphSelection::ofNode(head));
        QCOMPARE(inspector.valueOf(QStringLiteral("Node"), QStringLiteral("Op")), QStringLiteral("MatMul"));
        QCOMPARE(inspector.valueOf(QStringLiteral("Node"), QStringLiteral("Scope")), QStringLiteral("/head"));
        QVERIFY(inspector.valueOf(QStringLiteral("Cost"), QStringLiteral("Parameters")).startsWith(QStringLiteral("640")));
        QVERIFY(!inspector.valueOf(QStringLiteral("Cost"), QStringLiteral("FLOPs (forward)")).isEmpty());

        QGraphicsItem* box = view.graphScene()->itemForId(view.presentation().blockItemId({0, 3}));
        view.centerOn(box);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(box->scenePos() + QPointF(-20, 0)));
        QCOMPARE(selections.last().at(0).value<GraphSelection>(), GraphSelection::ofBlock(0, 3));
        QCOMPARE(inspector.valueOf(QStringLiteral("Block"), QStringLiteral("Instance")), QStringLiteral("4 of 6"));
        QCOMPARE(inspector.valueOf(QStringLiteral("Block"), QStringLiteral("Nodes per instance")), QStringLiteral("3"));

        inspector.showTensor(m.graph->findTensor("logits"));
        QCOMPARE(inspector.valueOf(QStringLiteral("Tensor"), QStringLiteral("Shape")), QStringLiteral("[batch,10]"));
        QCOMPARE(inspector.valueOf(QStringLiteral("Tensor"), QStringLiteral("Dtype")), QStringLiteral("float32"));
    }

    // A long run drawn in sections: clicking a section box shows which instances it holds.
    void clicking_a_section_box_shows_its_instances_in_the_inspector()
    {
        auto m = graphtest::layeredModel(250);
        GraphView view;
        InspectorView inspector;
        inspector.setModel(m.graph, m.folded);
        QObject::connect(&view, &GraphView::selectionChanged, &inspector, &InspectorView::showSelection);
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        const int boxId = view.presentation().blockItemId(InstanceKey::section(0, 1));
        QVERIFY2(boxId >= 0, "no box for the second section of 250 layers");
        QGraphicsItem* box = view.graphScene()->itemForId(boxId);
        QVERIFY(box);
        view.centerOn(box);
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(box->scenePos() + QPointF(-20, 0)));
        QCOMPARE(inspector.valueOf(QStringLiteral("Section"), QStringLiteral("Instances")), QStringLiteral("101–200 of 250"));
        QCOMPARE(inspector.valueOf(QStringLiteral("Section"), QStringLiteral("Nodes per instance")), QStringLiteral("3"));
    }

    void keys_and_wheel_zoom()
    {
        auto m = graphtest::layeredModel(kLayers);
        GraphView view;
        view.resize(900, 700);
        view.show();
        view.setModel(m.graph, m.folded);
        QVERIFY(waitIdle(view));
        const double fitted = view.zoom();
        QTest::keyClick(view.viewport(), Qt::Key_Plus);
        QVERIFY(view.zoom() > fitted * 1.1);
        QTest::keyClick(view.viewport(), Qt::Key_Minus);
        QTest::keyClick(view.viewport(), Qt::Key_Minus);
        QVERIFY(view.zoom() < fitted);
        QTest::keyClick(view.viewport(), Qt::Key_0);
        QVERIFY(qAbs(view.zoom() - fitted) < 1e-6);
        QWheelEvent wheel(QPointF(100, 100), view.viewport()->mapToGlobal(QPointF(100, 100)), QPoint(), QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QVERIFY(view.zoom() > fitted * 1.3);
    }

    void zoo_gpt_opens_folded_through_the_real_fold()
    {
        ZooOptions o;
        // TAPAS_GRAPH_BENCH_LAYERS=24 turns this into a timing run on a deeper model.
        o.layers = qEnvironmentVariableIntValue("TAPAS_GRAPH_BENCH_LAYERS") > 0
                       ? qEnvironmentVariableIntValue("TAPAS_GRAPH_BENCH_LAYERS")
                       : 4;
        o.hidden = 64;
        o.heads = 2;
        o.vocab = 100;
        o.seq = 16;
        auto g = zooGraph("gpt", o);
        QVERIFY2(g.ok(), g.error().c_str());
        auto graph = std::make_shared<Graph>(std::move(*g));
        auto f = foldGraph(*graph);
        QVERIFY2(f.ok(), f.error().c_str());
        auto folded = std::make_shared<FoldedGraph>(std::move(*f));
        GraphView view;
        view.resize(1000, 800);
        view.show();
        view.setModel(graph, folded);
        QVERIFY(waitIdle(view, 60000));
        const int drawn = int(view.presentation().items().size());
        QVERIFY(view.graphScene()->blockItemCount() >= 4); // at least one box per layer
        QVERIFY(drawn < GraphPresentation::expandedItemCount(*graph) / 2);
        // Expanding every block instance of the first repeated class keeps the picture clean.
        int classId = -1;
        for (const BlockClass& c : folded->classes)
            if (c.repeated()) {
                classId = c.id;
                break;
            }
        QVERIFY(classId >= 0);
        QElapsedTimer timer;
        timer.start();
        view.expand({classId, 0});
        QVERIFY(waitIdle(view, 60000));
        const qint64 incrementalMs = timer.elapsed();
        QVERIFY(view.isExpanded({classId, 0}));
        QVERIFY(!layoutHasOverlap(view.currentLayout()));
        // For comparison, what the big viewers do: lay out the whole graph again.
        ExpandedSet all;
        for (const BlockClass& c : folded->classes)
            for (int i = 0; c.repeated() && i < int(c.instances.size()); ++i) all.insert({c.id, i});
        timer.restart();
        QVERIFY(layoutGraph(GraphPresentation(*graph, folded.get(), {{classId, 0}}).layoutGraph()).ok());
        const qint64 fullOneMs = timer.restart();
        QVERIFY(layoutGraph(GraphPresentation(*graph, folded.get(), all).layoutGraph()).ok());
        const qint64 fullAllMs = timer.elapsed();
        qInfo("gpt %d layers: expand one block in place %lld ms (incl. event loop); full relayout with it expanded "
              "%lld ms; with all expanded %lld ms",
              int(o.layers), incrementalMs, fullOneMs, fullAllMs);
        // Every edge stays within the picture's boxes' extent (a boundary edge once looped far
        // above the graph when dot ranked its port outside the part).
        const GraphLayout& l = view.currentLayout();
        double top = 1e18, bottom = -1e18;
        for (const PlacedNode& n : l.nodes) top = std::min(top, n.rect().top()), bottom = std::max(bottom, n.rect().bottom());
        for (const RoutedEdge& e : l.edges)
            for (const LayoutPoint& p : e.points)
                QVERIFY2(p.y > top - 60 && p.y < bottom + 60, qPrintable(QStringLiteral("edge %1 -> %2").arg(e.src).arg(e.dst)));
        if (qEnvironmentVariableIsSet("TAPAS_GRAPH_SCREENSHOT")) {
            view.fitToWindow();
            QString path = qEnvironmentVariable("TAPAS_GRAPH_SCREENSHOT");
            path.replace(QStringLiteral(".png"), QStringLiteral("_gpt.png"));
            view.grab().save(path);
            view.exportPng(path.replace(QStringLiteral("_gpt.png"), QStringLiteral("_gpt_export.png")));
        }
    }
};

QTEST_MAIN(TstGraphView)
#include "tst_graph_view.moc"
