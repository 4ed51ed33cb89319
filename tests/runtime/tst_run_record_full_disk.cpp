// What the worker writes when the disk is full: the metrics sink keeps whole lines only, reports
// the first failed write with the file and the errno text, and still records the `failed` line in
// its reserve; checkpoint files written through torch report ENOSPC as a Status instead of ending
// the rank in std::terminate. Failures are real: /dev/full, and (as root, which CI is) a small
// tmpfs mounted for the test.
#include "runtime/checkpoint_writer.h" // torch before Qt (TOOLCHAIN.md, pitfall 4)
#include "runtime/metrics/metrics_sink.h"
#include "runtime/protocol/durable_file.h"
#include "runtime/protocol/run_directory.h"
#include "tests/common/small_file_system.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace tapas;
using protocol::MetricsEvent;

namespace {

using testing::SmallFileSystem;

// Every line of the file, each of which must be whole (end in '\n').
QList<QByteArray> linesOf(const QString& path, bool* whole)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray all = f.readAll();
    *whole = all.isEmpty() || all.endsWith('\n');
    QList<QByteArray> lines = all.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
    return lines;
}

} // namespace

class TstRunRecordFullDisk : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sink_reports_dev_full_with_file_and_errno()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString run = tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(run));
        QVERIFY(QFile::link(QStringLiteral("/dev/full"), run + QStringLiteral("/metrics.jsonl")));
        runtime::MetricsSink sink(run.toStdString(), "r");
        QVERIFY2(sink.ok(), sink.error().c_str());
        QVERIFY(!sink.writeFailed());
        sink.record(MetricsEvent::stepEvent(1, {{"loss", 1.0}}));
        QVERIFY(sink.writeFailed()); // the old sink wrote with fputs and never looked
        const QString why = QString::fromStdString(sink.writeError());
        QVERIFY2(why.contains(run + QStringLiteral("/metrics.jsonl")) && why.contains(QStringLiteral("No space left on device")),
                 qPrintable(why));
    }

    void durable_file_reports_dev_full()
    {
        protocol::DurableFile f("/dev/full");
        const std::string data(100000, 'x');
        QCOMPARE(f.write(data.data(), data.size()), data.size()); // torch's callback contract
        QVERIFY(f.failed());
        const Status s = f.finish();
        QVERIFY(!s.ok());
        QVERIFY2(s.error.find("/dev/full") != std::string::npos && s.error.find("No space left on device") != std::string::npos,
                 s.error.c_str());
    }

    // torch::save(value, path) on a full disk threw from PyTorchStreamWriter's destructor during
    // unwinding: std::terminate, signal 6, this test process would die here.
    void torch_checkpoint_on_a_full_device_is_an_error_not_an_abort()
    {
        std::vector<torch::Tensor> list{torch::ones({256, 256}), torch::zeros({16})};
        const Status s = runtime::saveTorchChecked(list, "/dev/full");
        QVERIFY(!s.ok());
        QVERIFY2(s.error.find("No space left on device") != std::string::npos, s.error.c_str());
        // The same writer into a real file round-trips.
        QTemporaryDir tmp;
        const std::string path = tmp.filePath(QStringLiteral("t.pt")).toStdString();
        QVERIFY(runtime::saveTorchChecked(list, path).ok());
        std::vector<torch::Tensor> back;
        torch::load(back, path);
        QCOMPARE(int(back.size()), 2);
        QVERIFY(torch::equal(back[0], list[0]));
    }

    // A real full file system: the sink's lines stay whole, the failure names file and errno,
    // and the `failed` line that follows still lands (in the reserve's space).
    void sink_on_a_full_tmpfs_keeps_whole_lines_and_records_the_failure()
    {
        SmallFileSystem fs(1 << 20);
        if (!fs.mounted()) QSKIP(fs.why());
        const QString run = fs.path() + QStringLiteral("/run");
        QVERIFY(QDir().mkpath(run));
        runtime::MetricsSink sink(run.toStdString(), "r");
        QVERIFY2(sink.ok(), sink.error().c_str());
        QVERIFY(QFileInfo::exists(run + QStringLiteral("/") + QLatin1String(runtime::MetricsSink::kReserveName)));
        QVERIFY(fs.leaveFree(8192));
        int written = 0;
        for (int step = 1; step <= 2000 && !sink.writeFailed(); ++step, ++written)
            sink.record(MetricsEvent::stepEvent(step, {{"loss", 1.0 / step}, {"step_time", 0.25}, {"samples_per_s", 1234.5}}));
        QVERIFY2(sink.writeFailed(), "2000 step lines fit in 8 KiB?");
        QVERIFY(written > 5);
        const QString why = QString::fromStdString(sink.writeError());
        QVERIFY2(why.contains(QStringLiteral("metrics.jsonl")) && why.contains(QStringLiteral("No space left on device")),
                 qPrintable(why));
        sink.record(MetricsEvent::statusEvent("failed", sink.writeError(), 0));
        bool whole = false;
        const QList<QByteArray> lines = linesOf(run + QStringLiteral("/metrics.jsonl"), &whole);
        QVERIFY2(whole, "the file ends in a torn line");
        QVERIFY(lines.size() >= 5);
        for (const QByteArray& l : lines) {
            auto e = protocol::parseJsonLine(l.toStdString(), "metrics.jsonl");
            QVERIFY2(e.ok(), l.constData());
        }
        auto last = protocol::parseJsonLine(lines.last().toStdString(), "metrics.jsonl");
        QCOMPARE(QString::fromStdString(last->state), QStringLiteral("failed"));
        QVERIFY(QString::fromStdString(last->text).contains(QStringLiteral("No space left on device")));
    }

    void checkpoint_on_a_full_tmpfs_is_an_error_naming_the_file()
    {
        SmallFileSystem fs(256 * 1024);
        if (!fs.mounted()) QSKIP(fs.why());
        const std::string path = (fs.path() + QStringLiteral("/rank-0.pt")).toStdString();
        std::vector<torch::Tensor> list{torch::ones({512, 512})}; // 1 MiB of floats
        const Status s = runtime::saveTorchChecked(list, path);
        QVERIFY(!s.ok());
        QVERIFY2(s.error.find(path) != std::string::npos && s.error.find("No space left on device") != std::string::npos,
                 s.error.c_str());
        // A small file that does not fit is refused the same way, and leaves no temporary behind.
        SmallFileSystem tiny(4096);
        QVERIFY(tiny.mounted());
        QVERIFY(tiny.leaveFree(0));
        const Status latest = protocol::replaceFileDurably(tiny.path().toStdString() + "/latest", std::string(8192, 'x'));
        QVERIFY(!latest.ok());
        QVERIFY2(latest.error.find("No space left on device") != std::string::npos, latest.error.c_str());
        QVERIFY(!QFileInfo::exists(tiny.path() + QStringLiteral("/latest")));
        QVERIFY(!QFileInfo::exists(tiny.path() + QStringLiteral("/latest.tmp")));
    }
};

QTEST_GUILESS_MAIN(TstRunRecordFullDisk)
#include "tst_run_record_full_disk.moc"
