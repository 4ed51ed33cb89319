#pragma once
// The Plan dock's content: a filter bar (op type, block class, "has collective", search), the
// PlanModel tree behind a PlanFilterModel, a summary line (step time, memory against the
// device, overrides), for a plan with pipeline stages the table of its stages (StagesModel) with
// the schedule's line (micro-batches, bubble, distributed optimizer) above the ops, and the override editor (context menu, double-click on the sharding
// column, or the Change button). The panel never edits the plan itself: it asks through
// strategyRequested / weightLayoutRequested, and the app answers through showRefusal().
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/shard/sharding_spec.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTreeView;

namespace tapas {

class OverrideDialog;
class PlanEditor;
class PlanFilterModel;
class PlanModel;
class StagesModel;

class PlanPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlanPanel(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    // The plan shown; null: none (the panel says how to get one). Not owned.
    void setEditor(const PlanEditor* editor);

    PlanModel* model() const { return model_; }
    PlanFilterModel* filter() const { return filter_; }
    QTreeView* tree() const { return tree_; }
    QComboBox* opTypeFilter() const { return opTypeBox_; }
    QComboBox* classFilter() const { return classBox_; }
    QCheckBox* collectiveFilter() const { return collectiveBox_; }
    QLineEdit* searchEdit() const { return searchEdit_; }
    QLabel* summaryLabel() const { return summary_; }
    // The stages of a staged plan (hidden, with no rows, for a plan without stages).
    StagesModel* stagesModel() const { return stages_; }
    QTableView* stagesTable() const { return stagesTable_; }
    QLabel* stagesLabel() const { return stagesLabel_; }
    QPushButton* changeButton() const { return changeButton_; }
    // The row under the tree's current index (proxy index), or an invalid index.
    QModelIndex currentSourceIndex() const;

    // Opens the override editor for a source-model row (an op or a weight row); null when the
    // row has no plan to edit. The dialog is modeless (open()); accepting it emits a request.
    OverrideDialog* openOverrideEditor(const QModelIndex& sourceIndex);

public Q_SLOTS:
    // Re-reads the plan (edit, undo, redo).
    void refresh();
    // Selects and scrolls to node n's row without emitting nodeActivated.
    void selectNode(tapas::NodeId node);
    // An edit was refused: the reason stays visible above the table.
    void showRefusal(const QString& reason);

Q_SIGNALS:
    void nodeActivated(tapas::NodeId node); // the user picked a row
    void strategyRequested(tapas::NodeId node, const QString& strategy, bool wholeClass);
    void weightLayoutRequested(tapas::TensorId weight, const tapas::TensorLayout& layout, bool wholeClass);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void fillFilterBoxes();
    void updateSummary();
    void updateStages();
    void onCurrentChanged();
    void showContextMenu(const QPoint& pos);

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const FoldedGraph> folded_;
    const PlanEditor* editor_ = nullptr;
    PlanModel* model_;
    PlanFilterModel* filter_;
    QComboBox* opTypeBox_;
    QComboBox* classBox_;
    QCheckBox* collectiveBox_;
    QLineEdit* searchEdit_;
    QTreeView* tree_;
    QLabel* summary_;
    StagesModel* stages_;
    QLabel* stagesLabel_;
    QTableView* stagesTable_;
    QLabel* refusal_;
    QPushButton* changeButton_;
    bool syncing_ = false; // selecting a row on request, not by the user
};

} // namespace tapas
