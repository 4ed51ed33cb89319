#pragma once
// Wires the Runs dock (views/runs, which knows no processes) to the launcher (runtime/launch):
// the runs root (env TAPAS_RUNS_DIR, else QSettings "runs/root", else <AppData>/runs), the run
// list read from it, a RunLauncher per run started or resumed from the dock, and a RunFollower
// per run that is still going elsewhere (started with `tapas run`, or by a GUI that crashed).
#include "core/util/result.h"
#include "runtime/protocol/run_directory.h"

#include <QObject>
#include <QString>

#include <map>

namespace tapas::runtime {
class RunFollower;
class RunLauncher;
} // namespace tapas::runtime

namespace tapas {

class RunsPanel;

class RunsController : public QObject {
    Q_OBJECT
public:
    RunsController(RunsPanel* panel, QObject* parent = nullptr);
    ~RunsController() override;

    static QString defaultRunsRoot();
    QString runsRoot() const { return root_; }
    // Remembered in QSettings unless TAPAS_RUNS_DIR overrides it.
    void setRunsRoot(const QString& dir);
    // The tapas-worker to start (empty: env TAPAS_WORKER, else next to this program, else PATH).
    void setWorkerPath(const QString& path) { worker_ = path; }

    // Reads the runs root again.
    void refresh();
    // Starts a run: first the launcher's preflight (importing the model, which takes seconds
    // for a big one) on a worker thread, so the window keeps answering; then the launch on
    // this thread. The run is listed and selected; message() says why nothing started, and
    // Start stays disabled while the check runs.
    void launch(const protocol::RunSpec& spec);
    // A preflight is running (a second Start waits for it).
    bool isChecking() const { return checking_; }
    void stop(const QString& id);
    Status resume(const QString& id);
    // Opens a run directory (anywhere) and follows it while it is not finished.
    Status follow(const QString& dir);

    RunsPanel* panel() const { return panel_; }
    runtime::RunLauncher* launcher(const QString& id) const;
    bool isFollowing(const QString& id) const;

Q_SIGNALS:
    // For the window's log: what happened to runs (0 info, 1 warning, 2 error).
    void message(int severity, const QString& text);
    // A run was started, resumed or opened from a directory: the window shows the Runs dock.
    void runOpened(const QString& id);

private:
    void loadHistories(const QStringList& ids);
    void loadHistory(const protocol::RunSummary& run);
    runtime::RunLauncher* newLauncher();
    // The launch after a passed preflight.
    void startChecked(const protocol::RunSpec& spec);
    void startFollower(const QString& id, const QString& dir, quint64 offset);

    RunsPanel* panel_;
    QString root_;
    QString worker_;
    bool checking_ = false;
    std::map<QString, runtime::RunLauncher*> launchers_;
    std::map<QString, runtime::RunFollower*> followers_;
};

} // namespace tapas
