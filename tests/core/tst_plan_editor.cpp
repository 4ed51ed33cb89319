// PlanEditor: an override re-places collectives and re-costs incrementally, and the result is
// exactly what a from-scratch placeCollectives + evaluatePlan gives; undo through apply(before)
// restores the original report bit for bit; bad choices are refused naming node and strategy.
#include "core/plan/plan_editor.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_plan.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

#include <memory>

using namespace tapas;

namespace {

Graph gpt(int64_t layers)
{
    return testing::zooGraphOf("gpt", {.layers = layers, .hidden = 1024, .heads = 16, .vocab = 1024, .seq = 256, .batch = 4});
}

bool sameTerms(const CostTerms& a, const CostTerms& b)
{
    return a.compute == b.compute && a.tpComm == b.tpComm && a.dpComm == b.dpComm && a.commBytes == b.commBytes &&
           a.weightMemory == b.weightMemory && a.activationMemory == b.activationMemory;
}

// Exact equality (no tolerance): the incremental report must be the from-scratch one.
QString reportDifference(const CostReport& a, const CostReport& b)
{
    if (!sameTerms(a.total, b.total))
        return QStringLiteral("total differs: %1 vs %2 s").arg(a.total.time(), 0, 'g', 17).arg(b.total.time(), 0, 'g', 17);
    if (a.fits != b.fits) return QStringLiteral("fits differs");
    if (a.perNode.size() != b.perNode.size() || a.perBlock.size() != b.perBlock.size()) return QStringLiteral("sizes differ");
    for (size_t i = 0; i < a.perNode.size(); ++i)
        if (!sameTerms(a.perNode[i], b.perNode[i])) return QStringLiteral("perNode[%1] differs").arg(i);
    for (size_t i = 0; i < a.perBlock.size(); ++i)
        if (!sameTerms(a.perBlock[i], b.perBlock[i])) return QStringLiteral("perBlock[%1] differs").arg(i);
    return {};
}

QString planDifference(const ShardingPlan& a, const ShardingPlan& b)
{
    if (a.nodes.size() != b.nodes.size()) return QStringLiteral("node counts differ");
    for (size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].name != b.nodes[i].name || a.nodes[i].inputs != b.nodes[i].inputs || a.nodes[i].outputs != b.nodes[i].outputs)
            return QStringLiteral("node %1: '%2' vs '%3'").arg(i).arg(a.nodes[i].name.c_str(), b.nodes[i].name.c_str());
    if (a.reshards.size() != b.reshards.size())
        return QStringLiteral("%1 vs %2 collectives").arg(a.reshards.size()).arg(b.reshards.size());
    for (size_t i = 0; i < a.reshards.size(); ++i) {
        const Reshard &x = a.reshards[i], &y = b.reshards[i];
        if (x.tensor != y.tensor || x.consumer != y.consumer || x.inputIndex != y.inputIndex || x.from != y.from ||
            x.to != y.to || x.forward != y.forward || x.backward != y.backward)
            return QStringLiteral("collective %1 differs").arg(i);
    }
    return {};
}

// The editor's state against a from-scratch placement and evaluation of its strategies.
QString differenceFromScratch(const PlanEditor& e, const Graph& g, const FoldedGraph& f)
{
    ShardingPlan scratch = e.plan();
    placeCollectives(g, scratch);
    if (QString d = planDifference(e.plan(), scratch); !d.isEmpty()) return "collectives: " + d;
    if (Status s = checkPlan(g, e.plan()); !s) return QString::fromStdString("checkPlan: " + s.error);
    return reportDifference(e.report(), evaluatePlan(scratch, e.model(), &f));
}

struct Fixture {
    Graph g;
    FoldedGraph folded;
    ClusterSpec cluster;
    std::unique_ptr<CostModel> model;
    SearchResult searched;
    std::unique_ptr<PlanEditor> editor;

    explicit Fixture(int64_t layers) : g(gpt(layers))
    {
        folded = *foldGraph(g);
        cluster = *loadClusterSpec("a100x8");
        searched = testing::searchPlan(g, cluster, {2, 4});
        model = std::make_unique<CostModel>(g, cluster, DeviceMesh{2, 4});
        editor = std::make_unique<PlanEditor>(g, &folded, *model, searched.best.plan);
    }
    TensorId tensor(const char* name) const { return g.findTensor(name); }
    NodeId consumerOf(TensorId t) const { return g.tensor(t).consumers.front(); }
    // The slot of t in its (first) consumer's inputs.
    size_t slotOf(TensorId t) const
    {
        const Node& n = g.node(consumerOf(t));
        return size_t(std::find(n.inputs.begin(), n.inputs.end(), t) - n.inputs.begin());
    }
    TensorLayout layoutOf(TensorId t) const { return editor->plan().nodes[size_t(consumerOf(t))].inputs[slotOf(t)]; }
    // A layout the consumer's rule allows for t other than its current one.
    TensorLayout otherLayout(TensorId t) const
    {
        for (const OpStrategy& s : editor->allowedStrategies(consumerOf(t)))
            if (s.inputs[slotOf(t)] != layoutOf(t)) return s.inputs[slotOf(t)];
        return layoutOf(t);
    }
};

} // namespace

class TstPlanEditor : public QObject {
    Q_OBJECT
private slots:
    void editor_starts_with_the_from_scratch_report()
    {
        Fixture f(4);
        QCOMPARE(differenceFromScratch(*f.editor, f.g, f.folded), QString());
        QCOMPARE(reportDifference(f.editor->report(), f.searched.best.report), QString());
        QVERIFY(f.editor->overrides().empty());
    }

    void class_peers_are_the_same_position_in_every_instance()
    {
        Fixture f(4);
        const NodeId n = f.consumerOf(f.tensor("transformer.h.2.mlp.c_fc.weight"));
        const std::vector<NodeId> peers = f.editor->classPeers(n);
        QCOMPARE(peers.size(), size_t(4));
        QVERIFY(std::find(peers.begin(), peers.end(), n) != peers.end());
        for (size_t i = 0; i < peers.size(); ++i) {
            QCOMPARE(f.g.node(peers[i]).opType, std::string("MatMul"));
            const std::string expected = "/transformer/h." + std::to_string(i) + "/mlp/c_fc";
            QCOMPARE(f.g.node(peers[i]).scope, expected);
        }
    }

    void mlp_weight_override_for_all_instances_changes_cost_and_matches_full_evaluation()
    {
        Fixture f(4);
        const TensorId w = f.tensor("transformer.h.0.mlp.c_fc.weight");
        QVERIFY(w != kNoTensor);
        const TensorLayout before = f.layoutOf(w), wanted = f.otherLayout(w);
        QVERIFY2(wanted != before, "the MLP weight's rule offers a second layout");
        const CostTerms costBefore = f.editor->report().total;
        Result<PlanChange> c = f.editor->setWeightLayout(w, wanted, true);
        QVERIFY2(c.ok(), c.error().c_str());
        QCOMPARE(c->after.size(), size_t(4)); // the c_fc MatMul of each of the 4 layers
        QCOMPARE(c->before.size(), size_t(4));
        QVERIFY(sameTerms(c->costBefore, costBefore));
        QVERIFY(sameTerms(c->costAfter, f.editor->report().total));
        QVERIFY(!sameTerms(costBefore, f.editor->report().total));
        for (int layer = 0; layer < 4; ++layer) {
            const TensorId wl = f.tensor(("transformer.h." + std::to_string(layer) + ".mlp.c_fc.weight").c_str());
            QCOMPARE(f.layoutOf(wl), wanted);
            QVERIFY(f.editor->isOverridden(f.consumerOf(wl)));
        }
        QCOMPARE(f.editor->overrides().size(), size_t(4));
        QCOMPARE(differenceFromScratch(*f.editor, f.g, f.folded), QString());
    }

    void undo_through_apply_before_restores_the_original_exactly()
    {
        Fixture f(4);
        const CostReport original = f.editor->report();
        const ShardingPlan originalPlan = f.editor->plan();
        const TensorId w = f.tensor("transformer.h.1.mlp.c_proj.weight");
        Result<PlanChange> c = f.editor->setWeightLayout(w, f.otherLayout(w), true);
        QVERIFY2(c.ok(), c.error().c_str());
        const CostReport edited = f.editor->report();
        Result<PlanChange> undo = f.editor->apply(c->before);
        QVERIFY2(undo.ok(), undo.error().c_str());
        QCOMPARE(reportDifference(f.editor->report(), original), QString());
        QCOMPARE(planDifference(f.editor->plan(), originalPlan), QString());
        QVERIFY2(f.editor->overrides().empty(), "back at the searched strategies nothing is an override");
        Result<PlanChange> redo = f.editor->apply(c->after);
        QVERIFY2(redo.ok(), redo.error().c_str());
        QCOMPARE(reportDifference(f.editor->report(), edited), QString());
        QCOMPARE(f.editor->overrides().size(), size_t(4));
    }

    void single_instance_override_changes_that_node_only()
    {
        Fixture f(4);
        const NodeId n = f.consumerOf(f.tensor("transformer.h.3.attn.c_attn.weight"));
        const std::string now = f.editor->plan().nodes[size_t(n)].name;
        std::string other;
        for (const OpStrategy& s : f.editor->allowedStrategies(n))
            if (s.name != now && other.empty()) other = s.name;
        QVERIFY(!other.empty());
        const ShardingPlan before = f.editor->plan();
        Result<PlanChange> c = f.editor->setStrategy(n, other, false);
        QVERIFY2(c.ok(), c.error().c_str());
        QCOMPARE(c->after.size(), size_t(1));
        QCOMPARE(c->after.front().node, n);
        for (NodeId p : f.editor->classPeers(n))
            QCOMPARE(f.editor->plan().nodes[size_t(p)].name, p == n ? other : before.nodes[size_t(p)].name);
        QVERIFY(f.editor->isOverridden(n));
        QCOMPARE(differenceFromScratch(*f.editor, f.g, f.folded), QString());
        f.editor->forgetOverrides({n});
        QVERIFY(!f.editor->isOverridden(n));
        QCOMPARE(f.editor->plan().nodes[size_t(n)].name, other); // the strategy stays
    }

    void every_allowed_strategy_of_a_layer_keeps_incremental_equal_to_scratch()
    {
        Fixture f(2);
        // Walk every node of one layer through every strategy its rule allows, for the whole
        // class: after each accepted change checkPlan passes and the report is the scratch one.
        const NodeId anchor = f.consumerOf(f.tensor("transformer.h.0.mlp.c_fc.weight"));
        const BlockClass& cls = f.folded.classOf(anchor);
        int changes = 0;
        for (NodeId n : cls.instances.front().nodes)
            for (const OpStrategy& s : f.editor->allowedStrategies(n)) {
                Result<PlanChange> c = f.editor->setStrategy(n, s.name, true);
                QVERIFY2(c.ok(), c.error().c_str());
                changes += !c->after.empty();
                const QString diff = differenceFromScratch(*f.editor, f.g, f.folded);
                QVERIFY2(diff.isEmpty(), qPrintable(QString::fromStdString(f.g.node(n).name + " -> " + s.name + ": ") + diff));
            }
        QVERIFY(changes > 20);
    }

    void unknown_strategy_is_refused_naming_node_and_strategy()
    {
        Fixture f(2);
        const NodeId n = f.consumerOf(f.tensor("transformer.h.0.mlp.c_fc.weight"));
        const ShardingPlan before = f.editor->plan();
        const CostReport report = f.editor->report();
        Result<PlanChange> c = f.editor->setStrategy(n, "diagonal", true);
        QVERIFY(!c.ok());
        QVERIFY2(c.error().find(f.g.node(n).name) != std::string::npos, c.error().c_str());
        QVERIFY2(c.error().find("'diagonal'") != std::string::npos, c.error().c_str());
        QVERIFY2(c.error().find("'column'") != std::string::npos, c.error().c_str()); // the allowed ones are listed
        QCOMPARE(planDifference(f.editor->plan(), before), QString());
        QCOMPARE(reportDifference(f.editor->report(), report), QString());
        QVERIFY(f.editor->overrides().empty());
        QVERIFY(!f.editor->setStrategy(NodeId(f.g.nodes.size()), "replicate", false).ok());
        QVERIFY(!f.editor->apply({{n, "diagonal"}}).ok());
    }

    void impossible_weight_layout_is_refused_listing_the_allowed_ones()
    {
        Fixture f(2);
        const TensorId w = f.tensor("transformer.h.0.mlp.c_fc.weight");
        Result<PlanChange> c = f.editor->setWeightLayout(w, TensorLayout::split(5), true);
        QVERIFY(!c.ok());
        QVERIFY2(c.error().find("transformer.h.0.mlp.c_fc.weight") != std::string::npos, c.error().c_str());
        QVERIFY2(c.error().find("S(5)") != std::string::npos, c.error().c_str());
        QVERIFY2(c.error().find("allows R, S(0), S(1)") != std::string::npos, c.error().c_str());
        // An activation is not a stored weight.
        const TensorId act = f.g.node(f.consumerOf(w)).outputs.front();
        Result<PlanChange> a = f.editor->setWeightLayout(act, TensorLayout::replicated(), false);
        QVERIFY(!a.ok());
        QVERIFY2(a.error().find("not a stored weight") != std::string::npos, a.error().c_str());
    }

    void weight_layout_change_with_the_current_layout_is_a_no_op()
    {
        Fixture f(2);
        const TensorId w = f.tensor("transformer.h.0.mlp.c_fc.weight");
        const CostReport report = f.editor->report();
        Result<PlanChange> c = f.editor->setWeightLayout(w, f.layoutOf(w), true);
        QVERIFY2(c.ok(), c.error().c_str());
        QVERIFY(c->after.empty());
        QCOMPARE(reportDifference(f.editor->report(), report), QString());
    }

    void overrides_given_at_construction_are_applied()
    {
        Fixture f(2);
        const NodeId n = f.consumerOf(f.tensor("transformer.h.1.mlp.c_fc.weight"));
        PlanEditor e(f.g, &f.folded, *f.model, f.searched.best.plan, {{n, "replicate"}, {NodeId(1 << 30), "row"}});
        QCOMPARE(e.plan().nodes[size_t(n)].name, std::string("replicate"));
        QVERIFY(e.isOverridden(n));
        QVERIFY(!e.plan().warnings.empty()); // the bogus node is dropped with a warning
        QCOMPARE(differenceFromScratch(e, f.g, f.folded), QString());
    }
};

QTEST_APPLESS_MAIN(TstPlanEditor)
#include "tst_plan_editor.moc"
