// BackgroundJob, the one mechanism behind the studio's long work: results come back on the GUI
// thread, a superseded run's result is dropped, a queued start waits for the cancelled run,
// progress is coalesced, cancel and a throwing work end the run with their own signal, and the
// destructor waits for the worker.
#include "views/background_job.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

using namespace tapas;

namespace {

// Work that runs until `release` is set (or the run is cancelled), then returns `value`.
auto gated(std::shared_ptr<std::atomic<bool>> release, int value)
{
    return [release, value](const Progress& progress) {
        while (!release->load() && !progress.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return value;
    };
}

} // namespace

class TstBackgroundJob : public QObject {
    Q_OBJECT
private slots:
    void result_arrives_on_the_gui_thread()
    {
        BackgroundJob job;
        QThread* worker = nullptr;
        int result = 0;
        QThread* resultThread = nullptr;
        connect(&job, &BackgroundJob::finished, this, [&] {
            result = job.takeResult<int>();
            resultThread = QThread::currentThread();
        });
        QSignalSpy started(&job, &BackgroundJob::started);
        QSignalSpy running(&job, &BackgroundJob::runningChanged);
        job.start([&worker](const Progress&) {
            worker = QThread::currentThread();
            return 42;
        }, QStringLiteral("answer"));
        QVERIFY(job.isRunning());
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().first().toString(), QStringLiteral("answer"));
        QTRY_VERIFY(!job.isRunning());
        QCOMPARE(result, 42);
        QCOMPARE(resultThread, QThread::currentThread());
        QVERIFY(worker && worker != QThread::currentThread());
        QCOMPARE(running.count(), 2); // true, then false
    }

    void a_superseded_run_is_dropped_unseen()
    {
        BackgroundJob job(BackgroundJob::OnRestart::Supersede);
        QList<int> results;
        connect(&job, &BackgroundJob::finished, this, [&] { results << job.takeResult<int>(); });
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        auto first = std::make_shared<std::atomic<bool>>(false);
        job.start(gated(first, 1), QStringLiteral("first"));
        job.start([](const Progress&) { return 2; }, QStringLiteral("second"));
        QTRY_VERIFY(!job.isRunning());
        first->store(true);
        job.waitForDone();
        QTest::qWait(50); // the first run's end, had it not been dropped, would have arrived
        QCOMPARE(results, QList<int>{2});
        QCOMPARE(cancelled.count(), 0);
    }

    void a_queued_start_waits_for_the_cancelled_run()
    {
        BackgroundJob job(BackgroundJob::OnRestart::Queue);
        QStringList events;
        connect(&job, &BackgroundJob::started, this, [&](const QString& w) { events << QStringLiteral("start ") + w; });
        connect(&job, &BackgroundJob::cancelled, this, [&](const QString& w) { events << QStringLiteral("cancel ") + w; });
        connect(&job, &BackgroundJob::finished, this,
                [&] { events << QStringLiteral("result %1").arg(job.takeResult<int>()); });
        auto concurrent = std::make_shared<std::atomic<int>>(0);
        auto peak = std::make_shared<std::atomic<int>>(0);
        auto counted = [concurrent, peak](int value) {
            return [concurrent, peak, value](const Progress& progress) {
                peak->store(std::max(peak->load(), ++*concurrent));
                for (int i = 0; i < 50 && !progress.cancelled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                --*concurrent;
                return value;
            };
        };
        job.start(counted(1), QStringLiteral("a"));
        job.start(counted(2), QStringLiteral("b"));
        job.start(counted(3), QStringLiteral("c")); // replaces b in the queue
        QTRY_COMPARE(events.size(), 4);
        QCOMPARE(events, (QStringList{QStringLiteral("start a"), QStringLiteral("cancel a"), QStringLiteral("start c"),
                                      QStringLiteral("result 3")}));
        QCOMPARE(peak->load(), 1); // never two at once
    }

    void cancel_ends_the_run_with_cancelled_and_drops_a_queued_start()
    {
        BackgroundJob job(BackgroundJob::OnRestart::Queue);
        QSignalSpy finished(&job, &BackgroundJob::finished);
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        QSignalSpy started(&job, &BackgroundJob::started);
        auto never = std::make_shared<std::atomic<bool>>(false);
        job.start(gated(never, 1), QStringLiteral("long"));
        job.start(gated(never, 2), QStringLiteral("queued"));
        job.cancel();
        QVERIFY(cancelled.wait(5000));
        QCOMPARE(cancelled.first().first().toString(), QStringLiteral("long"));
        QTest::qWait(50);
        QCOMPARE(started.count(), 1);
        QCOMPARE(finished.count(), 0);
        QVERIFY(!job.isRunning());
    }

    void progress_is_coalesced_and_stops_after_cancel()
    {
        BackgroundJob job;
        QList<int> permilles;
        connect(&job, &BackgroundJob::progressChanged, this, [&](int p, const QString&) { permilles << p; });
        job.start([](const Progress& progress) {
            // 100,000 reports, 11 distinct (permille, stage) pairs.
            for (int i = 0; i < 100000; ++i) progress(double(i / 10000) / 10.0, "step");
            return 0;
        }, QStringLiteral("reports"));
        QTRY_VERIFY(!job.isRunning());
        QCOMPARE(permilles, (QList<int>{0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}));
    }

    void a_throwing_work_ends_with_failed_naming_the_exception()
    {
        BackgroundJob job;
        QSignalSpy failed(&job, &BackgroundJob::failed);
        QSignalSpy finished(&job, &BackgroundJob::finished);
        job.start([](const Progress&) -> int { throw std::runtime_error("graphviz ran out of memory"); },
                  QStringLiteral("layout"));
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("layout"));
        QCOMPARE(failed.first().at(1).toString(), QStringLiteral("graphviz ran out of memory"));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!job.isRunning());
    }

    void the_destructor_cancels_and_waits_for_the_worker()
    {
        auto stopped = std::make_shared<std::atomic<bool>>(false);
        {
            BackgroundJob job;
            job.start([stopped](const Progress& progress) {
                while (!progress.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                stopped->store(true);
                return 0;
            }, QStringLiteral("endless"));
        }
        QVERIFY(stopped->load()); // the worker had finished before the job was gone
    }
};

QTEST_GUILESS_MAIN(TstBackgroundJob)
#include "tst_background_job.moc"
