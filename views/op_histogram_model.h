#pragma once
// Op type -> count of a model, as a table a QSortFilterProxyModel can sort (numbers sort as
// numbers through SortRole, not as their display text).
#include "views/flat_table_model.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tapas {

class OpHistogramModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { OpType, Count, Share, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit OpHistogramModel(QObject* parent = nullptr);

    void setHistogram(const std::map<std::string, int64_t>& ops);
    void clear();
    // Row of an op type, or -1: lets tests and the inspector find "Conv" without scanning text.
    int rowOf(const QString& opType) const;
    int64_t total() const { return total_; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int rows() const override { return int(rows_.size()); }
    struct Row {
        QString opType;
        int64_t count = 0;
    };
    std::vector<Row> rows_;
    int64_t total_ = 0;
};

} // namespace tapas
