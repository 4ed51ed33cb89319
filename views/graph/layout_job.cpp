#include "views/graph/layout_job.h"

#include <QCoreApplication>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace tapas {

LayoutJob::LayoutJob(QObject* parent) : QObject(parent) {}

LayoutJob::~LayoutJob()
{
    cancel();
    for (auto* w : watchers_) w->waitForFinished();
}

void LayoutJob::start(Work work, const QString& what)
{
    if (current_) current_->cancel = true; // superseded: its result will be dropped
    auto shared = std::make_shared<Shared>();
    current_ = shared;
    const quint64 generation = ++generation_;

    QPointer<LayoutJob> self(this);
    Progress progress;
    progress.cancel = &shared->cancel;
    progress.report = [self, shared, generation](double fraction, std::string_view stage) {
        const int permille = int(fraction * 1000);
        // Coalesce: only a visible change crosses threads.
        if (shared->permille.exchange(permille) == permille) return;
        const QString text = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, permille, text] {
                if (self && self->generation_ == generation) Q_EMIT self->progressChanged(permille, text);
            },
            Qt::QueuedConnection);
    };

    auto* watcher = new QFutureWatcher<Output>(this);
    watchers_.append(watcher);
    connect(watcher, &QFutureWatcher<Output>::finished, this,
            [this, watcher, shared, generation] { onDone(watcher, shared, generation); });
    // `shared` is captured so the cancel flag outlives the job whatever happens to this object.
    watcher->setFuture(QtConcurrent::run([work = std::move(work), progress, shared]() -> Output {
        return std::make_shared<Result<GraphLayout>>(work(progress));
    }));
    setRunning(true);
    Q_EMIT started(what);
}

void LayoutJob::cancel()
{
    if (current_) current_->cancel = true;
}

void LayoutJob::waitForDone()
{
    while (running_) {
        if (watchers_.isEmpty()) break;
        watchers_.last()->waitForFinished();
        QCoreApplication::processEvents(); // delivers the watcher's finished signal
    }
}

void LayoutJob::onDone(QFutureWatcher<Output>* watcher, std::shared_ptr<Shared> shared, quint64 generation)
{
    watchers_.removeOne(watcher);
    watcher->deleteLater();
    if (generation != generation_) return; // superseded
    current_.reset();
    const Output out = watcher->result();
    setRunning(false);
    if (shared->cancel) {
        Q_EMIT cancelled();
    } else if (!out || !out->ok()) {
        Q_EMIT failed(out ? QString::fromStdString(out->error()) : tr("The layout produced no result."));
    } else {
        Q_EMIT progressChanged(1000, tr("done"));
        Q_EMIT finished(out->value());
    }
}

void LayoutJob::setRunning(bool running)
{
    if (running_ == running) return;
    running_ = running;
    Q_EMIT runningChanged(running);
}

} // namespace tapas
