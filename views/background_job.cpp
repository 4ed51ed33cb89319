#include "views/background_job.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>

namespace tapas {

// What one run shares with its worker thread. Kept alive by both sides, so the cancel flag and
// the coalescing state outlive the run whatever happens to the job object.
struct BackgroundJob::Shared {
    std::atomic<bool> cancel{false};
    const std::type_info* type = nullptr;
    std::mutex mutex; // guards the last report below: work may report from more than one thread
    int permille = -1;
    std::string stage;
    std::string error; // written by the worker before its future finishes; read after
};

BackgroundJob::BackgroundJob(OnRestart onRestart, QObject* parent) : QObject(parent), onRestart_(onRestart) {}

BackgroundJob::~BackgroundJob()
{
    queued_.reset();
    if (current_) current_->cancel = true;
    for (Watcher* w : watchers_) w->waitForFinished();
}

void BackgroundJob::startErased(Erased work, const QString& what, const std::type_info& type)
{
    if (running_ && onRestart_ == OnRestart::Queue) {
        queued_ = Queued{std::move(work), what, &type};
        current_->cancel = true;
        return;
    }
    if (current_) current_->cancel = true; // superseded: its generation no longer matches

    auto shared = std::make_shared<Shared>();
    shared->type = &type;
    current_ = shared;
    currentWhat_ = what;
    const quint64 generation = ++generation_;

    Progress progress;
    progress.cancel = &shared->cancel;
    progress.report = [this, shared, generation](double fraction, std::string_view stage) {
        if (shared->cancel.load(std::memory_order_relaxed)) return;
        const int permille = int(std::clamp(fraction, 0.0, 1.0) * 1000.0);
        {
            std::lock_guard<std::mutex> lock(shared->mutex);
            if (permille == shared->permille && stage == shared->stage) return;
            shared->permille = permille;
            shared->stage.assign(stage);
        }
        const QString text = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
        // `this` outlives the worker: the destructor waits for it. The event is dropped with the
        // object if it is being destroyed.
        QMetaObject::invokeMethod(
            this,
            [this, shared, generation, permille, text] {
                if (generation_ == generation && !shared->cancel) Q_EMIT progressChanged(permille, text);
            },
            Qt::QueuedConnection);
    };

    auto* watcher = new Watcher(this);
    watchers_.append(watcher);
    connect(watcher, &Watcher::finished, this,
            [this, watcher, shared, generation] { onDone(watcher, shared, generation); });
    watcher->setFuture(QtConcurrent::run([work = std::move(work), progress, shared]() mutable -> std::shared_ptr<void> {
        // Work reports its errors as values; this keeps a library bug from killing the GUI.
        try {
            return work(progress);
        } catch (const std::exception& e) {
            shared->error = e.what();
        } catch (...) {
            shared->error = "unknown exception";
        }
        return nullptr;
    }));
    setRunning(true);
    Q_EMIT started(what);
}

void BackgroundJob::cancel()
{
    queued_.reset();
    if (current_) current_->cancel = true;
}

void BackgroundJob::waitForDone()
{
    while (running_ && !watchers_.isEmpty()) {
        watchers_.last()->waitForFinished();
        QCoreApplication::processEvents(); // delivers the watcher's finished signal
    }
}

void BackgroundJob::onDone(Watcher* watcher, const std::shared_ptr<Shared>& shared, quint64 generation)
{
    watchers_.removeOne(watcher);
    watcher->deleteLater();
    if (generation != generation_) return; // superseded
    std::shared_ptr<void> out = watcher->result();
    current_.reset();
    const QString what = currentWhat_;
    setRunning(false);
    if (shared->cancel) {
        Q_EMIT cancelled(what);
    } else if (!out) {
        Q_EMIT failed(what, QString::fromStdString(shared->error));
    } else {
        result_ = std::move(out);
        resultType_ = shared->type;
        Q_EMIT progressChanged(1000, tr("done"));
        Q_EMIT finished();
        result_.reset();
    }
    if (queued_ && !running_) {
        Queued next = std::move(*queued_);
        queued_.reset();
        startErased(std::move(next.work), next.what, *next.type);
    }
}

void BackgroundJob::setRunning(bool running)
{
    if (running_ == running) return;
    running_ = running;
    Q_EMIT runningChanged(running);
}

} // namespace tapas
