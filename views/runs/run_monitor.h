#pragma once
// What the plan-run and GAN-run monitors share: a header line (run, state, step), the per-rank
// table and the run's log (log events and status changes), all drawn from one RunRecord.
#include <QWidget>

#include <string>

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace tapas {

class RankTableModel;
class RunChart;
class RunRecord;

class RunMonitor : public QWidget {
    Q_OBJECT
public:
    // Shows `record` (not owned; it must outlive the monitor or be replaced first). Null clears.
    void setRecord(const RunRecord* record);
    const RunRecord* record() const { return record_; }
    // Redraws from the record: charts, table, new log lines.
    void refresh();

    QLabel* header() const { return header_; }
    QTableView* rankTable() const { return rankTable_; }
    RankTableModel* rankModel() const { return rankModel_; }
    QPlainTextEdit* logView() const { return log_; }

protected:
    explicit RunMonitor(QWidget* parent);
    void changeEvent(QEvent* event) override;

    virtual void refreshCharts() = 0;
    virtual void clearCharts() = 0;
    virtual void retranslateCharts() = 0;

    // A step/metric series as chart points, each value multiplied by `scale`.
    QList<QPointF> seriesPoints(const std::string& name, double scale = 1) const;
    // One line per rank that reported `name` in rank_stats.
    void setRankLines(RunChart* chart, const std::string& name, double scale = 1) const;

    // The layout both monitors share: the header above a splitter of the charts and the detail
    // tabs, stretched chartStretch : detailStretch; then shows the empty record.
    void finishLayout(QWidget* charts, QWidget* details, Qt::Orientation orientation, int chartStretch,
                      int detailStretch);

    const RunRecord* record_ = nullptr;

private:
    void refreshHeader();
    void refreshLog(bool reset);

    QLabel* header_;
    QTableView* rankTable_;
    RankTableModel* rankModel_;
    QPlainTextEdit* log_;
    std::size_t logShown_ = 0;
};

} // namespace tapas
