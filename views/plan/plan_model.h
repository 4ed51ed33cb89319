#pragma once
// The Plan dock's tree, for reviewing and adjusting a plan: ops and weights grouped by block class.
//   level 1  a block class, "Block A ×12" (every op of the model sits in exactly one class)
//   level 2  one op (or one weight, listed under the op that reads it) at one position of the
//            class, shared by its instances: costs are summed over the instances
//   level 3  that op in one instance (only for classes with several instances)
// Columns: name, op type, sharding (strategy and layouts), the collectives on its inputs, and
// its compute, communication and memory from PlanEditor::report(). Overridden ops are bold and
// say so in their tooltip. The model only reads the editor: edits go through the app, which
// calls refresh() when the plan changed.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace tapas {

class PlanEditor;
struct OpStrategy;

class PlanModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, OpType, Sharding, Collectives, Compute, Communication, Memory, ColumnCount };
    enum Role {
        NodeRole = Qt::UserRole + 1, // NodeId of the row's op (a weight row: its consumer)
        TensorRole,                  // TensorId of a weight row, else -1
        ClassRole,                   // the block class id, -1 without a fold
        LevelRole,                   // 1 class, 2 position, 3 instance
        OpTypeRole,                  // QString
        HasCollectiveRole,           // bool: a collective runs on one of the row's inputs
        OverriddenRole,              // bool
        SortRole,                    // numbers for the cost columns, text elsewhere
        FamilyRole                   // int ShardingFamily of the row's op
    };

    explicit PlanModel(QObject* parent = nullptr);
    ~PlanModel() override;

    // A new model: the tree is rebuilt. `folded` may be null (one group holds every op).
    void setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    // The plan shown (null: no plan, the sharding and cost columns are empty). Not owned.
    void setEditor(const PlanEditor* editor);
    const PlanEditor* editor() const { return editor_; }

    // The row of node n: its instance row when its class repeats, else its position row.
    QModelIndex indexOfNode(NodeId n, int column = 0) const;
    NodeId nodeAt(const QModelIndex& index) const;
    // The op types present, sorted (for the filter's combo box).
    QStringList opTypes() const;
    // Display names of the classes (id, name), in chain order.
    std::vector<std::pair<int, QString>> classNames() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

public Q_SLOTS:
    // The plan changed (edit, undo, redo): every figure is re-read, the tree stays.
    void refresh();
    void retranslate();

private:
    struct Entry {       // a level-2 row
        int group = 0;   // index into groups_
        int position = 0;
        int weightInput = -1; // >= 0: the weight read by input `weightInput` of the op
    };
    struct Group {       // a level-1 row
        int classId = -1;
        int instances = 1;
        QString name;
        int first = 0; // its entries are entries_[first, first + count)
        int count = 0;
    };
    struct NodeFigures { // per node, recomputed by refresh()
        QString collectives;
        double commBytes = 0;
        bool hasCollective = false;
    };

    void rebuild();
    void recomputeFigures();
    NodeId nodeOf(const Entry& e, int instance) const;
    TensorId weightOf(const Entry& e, int instance) const;
    int instanceCount(const Entry& e) const;
    QVariant groupData(int group, int column, int role) const;
    QVariant entryData(int entry, int instance, int column, int role) const; // instance -1: all
    QString shardingText(NodeId n, int weightInput) const;
    QString tooltip(NodeId n, int weightInput) const;
    double figure(NodeId n, int column) const;

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const FoldedGraph> folded_;
    const PlanEditor* editor_ = nullptr;
    std::vector<Group> groups_;
    std::vector<Entry> entries_;
    std::vector<int> entryOfNode_;  // NodeId -> entry of its op row, -1 when not listed
    std::vector<int> instanceOfNode_;
    std::vector<NodeFigures> figures_;
};

} // namespace tapas
