#include "views/log_model.h"

#include <QApplication>
#include <QStyle>

namespace tapas {

LogModel::LogModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void LogModel::append(LogSeverity severity, const QString& message)
{
    const int row = int(entries_.size());
    beginInsertRows({}, row, row);
    entries_.push_back({QDateTime::currentDateTime(), severity, message});
    endInsertRows();
}

void LogModel::clear()
{
    beginResetModel();
    entries_.clear();
    endResetModel();
}

int LogModel::count(LogSeverity severity) const
{
    int n = 0;
    for (const Entry& e : entries_) n += e.severity == severity ? 1 : 0;
    return n;
}

void LogModel::retranslate()
{
    FlatTableModel::retranslate();
    if (!entries_.empty())
        Q_EMIT dataChanged(index(0, SeverityColumn), index(int(entries_.size()) - 1, SeverityColumn));
}

QString LogModel::severityName(LogSeverity s)
{
    switch (s) {
    case LogSeverity::Info: return tr("Info");
    case LogSeverity::Warning: return tr("Warning");
    case LogSeverity::Error: return tr("Error");
    }
    return {};
}

QVariant LogModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const Entry& e = entries_[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time: return e.time.toString(QStringLiteral("HH:mm:ss.zzz"));
        case SeverityColumn: return severityName(e.severity);
        case Message: return e.message;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Message) return e.message;
        if (index.column() == Time) return QLocale().toString(e.time, QLocale::LongFormat);
        break;
    case Qt::DecorationRole:
        if (index.column() == SeverityColumn) {
            const QStyle::StandardPixmap icon = e.severity == LogSeverity::Error
                ? QStyle::SP_MessageBoxCritical
                : e.severity == LogSeverity::Warning ? QStyle::SP_MessageBoxWarning
                                                     : QStyle::SP_MessageBoxInformation;
            return QApplication::style()->standardIcon(icon);
        }
        break;
    }
    return {};
}

QVariant LogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Time: return tr("Time");
    case SeverityColumn: return tr("Severity");
    case Message: return tr("Message");
    }
    return {};
}

} // namespace tapas
