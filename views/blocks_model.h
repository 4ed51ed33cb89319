#pragma once
// The Blocks dock's table: one row per repeated block class (optionally also the unique
// parts), with its colour swatch, name, ×N instances, nodes and parameters per instance and
// name scope. Numbers sort as numbers through SortRole.
#include "core/fold/folded_graph.h"
#include "views/graph/block_style.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace tapas {

class BlocksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Instances, NodesPerInstance, ParamsPerInstance, Scope, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int ClassIdRole = Qt::UserRole + 2;

    explicit BlocksModel(QObject* parent = nullptr);

    void setFolded(std::shared_ptr<const FoldedGraph> folded);
    void clear();
    // Classes with one instance are listed too when set (default: only repeated classes).
    void setIncludeSingletons(bool include);
    bool includeSingletons() const { return includeSingletons_; }
    int classIdAt(int row) const;
    int rowOfClass(int classId) const; // -1 when not listed
    void retranslate();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    std::shared_ptr<const FoldedGraph> folded_;
    BlockStyle style_;
    std::vector<int> rows_; // class ids
    bool includeSingletons_ = false;
};

} // namespace tapas
