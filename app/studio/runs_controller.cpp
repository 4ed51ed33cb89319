#include "app/studio/runs_controller.h"

#include "runtime/launch/run_follower.h"
#include "runtime/launch/run_launcher.h"
#include "views/runs/run_list_model.h"
#include "views/runs/launch_form.h"
#include "views/runs/runs_panel.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>

namespace tapas {

namespace {

const QString kRootKey = QStringLiteral("runs/root");
const char* const kRootEnv = "TAPAS_RUNS_DIR";

QString envRoot()
{
    return qEnvironmentVariable(kRootEnv);
}

} // namespace

RunsController::RunsController(RunsPanel* panel, QObject* parent)
    : QObject(parent), panel_(panel), root_(defaultRunsRoot())
{
    // Requests from the dock: launch(), resume() and follow() report every failure to the dock
    // themselves (message()), so their results have nothing left to tell here.
    connect(panel_, &RunsPanel::launchRequested, this,
            [this](const protocol::RunSpec& spec) { launch(spec); });
    connect(panel_, &RunsPanel::stopRequested, this, &RunsController::stop);
    connect(panel_, &RunsPanel::resumeRequested, this, [this](const QString& id) { static_cast<void>(resume(id)); });
    connect(panel_, &RunsPanel::refreshRequested, this, &RunsController::refresh);
    connect(panel_, &RunsPanel::followDirectoryRequested, this,
            [this](const QString& dir) { static_cast<void>(follow(dir)); });
    connect(panel_, &RunsPanel::runsSelected, this, &RunsController::loadHistories);
    refresh();
}

RunsController::~RunsController()
{
    // Launchers stop their runs when destroyed (SIGTERM, then SIGKILL); they are our children.
    // Their signals go to the panel as context object, so a panel destroyed first is safe.
    for (auto& [id, f] : followers_) f->stop();
    for (auto& [id, l] : launchers_) {
        l->disconnect(); // stopping it must not reach a half-destroyed window
        delete l;
    }
}

QString RunsController::defaultRunsRoot()
{
    if (const QString env = envRoot(); !env.isEmpty()) return QFileInfo(env).absoluteFilePath();
    const QString saved = QSettings().value(kRootKey).toString();
    if (!saved.isEmpty()) return saved;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("runs"));
}

void RunsController::setRunsRoot(const QString& dir)
{
    root_ = QFileInfo(dir).absoluteFilePath();
    if (envRoot().isEmpty()) QSettings().setValue(kRootKey, root_);
    refresh();
}

void RunsController::refresh()
{
    panel_->setRuns(protocol::listRuns(root_.toStdString()));
}

void RunsController::loadHistories(const QStringList& ids)
{
    for (const QString& id : ids) {
        if (panel_->hasRecord(id)) continue;
        if (const protocol::RunSummary* run = panel_->listModel()->run(id)) loadHistory(*run);
    }
}

void RunsController::loadHistory(const protocol::RunSummary& run)
{
    const QString id = QString::fromStdString(run.spec.id);
    auto chunk = protocol::readMetrics(run.dir);
    if (!chunk) {
        Q_EMIT message(1, tr("Cannot read the metrics of run %1: %2").arg(id, QString::fromStdString(chunk.error())));
        panel_->setHistory(run, {});
        return;
    }
    panel_->setHistory(run, chunk->events);
    // Still going somewhere (or its writer died without a word): follow the file from here on.
    if (!protocol::isTerminalState(run.state) && !launchers_.count(id) && !followers_.count(id))
        startFollower(id, QString::fromStdString(run.dir), chunk->nextOffset);
}

void RunsController::startFollower(const QString& id, const QString& dir, quint64 offset)
{
    auto* f = new runtime::RunFollower(this);
    followers_[id] = f;
    connect(f, &runtime::RunFollower::eventReceived, panel_,
            [this, id](const protocol::MetricsEvent& e) { panel_->appendEvent(id, e); });
    connect(f, &runtime::RunFollower::terminalReached, this, [this, id](const QString& state) {
        Q_EMIT message(0, tr("Run %1 ended: %2").arg(id, state));
        if (auto it = followers_.find(id); it != followers_.end()) {
            it->second->stop();
            it->second->deleteLater();
            followers_.erase(it);
        }
    });
    connect(f, &runtime::RunFollower::readError, this,
            [this, id](const QString& why) { Q_EMIT message(1, tr("Run %1: %2").arg(id, why)); });
    f->follow(dir, 500, offset);
}

runtime::RunLauncher* RunsController::newLauncher()
{
    auto* l = new runtime::RunLauncher(this);
    connect(l, &runtime::RunLauncher::eventReceived, panel_,
            [this, l](const protocol::MetricsEvent& e) { panel_->appendEvent(l->runId(), e); });
    connect(l, &runtime::RunLauncher::runFinished, panel_, [this, l](const QString& state) {
        const QString runId = l->runId();
        panel_->setControllable(runId, false);
        const int severity = state == QLatin1String("finished") || state == QLatin1String("stopped") ? 0 : 2;
        Q_EMIT message(severity, l->detail().isEmpty() ? tr("Run %1 ended: %2").arg(runId, state)
                                                       : tr("Run %1 ended: %2 (%3)").arg(runId, state, l->detail()));
    });
    return l;
}

void RunsController::launch(const protocol::RunSpec& spec)
{
    if (checking_) {
        Q_EMIT message(1, tr("A run is still being checked; Start again when it has started or been refused."));
        return;
    }
    checking_ = true;
    panel_->form()->startButton()->setEnabled(false);
    if (!spec.modelPath.empty())
        Q_EMIT message(0, tr("Checking that tapas-worker can run %1…").arg(QString::fromStdString(spec.modelPath)));
    auto* watcher = new QFutureWatcher<Status>(this);
    connect(watcher, &QFutureWatcher<Status>::finished, this, [this, watcher, spec] {
        const Status s = watcher->result();
        watcher->deleteLater();
        checking_ = false;
        panel_->form()->startButton()->setEnabled(true);
        if (!s) {
            Q_EMIT message(2, tr("Could not start the run: %1").arg(QString::fromStdString(s.error)));
            return;
        }
        startChecked(spec);
    });
    watcher->setFuture(QtConcurrent::run([spec] { return runtime::RunLauncher::preflight(spec); }));
}

void RunsController::startChecked(const protocol::RunSpec& spec)
{
    runtime::LaunchRequest req;
    req.spec = spec;
    req.runsRoot = root_;
    req.workerPath = worker_.isEmpty() ? qEnvironmentVariable("TAPAS_WORKER") : worker_;
    req.preflightDone = true;
    QDir().mkpath(root_);
    runtime::RunLauncher* l = newLauncher();
    if (Status s = l->start(req); !s) {
        delete l;
        Q_EMIT message(2, tr("Could not start the run: %1").arg(QString::fromStdString(s.error)));
        return;
    }
    const QString id = l->runId();
    launchers_[id] = l;
    protocol::RunSummary summary;
    if (auto s = protocol::summarizeRun(l->runDir().toStdString()))
        summary = *s;
    else {
        summary.dir = l->runDir().toStdString();
        summary.spec = spec;
        summary.spec.id = id.toStdString();
    }
    summary.state = "starting";
    panel_->addRun(summary);
    panel_->setControllable(id, true);
    panel_->selectRun(id);
    Q_EMIT message(0, tr("Started run %1: %2").arg(id, l->commandLine()));
    Q_EMIT runOpened(id);
}

void RunsController::stop(const QString& id)
{
    if (runtime::RunLauncher* l = launcher(id); l && l->isRunning()) {
        Q_EMIT message(0, tr("Stopping run %1…").arg(id));
        l->stop();
    }
}

Status RunsController::resume(const QString& id)
{
    const protocol::RunSummary* run = panel_->listModel()->run(id);
    auto refuse = [this](const QString& why) {
        Q_EMIT message(2, why);
        return Status::failure(why.toStdString());
    };
    if (!run) return refuse(tr("No run %1 in the list.").arg(id));
    if (runtime::RunLauncher* l = launcher(id); l && l->isRunning()) return refuse(tr("Run %1 is still running.").arg(id));
    const QString dir = QString::fromStdString(run->dir);
    auto req = runtime::RunLauncher::resumeRequest(dir);
    if (!req) {
        const QString why = tr("Cannot resume run %1: %2").arg(id, QString::fromStdString(req.error()));
        Q_EMIT message(2, why);
        return Status::failure(why.toStdString());
    }
    req->workerPath = worker_.isEmpty() ? qEnvironmentVariable("TAPAS_WORKER") : worker_;
    // What the run recorded so far stays in the charts; the launcher follows only the new lines.
    if (!panel_->hasRecord(id)) loadHistory(*run);
    if (auto it = followers_.find(id); it != followers_.end()) {
        it->second->stop();
        it->second->deleteLater();
        followers_.erase(it);
    }
    runtime::RunLauncher* l = launcher(id);
    if (!l) {
        l = newLauncher();
        launchers_[id] = l;
    }
    if (Status s = l->start(*req); !s) {
        const QString why = tr("Cannot resume run %1: %2").arg(id, QString::fromStdString(s.error));
        Q_EMIT message(2, why);
        return Status::failure(why.toStdString());
    }
    panel_->setControllable(id, true);
    Q_EMIT message(0, tr("Resumed run %1: %2").arg(id, l->commandLine()));
    return Status::success();
}

Status RunsController::follow(const QString& dir)
{
    auto run = protocol::summarizeRun(QFileInfo(dir).absoluteFilePath().toStdString());
    if (!run) {
        const QString why = tr("Cannot open the run in %1: %2").arg(QDir::toNativeSeparators(dir), QString::fromStdString(run.error()));
        Q_EMIT message(2, why);
        return Status::failure(why.toStdString());
    }
    const QString id = QString::fromStdString(run->spec.id);
    panel_->addRun(*run);
    loadHistory(*run);
    panel_->selectRun(id);
    Q_EMIT message(0, tr("Opened run %1 from %2").arg(id, QDir::toNativeSeparators(dir)));
    Q_EMIT runOpened(id);
    return Status::success();
}

runtime::RunLauncher* RunsController::launcher(const QString& id) const
{
    const auto it = launchers_.find(id);
    return it == launchers_.end() ? nullptr : it->second;
}

bool RunsController::isFollowing(const QString& id) const
{
    return followers_.count(id) > 0;
}

} // namespace tapas
