#include "runtime/launch/run_launcher.h"

#include "core/onnx/onnx_importer.h"
#include "core/ops/worker_support.h"

#include "runtime/launch/metrics_server.h"
#include "runtime/launch/mpi_failure.h"
#include "runtime/launch/mpirun_command.h"
#include "runtime/launch/run_follower.h"
#include "runtime/launch/worker_command.h"
#include "runtime/protocol/metrics_token.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QThread>
#include <QTimer>

#include <csignal>
#include <functional>
#include <unistd.h>
#include <unordered_set>

namespace tapas::runtime {

namespace {
constexpr int kLastLogLines = 20;
constexpr qsizetype kOutputTailBytes = 256 * 1024;
// After the grace period mpirun itself SIGKILLs the ranks; this is the backstop for an mpirun
// that does not exit by then.
constexpr int kBackstopExtraMs = 5000;
} // namespace

struct RunLauncher::Impl {
    LaunchRequest req;
    QString runDir, runId, commandLine;
    QString state, detail, workerState;
    QProcess* process = nullptr;
    MetricsServer server;
    RunFollower follower;
    QTimer watchdog, killTimer;
    QElapsedTimer sinceEvent;
    QFile launchLog;
    QByteArray outputTail, partialLine;
    std::unordered_set<size_t> seen; // events already emitted (socket and file carry the same lines)
    int exitCode = -1, failedRank = -1, events = 0, socketEvents = 0;
    bool running = false, stopRequested = false, hung = false;
};

RunLauncher::RunLauncher(QObject* parent) : QObject(parent), d(std::make_unique<Impl>())
{
    connect(&d->server, &MetricsServer::eventReceived, this,
            [this](const protocol::MetricsEvent& e) { onEvent(e, true); });
    connect(&d->server, &MetricsServer::helloAccepted, this,
            [this] { appendLaunchLog(QStringLiteral("metrics socket: rank 0 connected")); });
    connect(&d->server, &MetricsServer::connectionRejected, this,
            [this](const QString& why) { appendLaunchLog(QStringLiteral("metrics socket: ") + why); });
    connect(&d->follower, &RunFollower::eventReceived, this,
            [this](const protocol::MetricsEvent& e) { onEvent(e, false); });
    connect(&d->watchdog, &QTimer::timeout, this, &RunLauncher::onWatchdog);
    d->killTimer.setSingleShot(true);
    connect(&d->killTimer, &QTimer::timeout, this, [this] {
        if (!d->process || d->process->state() == QProcess::NotRunning) return;
        appendLaunchLog(QStringLiteral("mpirun did not exit after the grace period: SIGKILL to its process group"));
        ::kill(-static_cast<pid_t>(d->process->processId()), SIGKILL);
    });
}

RunLauncher::~RunLauncher()
{
    if (!d->running || !d->process) return;
    stop();
    if (!d->process->waitForFinished(d->req.graceSeconds * 1000 + kBackstopExtraMs)) {
        ::kill(-static_cast<pid_t>(d->process->processId()), SIGKILL);
        d->process->waitForFinished(2000);
    }
}

Status RunLauncher::preflight(const protocol::RunSpec& spec)
{
    if (spec.kind != "train-plan" || spec.modelPath.empty() || spec.resume) return Status::success();
    ImportOptions io;
    io.runChecker = false;
    Result<Graph> g = importOnnxFile(spec.modelPath, io);
    if (!g) return Status::failure(g.error());
    return checkWorkerRuns(*g, spec.modelPath);
}

Result<LaunchRequest> RunLauncher::resumeRequest(const QString& runDir)
{
    auto spec = protocol::readRunSpec(runDir.toStdString());
    if (!spec) return Result<LaunchRequest>::failure(spec.error());
    LaunchRequest r;
    r.spec = std::move(*spec);
    r.spec.resume = true;
    r.runDir = QFileInfo(runDir).absoluteFilePath();
    return r;
}

Status RunLauncher::start(const LaunchRequest& request)
{
    if (d->running) return Status::failure("a run is already going in " + d->runDir.toStdString());
    LaunchRequest r = request;
    protocol::RunSpec& spec = r.spec;
    auto mpirun = findMpirun(r.mpirunPath);
    if (!mpirun) return Status::failure(mpirun.error());
    auto worker = findWorker(r.workerPath);
    if (!worker) return Status::failure(worker.error());
    if (spec.kind.empty()) return Status::failure("the run has no kind (train-plan, gan)");
    if (spec.ranks < 1) return Status::failure("a run needs at least 1 rank, not " + std::to_string(spec.ranks));
    if (spec.steps < 1) return Status::failure("a run needs at least 1 step, not " + std::to_string(spec.steps));

    // Paths go to ranks whose working directory is the run directory: make them absolute.
    for (std::string* path : {&spec.planPath, &spec.modelPath}) {
        if (path->empty()) continue;
        const QFileInfo fi(QString::fromStdString(*path));
        if (!fi.isFile() || !fi.isReadable()) return Status::failure("cannot read " + *path);
        *path = fi.absoluteFilePath().toStdString();
    }
    // Preflight: a model with ops the worker cannot run is refused now, naming them, rather than
    // by every rank after the launch.
    if (!r.preflightDone)
        if (Status s = preflight(spec); !s) return s;
    if (!r.hostfile.isEmpty() && !QFileInfo(r.hostfile).isReadable())
        return Status::failure("cannot read the hostfile " + r.hostfile.toStdString());

    QString runDir;
    if (spec.resume) {
        if (r.runDir.isEmpty()) return Status::failure("resuming needs the run directory");
        runDir = QFileInfo(r.runDir).absoluteFilePath();
        if (!QFileInfo(QString::fromStdString(protocol::specPath(runDir.toStdString()))).isFile())
            return Status::failure("no run to resume in " + runDir.toStdString() + " (spec.json is missing)");
    } else {
        if (r.runsRoot.isEmpty()) return Status::failure("no runs folder given");
        if (spec.id.empty()) spec.id = protocol::newRunId(spec.kind);
        runDir = QDir(QFileInfo(r.runsRoot).absoluteFilePath()).filePath(QString::fromStdString(spec.id));
        if (QFileInfo::exists(runDir)) return Status::failure("the run directory " + runDir.toStdString() + " already exists");
    }
    if (spec.id.empty()) spec.id = QFileInfo(runDir).fileName().toStdString();

    d->server.close();
    if (r.metricsSocket && !d->server.listen(QString::fromStdString(spec.id)))
        return Status::failure(d->server.errorString().toStdString());
    auto workerArgs = buildWorkerArguments(spec, {runDir, d->server.port()});
    if (!workerArgs) return Status::failure(workerArgs.error());

    MpirunOptions o;
    o.mpirun = *mpirun;
    o.ranks = spec.ranks;
    for (const std::string& h : spec.hosts) o.hosts << QString::fromStdString(h);
    o.hostfile = r.hostfile;
    o.mapBy = r.mapBy;
    o.runningAsRoot = ::geteuid() == 0;
    o.oversubscribe = o.hosts.isEmpty() && o.hostfile.isEmpty() && spec.ranks > QThread::idealThreadCount();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QString::fromLatin1(protocol::kMetricsTokenVariable)); // never an inherited one
    if (r.metricsSocket) env.insert(QString::fromLatin1(protocol::kMetricsTokenVariable), d->server.token());
    o.exportVars = exportedVariables(env);
    if (r.metricsSocket) o.exportVars << QString::fromLatin1(protocol::kMetricsTokenVariable);
    o.loopbackOnly = isLocalOnly(o.hosts, o.hostfile);
    // Open MPI waits this long before forwarding SIGTERM and as long again before SIGKILL, so
    // half the grace period each (measured with Open MPI 4.1).
    o.sigkillTimeoutSeconds = std::max(1, (r.graceSeconds + 1) / 2);
    o.program = *worker;
    o.programArgs = *workerArgs;
    auto command = buildMpirunCommand(o);
    if (!command) return Status::failure(command.error());

    // The request is valid: from here on the run directory records what happens.
    if (!spec.resume) {
        spec.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
        if (Status s = protocol::writeRunSpec(runDir.toStdString(), spec); !s) return s;
    }
    QDir().mkpath(QFileInfo(QString::fromStdString(protocol::rankLogPath(runDir.toStdString(), 0))).absolutePath());

    d->req = r;
    d->runDir = runDir;
    d->runId = QString::fromStdString(spec.id);
    d->commandLine = command->toShellString();
    d->state.clear();
    d->detail.clear();
    d->workerState.clear();
    d->exitCode = -1;
    d->failedRank = -1;
    d->events = d->socketEvents = 0;
    d->seen.clear();
    d->outputTail.clear();
    d->partialLine.clear();
    d->stopRequested = d->hung = false;

    d->launchLog.close();
    d->launchLog.setFileName(QString::fromStdString(protocol::launchLogPath(runDir.toStdString())));
    // Owner-only, created so (not chmod-ed after the fact): it records mpirun's output, which
    // is the run's business alone.
    if (!d->launchLog.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text,
                           QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return Status::failure("cannot write " + d->launchLog.fileName().toStdString());
    d->launchLog.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner); // an older one, when resuming
    appendLaunchLog(QStringLiteral("== %1 %2 at %3")
                        .arg(spec.resume ? QStringLiteral("resume") : QStringLiteral("launch"), d->runId,
                             QDateTime::currentDateTimeUtc().toString(Qt::ISODate)));
    appendLaunchLog(QStringLiteral("command: ") + d->commandLine);

    // A resumed run appends to a file that already holds the earlier launches: follow only
    // what this launch writes.
    const quint64 startOffset =
        static_cast<quint64>(std::max<qint64>(0, QFileInfo(QString::fromStdString(protocol::metricsPath(runDir.toStdString()))).size()));

    delete d->process;
    d->process = new QProcess(this);
    d->process->setProcessChannelMode(QProcess::MergedChannels);
    d->process->setWorkingDirectory(runDir);
    d->process->setProcessEnvironment(env);
    // Its own session: a Ctrl-C in the launching terminal does not hit the ranks behind the
    // launcher's back, and the backstop SIGKILL reaches mpirun and its local ranks together.
    d->process->setChildProcessModifier([] { ::setsid(); });
    connect(d->process, &QProcess::readyRead, this, &RunLauncher::onProcessOutput);
    connect(d->process, &QProcess::finished, this, &RunLauncher::onProcessFinished);
    d->process->start(command->program, command->arguments);
    if (!d->process->waitForStarted(10000)) {
        const QString why = QStringLiteral("mpirun could not be started: ") + d->process->errorString();
        appendLaunchLog(why);
        d->server.close();
        return Status::failure(why.toStdString());
    }
    d->running = true;
    d->sinceEvent.start();
    d->follower.follow(runDir, r.pollMs, startOffset);
    d->watchdog.start(1000);
    setState(QStringLiteral("starting"), QStringLiteral("mpirun -np %1").arg(spec.ranks));
    return Status::success();
}

void RunLauncher::stop()
{
    if (!d->running || !d->process || d->stopRequested) return;
    d->stopRequested = true;
    appendLaunchLog(QStringLiteral("stop: SIGTERM to mpirun (grace %1 s)").arg(d->req.graceSeconds));
    d->process->terminate();
    d->killTimer.start(d->req.graceSeconds * 1000 + kBackstopExtraMs);
}

bool RunLauncher::isRunning() const { return d->running; }
QString RunLauncher::runDir() const { return d->runDir; }
QString RunLauncher::runId() const { return d->runId; }
QString RunLauncher::state() const { return d->state; }
QString RunLauncher::detail() const { return d->detail; }
QString RunLauncher::commandLine() const { return d->commandLine; }
int RunLauncher::exitCode() const { return d->exitCode; }
int RunLauncher::failedRank() const { return d->failedRank; }
int RunLauncher::eventCount() const { return d->events; }
int RunLauncher::socketEventCount() const { return d->socketEvents; }
bool RunLauncher::socketConnected() const { return d->server.helloReceived(); }
quint16 RunLauncher::metricsPort() const { return d->server.port(); }

void RunLauncher::onEvent(const protocol::MetricsEvent& e, bool fromSocket)
{
    if (fromSocket) ++d->socketEvents;
    // Socket and file carry byte-identical lines, so the re-encoded line identifies an event.
    if (!d->seen.insert(std::hash<std::string>{}(protocol::toJsonLine(e))).second) return;
    ++d->events;
    d->sinceEvent.restart();
    if (e.type == protocol::EventType::Status) {
        d->workerState = QString::fromStdString(e.state);
        setState(d->workerState, QString::fromStdString(e.text));
    }
    Q_EMIT eventReceived(e);
}

void RunLauncher::onProcessOutput()
{
    const QByteArray chunk = d->process->readAll();
    d->outputTail += chunk;
    if (d->outputTail.size() > kOutputTailBytes) d->outputTail = d->outputTail.right(kOutputTailBytes);
    d->partialLine += chunk;
    qsizetype nl;
    while ((nl = d->partialLine.indexOf('\n')) >= 0) {
        appendLaunchLog(QStringLiteral("mpirun| ") + QString::fromUtf8(d->partialLine.left(nl)));
        d->partialLine.remove(0, nl + 1);
    }
}

void RunLauncher::onProcessFinished(int exitCode, QProcess::ExitStatus status)
{
    onProcessOutput();
    if (!d->partialLine.isEmpty()) appendLaunchLog(QStringLiteral("mpirun| ") + QString::fromUtf8(d->partialLine));
    d->partialLine.clear();
    d->killTimer.stop();
    d->watchdog.stop();
    d->exitCode = status == QProcess::NormalExit ? exitCode : -1;
    appendLaunchLog(status == QProcess::NormalExit ? QStringLiteral("mpirun exited with code %1").arg(exitCode)
                                                   : QStringLiteral("mpirun crashed"));
    // Whatever rank 0 wrote last is in the file even if the socket lost it.
    d->server.drain();
    d->follower.poll();
    d->follower.stop();
    d->server.close();
    recordFinalState();
    d->running = false;
    appendLaunchLog(QStringLiteral("final state: %1 (%2)").arg(d->state, d->detail));
    d->launchLog.close();
    Q_EMIT runFinished(d->state);
}

void RunLauncher::onWatchdog()
{
    if (!d->running || d->hung || d->stopRequested || d->req.hungSeconds <= 0) return;
    if (d->sinceEvent.elapsed() < qint64(d->req.hungSeconds) * 1000) return;
    d->hung = true;
    appendLaunchLog(QStringLiteral("no metrics for %1 s: the run is hung; stopping it").arg(d->req.hungSeconds));
    stop();
}

void RunLauncher::setState(const QString& state, const QString& detail)
{
    d->state = state;
    d->detail = detail;
    Q_EMIT stateChanged(state, detail);
}

void RunLauncher::appendLaunchLog(const QString& line)
{
    if (d->launchLog.isOpen()) {
        d->launchLog.write(line.toUtf8() + '\n');
        d->launchLog.flush();
    }
    Q_EMIT launchLogLine(line);
}

void RunLauncher::recordFinalState()
{
    const std::string dir = d->runDir.toStdString();
    // A `stopped` nobody asked for is Open MPI tearing the job down after a rank died.
    const bool workerDone = protocol::isTerminalState(d->workerState.toStdString()) &&
                            (d->workerState != QLatin1String("stopped") || d->stopRequested);
    protocol::MetricsEvent e;
    if (d->hung) {
        e = protocol::MetricsEvent::statusEvent(
            "hung", "no metrics for " + std::to_string(d->req.hungSeconds) + " s; the run was stopped");
    } else if (workerDone) {
        return; // the worker recorded how it ended
    } else if (d->stopRequested) {
        e = protocol::MetricsEvent::statusEvent("stopped", "stopped by the user; the worker did not confirm it");
    } else if (d->exitCode == 0) {
        e = protocol::MetricsEvent::statusEvent("failed", "the worker exited without recording a final state");
    } else {
        const RankFailure f = parseRankFailure(QString::fromUtf8(d->outputTail));
        if (f.rank >= 0) {
            e = protocol::MetricsEvent::statusEvent("failed", f.describe().toStdString(), f.rank);
            e.fields["last_log"] =
                lastLines(QString::fromStdString(protocol::rankLogPath(dir, f.rank)), kLastLogLines).toStdString();
            d->failedRank = f.rank;
        } else {
            e = protocol::MetricsEvent::statusEvent(
                "failed", d->exitCode < 0 ? std::string("mpirun crashed")
                                          : "mpirun exited with code " + std::to_string(d->exitCode));
            QStringList tail = QString::fromUtf8(d->outputTail).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            if (tail.size() > kLastLogLines) tail = tail.mid(tail.size() - kLastLogLines);
            e.fields["last_log"] = tail.join(QLatin1Char('\n')).toStdString();
        }
    }
    e.fields["exit_code"] = std::to_string(d->exitCode);
    e.time = protocol::nowSeconds(); // stamped once: the file line and the emitted event agree
    // mpirun has exited, so no rank writes metrics.jsonl any more: appending cannot interleave.
    QFile f(QString::fromStdString(protocol::metricsPath(dir)));
    if (f.open(QIODevice::WriteOnly | QIODevice::Append)) {
        f.write(QByteArray::fromStdString(protocol::toJsonLine(e)) + '\n');
        f.close();
    } else {
        appendLaunchLog(QStringLiteral("cannot append the final state to ") + f.fileName());
    }
    appendLaunchLog(QStringLiteral("recorded: %1 (%2)").arg(QString::fromStdString(e.state), QString::fromStdString(e.text)));
    onEvent(e, false);
}

} // namespace tapas::runtime
