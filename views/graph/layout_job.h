#pragma once
// Runs one core/layout call on a worker thread (QtConcurrent) and hands the result back on the
// GUI thread, with progress and cancel. Starting a new job supersedes the running one: its
// result is dropped (dot cannot be stopped midway, so a superseded run finishes unseen).
#include "core/layout/graph_layout.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace tapas {

class LayoutJob : public QObject {
    Q_OBJECT
public:
    using Work = std::function<Result<GraphLayout>(const Progress&)>;

    explicit LayoutJob(QObject* parent = nullptr);
    ~LayoutJob() override; // cancels and waits: the worker must not outlive what it reads

    // `what` is a short human label for the progress bar ("Laying out 1,204 boxes").
    void start(Work work, const QString& what);
    void cancel();
    bool isRunning() const { return running_; }
    // Blocks until no job is running (tests; the GUI never calls it).
    void waitForDone();

Q_SIGNALS:
    void started(const QString& what);
    void progressChanged(int permille, const QString& stage);
    // Exactly one of these three ends every job that was not superseded.
    void finished(const tapas::GraphLayout& layout);
    void failed(const QString& error);
    void cancelled();
    void runningChanged(bool running);

private:
    struct Shared {
        std::atomic<bool> cancel{false};
        std::atomic<int> permille{-1};
    };
    using Output = std::shared_ptr<Result<GraphLayout>>;
    void onDone(QFutureWatcher<Output>* watcher, std::shared_ptr<Shared> shared, quint64 generation);
    void setRunning(bool running);

    std::shared_ptr<Shared> current_;
    QList<QFutureWatcher<Output>*> watchers_;
    quint64 generation_ = 0;
    bool running_ = false;
};

} // namespace tapas
