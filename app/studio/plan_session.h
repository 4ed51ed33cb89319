#pragma once
// The plan side of the open model: the cluster and mesh the user planned for, the
// plans the last search returned (TAPAS and the baselines), the plan being edited (a PlanEditor
// over the chosen result) and the QUndoStack of the user's edits. The Plan dock, the Costs dock,
// the graph overlay, the Search/Export dialogs and the project file all observe this one object,
// so they can never disagree about "the current plan".
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/plan/plan_editor.h"
#include "core/search/searcher.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QUndoStack;

namespace tapas {

class PlanSession : public QObject {
    Q_OBJECT
public:
    explicit PlanSession(QObject* parent = nullptr);
    ~PlanSession() override;

    // A new model drops every plan and the undo history.
    void setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    std::shared_ptr<const Graph> graph() const { return graph_; }
    std::shared_ptr<const FoldedGraph> folded() const { return folded_; }

    // The results of one search run (from the Search dialog or a loaded project), one per
    // searcher. The first result whose searcher is "tapas" (else the first) becomes current.
    void setResults(const ClusterSpec& cluster, const DeviceMesh& mesh, const CostOptions& options,
                    std::vector<SearchResult> results);
    const std::vector<SearchResult>& results() const { return results_; }
    const ClusterSpec& cluster() const { return cluster_; }
    const DeviceMesh& mesh() const { return mesh_; }
    const CostOptions& costOptions() const { return costOptions_; }
    bool hasPlan() const { return editor_ != nullptr; }
    // Makes result `index` the plan under edit (clears the undo history).
    void selectResult(int index);
    int currentResult() const { return current_; }

    // The plan under edit; null without a plan.
    PlanEditor* editor() const { return editor_.get(); }
    const CostModel* costModel() const { return costModel_.get(); }
    QUndoStack* undoStack() const { return undo_; }

    // Edits go through here so they land on the undo stack. Returns the refusal reason, or an
    // empty string when applied.
    QString setStrategy(NodeId node, const QString& strategy, bool wholeClass);
    QString setWeightLayout(TensorId weight, const TensorLayout& layout, bool wholeClass);

    // Re-applies saved overrides to the plan under edit as its starting point (a reopened
    // project), outside the undo stack: there is nothing to undo back to. Returns the refusal
    // reason, or an empty string.
    QString restoreOverrides(const std::vector<StrategyOverride>& overrides);

    // Node selection shared by the Plan dock and the graph view (kNoNode: none).
    void selectNode(NodeId node);
    NodeId selectedNode() const { return selected_; }

    bool isModified() const; // edits since the last markSaved()
    void markSaved();

Q_SIGNALS:
    void modelChanged();            // setModel
    void resultsChanged();          // setResults / selectResult
    void planChanged();             // any edit, undo or redo: re-read editor()->report()
    void nodeSelected(tapas::NodeId node);
    void modifiedChanged(bool modified);

private:
    friend class PlanEditCommand;   // the undo command applies PlanChanges through editor_
    void notifyEdited();

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const FoldedGraph> folded_;
    ClusterSpec cluster_;
    DeviceMesh mesh_;
    CostOptions costOptions_;
    std::vector<SearchResult> results_;
    int current_ = -1;
    std::unique_ptr<PlanGraph> planGraph_; // the model as the current plan has it (its tables padded)
    std::unique_ptr<CostModel> costModel_;
    std::unique_ptr<PlanEditor> editor_;
    QUndoStack* undo_;
    NodeId selected_ = kNoNode;
};

} // namespace tapas
