#pragma once
// The Runs dock's list: every run under the runs root (past ones from their directories, live
// ones updated as their events arrive), newest first.
#include "runtime/protocol/run_directory.h"
#include "views/flat_table_model.h"

#include <QString>

#include <vector>

namespace tapas {

class RunListModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, State, Step, Created, ColumnCount };
    enum Role { IdRole = Qt::UserRole + 1, DirRole, StateKeyRole, KindKeyRole };

    explicit RunListModel(QObject* parent = nullptr);

    // Replaces the list, e.g. from protocol::listRuns(root) (newest first).
    void setRuns(const std::vector<protocol::RunSummary>& runs);
    // Adds the run at the top, or updates its row.
    void upsert(const protocol::RunSummary& run);
    // A live update: the state and last step a run's newest events reported.
    void updateProgress(const QString& id, const std::string& state, int64_t lastStep);

    int rowOf(const QString& id) const;
    QString idAt(int row) const;
    const protocol::RunSummary* run(const QString& id) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int rows() const override { return int(runs_.size()); }
    std::vector<protocol::RunSummary> runs_;
};

} // namespace tapas
