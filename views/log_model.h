#pragma once
// The session's log: what was opened, how long it took, every warning and error, with a
// timestamp and a severity. Appended to by the window; shown by LogView.
#include <QAbstractTableModel>
#include <QDateTime>

#include <vector>

namespace tapas {

enum class LogSeverity { Info, Warning, Error };

class LogModel : public QAbstractTableModel {
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
    void retranslate();

    static QString severityName(LogSeverity s);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Entry> entries_;
};

} // namespace tapas
