// Faults a run must survive without losing data or leaking its secret, tried for real:
//  - the metrics token is in no command line (/proc/PID/cmdline of mpirun and the ranks), not
//    in launch.log (owner-only), yet rank 0 still authenticates (it reads the environment);
//  - the metrics socket drops a peer that sends an endless line (memory stays flat), one that
//    never says hello, and connections beyond its cap;
//  - local runs keep Open MPI's TCP traffic on the loopback interface;
//  - `tapas run` on a full disk (a small tmpfs, as root) ends `failed` with the file and the errno
//    text in the run record and a non-zero exit, for a full metrics file and for a checkpoint
//    that does not fit, with no torn line, no partial checkpoint and `latest` untouched.
#include "runtime/launch/metrics_server.h"
#include "runtime/launch/mpirun_command.h"
#include "runtime/launch/run_launcher.h"
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"
#include "tests/common/run_tapas.h"
#include "tests/common/small_file_system.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace tapas;
using protocol::MetricsEvent;

namespace {

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Resident memory of this process in bytes.
qint64 residentBytes()
{
    const QStringList statm = readAll(QStringLiteral("/proc/self/statm")).split(QLatin1Char(' '));
    return statm.size() > 1 ? statm[1].toLongLong() * ::sysconf(_SC_PAGESIZE) : -1;
}

// Command lines (arguments joined by spaces) of every process that mentions `needle`.
QStringList commandLinesMentioning(const QString& needle)
{
    QStringList out;
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        pid.toLongLong(&isPid);
        if (!isPid) continue;
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QString cmd = QString::fromUtf8(f.readAll().replace('\0', ' '));
        if (cmd.contains(needle)) out << cmd;
    }
    return out;
}

QString fakeWorker(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("fake-worker.sh"));
    QFile::copy(QStringLiteral(TAPAS_SOURCE_DIR "/tests/launch/fake_worker.sh"), path);
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

// A worker-side peer in its own process, so that what it sends does not count in our memory:
// connects, says hello with the token from TAPAS_METRICS_TOKEN, then sends `bytes` of 'x' with
// no line end (or as much as the server takes before dropping it); prints the bytes sent.
qint64 sendEndlessLine(quint16 port, const QString& token, qint64 bytes, QProcess& p)
{
    const QString script = QStringLiteral(
        "import os, socket, sys\n"
        "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\n"
        "s.sendall(('{\"v\":1,\"type\":\"hello\",\"run\":\"r\",\"token\":\"%s\"}\\n' % os.environ['TAPAS_METRICS_TOKEN']).encode())\n"
        "chunk = b'x' * 65536\n"
        "sent = 0\n"
        "try:\n"
        "    while sent < int(sys.argv[2]):\n"
        "        s.sendall(chunk)\n"
        "        sent += len(chunk)\n"
        "except OSError:\n"
        "    pass\n"
        "print(sent)\n");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TAPAS_METRICS_TOKEN"), token);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script, QString::number(port), QString::number(bytes)});
    return p.waitForStarted(10000) ? 0 : -1;
}

struct Prepared {
    QString model, plan;
};

// A 2-layer zoo GPT narrow enough to train in milliseconds, with its 1x2 TAPAS plan.
bool prepareGpt(const QTemporaryDir& dir, Prepared& p)
{
    p.model = dir.filePath(QStringLiteral("gpt.onnx"));
    p.plan = dir.filePath(QStringLiteral("gpt-1x2.tapas.json"));
    const testing::TapasRun zoo = testing::runTapas({"zoo", "gpt", "--layers", "2", "--hidden", "64", "--heads", "4", "--vocab",
                                                     "128", "--seq", "16", "--batch", "4", "-o", p.model});
    if (zoo.exitCode != 0) {
        qWarning("tapas zoo: %s", zoo.err.constData());
        return false;
    }
    const testing::TapasRun search = testing::runTapas({"search", p.model, "--cluster", "cpu-mpi", "--mesh", "1x2", "--searchers",
                                                        "tapas", "-o", p.plan});
    if (search.exitCode != 0) qWarning("tapas search: %s", search.err.constData());
    return search.exitCode == 0;
}

// The run folder `tapas run` made under `runsRoot` (it holds one).
QString onlyRun(const QString& runsRoot)
{
    const QStringList runs = QDir(runsRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    return runs.size() == 1 ? runsRoot + QLatin1Char('/') + runs.front() : QString();
}

// The events of metrics.jsonl; `whole` says whether the file ends on a line end.
std::vector<MetricsEvent> recordOf(const QString& runDir, bool* whole)
{
    const QString text = readAll(runDir + QStringLiteral("/metrics.jsonl"));
    *whole = text.isEmpty() || text.endsWith(QLatin1Char('\n'));
    auto chunk = protocol::readMetrics(runDir.toStdString());
    return chunk ? chunk->events : std::vector<MetricsEvent>{};
}

const MetricsEvent* lastStatus(const std::vector<MetricsEvent>& events)
{
    const MetricsEvent* last = nullptr;
    for (const MetricsEvent& e : events)
        if (e.type == protocol::EventType::Status) last = &e;
    return last;
}

} // namespace

class TstRunFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void token_is_on_no_command_line_and_in_no_log()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        qputenv("FAKE_MODE", "stop"); // steps, then waits for the stop
        runtime::LaunchRequest r;
        r.spec.kind = "fake";
        r.spec.ranks = 2;
        r.spec.steps = 3;
        r.spec.checkpointEvery = 0;
        r.runsRoot = tmp.filePath(QStringLiteral("runs"));
        r.workerPath = fakeWorker(tmp);
        r.mpirunPath = QStringLiteral(TAPAS_MPIEXEC);
        r.pollMs = 100;
        r.graceSeconds = 2;
        runtime::RunLauncher l;
        QString finalState;
        connect(&l, &runtime::RunLauncher::runFinished, this, [&](const QString& s) { finalState = s; });
        const Status s = l.start(r);
        QVERIFY2(s.ok(), s.error.c_str());
        // Rank 0 authenticated: the token reached it without any command line.
        QTRY_VERIFY_WITH_TIMEOUT(l.socketConnected(), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(l.socketEventCount() >= 2, 20000);
        const QStringList lines = commandLinesMentioning(l.runDir());
        QVERIFY2(lines.size() >= 3, qPrintable(lines.join(QLatin1Char('\n')))); // mpirun and two ranks
        const QString secret = serverToken(l);
        QCOMPARE(secret.size(), 32);
        for (const QString& cmd : lines) {
            QVERIFY2(!cmd.contains(secret), qPrintable(cmd));
            QVERIFY2(!cmd.contains(QStringLiteral("metrics-token")), qPrintable(cmd));
        }
        QVERIFY(!l.commandLine().contains(secret)); // what `tapas run` prints
        QVERIFY2(l.commandLine().contains(QStringLiteral("-x TAPAS_METRICS_TOKEN")), qPrintable(l.commandLine()));
        // A local run keeps Open MPI's TCP traffic on loopback.
        QVERIFY2(l.commandLine().contains(QStringLiteral("--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo")),
                 qPrintable(l.commandLine()));
        l.stop();
        QTRY_VERIFY_WITH_TIMEOUT(!finalState.isEmpty(), 30000);
        const QString log = QString::fromStdString(protocol::launchLogPath(l.runDir().toStdString()));
        QVERIFY(QFileInfo::exists(log));
        QVERIFY(!readAll(log).contains(secret));
        QCOMPARE(QFileInfo(log).permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup |
                                                 QFileDevice::WriteOther),
                 QFileDevice::Permissions());
    }

    void local_host_lists_are_loopback_only()
    {
        QVERIFY(runtime::isLocalOnly({}, {}));
        QVERIFY(runtime::isLocalOnly({QStringLiteral("localhost:4"), QStringLiteral("127.0.0.1")}, {}));
        QVERIFY(!runtime::isLocalOnly({QStringLiteral("localhost"), QStringLiteral("node2")}, {}));
        QVERIFY(!runtime::isLocalOnly({}, QStringLiteral("hosts.txt")));
        runtime::MpirunOptions o;
        o.program = QStringLiteral("w");
        o.hosts = {QStringLiteral("node1"), QStringLiteral("node2")};
        QVERIFY(!runtime::buildMpirunCommand(o)->arguments.contains(QStringLiteral("oob_tcp_if_include")));
        o.hosts.clear();
        o.loopbackOnly = true;
        const QStringList a = runtime::buildMpirunCommand(o)->arguments;
        QVERIFY(a.join(QLatin1Char(' ')).contains(QStringLiteral("--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo")));
    }

    void oversized_line_drops_the_peer_without_memory_growth()
    {
        runtime::MetricsServer server;
        QCOMPARE(server.limits().maxLineBytes, qint64(1) << 20);
        QVERIFY(server.listen(QStringLiteral("r")));
        QSignalSpy events(&server, &runtime::MetricsServer::eventReceived);
        const qint64 before = residentBytes();
        QProcess peer;
        QCOMPARE(sendEndlessLine(server.port(), server.token(), qint64(256) << 20, peer), qint64(0));
        QTRY_VERIFY_WITH_TIMEOUT(server.helloReceived(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(server.oversizedLines(), 1, 30000);
        // The QTRY loops above run the event loop, which may already have seen the peer exit
        // (waitForFinished then returns false at once), so wait on its state instead.
        QTRY_VERIFY_WITH_TIMEOUT(peer.state() == QProcess::NotRunning, 30000);
        const qint64 sent = peer.readAllStandardOutput().trimmed().toLongLong();
        QVERIFY2(sent < (qint64(256) << 20), qPrintable(QString::number(sent))); // cut off, not taken in
        const qint64 growth = residentBytes() - before;
        // The old server buffered the whole line: 256 MiB more.
        QVERIFY2(growth < (qint64(24) << 20), qPrintable(QStringLiteral("grew by %1 bytes").arg(growth)));
        QCOMPARE(events.size(), 0);
    }

    void silent_connection_is_closed_after_the_hello_timeout()
    {
        runtime::MetricsServer server;
        QVERIFY(server.limits().helloTimeoutMs > 0 && server.limits().helloTimeoutMs <= 10000);
        runtime::MetricsServerLimits limits;
        limits.helloTimeoutMs = 300;
        server.setLimits(limits);
        QVERIFY(server.listen(QStringLiteral("r")));
        QTcpSocket idle, half;
        idle.connectToHost(QHostAddress::LocalHost, server.port());
        half.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(idle.waitForConnected(3000) && half.waitForConnected(3000));
        half.write("{\"v\":1,\"type\":\"hel"); // a hello that never ends
        QTRY_COMPARE_WITH_TIMEOUT(idle.state(), QAbstractSocket::UnconnectedState, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(half.state(), QAbstractSocket::UnconnectedState, 5000);
        QCOMPARE(server.rejectedConnections(), 2);
        // A worker that says hello in time stays.
        QTcpSocket worker;
        worker.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(worker.waitForConnected(3000));
        worker.write(QByteArray::fromStdString(protocol::helloLine("r", server.token().toStdString()) + "\n"));
        QTRY_VERIFY_WITH_TIMEOUT(server.helloReceived(), 3000);
        QTest::qWait(800);
        QCOMPARE(worker.state(), QAbstractSocket::ConnectedState);
    }

    void connections_beyond_the_cap_are_refused()
    {
        runtime::MetricsServer server;
        runtime::MetricsServerLimits limits;
        limits.maxConnections = 4;
        limits.helloTimeoutMs = 60000;
        server.setLimits(limits);
        QVERIFY(server.listen(QStringLiteral("r")));
        QSignalSpy rejected(&server, &runtime::MetricsServer::connectionRejected);
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (int i = 0; i < 10; ++i) {
            sockets.push_back(std::make_unique<QTcpSocket>());
            sockets.back()->connectToHost(QHostAddress::LocalHost, server.port());
            QVERIFY(sockets.back()->waitForConnected(3000));
        }
        QTRY_COMPARE_WITH_TIMEOUT(rejected.size(), 6, 5000);
        for (const QList<QVariant>& r : rejected) QVERIFY(r.at(0).toString().contains(QStringLiteral("cap of 4")));
        int open = 0;
        QTest::qWait(200);
        for (auto& s : sockets) open += s->state() == QAbstractSocket::ConnectedState;
        QCOMPARE(open, 4);
        // Room again once the idle ones leave.
        sockets.clear();
        QTest::qWait(300);
        QTcpSocket worker;
        worker.connectToHost(QHostAddress::LocalHost, server.port());
        QVERIFY(worker.waitForConnected(3000));
        worker.write(QByteArray::fromStdString(protocol::helloLine("r", server.token().toStdString()) + "\n"));
        QTRY_VERIFY_WITH_TIMEOUT(server.helloReceived(), 3000);
    }

    // The metrics file fills the disk mid-run. Before, `tapas run` said "finished (N steps)" and
    // exited 0 while metrics.jsonl ended in a torn line a dozen steps in.
    void full_disk_during_metrics_fails_the_run_with_the_cause()
    {
        testing::SmallFileSystem fs(4 << 20);
        if (!fs.mounted()) QSKIP(fs.why());
        QTemporaryDir tmp;
        Prepared p;
        QVERIFY(prepareGpt(tmp, p));
        // The run's small files (spec, logs, launch.log: a page each) and the sink's 64 KiB
        // reserve fit, then about 40 KiB of metrics lines: a few dozen steps of the 400.
        QVERIFY(fs.leaveFree(160 * 1024));
        const QString runs = fs.path() + QStringLiteral("/runs");
        const testing::TapasRun run = testing::runTapas({"run", p.plan, p.model, "-np", "2", "--steps", "400", "--checkpoint-every",
                                                         "0", "--runs-dir", runs, "--grace-seconds", "2"});
        const QString out = QString::fromUtf8(run.out + run.err);
        QVERIFY2(run.exitCode != 0 && run.exitCode != -1 && run.exitCode != -2, qPrintable(out));
        const QString runDir = onlyRun(runs);
        QVERIFY2(!runDir.isEmpty(), qPrintable(out));
        bool whole = false;
        const std::vector<MetricsEvent> events = recordOf(runDir, &whole);
        QVERIFY2(whole, "metrics.jsonl ends in a torn line");
        int steps = 0;
        for (const MetricsEvent& e : events) steps += e.type == protocol::EventType::Step;
        QVERIFY2(steps > 0 && steps < 400, qPrintable(QString::number(steps)));
        const MetricsEvent* last = lastStatus(events);
        QVERIFY(last);
        QCOMPARE(QString::fromStdString(last->state), QStringLiteral("failed"));
        const QString why = QString::fromStdString(last->text);
        QVERIFY2(why.contains(QStringLiteral("metrics.jsonl")) && why.contains(QStringLiteral("No space left on device")), qPrintable(why));
        QVERIFY2(out.contains(QStringLiteral("No space left on device")), qPrintable(out)); // what the user sees
        QVERIFY(!QFileInfo::exists(runDir + QStringLiteral("/.metrics-reserve")));
    }

    // A checkpoint that does not fit. Before, torch threw from a destructor: "rank 1 exited on
    // signal 6", partial .pt files left behind and the cause recorded nowhere.
    void full_disk_during_a_checkpoint_fails_the_run_and_keeps_latest()
    {
        testing::SmallFileSystem fs(8 << 20);
        if (!fs.mounted()) QSKIP(fs.why());
        QTemporaryDir tmp;
        Prepared p;
        QVERIFY(prepareGpt(tmp, p));
        // The first checkpoint (step 2) is measured on the real disk, then the tmpfs keeps room for
        // the run and all of it but not for a second one: step 4's checkpoint fails.
        const QString roomy = tmp.filePath(QStringLiteral("runs"));
        const testing::TapasRun ok = testing::runTapas({"run", p.plan, p.model, "-np", "2", "--steps", "2", "--checkpoint-every",
                                                        "2", "--runs-dir", roomy});
        QVERIFY2(ok.exitCode == 0, (ok.out + ok.err).constData());
        qint64 checkpointBytes = 0;
        for (const QFileInfo& f : QDir(onlyRun(roomy) + QStringLiteral("/checkpoints/step-2")).entryInfoList(QDir::Files))
            checkpointBytes += f.size();
        QVERIFY(checkpointBytes > 64 * 1024);
        QVERIFY(fs.leaveFree(160 * 1024 + checkpointBytes + checkpointBytes / 2));
        const QString runs = fs.path() + QStringLiteral("/runs");
        const testing::TapasRun run = testing::runTapas({"run", p.plan, p.model, "-np", "2", "--steps", "6", "--checkpoint-every",
                                                         "2", "--runs-dir", runs, "--grace-seconds", "2"});
        const QString out = QString::fromUtf8(run.out + run.err);
        QVERIFY2(run.exitCode != 0 && run.exitCode != -1 && run.exitCode != -2, qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("signal 6")), qPrintable(out));
        const QString runDir = onlyRun(runs);
        bool whole = false;
        const std::vector<MetricsEvent> events = recordOf(runDir, &whole);
        QVERIFY(whole);
        const MetricsEvent* last = lastStatus(events);
        QVERIFY(last);
        QCOMPARE(QString::fromStdString(last->state), QStringLiteral("failed"));
        const QString why = QString::fromStdString(last->text);
        QVERIFY2(why.contains(QStringLiteral("checkpoint after step 4")) && why.contains(QStringLiteral(".pt")) &&
                     why.contains(QStringLiteral("No space left on device")),
                 qPrintable(why));
        // `latest` still names the complete step 2; nothing partial is left.
        QCOMPARE(readAll(runDir + QStringLiteral("/checkpoints/latest")).trimmed(), QStringLiteral("step-2"));
        const QStringList left = QDir(runDir + QStringLiteral("/checkpoints")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        QCOMPARE(left, (QStringList{QStringLiteral("latest"), QStringLiteral("step-2")}));
        QCOMPARE(QDir(runDir + QStringLiteral("/checkpoints/step-2")).entryList(QDir::Files).size(), 2);
    }

private:
    static QString serverToken(const runtime::RunLauncher& l);
};

// The launcher's token, read where only the run's owner can: the environment it gave mpirun.
QString TstRunFaults::serverToken(const runtime::RunLauncher& l)
{
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile cmd(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!cmd.open(QIODevice::ReadOnly) || !cmd.readAll().contains(l.runDir().toUtf8())) continue;
        QFile env(QStringLiteral("/proc/%1/environ").arg(pid));
        if (!env.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& kv : env.readAll().split('\0'))
            if (kv.startsWith("TAPAS_METRICS_TOKEN=")) return QString::fromUtf8(kv.mid(20));
    }
    return {};
}

QTEST_GUILESS_MAIN(TstRunFaults)
#include "tst_run_faults.moc"
