#pragma once
// The session's log: what was opened, how long it took, every warning and error, with a
// timestamp and a severity. Appended to by the window; shown by LogView.
#include "views/flat_table_model.h"

#include <QDateTime>

#include <vector>

namespace tapas {

enum class LogSeverity { Info, Warning, Error };

class LogModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { Time, SeverityColumn, Message, ColumnCount };
    struct Entry {
        QDateTime time;
        LogSeverity severity = LogSeverity::Info;
        QString message;
    };

    explicit LogModel(QObject* parent = nullptr);

    void append(LogSeverity severity, const QString& message);
    void clear();
    const std::vector<Entry>& entries() const { return entries_; }
    int count(LogSeverity severity) const;
    // Severity names are translated too, not only the headers.
    void retranslate() override;

    static QString severityName(LogSeverity s);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int rows() const override { return int(entries_.size()); }
    std::vector<Entry> entries_;
};

} // namespace tapas
