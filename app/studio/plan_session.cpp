#include "app/studio/plan_session.h"

#include "app/studio/plan_edit_command.h"
#include "core/cost/staged_cost.h"

#include <QUndoStack>

#include <algorithm>

namespace tapas {

namespace {

QString nodeText(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    return node.name.empty() ? QStringLiteral("#%1 (%2)").arg(n).arg(QString::fromStdString(node.opType))
                             : QString::fromStdString(node.name);
}

std::vector<NodeId> overriddenNodes(const PlanEditor& editor)
{
    std::vector<NodeId> nodes;
    for (const StrategyOverride& o : editor.overrides()) nodes.push_back(o.node);
    return nodes;
}

bool changesAnything(const PlanChange& c)
{
    if (c.before.size() != c.after.size()) return true;
    for (size_t i = 0; i < c.before.size(); ++i)
        if (c.before[i].node != c.after[i].node || c.before[i].strategy != c.after[i].strategy) return true;
    return false;
}

} // namespace

PlanSession::PlanSession(QObject* parent) : QObject(parent), undo_(new QUndoStack(this))
{
    connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

// The undo commands and the editor point into the graph and the cost model: drop them first.
PlanSession::~PlanSession()
{
    undo_->clear();
    editor_.reset();
    costModel_.reset();
}

void PlanSession::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    undo_->clear();
    editor_.reset();
    costModel_.reset();
    results_.clear();
    current_ = -1;
    graph_ = std::move(graph);
    folded_ = std::move(folded);
    const bool hadSelection = selected_ != kNoNode;
    selected_ = kNoNode;
    Q_EMIT modelChanged();
    Q_EMIT resultsChanged();
    Q_EMIT planChanged();
    if (hadSelection) Q_EMIT nodeSelected(kNoNode);
}

void PlanSession::setResults(const ClusterSpec& cluster, const DeviceMesh& mesh, const CostOptions& options,
                             std::vector<SearchResult> results)
{
    cluster_ = cluster;
    mesh_ = mesh;
    costOptions_ = options;
    results_ = std::move(results);
    int first = results_.empty() ? -1 : 0;
    for (size_t i = 0; i < results_.size(); ++i)
        if (results_[i].searcher == "tapas") {
            first = int(i);
            break;
        }
    selectResult(first);
}

void PlanSession::selectResult(int index)
{
    undo_->clear();
    editor_.reset();
    costModel_.reset();
    planGraph_.reset();
    current_ = -1;
    if (graph_ && index >= 0 && index < int(results_.size()) &&
        results_[size_t(index)].best.plan.nodes.size() == graph_->nodes.size()) {
        current_ = index;
        const ShardingPlan& plan = results_[size_t(index)].best.plan;
        // A searcher that fixes its own mesh (data parallel) planned for that mesh, not the
        // requested one; its costs must be read on the mesh it used.
        // A staged plan's strategies are those of one micro-batch on one stage's devices.
        const DeviceMesh mesh = plan.mesh.size() > 0 ? costMeshOf(plan) : mesh_;
        // A plan that pads tables is costed and edited on the padded model.
        planGraph_ = std::make_unique<PlanGraph>(*graph_, plan);
        costModel_ = std::make_unique<CostModel>(planGraph_->graph(), cluster_, mesh, costOptionsOf(plan, costOptions_));
        editor_ = std::make_unique<PlanEditor>(planGraph_->graph(), folded_.get(), *costModel_, plan);
    }
    undo_->setClean();
    Q_EMIT resultsChanged();
    Q_EMIT planChanged();
}

QString PlanSession::setStrategy(NodeId node, const QString& strategy, bool wholeClass)
{
    if (!editor_) return tr("There is no plan to edit: run a search first.");
    if (node < 0 || node >= NodeId(graph_->nodes.size())) return tr("There is no node #%1 in the model.").arg(node);
    std::vector<NodeId> before = overriddenNodes(*editor_);
    Result<PlanChange> change = editor_->setStrategy(node, strategy.toStdString(), wholeClass);
    if (!change) return QString::fromStdString(change.error());
    if (!changesAnything(*change)) return {};
    const int peers = wholeClass ? int(editor_->classPeers(node).size()) : 1;
    const QString text = peers > 1
        ? tr("Set %1 to %2 in all %n instances", nullptr, peers).arg(nodeText(*graph_, node), strategy)
        : tr("Set %1 to %2").arg(nodeText(*graph_, node), strategy);
    undo_->push(new PlanEditCommand(this, std::move(*change), std::move(before), text));
    notifyEdited();
    return {};
}

QString PlanSession::setWeightLayout(TensorId weight, const TensorLayout& layout, bool wholeClass)
{
    if (!editor_) return tr("There is no plan to edit: run a search first.");
    if (weight < 0 || weight >= TensorId(graph_->tensors.size()))
        return tr("There is no tensor #%1 in the model.").arg(weight);
    std::vector<NodeId> before = overriddenNodes(*editor_);
    Result<PlanChange> change = editor_->setWeightLayout(weight, layout, wholeClass);
    if (!change) return QString::fromStdString(change.error());
    if (!changesAnything(*change)) return {};
    const QString name = QString::fromStdString(graph_->tensor(weight).name);
    const QString where = QString::fromStdString(layout.toString());
    const int nodes = int(change->after.size());
    const QString text = wholeClass && nodes > 1
        ? tr("Store %1 as %2 in all %n instances", nullptr, nodes).arg(name, where)
        : tr("Store %1 as %2").arg(name, where);
    undo_->push(new PlanEditCommand(this, std::move(*change), std::move(before), text));
    notifyEdited();
    return {};
}

void PlanSession::selectNode(NodeId node)
{
    if (graph_ && (node < kNoNode || node >= NodeId(graph_->nodes.size()))) node = kNoNode;
    if (!graph_) node = kNoNode;
    if (node == selected_) return;
    selected_ = node;
    Q_EMIT nodeSelected(node);
}

bool PlanSession::isModified() const
{
    return !undo_->isClean();
}

void PlanSession::markSaved()
{
    undo_->setClean();
}

QString PlanSession::restoreOverrides(const std::vector<StrategyOverride>& overrides)
{
    if (!editor_ || overrides.empty()) return {};
    Result<PlanChange> applied = editor_->apply(overrides);
    notifyEdited();
    return applied ? QString() : QString::fromStdString(applied.error());
}

void PlanSession::notifyEdited()
{
    Q_EMIT planChanged();
}

} // namespace tapas
