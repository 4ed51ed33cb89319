#pragma once
// The Runs dock's contents: the launch form and the list of runs on the left; on the right the
// monitor of the selected run (plan or GAN), or the overlay of several selected runs. It holds
// one RunRecord per run it has seen events for. No MPI, no processes: it takes summaries and
// events and emits requests (launch, stop, resume, follow a directory); app/ wires those to the
// launcher and feeds the events back.
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"

#include <QSet>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QGroupBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTimer;

namespace tapas {

class GanRunMonitor;
class LaunchForm;
class PlanRunMonitor;
class RunCompareView;
class RunListModel;
class RunRecord;

class RunsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunsPanel(QWidget* parent = nullptr);
    ~RunsPanel() override;

    // The runs found under the runs root (newest first). Selection and records are kept.
    void setRuns(const std::vector<protocol::RunSummary>& runs);
    // A run that just started (or was opened from elsewhere): listed at the top.
    void addRun(const protocol::RunSummary& run);
    // Replaces what is known of run `id` with its recorded events (e.g. read from metrics.jsonl).
    void setHistory(const protocol::RunSummary& run, const std::vector<protocol::MetricsEvent>& events);
    // One live event of run `id` (listed before, or at least given a record by setHistory).
    void appendEvent(const QString& id, const protocol::MetricsEvent& event);
    bool hasRecord(const QString& id) const;
    const RunRecord* record(const QString& id) const;
    // Runs this session can stop (it launched them and they are still going).
    void setControllable(const QString& id, bool controllable);

    void selectRun(const QString& id);
    void selectRuns(const QStringList& ids);
    QStringList selectedRunIds() const;
    QString currentRunId() const; // the single selected run, else empty
    // Redraws the shown monitor now instead of at the next tick.
    void refreshNow();

    LaunchForm* form() const { return form_; }
    QTableView* runList() const { return list_; }
    RunListModel* listModel() const { return model_; }
    PlanRunMonitor* planMonitor() const { return plan_; }
    GanRunMonitor* ganMonitor() const { return gan_; }
    RunCompareView* compareView() const { return compare_; }
    QWidget* currentMonitor() const;
    QPushButton* stopButton() const { return stop_; }
    QPushButton* resumeButton() const { return resume_; }
    QPushButton* refreshButton() const { return refresh_; }
    QPushButton* followButton() const { return follow_; }

Q_SIGNALS:
    void launchRequested(const tapas::protocol::RunSpec& spec);
    void stopRequested(const QString& id);
    void resumeRequested(const QString& id);
    void refreshRequested();
    // The user picked a run directory outside the list to open and follow.
    void followDirectoryRequested(const QString& dir);
    // The selection changed: runs without a record need their history (setHistory) now.
    void runsSelected(const QStringList& ids);

protected:
    void changeEvent(QEvent* event) override;

private:
    void onSelectionChanged();
    void showSelection();
    void scheduleRefresh();
    void updateButtons();
    void retranslateUi();
    RunRecord* ensureRecord(const protocol::RunSummary& run);

    LaunchForm* form_;
    RunListModel* model_;
    QTableView* list_;
    QPushButton* stop_;
    QPushButton* resume_;
    QPushButton* refresh_;
    QPushButton* follow_;
    QGroupBox* formBox_;
    QGroupBox* listBox_;
    QStackedWidget* stack_;
    QLabel* placeholder_;
    PlanRunMonitor* plan_;
    GanRunMonitor* gan_;
    RunCompareView* compare_;
    QTimer* refreshTimer_;
    std::map<QString, std::unique_ptr<RunRecord>> records_;
    QSet<QString> controllable_;
};

} // namespace tapas
