#pragma once
// What the plan-run and GAN-run monitors share: a header line (run, state, step), the per-rank
// table and the run's log, all drawn from one RunRecord. The log shows the run's events (log
// lines and status changes) or, picked above it, one rank's own stdout/stderr as the worker
// wrote it to logs/rank-N.log in the run directory.
#include <QWidget>

#include <string>

class QCheckBox;
class QComboBox;
class QSlider;
class QLabel;
class QStackedWidget;
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
    // The chart controls' widgets (null until chartControls() made them).
    QSlider* chartSmoothingSlider() const { return chartSmoothing_; }
    QCheckBox* logScaleBox() const { return logScale_; }
    QTableView* rankTable() const { return rankTable_; }
    RankTableModel* rankModel() const { return rankModel_; }
    QPlainTextEdit* logView() const { return log_; }
    // The log tab: the source picker above the events or the chosen rank's output.
    QWidget* logPanel() const { return logPanel_; }
    QComboBox* logSourceBox() const { return logSource_; }
    QPlainTextEdit* rankOutputView() const { return rankLog_; }

protected:
    explicit RunMonitor(QWidget* parent);
    void changeEvent(QEvent* event) override;

    virtual void refreshCharts() = 0;
    virtual void clearCharts() = 0;
    virtual void retranslateCharts() = 0;

    // A step/metric series as chart points, each value multiplied by `scale`.
    QList<QPointF> seriesPoints(const std::string& name, double scale = 1) const;
    // One line per rank that reported `name` in rank_stats; rank 0 wide and solid underneath,
    // the others narrower and dashed, so equal values never hide rank 0.
    void setRankLines(RunChart* chart, const std::string& name, double scale = 1) const;
    // The row above the charts: a smoothing slider (when `smoothing`) and a log-scale switch,
    // applied to every chart in `charts`.
    QWidget* chartControls(const QList<RunChart*>& charts, bool smoothing);

    // The layout both monitors share: the header above a splitter of the charts and the detail
    // tabs, stretched chartStretch : detailStretch; then shows the empty record.
    void finishLayout(QWidget* charts, QWidget* details, Qt::Orientation orientation, int chartStretch,
                      int detailStretch);

    const RunRecord* record_ = nullptr;

private:
    void refreshHeader();
    void refreshLog(bool reset);
    void refreshRankOutput(bool reset);
    void fillLogSources();
    void retranslateControls();

    QLabel* header_;
    QTableView* rankTable_;
    RankTableModel* rankModel_;
    QPlainTextEdit* log_;
    std::size_t logShown_ = 0;
    QWidget* logPanel_;
    QComboBox* logSource_;
    QPlainTextEdit* rankLog_;
    QStackedWidget* logStack_;
    qint64 rankLogOffset_ = 0;
    QSlider* chartSmoothing_ = nullptr;
    QCheckBox* logScale_ = nullptr;
};

} // namespace tapas
