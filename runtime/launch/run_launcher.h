#pragma once
// RunLauncher: starts one run (mpirun + tapas-worker), supervises it and stops it. It is what
// `tapas run` and the Runs dock both use.
//
//   start()  writes runs/<id>/spec.json, opens a metrics socket on 127.0.0.1 with a per-run
//            random token, starts mpirun with QProcess and follows metrics.jsonl as well (the
//            file is the record, the socket a low-latency copy: each event is emitted once,
//            whichever source delivers it first).
//   supervision: mpirun's exit code; a rank that died (named from Open MPI's output, its last
//            log lines recorded); no metrics for hungSeconds -> `hung` and stop.
//   stop()   SIGTERM to mpirun (forwarded to the ranks, which finish their step and write
//            `stopped`), SIGKILL after graceSeconds.
// When mpirun has exited the worker is gone, so the launcher then appends its own findings
// (failed / stopped / hung) to metrics.jsonl without racing a writer. launch.log records the
// command line, mpirun's own output, the exit code and the findings.
#include "core/util/result.h"
#include "runtime/protocol/run_directory.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>

namespace tapas::runtime {

struct LaunchRequest {
    // kind, planPath, modelPath, ranks, hosts, steps, checkpointEvery, options. An empty id
    // gets newRunId(kind). spec.resume with an existing runDir continues that run.
    protocol::RunSpec spec;
    QString runsRoot;          // a new run goes to runsRoot/<id>
    QString runDir;            // set (with spec.resume) to resume an existing run
    QString workerPath;        // empty: findWorker()
    QString mpirunPath;        // empty: findMpirun()
    QString hostfile;          // exclusive with spec.hosts
    QString mapBy;             // --map-by
    int hungSeconds = 300;     // no event for this long -> hung (<= 0: never)
    int graceSeconds = 10;     // SIGTERM .. SIGKILL
    bool metricsSocket = true; // false: follow the file only
    int pollMs = 500;          // metrics.jsonl polling interval
    bool preflightDone = false; // preflight(spec) already passed (the GUI runs it off its thread)
};

class MetricsServer;
class RunFollower;

class RunLauncher : public QObject {
    Q_OBJECT
public:
    explicit RunLauncher(QObject* parent = nullptr);
    ~RunLauncher() override; // a run still going is stopped (SIGTERM, then SIGKILL)

    // What start() checks before launching a plan-training run: the model imports and holds no
    // op the worker cannot run (the failure names the file, the ops and their first nodes).
    // Imports the whole model, so it can take seconds; it touches nothing else and may run on
    // any thread.
    static Status preflight(const protocol::RunSpec& spec);

    // A request that resumes the run in `runDir` from its spec.json (spec.resume = true).
    static Result<LaunchRequest> resumeRequest(const QString& runDir);

    // Checks the request (mpirun and worker found, host names valid, plan and model readable),
    // writes the run directory and starts mpirun. An error means nothing was started; a run
    // directory is only created once the request is valid.
    Status start(const LaunchRequest& request);
    // Graceful stop; no-op when not running.
    void stop();

    bool isRunning() const;
    QString runDir() const;
    QString runId() const;
    QString state() const;        // the last state: starting, running, ..., finished, failed, ...
    QString detail() const;       // its text
    QString commandLine() const;  // the mpirun line, shell-quoted
    int exitCode() const;         // mpirun's, -1 while running or after a crash
    int failedRank() const;       // the rank named in a `failed` state, else -1
    int eventCount() const;       // events emitted so far
    int socketEventCount() const; // events the socket delivered (each also in the file)
    bool socketConnected() const; // a worker has said hello on the socket
    quint16 metricsPort() const;  // 0 without socket

Q_SIGNALS:
    // Every metrics event once, in order, including the launcher's own status lines.
    void eventReceived(const tapas::protocol::MetricsEvent& event);
    void stateChanged(const QString& state, const QString& detail);
    // Each line appended to launch.log (command line, mpirun output, findings).
    void launchLogLine(const QString& line);
    // After mpirun exited and the final state is recorded: finished, failed, stopped, hung,
    // numerics_mismatch.
    void runFinished(const QString& state);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    void onEvent(const protocol::MetricsEvent& e, bool fromSocket);
    void onProcessOutput();
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void onWatchdog();
    void setState(const QString& state, const QString& detail);
    void appendLaunchLog(const QString& line);
    void recordFinalState();
};

} // namespace tapas::runtime
