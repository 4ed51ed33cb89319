#include "views/graph/sharding_overlay.h"

#include "core/plan/plan_editor.h"
#include "core/shard/collective.h"
#include "views/graph/block_item.h"
#include "views/graph/edge_item.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/graph/node_item.h"
#include "views/graph/sharding_style.h"

#include <QEvent>
#include <QLabel>

#include <array>
#include <map>
#include <set>

namespace tapas {

namespace {

bool realCollective(CollectiveKind k)
{
    return k != CollectiveKind::None && k != CollectiveKind::Slice;
}

QString kindName(CollectiveKind k)
{
    return QString::fromUtf8(collectiveName(k).data());
}

} // namespace

ShardingOverlay::ShardingOverlay(GraphView* view) : QObject(view), view_(view), legend_(new QLabel(view))
{
    legend_->setObjectName(QStringLiteral("shardingLegend"));
    legend_->setTextFormat(Qt::RichText);
    legend_->setWordWrap(true);
    legend_->setContentsMargins(6, 2, 6, 2);
    legend_->hide();
    connect(view_, &GraphView::layoutApplied, this, &ShardingOverlay::refresh);
    retranslate();
}

void ShardingOverlay::setEditor(const PlanEditor* editor)
{
    editor_ = editor;
    refresh();
}

void ShardingOverlay::setEnabled(bool enabled)
{
    if (enabled == enabled_) return;
    enabled_ = enabled;
    refresh();
}

void ShardingOverlay::retranslate()
{
    // One line of entries (wrapping when narrow): a strip above the graph, not a box over it.
    const QString gap = QStringLiteral("&nbsp;&nbsp;&nbsp; ");
    QString html = QStringLiteral("<b>%1:</b>").arg(tr("Sharding"));
    for (int f = 0; f < ShardingStyle::familyCount(); ++f) {
        const auto fam = ShardingFamily(f);
        html += QStringLiteral(" <span style='color:%1'>■</span>&nbsp;%2")
                    .arg(ShardingStyle::border(fam).name(), ShardingStyle::name(fam).toHtmlEscaped()) + gap;
    }
    html += QStringLiteral("<span style='color:%1'>- - ▸</span>&nbsp;%2")
                .arg(ShardingStyle::collectiveColor().name(), tr("collective on an edge")) + gap;
    html += QStringLiteral("<span style='color:#d55e00'>●</span>&nbsp;%1").arg(tr("overridden by you"));
    legend_->setText(html);
}

void ShardingOverlay::refresh()
{
    const bool show = enabled_ && editor_ && view_->hasModel() &&
                      editor_->plan().nodes.size() == view_->graph()->nodes.size();
    legend_->setVisible(show);
    if (show) {
        applyItems();
    } else {
        clearItems();
    }
}

void ShardingOverlay::clearItems()
{
    // Items are made plain and kept plain: walking every item of a big scene after each expand
    // (and re-bounding every edge) is GUI-thread time for nothing when no plan was ever shown.
    if (!itemsMarked_) return;
    itemsMarked_ = false;
    markedEdges_ = 0;
    for (QGraphicsItem* item : view_->graphScene()->items()) {
        if (item->type() == NodeItem::Type) static_cast<NodeItem*>(item)->setOverlay({}, {}, false, {});
        else if (item->type() == BlockItem::Type) static_cast<BlockItem*>(item)->setOverlay({}, {});
        else if (item->type() == EdgeItem::Type) static_cast<EdgeItem*>(item)->setCollectives({}, {});
    }
}

void ShardingOverlay::applyItems()
{
    const Graph& g = *view_->graph();
    const FoldedGraph* folded = view_->folded().get();
    const ShardingPlan& plan = editor_->plan();
    const GraphPresentation& pres = view_->presentation();
    auto familyOf = [&](NodeId n) { return ShardingStyle::family(g, n, plan.nodes[size_t(n)]); };

    // A collapsed box stands for its class: the family most of the class's sharded ops use
    // (replicated only when nothing in it is split).
    std::vector<ShardingFamily> classFamily;
    if (folded) {
        classFamily.assign(folded->classes.size(), ShardingFamily::Replicate);
        for (const BlockClass& c : folded->classes) {
            std::array<int, size_t(ShardingFamily::Count)> votes{};
            for (const BlockInstance& inst : c.instances)
                for (NodeId n : inst.nodes)
                    if (g.node(n).opType != "Constant") ++votes[size_t(familyOf(n))];
            int best = -1;
            for (int f = 1; f < int(votes.size()); ++f)
                if (votes[size_t(f)] > 0 && (best < 0 || votes[size_t(f)] > votes[size_t(best)])) best = f;
            classFamily[size_t(c.id)] = best < 0 ? ShardingFamily::Replicate : ShardingFamily(best);
        }
    }

    // The collectives by (tensor, item that consumes it on screen).
    std::map<std::pair<TensorId, int>, std::set<QString>> onEdge;
    std::map<TensorId, int> outputItem;
    for (const VisualItem& v : pres.items())
        if (v.kind == VisualItem::Kind::Output) outputItem[v.tensor] = v.id;
    for (const Reshard& r : plan.reshards) {
        if (!realCollective(r.forward) && !realCollective(r.backward)) continue;
        int dst = -1;
        if (r.consumer == kNoNode) {
            auto it = outputItem.find(r.tensor);
            if (it != outputItem.end()) dst = it->second;
        } else {
            dst = pres.itemOfNode(r.consumer);
        }
        if (dst < 0) continue;
        std::set<QString>& kinds = onEdge[{r.tensor, dst}];
        if (realCollective(r.forward)) kinds.insert(kindName(r.forward));
        if (realCollective(r.backward)) kinds.insert(tr("%1 (bwd)").arg(kindName(r.backward)));
    }

    markedEdges_ = 0;
    itemsMarked_ = true;
    for (QGraphicsItem* item : view_->graphScene()->items()) {
        if (item->type() == NodeItem::Type) {
            auto* node = static_cast<NodeItem*>(item);
            const VisualItem& v = node->visual();
            if (v.kind != VisualItem::Kind::Op || v.node < 0 || size_t(v.node) >= plan.nodes.size()) {
                node->setOverlay({}, {}, false, {});
                continue;
            }
            const ShardingFamily f = familyOf(v.node);
            const bool overridden = editor_->isOverridden(v.node);
            QString note = tr("Sharding: %1 (%2)")
                               .arg(QString::fromStdString(plan.nodes[size_t(v.node)].name), ShardingStyle::name(f));
            if (overridden) note += QStringLiteral("\n") + tr("Overridden by you.");
            node->setOverlay(ShardingStyle::fill(f), ShardingStyle::border(f), overridden, note);
        } else if (item->type() == BlockItem::Type) {
            auto* block = static_cast<BlockItem*>(item);
            const int c = block->key().classId;
            if (c < 0 || size_t(c) >= classFamily.size()) continue;
            const ShardingFamily f = classFamily[size_t(c)];
            block->setOverlay(ShardingStyle::fill(f), tr("Mostly %1").arg(ShardingStyle::name(f)));
        } else if (item->type() == EdgeItem::Type) {
            auto* edge = static_cast<EdgeItem*>(item);
            const VisualEdge& e = edge->visual();
            std::set<QString> kinds;
            for (TensorId t : e.tensors) {
                auto it = onEdge.find({t, e.dst});
                if (it != onEdge.end()) kinds.insert(it->second.begin(), it->second.end());
            }
            QStringList list(kinds.begin(), kinds.end());
            const QString label = list.join(QStringLiteral(", "));
            edge->setCollectives(label, label.isEmpty() ? QString() : tr("Collectives here: %1").arg(label));
            markedEdges_ += !label.isEmpty();
        }
    }
}

} // namespace tapas
