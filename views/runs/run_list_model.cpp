#include "views/runs/run_list_model.h"

#include "views/runs/run_texts.h"

#include <QColor>
#include <QDateTime>

namespace tapas {

RunListModel::RunListModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void RunListModel::setRuns(const std::vector<protocol::RunSummary>& runs)
{
    beginResetModel();
    runs_ = runs;
    endResetModel();
}

void RunListModel::upsert(const protocol::RunSummary& run)
{
    const int row = rowOf(QString::fromStdString(run.spec.id));
    if (row >= 0) {
        runs_[size_t(row)] = run;
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    beginInsertRows({}, 0, 0);
    runs_.insert(runs_.begin(), run);
    endInsertRows();
}

void RunListModel::updateProgress(const QString& id, const std::string& state, int64_t lastStep)
{
    const int row = rowOf(id);
    if (row < 0) return;
    protocol::RunSummary& r = runs_[size_t(row)];
    if (r.state == state && r.lastStep == lastStep) return;
    r.state = state;
    r.lastStep = std::max(r.lastStep, lastStep);
    Q_EMIT dataChanged(index(row, State), index(row, Step));
}

int RunListModel::rowOf(const QString& id) const
{
    const std::string key = id.toStdString();
    for (size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].spec.id == key) return int(i);
    return -1;
}

QString RunListModel::idAt(int row) const
{
    return row >= 0 && row < int(runs_.size()) ? QString::fromStdString(runs_[size_t(row)].spec.id) : QString();
}

const protocol::RunSummary* RunListModel::run(const QString& id) const
{
    const int row = rowOf(id);
    return row < 0 ? nullptr : &runs_[size_t(row)];
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const protocol::RunSummary& r = runs_[size_t(index.row())];
    switch (role) {
    case IdRole: return QString::fromStdString(r.spec.id);
    case DirRole: return QString::fromStdString(r.dir);
    case StateKeyRole: return QString::fromStdString(r.state);
    case KindKeyRole: return QString::fromStdString(r.spec.kind);
    case Qt::ToolTipRole:
        return r.detail.empty() ? QString::fromStdString(r.dir)
                                : QStringLiteral("%1\n%2").arg(QString::fromStdString(r.dir), QString::fromStdString(r.detail));
    case Qt::ForegroundRole:
        if (index.column() == State) {
            if (r.state == "failed" || r.state == "numerics_mismatch" || r.state == "hung") return QColor(0xc0, 0x20, 0x20);
            if (r.state == "running" || r.state == "starting" || r.state == "numerics_ok" || r.state == "checkpoint")
                return QColor(0x1a, 0x7f, 0x37);
        }
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Name: return QString::fromStdString(r.spec.id);
    case Kind: return RunTexts::kindName(r.spec.kind);
    case State: return RunTexts::stateName(r.state);
    case Step:
        if (r.lastStep < 0) return QString();
        return r.spec.steps > 0 ? tr("%1 / %2").arg(r.lastStep).arg(r.spec.steps) : QString::number(r.lastStep);
    case Created: {
        const QDateTime t = QDateTime::fromString(QString::fromStdString(r.spec.created), Qt::ISODate);
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")) : QString::fromStdString(r.spec.created);
    }
    }
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Name: return tr("Run");
    case Kind: return tr("Kind");
    case State: return tr("State");
    case Step: return tr("Step");
    case Created: return tr("Started");
    }
    return {};
}

} // namespace tapas
