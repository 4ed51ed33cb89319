#pragma once
// The per-rank table of a run monitor: the latest rank_stats row of every rank (host, step
// time, compute, communication, data wait, memory), so a slow or starving rank stands out.
#include "views/flat_table_model.h"
#include "views/runs/run_record.h"

#include <vector>

namespace tapas {

class RankTableModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Host, Step, StepTime, Compute, Comm, DataWait, Memory, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit RankTableModel(QObject* parent = nullptr);

    void setRows(const std::vector<RankRow>& rows);
    void clear();
    // Whether some rank reported the figure of `column` (a plan run has no data wait, say).
    bool hasValues(int column) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int rows() const override { return int(rows_.size()); }
    std::vector<RankRow> rows_;
};

} // namespace tapas
