#pragma once
// The Inspector dock: everything about what is selected in the graph. A node: op, domain,
// name, scope, block, attributes, inputs/outputs with dtype and shape, parameters and FLOPs.
// A tensor: dtype, shape, kind, size, producer and consumers. A block instance: its class,
// position, size, parameters, FLOPs and op mix.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "views/graph/block_style.h"
#include "views/graph/graph_selection.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStandardItem;
class QStandardItemModel;
class QTreeView;

namespace tapas {

class InspectorView : public QWidget {
    Q_OBJECT
public:
    explicit InspectorView(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    void clear();

    QStandardItemModel* model() const { return model_; }
    QString title() const;
    // The value shown for `property` in `section` ("Node" / "Op"), or a null string (tests).
    QString valueOf(const QString& section, const QString& property) const;
    GraphSelection selection() const { return selection_; }

public Q_SLOTS:
    void showSelection(const tapas::GraphSelection& selection);
    void showNode(tapas::NodeId node);
    void showTensor(tapas::TensorId tensor);
    void showBlock(int classId, int instance); // instance: an InstanceKey's (a section's too)

    QTreeView* tree() const { return tree_; }

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QStandardItem* section(const QString& name);
    void row(QStandardItem* section, const QString& property, const QString& value, const QString& tip = {});
    QString tensorSummary(TensorId t) const;
    QString blockOf(NodeId n) const;
    void showSection(int classId, int index); // kSectionSize instances drawn as one box
    void begin(const QString& title);
    void end();
    void fitNameColumn();

    QLabel* title_;
    QTreeView* tree_;
    QStandardItemModel* model_;
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const FoldedGraph> folded_;
    BlockStyle style_;
    GraphSelection selection_;
};

} // namespace tapas
