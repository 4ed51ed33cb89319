// The Plan dock's model on a zoo GPT plan: ops and weights grouped by block class with the ×N
// count, each row's sharding, collectives and costs read from the plan editor's report, the
// override mark, and the filters (op type, class, has-collective, text).
#include "tests/common/zoo_plan.h"
#include "core/cost/cost_model.h"
#include "core/ops/shard_helpers.h"
#include "core/plan/plan_editor.h"
#include "views/graph/sharding_style.h"
#include "views/plan/plan_filter_model.h"
#include "views/plan/plan_model.h"

#include <QFont>
#include <QtTest>

using namespace tapas;
using namespace tapas::testing;

class TstPlanModel : public QObject {
    Q_OBJECT
private:
    ZooPlan plan_;
    std::unique_ptr<CostModel> cost_;
    std::unique_ptr<PlanEditor> editor_;
    NodeId fc_ = kNoNode; // layer 0's MLP up-projection MatMul

    // Every leaf-most row (position rows of singletons, instance rows of repeated classes).
    static void leaves(const QAbstractItemModel& m, const QModelIndex& parent, QList<QModelIndex>& out)
    {
        for (int r = 0; r < m.rowCount(parent); ++r) {
            const QModelIndex i = m.index(r, 0, parent);
            if (m.rowCount(i) == 0) out << i;
            else leaves(m, i, out);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        plan_ = smallGptPlan();
        cost_ = std::make_unique<CostModel>(*plan_.graph, plan_.cluster, plan_.result.best.plan.mesh);
        editor_ = std::make_unique<PlanEditor>(*plan_.graph, plan_.folded.get(), *cost_, plan_.result.best.plan);
        fc_ = findNode(*plan_.graph, "h.0/mlp", "MatMul");
        QVERIFY2(fc_ != kNoNode, "the zoo GPT has an MLP MatMul in layer 0");
    }

    void class_rows_group_ops_with_their_instance_count()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        int repeated = 0;
        for (int r = 0; r < m.rowCount(); ++r) {
            const QModelIndex c = m.index(r, 0);
            QCOMPARE(c.data(PlanModel::LevelRole).toInt(), 1);
            const int classId = c.data(PlanModel::ClassRole).toInt();
            const BlockClass& cls = plan_.folded->classes[size_t(classId)];
            if (!cls.repeated()) continue;
            ++repeated;
            QVERIFY2(c.data().toString().contains(QStringLiteral("×%1").arg(cls.instances.size())), qPrintable(c.data().toString()));
            QVERIFY(m.rowCount(c) > 0);
            // Each position row of a repeated class has one row per instance below it.
            QCOMPARE(m.rowCount(m.index(0, 0, c)), int(cls.instances.size()));
        }
        QCOMPARE(repeated, plan_.folded->repeatedClassCount());
        // Every op except Constants is listed exactly once as a leaf.
        QList<QModelIndex> all;
        leaves(m, {}, all);
        std::vector<int> seen(plan_.graph->nodes.size(), 0);
        for (const QModelIndex& i : all)
            if (i.data(PlanModel::TensorRole).toInt() == kNoTensor) ++seen[size_t(m.nodeAt(i))];
        for (NodeId n = 0; n < NodeId(seen.size()); ++n)
            QCOMPARE(seen[size_t(n)], plan_.graph->node(n).opType == "Constant" ? 0 : 1);
    }

    void index_of_node_finds_the_row_of_every_listed_op()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        for (NodeId n = 0; n < NodeId(plan_.graph->nodes.size()); ++n) {
            if (plan_.graph->node(n).opType == "Constant") continue;
            const QModelIndex i = m.indexOfNode(n);
            QVERIFY(i.isValid());
            QCOMPARE(m.nodeAt(i), n);
            QCOMPARE(i.data(PlanModel::TensorRole).toInt(), int(kNoTensor));
        }
    }

    void without_a_plan_the_sharding_and_cost_columns_are_empty()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        const QModelIndex i = m.indexOfNode(fc_);
        QVERIFY(i.sibling(i.row(), PlanModel::Sharding).data().toString().isEmpty());
        QVERIFY(i.sibling(i.row(), PlanModel::Compute).data().toString().isEmpty());
        QCOMPARE(i.sibling(i.row(), PlanModel::OpType).data().toString(), QStringLiteral("MatMul"));
    }

    void sharding_column_names_strategy_weight_and_output_layouts()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        m.setEditor(editor_.get());
        const QModelIndex i = m.indexOfNode(fc_);
        const QString text = i.sibling(i.row(), PlanModel::Sharding).data().toString();
        const OpStrategy& s = editor_->plan().nodes[size_t(fc_)];
        QVERIFY2(text.startsWith(QString::fromStdString(s.name) + QLatin1Char(':')), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("W [")), qPrintable(text));
        // dp = 2: the activation's batch is split over dp, which the spec shows.
        QVERIFY2(text.contains(QStringLiteral("→ out [S(dp)")), qPrintable(text));
        // The weight row under the op's position row shows how the weight is stored.
        const QModelIndex position = i.parent();
        const QModelIndex classRow = position.parent();
        bool weightRow = false;
        for (int r = position.row() + 1; r < m.rowCount(classRow); ++r) {
            const QModelIndex w = m.index(r, 0, classRow);
            if (w.data(PlanModel::TensorRole).toInt() == kNoTensor) break;
            weightRow = true;
            QCOMPARE(m.nodeAt(w), fc_);
            QVERIFY(w.sibling(w.row(), PlanModel::OpType).data().toString().startsWith(QStringLiteral("weight")));
            QVERIFY(w.sibling(w.row(), PlanModel::Sharding).data().toString().startsWith(QLatin1Char('[')));
        }
        QVERIFY2(weightRow, "the MLP MatMul's weight is listed under it");
    }

    void cost_columns_sum_the_report_over_instances()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        m.setEditor(editor_.get());
        const CostReport& rep = editor_->report();
        const QModelIndex inst = m.indexOfNode(fc_);
        QCOMPARE(inst.sibling(inst.row(), PlanModel::Compute).data(PlanModel::SortRole).toDouble(),
                 rep.perNode[size_t(fc_)].compute);
        QCOMPARE(inst.sibling(inst.row(), PlanModel::Memory).data(PlanModel::SortRole).toDouble(),
                 rep.perNode[size_t(fc_)].memory());
        double sum = 0;
        for (NodeId peer : editor_->classPeers(fc_)) sum += rep.perNode[size_t(peer)].compute;
        const QModelIndex position = inst.parent();
        QCOMPARE(position.data(PlanModel::LevelRole).toInt(), 2);
        QVERIFY(qFuzzyCompare(position.sibling(position.row(), PlanModel::Compute).data(PlanModel::SortRole).toDouble(), sum));
        QVERIFY(sum > 0);
    }

    void collectives_column_lists_every_reshard_on_its_consumer()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        m.setEditor(editor_.get());
        int withComm = 0;
        for (const Reshard& r : editor_->plan().reshards) {
            if (r.consumer == kNoNode || plan_.graph->node(r.consumer).opType == "Constant") continue;
            const bool comm = (r.forward != CollectiveKind::None && r.forward != CollectiveKind::Slice) ||
                              (r.backward != CollectiveKind::None && r.backward != CollectiveKind::Slice);
            if (!comm) continue;
            ++withComm;
            const QModelIndex i = m.indexOfNode(r.consumer);
            QVERIFY(i.data(PlanModel::HasCollectiveRole).toBool());
            QVERIFY2(i.sibling(i.row(), PlanModel::Collectives).data().toString().contains(
                         QString::fromStdString(plan_.graph->tensor(r.tensor).name)),
                     qPrintable(i.sibling(i.row(), PlanModel::Collectives).data().toString()));
        }
        QVERIFY2(withComm > 0, "a tensor-parallel GPT plan has collectives");
    }

    void filters_keep_only_matching_rows()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        m.setEditor(editor_.get());
        PlanFilterModel f;
        f.setSourceModel(&m);
        QList<QModelIndex> all;
        leaves(m, {}, all);

        f.setOpType(QStringLiteral("MatMul"));
        QList<QModelIndex> shown;
        leaves(f, {}, shown);
        QVERIFY(!shown.isEmpty());
        QVERIFY(shown.size() < all.size());
        for (const QModelIndex& i : shown) QCOMPARE(i.data(PlanModel::OpTypeRole).toString(), QStringLiteral("MatMul"));
        f.setOpType({});

        f.setCollectivesOnly(true);
        shown.clear();
        leaves(f, {}, shown);
        QVERIFY(!shown.isEmpty());
        for (const QModelIndex& i : shown) QVERIFY(i.data(PlanModel::HasCollectiveRole).toBool());
        f.setCollectivesOnly(false);

        const int classId = plan_.folded->nodeRef[size_t(fc_)].classId;
        f.setClassId(classId);
        QCOMPARE(f.rowCount(), 1);
        QCOMPARE(f.index(0, 0).data(PlanModel::ClassRole).toInt(), classId);
        f.setClassId(-1);

        f.setText(QStringLiteral("mlp"));
        shown.clear();
        leaves(f, {}, shown);
        QVERIFY(!shown.isEmpty());
        for (const QModelIndex& i : shown) QVERIFY2(i.data().toString().contains(QStringLiteral("mlp"), Qt::CaseInsensitive), qPrintable(i.data().toString()));
        f.setText(QStringLiteral("no such op anywhere"));
        QCOMPARE(f.rowCount(), 0);
        f.setText({});
        QCOMPARE(f.rowCount(), m.rowCount());
    }

    void sorting_by_compute_orders_rows_by_the_figure()
    {
        PlanModel m;
        m.setGraph(plan_.graph, plan_.folded);
        m.setEditor(editor_.get());
        PlanFilterModel f;
        f.setSourceModel(&m);
        f.sort(PlanModel::Compute, Qt::DescendingOrder);
        double last = 1e300;
        for (int r = 0; r < f.rowCount(); ++r) {
            const double v = f.index(r, PlanModel::Compute).data(PlanModel::SortRole).toDouble();
            QVERIFY(v <= last);
            last = v;
        }
    }

    void an_override_is_marked_bold_with_a_tooltip()
    {
        ZooPlan p = plan_;
        CostModel cost(*p.graph, p.cluster, p.result.best.plan.mesh);
        PlanEditor editor(*p.graph, p.folded.get(), cost, p.result.best.plan);
        PlanModel m;
        m.setGraph(p.graph, p.folded);
        m.setEditor(&editor);
        const QModelIndex before = m.indexOfNode(fc_);
        QVERIFY(!before.data(PlanModel::OverriddenRole).toBool());
        const std::string current = editor.plan().nodes[size_t(fc_)].name;
        std::string other;
        for (const OpStrategy& s : editor.allowedStrategies(fc_))
            if (s.name != current && s.name != "replicate") other = s.name;
        QVERIFY(!other.empty());
        Result<PlanChange> change = editor.setStrategy(fc_, other, /*wholeClass=*/true);
        QVERIFY2(change.ok(), change.error().c_str());
        m.refresh();
        for (NodeId peer : editor.classPeers(fc_)) {
            const QModelIndex i = m.indexOfNode(peer);
            QVERIFY(i.data(PlanModel::OverriddenRole).toBool());
            QVERIFY(i.data(Qt::FontRole).value<QFont>().bold());
            QVERIFY(i.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Overridden")));
            QVERIFY(i.sibling(i.row(), PlanModel::Sharding).data().toString().startsWith(QString::fromStdString(other)));
        }
        // The position row says how many instances were overridden.
        QVERIFY(m.indexOfNode(fc_).parent().data(Qt::ToolTipRole).toString().contains(QStringLiteral("4 of 4")));
    }

    void column_and_row_matmuls_get_their_families_colours()
    {
        const std::vector<OpStrategy> allowed = editor_->allowedStrategies(fc_);
        bool column = false, row = false;
        for (const OpStrategy& s : allowed) {
            if (s.name == "column") {
                column = true;
                QCOMPARE(ShardingStyle::family(*plan_.graph, fc_, s), ShardingFamily::Column);
            }
            if (s.name == "row") {
                row = true;
                QCOMPARE(ShardingStyle::family(*plan_.graph, fc_, s), ShardingFamily::Row);
            }
        }
        QVERIFY(column && row);
        QVERIFY(ShardingStyle::fill(ShardingFamily::Column) != ShardingStyle::fill(ShardingFamily::Row));
        QCOMPARE(ShardingStyle::family(*plan_.graph, fc_, replicateStrategy(plan_.graph->node(fc_))),
                 ShardingFamily::Replicate);
    }
};

QTEST_MAIN(TstPlanModel)
#include "tst_plan_model.moc"
