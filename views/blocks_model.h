#pragma once
// The Blocks dock's model: the fold tree (model -> stage -> group -> block -> sub-block), one
// row per class under its parent class, with its colour swatch, name, ×N instances, nodes and
// parameters per instance and name scope. By default only the classes that repeat and the ones
// that hold a repeat are listed; the unique parts on request. Numbers sort as numbers through
// SortRole. A fold without a tree (built by hand) is listed flat, one row per block class.
#include "core/fold/folded_graph.h"
#include "views/graph/block_style.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace tapas {

class BlocksModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, Instances, NodesPerInstance, ParamsPerInstance, Scope, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int ClassIdRole = Qt::UserRole + 2;     // block class id (FoldedGraph), -1 above blocks
    static constexpr int TreeClassIdRole = Qt::UserRole + 3; // fold tree class id, -1 in a flat list
    static constexpr int LevelRole = Qt::UserRole + 4;       // FoldLevel as int

    explicit BlocksModel(QObject* parent = nullptr);

    void setFolded(std::shared_ptr<const FoldedGraph> folded);
    void clear();
    // Classes that neither repeat nor hold a repeat are listed too when set (default: not).
    void setIncludeSingletons(bool include);
    bool includeSingletons() const { return includeSingletons_; }
    // Top-level rows: the block class id of `row` (-1 for a stage or group), and back.
    int classIdAt(int row) const;
    int rowOfClass(int classId) const; // -1 when not a top-level row
    // Any row: its block class id (-1 above blocks), and the index showing a block class.
    int classIdAt(const QModelIndex& index) const;
    QModelIndex indexOfClass(int classId) const; // invalid when not listed
    void retranslate();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        int parent = -1;          // item index, -1 at the top
        int row = 0;              // row under its parent
        int treeClass = -1;       // -1 in a flat list
        int blockClass = -1;
        std::vector<int> children; // item indices
    };
    void rebuild();
    bool listed(int treeClass) const;
    void addTreeItems(int treeClass, int parentItem);
    QString nameOf(const Item& item) const;
    int itemOf(const QModelIndex& index) const;

    std::shared_ptr<const FoldedGraph> folded_;
    BlockStyle style_;
    std::vector<Item> items_;
    std::vector<int> top_;        // item indices of the top-level rows
    std::vector<char> holdsRepeat_; // by tree class: repeats or has a repeated descendant
    // By tree class: 1-based number among the listed classes of its level, in the order shown
    // (a sub-block among its block's parts), so that hidden classes leave no gaps.
    std::vector<int> ordinal_;
    std::vector<int> partsShown_; // by tree class: its sub-block classes numbered so far
    int levelShown_[5] = {0, 0, 0, 0, 0};
    int sharedShown_ = 0; // shared-weight blocks (a tied class of several shapes) numbered so far
    bool includeSingletons_ = false;
};

} // namespace tapas
