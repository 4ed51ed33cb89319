#pragma once
// Long work of the studio (import and fold, graph layout, sharding search) on a worker thread,
// with progress and cancel, its result handed back on the GUI thread. One class serves all of
// it so that they share two rules:
//  - every start gets a generation number; a report or result of a run that has since been
//    superseded or cancelled is recognised by it and dropped, so late signals never land on
//    newer state;
//  - progress is coalesced on the worker: only a changed permille or stage crosses threads, so
//    an importer that reports per node cannot flood the GUI thread's queue.
// What a start does to a running job is the owner's choice (see OnRestart).
#include "core/util/progress.h"

#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace tapas {

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    enum class OnRestart {
        // The running run is cancelled and its result dropped unseen; the new one starts at once
        // (layout: dot cannot be stopped midway, so a superseded run finishes in the background).
        Supersede,
        // The running run is cancelled (cancelled() follows) and the new one starts once it has
        // stopped (imports: two large models in memory at once would double the peak).
        Queue,
    };

    explicit BackgroundJob(OnRestart onRestart = OnRestart::Supersede, QObject* parent = nullptr);
    ~BackgroundJob() override; // cancels and waits: a worker must not outlive what it reads

    // Runs `work(progress)` on a worker thread. `what` is a short human label for the owner's
    // progress display, passed back by started() and cancelled(). In a finished() handler,
    // takeResult<R>() hands over what `work` returned (R is its return type).
    template <class Work>
    void start(Work work, const QString& what)
    {
        using R = std::decay_t<std::invoke_result_t<Work&, const Progress&>>;
        startErased(
            [work = std::move(work)](const Progress& progress) mutable -> std::shared_ptr<void> {
                return std::make_shared<R>(work(progress));
            },
            what, typeid(R));
    }

    // Cancels the running run (cancelled() follows when it stops) and drops a queued start.
    void cancel();
    // True from start() until the current run's finished() or cancelled() has been emitted.
    bool isRunning() const { return running_; }
    // Blocks until no run is current (tests; the GUI never calls it).
    void waitForDone();

    template <class R>
    R takeResult()
    {
        Q_ASSERT(result_ && *resultType_ == typeid(R));
        R out = std::move(*std::static_pointer_cast<R>(result_));
        result_.reset();
        return out;
    }

Q_SIGNALS:
    void started(const QString& what);
    // permille in [0, 1000]; stage is the work's short label ("parsing", "tapas: stitch", ...).
    void progressChanged(int permille, const QString& stage);
    // Exactly one of these three ends every run that was not superseded. failed() means the
    // work threw (a library bug; work reports its own errors in what it returns); `error` is
    // the exception's text.
    void finished();
    void cancelled(const QString& what);
    void failed(const QString& what, const QString& error);
    void runningChanged(bool running);

private:
    using Erased = std::function<std::shared_ptr<void>(const Progress&)>;
    struct Shared;
    using Watcher = QFutureWatcher<std::shared_ptr<void>>;
    struct Queued {
        Erased work;
        QString what;
        const std::type_info* type;
    };

    void startErased(Erased work, const QString& what, const std::type_info& type);
    void onDone(Watcher* watcher, const std::shared_ptr<Shared>& shared, quint64 generation);
    void setRunning(bool running);

    OnRestart onRestart_;
    std::shared_ptr<Shared> current_;
    QString currentWhat_;
    QList<Watcher*> watchers_;
    quint64 generation_ = 0;
    bool running_ = false;
    std::optional<Queued> queued_;
    std::shared_ptr<void> result_;
    const std::type_info* resultType_ = nullptr;
};

} // namespace tapas
