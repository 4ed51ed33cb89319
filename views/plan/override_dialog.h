#pragma once
// The override editor: change one op's strategy, or the layout one weight
// is stored in, offering only what the op's sharding rule allows (PlanEditor::allowedStrategies;
// for a weight, the layouts some allowed strategy stores it in), applied to this instance or to
// every instance of its block class. The dialog only picks: the caller applies the choice and
// shows a refusal.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/shard/sharding_spec.h"

#include <QDialog>

#include <vector>

class QComboBox;
class QLabel;
class QRadioButton;

namespace tapas {

class PlanEditor;

class OverrideDialog : public QDialog {
    Q_OBJECT
public:
    // `weightInput` >= 0 edits the weight read by that input of `node`, else the op itself.
    OverrideDialog(const Graph& graph, const FoldedGraph* folded, const PlanEditor& editor, NodeId node,
                   int weightInput, QWidget* parent = nullptr);

    NodeId node() const { return node_; }
    TensorId weight() const { return weight_; } // kNoTensor when editing the op
    bool editsWeight() const { return weight_ != kNoTensor; }
    // The choices offered, in combo order: strategy names, or layouts for a weight.
    QStringList choices() const;
    int choiceCount() const;
    void setChoice(int index);
    bool selectChoice(const QString& text); // by strategy name or layout text ("S(1)")
    QString strategy() const;               // the chosen strategy name (op)
    TensorLayout layout() const;            // the chosen layout (weight)
    bool wholeClass() const;
    void setWholeClass(bool whole);
    QComboBox* choiceCombo() const { return combo_; }
    QRadioButton* wholeClassButton() const { return classButton_; }

private:
    void updateDetail();

    const Graph& graph_;
    const PlanEditor& editor_;
    NodeId node_;
    TensorId weight_ = kNoTensor;
    int weightInput_ = -1;
    std::vector<TensorLayout> layouts_; // weight choices
    QComboBox* combo_;
    QLabel* detail_;
    QRadioButton* instanceButton_;
    QRadioButton* classButton_;
};

} // namespace tapas
