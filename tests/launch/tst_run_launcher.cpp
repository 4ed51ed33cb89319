// The launcher (runtime/launch) and `tapas run`: the mpirun command line, Open MPI's failure
// messages, the metrics socket, and supervision of real mpirun runs: first with a tiny fake
// worker (a shell script) where that isolates launcher logic, then with the real
// `tapas-worker train-plan` on a reduced-width zoo GPT: a run that finishes, a run whose
// rank 1 is killed mid-run, marked failed and resumed from its last checkpoint, and a run
// stopped gracefully (the worker records `stopped` and checkpoints) and resumed.
#include "runtime/launch/metrics_server.h"
#include "runtime/launch/mpi_failure.h"
#include "runtime/launch/mpirun_command.h"
#include "runtime/launch/run_follower.h"
#include "runtime/launch/run_launcher.h"
#include "runtime/launch/worker_command.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace tapas;
using protocol::EventType;
using protocol::MetricsEvent;

namespace {

QString tapasBinary() { return QStringLiteral(TAPAS_BIN_DIR "/tapas"); }
// TAPAS_TEST_WORKER names another build's worker for manual runs.
QString workerBinary()
{
    return qEnvironmentVariable("TAPAS_TEST_WORKER", QStringLiteral(TAPAS_BIN_DIR "/tapas-worker"));
}


// tests/launch/fake_worker.sh, copied executable into `dir`: a stand-in for tapas-worker that
// speaks the metrics protocol from bash (see the script).
QString writeFakeWorker(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("fake-worker.sh"));
    QFile::remove(path);
    QFile::copy(QStringLiteral(TAPAS_SOURCE_DIR "/tests/launch/fake_worker.sh"), path);
    QFile f(path);
    f.setPermissions(f.permissions() | QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

std::vector<MetricsEvent> fileEvents(const QString& runDir)
{
    auto chunk = protocol::readMetrics(runDir.toStdString());
    return chunk ? chunk->events : std::vector<MetricsEvent>{};
}

std::vector<int64_t> stepsOf(const std::vector<MetricsEvent>& events)
{
    std::vector<int64_t> steps;
    for (const MetricsEvent& e : events)
        if (e.type == EventType::Step) steps.push_back(e.step);
    return steps;
}

// Collects what a launcher emits and waits for its end.
struct Recorder {
    std::vector<MetricsEvent> events;
    QString finalState;
    explicit Recorder(runtime::RunLauncher& l)
    {
        QObject::connect(&l, &runtime::RunLauncher::eventReceived, &l, [this](const MetricsEvent& e) { events.push_back(e); });
        QObject::connect(&l, &runtime::RunLauncher::runFinished, &l, [this](const QString& s) { finalState = s; });
    }
    bool waitFinished(int ms)
    {
        QElapsedTimer t;
        t.start();
        while (finalState.isEmpty() && t.elapsed() < ms) QTest::qWait(50);
        return !finalState.isEmpty();
    }
};

runtime::LaunchRequest fakeRequest(const QTemporaryDir& tmp, const char* mode, int steps)
{
    qputenv("FAKE_MODE", mode);
    runtime::LaunchRequest r;
    r.spec.kind = "fake";
    r.spec.ranks = 2;
    r.spec.steps = steps;
    r.spec.checkpointEvery = 0;
    r.runsRoot = tmp.filePath(QStringLiteral("runs"));
    r.workerPath = writeFakeWorker(tmp);
    r.mpirunPath = QStringLiteral(TAPAS_MPIEXEC);
    r.pollMs = 100;
    r.graceSeconds = 2;
    return r;
}

// The pid of the tapas-worker of `rank` whose command line names `runDir`, from /proc.
qint64 findRankPid(const QString& runDir, int rank)
{
    const QByteArray wantRank = "OMPI_COMM_WORLD_RANK=" + QByteArray::number(rank);
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 n = pid.toLongLong(&isPid);
        if (!isPid) continue;
        QByteArray cmdline = readAll(QStringLiteral("/proc/%1/cmdline").arg(pid)).toUtf8();
        if (!cmdline.contains("tapas-worker") || !cmdline.contains(runDir.toUtf8())) continue;
        QFile env(QStringLiteral("/proc/%1/environ").arg(pid));
        if (!env.open(QIODevice::ReadOnly)) continue;
        if (env.readAll().split('\0').contains(wantRank)) return n;
    }
    return -1;
}

} // namespace

class TstRunLauncher : public QObject {
    Q_OBJECT
private:
    QTemporaryDir realDir_;
    QString gptModel_, gptPlan_;
    QString prepareRealRun();

private Q_SLOTS:
    void initTestCase();

    // --- the command line (pure) ---
    void mpirun_command_has_ranks_hosts_map_by_and_exports();
    void mpirun_command_adds_root_and_oversubscribe_flags_only_when_needed();
    void mpirun_command_refuses_hostile_host_names_naming_them_data();
    void mpirun_command_refuses_hostile_host_names_naming_them();
    void mpirun_command_refuses_hosts_with_hostfile_and_zero_ranks();
    void shell_quoting_survives_a_real_shell();
    void srun_line_names_tasks_nodes_and_exports();
    void exported_variables_are_the_present_ones_and_every_nccl();
    void missing_mpirun_is_a_clear_error();
    void launcher_refuses_missing_mpirun_without_creating_a_run_dir();
    void worker_arguments_carry_spec_dims_flags_and_socket();

    // --- Open MPI's messages ---
    void open_mpi_signal_message_names_the_rank();
    void open_mpi_exit_code_message_names_the_rank();
    void output_without_a_rank_names_none();

    // --- socket and file ---
    void metrics_server_drops_wrong_token_and_takes_hello();
    void follower_reads_complete_lines_and_continues();

    // --- supervision with a fake worker (launcher logic only) ---
    void fake_run_finishes_with_events_once_from_socket_and_file();
    void fake_run_followed_by_file_alone_delivers_every_event_at_exit();
    void fake_rank_death_is_recorded_as_failed_with_rank_and_log();
    void fake_hung_run_is_marked_hung_and_stopped();
    void stop_lets_the_worker_record_stopped();

    // --- the real worker ---
    void real_two_rank_run_finishes_with_metrics_on_socket_and_in_file();
    void real_rank_killed_mid_run_is_failed_and_resume_finishes();
    void real_stop_records_stopped_with_a_checkpoint_and_resume_continues();
    void tapas_run_cli_prints_steps_and_exits_zero_when_finished();
};

void TstRunLauncher::initTestCase()
{
    QVERIFY(realDir_.isValid());
    // Open MPI refuses root without these (also set by ctest; set here for manual runs).
    qputenv("OMPI_ALLOW_RUN_AS_ROOT", "1");
    qputenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    qputenv("OMP_NUM_THREADS", "1");
}

// ---------------------------------------------------------------- command line

void TstRunLauncher::mpirun_command_has_ranks_hosts_map_by_and_exports()
{
    runtime::MpirunOptions o;
    o.mpirun = QStringLiteral("/usr/bin/mpirun");
    o.ranks = 4;
    o.hosts = {QStringLiteral("node-1"), QStringLiteral("node2.cluster:2")};
    o.mapBy = QStringLiteral("ppr:2:node");
    o.exportVars = {QStringLiteral("PATH"), QStringLiteral("NCCL_DEBUG")};
    o.program = QStringLiteral("/opt/tapas/bin/tapas-worker");
    o.programArgs = {QStringLiteral("train-plan"), QStringLiteral("--run-dir"), QStringLiteral("/runs/a b")};
    auto c = runtime::buildMpirunCommand(o);
    QVERIFY2(c.ok(), c.error().c_str());
    QCOMPARE(c->program, QStringLiteral("/usr/bin/mpirun"));
    const QStringList expected{QStringLiteral("-np"), QStringLiteral("4"), QStringLiteral("--host"),
                               QStringLiteral("node-1,node2.cluster:2"), QStringLiteral("--map-by"), QStringLiteral("ppr:2:node"),
                               QStringLiteral("-x"), QStringLiteral("PATH"), QStringLiteral("-x"), QStringLiteral("NCCL_DEBUG"),
                               QStringLiteral("/opt/tapas/bin/tapas-worker"), QStringLiteral("train-plan"),
                               QStringLiteral("--run-dir"), QStringLiteral("/runs/a b")};
    QCOMPARE(c->arguments, expected);
    QVERIFY(c->toShellString().endsWith(QStringLiteral("--run-dir '/runs/a b'")));

    o.hosts.clear();
    o.hostfile = QStringLiteral("/etc/hosts file");
    c = runtime::buildMpirunCommand(o);
    QVERIFY(c.ok());
    QVERIFY(c->arguments.join(QLatin1Char('|')).contains(QStringLiteral("--hostfile|/etc/hosts file")));
    QVERIFY(!c->arguments.contains(QStringLiteral("--host")));
}

void TstRunLauncher::mpirun_command_adds_root_and_oversubscribe_flags_only_when_needed()
{
    runtime::MpirunOptions o;
    o.program = QStringLiteral("w");
    auto plain = runtime::buildMpirunCommand(o);
    QVERIFY(plain.ok());
    QVERIFY(!plain->arguments.contains(QStringLiteral("--allow-run-as-root")));
    QVERIFY(!plain->arguments.contains(QStringLiteral("--oversubscribe")));

    o.oversubscribe = true;
    auto over = runtime::buildMpirunCommand(o);
    QVERIFY(over->arguments.contains(QStringLiteral("--oversubscribe")));
    QVERIFY(!over->arguments.contains(QStringLiteral("--allow-run-as-root")));

    o.oversubscribe = false;
    o.runningAsRoot = true;
    o.sigkillTimeoutSeconds = 3;
    auto root = runtime::buildMpirunCommand(o);
    QVERIFY(root->arguments.contains(QStringLiteral("--allow-run-as-root")));
    QVERIFY(root->arguments.contains(QStringLiteral("--oversubscribe")));
    QVERIFY(root->arguments.join(QLatin1Char(' ')).contains(QStringLiteral("--mca odls_base_sigkill_timeout 3")));
    // Flags go before the program: anything after it would be the worker's.
    QVERIFY(root->arguments.indexOf(QStringLiteral("--allow-run-as-root")) < root->arguments.indexOf(QStringLiteral("w")));
}

void TstRunLauncher::mpirun_command_refuses_hostile_host_names_naming_them_data()
{
    QTest::addColumn<QString>("host");
    QTest::newRow("semicolon") << QStringLiteral("a;rm -rf /");
    QTest::newRow("command substitution") << QStringLiteral("$(reboot)");
    QTest::newRow("backtick") << QStringLiteral("node`id`");
    QTest::newRow("space") << QStringLiteral("node 1");
    QTest::newRow("option") << QStringLiteral("-x");
    QTest::newRow("comma smuggles a second host") << QStringLiteral("a,b");
    QTest::newRow("bad slots") << QStringLiteral("node:x");
    QTest::newRow("empty") << QString();
}

void TstRunLauncher::mpirun_command_refuses_hostile_host_names_naming_them()
{
    QFETCH(QString, host);
    runtime::MpirunOptions o;
    o.program = QStringLiteral("w");
    o.hosts = {QStringLiteral("good-host"), host};
    auto c = runtime::buildMpirunCommand(o);
    QVERIFY(!c.ok());
    QVERIFY2(QString::fromStdString(c.error()).contains(QLatin1Char('\'') + host + QLatin1Char('\'')), c.error().c_str());
    auto s = runtime::buildSrunLine(o);
    QVERIFY(!s.ok());
    QVERIFY(runtime::isValidHostEntry(QStringLiteral("gpu-07.example.org:8")));
}

void TstRunLauncher::mpirun_command_refuses_hosts_with_hostfile_and_zero_ranks()
{
    runtime::MpirunOptions o;
    o.program = QStringLiteral("w");
    o.hosts = {QStringLiteral("a")};
    o.hostfile = QStringLiteral("hf");
    auto both = runtime::buildMpirunCommand(o);
    QVERIFY(!both.ok());
    QVERIFY(QString::fromStdString(both.error()).contains(QStringLiteral("hostfile")));
    o.hostfile.clear();
    o.ranks = 0;
    auto zero = runtime::buildMpirunCommand(o);
    QVERIFY(!zero.ok());
    QVERIFY(QString::fromStdString(zero.error()).contains(QStringLiteral("ranks")));
    o.ranks = 2;
    o.program.clear();
    QVERIFY(!runtime::buildMpirunCommand(o).ok());
}

void TstRunLauncher::shell_quoting_survives_a_real_shell()
{
    const QStringList args{QStringLiteral("plain"), QStringLiteral("with space"), QStringLiteral("it's"),
                           QStringLiteral("$HOME;`id`"), QString(), QStringLiteral("\"dq\" \\ back")};
    QStringList quoted;
    for (const QString& a : args) quoted << runtime::shellQuote(a);
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s\\n' ") + quoted.join(QLatin1Char(' '))});
    QVERIFY(sh.waitForFinished(5000));
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), args.join(QLatin1Char('\n')) + QLatin1Char('\n'));
    QCOMPARE(runtime::shellQuote(QStringLiteral("/usr/bin/mpirun")), QStringLiteral("/usr/bin/mpirun"));
}

void TstRunLauncher::srun_line_names_tasks_nodes_and_exports()
{
    runtime::MpirunOptions o;
    o.ranks = 8;
    o.hosts = {QStringLiteral("n1:4"), QStringLiteral("n2:4")};
    o.mapBy = QStringLiteral("node");
    o.exportVars = {QStringLiteral("OMP_NUM_THREADS")};
    o.program = QStringLiteral("tapas-worker");
    o.programArgs = {QStringLiteral("train-plan"), QStringLiteral("--steps"), QStringLiteral("5")};
    auto line = runtime::buildSrunLine(o);
    QVERIFY2(line.ok(), line.error().c_str());
    QCOMPARE(*line, QStringLiteral("srun --ntasks=8 --nodelist=n1,n2 --distribution=cyclic --export=ALL,OMP_NUM_THREADS "
                                   "tapas-worker train-plan --steps 5"));
}

void TstRunLauncher::exported_variables_are_the_present_ones_and_every_nccl()
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/bin"));
    env.insert(QStringLiteral("NCCL_SOCKET_IFNAME"), QStringLiteral("eth0"));
    env.insert(QStringLiteral("NCCL_DEBUG"), QStringLiteral("INFO"));
    env.insert(QStringLiteral("HOME"), QStringLiteral("/root"));
    QCOMPARE(runtime::exportedVariables(env),
             (QStringList{QStringLiteral("PATH"), QStringLiteral("NCCL_DEBUG"), QStringLiteral("NCCL_SOCKET_IFNAME")}));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("2"));
    env.insert(QStringLiteral("LD_LIBRARY_PATH"), QStringLiteral("/x"));
    QCOMPARE(runtime::exportedVariables(env).mid(0, 3),
             (QStringList{QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("PATH"), QStringLiteral("LD_LIBRARY_PATH")}));
}

void TstRunLauncher::missing_mpirun_is_a_clear_error()
{
    auto m = runtime::findMpirun(QStringLiteral("/nonexistent/bin/mpirun"));
    QVERIFY(!m.ok());
    QVERIFY2(QString::fromStdString(m.error()).contains(QStringLiteral("/nonexistent/bin/mpirun")), m.error().c_str());
    auto found = runtime::findMpirun();
    QVERIFY2(found.ok(), found.error().c_str());
}

void TstRunLauncher::launcher_refuses_missing_mpirun_without_creating_a_run_dir()
{
    QTemporaryDir tmp;
    runtime::LaunchRequest r = fakeRequest(tmp, "finish", 2);
    r.mpirunPath = tmp.filePath(QStringLiteral("no-mpirun-here"));
    runtime::RunLauncher l;
    const Status s = l.start(r);
    QVERIFY(!s.ok());
    QVERIFY2(QString::fromStdString(s.error).contains(QStringLiteral("mpirun")), s.error.c_str());
    QVERIFY(!QFileInfo::exists(r.runsRoot));
    QVERIFY(!l.isRunning());

    r = fakeRequest(tmp, "finish", 2);
    r.spec.hosts = {"evil;host"};
    const Status h = l.start(r);
    QVERIFY(!h.ok());
    QVERIFY2(QString::fromStdString(h.error).contains(QStringLiteral("evil;host")), h.error.c_str());
    QVERIFY(!QFileInfo::exists(r.runsRoot));
}

void TstRunLauncher::worker_arguments_carry_spec_dims_flags_and_socket()
{
    protocol::RunSpec spec;
    spec.kind = "train-plan";
    spec.planPath = "/p/plan.tapas.json";
    spec.modelPath = "/p/gpt.onnx";
    spec.steps = 7;
    spec.checkpointEvery = 3;
    spec.resume = true;
    spec.options = {{"dim:seq", "16"}, {"lr", "0.01"}, {"skip-numerics", ""}};
    auto a = runtime::buildWorkerArguments(spec, {QStringLiteral("/runs/x"), 4242});
    QVERIFY2(a.ok(), a.error().c_str());
    QCOMPARE(a->join(QLatin1Char(' ')),
             QStringLiteral("train-plan --model /p/gpt.onnx --plan /p/plan.tapas.json --run-dir /runs/x --steps 7 "
                            "--checkpoint-every 3 --resume --dim seq=16 --lr 0.01 --skip-numerics "
                            "--metrics-port 4242"));
    // The token never goes on a command line, not even when a spec asks for it.
    protocol::RunSpec withToken = spec;
    withToken.options["metrics-token"] = "tok";
    QVERIFY(!runtime::buildWorkerArguments(withToken, {QStringLiteral("/runs/x"), 4242}).ok());
    spec.modelPath.clear();
    auto bad = runtime::buildWorkerArguments(spec, {QStringLiteral("/runs/x"), 0});
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error()).contains(QStringLiteral("model")));
}

// ---------------------------------------------------------------- Open MPI messages

void TstRunLauncher::open_mpi_signal_message_names_the_rank()
{
    // Recorded from Open MPI 4.1.4 (mpirun -np 2, rank 1 SIGKILLed).
    const QString out = QStringLiteral(
        "--------------------------------------------------------------------------\n"
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "--------------------------------------------------------------------------\n"
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n"
        "--------------------------------------------------------------------------\n");
    const runtime::RankFailure f = runtime::parseRankFailure(out);
    QCOMPARE(f.rank, 1);
    QCOMPARE(f.signal, 9);
    QCOMPARE(f.host, QStringLiteral("vm"));
    QCOMPARE(f.describe(), QStringLiteral("rank 1 exited on signal 9 (Killed) on vm"));
}

void TstRunLauncher::open_mpi_exit_code_message_names_the_rank()
{
    // Recorded from Open MPI 4.1.4 (rank 3 exited with code 3).
    const QString out = QStringLiteral(
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "--------------------------------------------------------------------------\n"
        "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
        "the job to be terminated. The first process to do so was:\n\n"
        "  Process name: [[19637,1],3]\n"
        "  Exit code:    3\n"
        "--------------------------------------------------------------------------\n");
    const runtime::RankFailure f = runtime::parseRankFailure(out);
    QCOMPARE(f.rank, 3);
    QCOMPARE(f.exitCode, 3);
    QCOMPARE(f.signal, 0);
    QCOMPARE(f.describe(), QStringLiteral("rank 3 exited with code 3"));
}

void TstRunLauncher::output_without_a_rank_names_none()
{
    QCOMPARE(runtime::parseRankFailure(QStringLiteral("mpirun was unable to launch the specified application")).rank, -1);
    QCOMPARE(runtime::parseRankFailure(QString()).rank, -1);
}

// ---------------------------------------------------------------- socket and file

void TstRunLauncher::metrics_server_drops_wrong_token_and_takes_hello()
{
    runtime::MetricsServer server;
    QVERIFY(server.listen(QStringLiteral("r1")));
    QVERIFY(server.port() > 0);
    QCOMPARE(server.token().size(), 32);
    QVERIFY(server.token() != runtime::MetricsServer::randomToken());
    QSignalSpy events(&server, &runtime::MetricsServer::eventReceived);
    QSignalSpy rejected(&server, &runtime::MetricsServer::connectionRejected);

    const std::string step = protocol::toJsonLine(MetricsEvent::stepEvent(3, {{"loss", 1.5}})) + "\n";
    QTcpSocket intruder;
    intruder.connectToHost(QHostAddress::LocalHost, server.port());
    QVERIFY(intruder.waitForConnected(3000));
    intruder.write(QByteArray::fromStdString(protocol::helloLine("r1", "not-the-token") + "\n" + step));
    QTRY_COMPARE_WITH_TIMEOUT(rejected.size(), 1, 3000);
    QTest::qWait(100);
    QCOMPARE(events.size(), 0);
    QVERIFY(!server.helloReceived());

    QTcpSocket worker;
    worker.connectToHost(QHostAddress::LocalHost, server.port());
    QVERIFY(worker.waitForConnected(3000));
    worker.write(QByteArray::fromStdString(protocol::helloLine("r1", server.token().toStdString()) + "\n" + step +
                                           "garbage\n"));
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 1, 3000);
    QVERIFY(server.helloReceived());
    const auto e = events.at(0).at(0).value<MetricsEvent>();
    QCOMPARE(e.step, int64_t(3));
    QCOMPARE(e.values.at("loss"), 1.5);
    QTRY_COMPARE_WITH_TIMEOUT(server.badLines(), 1, 3000);
}

void TstRunLauncher::follower_reads_complete_lines_and_continues()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path();
    runtime::RunFollower follower;
    QSignalSpy events(&follower, &runtime::RunFollower::eventReceived);
    QSignalSpy terminal(&follower, &runtime::RunFollower::terminalReached);
    follower.follow(dir, 50); // no file yet: not an error
    QFile f(QString::fromStdString(protocol::metricsPath(dir.toStdString())));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    const std::string line1 = protocol::toJsonLine(MetricsEvent::stepEvent(1, {{"loss", 2}}));
    const std::string line2 = protocol::toJsonLine(MetricsEvent::statusEvent("finished", ""));
    f.write(QByteArray::fromStdString(line1 + "\n" + line2.substr(0, 10)));
    f.flush();
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 1, 2000);
    QTest::qWait(150);
    QCOMPARE(events.size(), 1); // the half line waits
    f.write(QByteArray::fromStdString(line2.substr(10) + "\n"));
    f.flush();
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 2, 2000);
    QCOMPARE(terminal.size(), 1);
    QVERIFY(follower.atTerminal());
    // A resumed run appends after a terminal state: still followed.
    f.write(QByteArray::fromStdString(protocol::toJsonLine(MetricsEvent::stepEvent(2, {{"loss", 1}})) + "\n"));
    f.flush();
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 3, 2000);
    QVERIFY(!follower.atTerminal() || events.size() == 3);
}

// ---------------------------------------------------------------- fake worker

void TstRunLauncher::fake_run_finishes_with_events_once_from_socket_and_file()
{
    QTemporaryDir tmp;
    runtime::RunLauncher l;
    Recorder rec(l);
    const Status s = l.start(fakeRequest(tmp, "finish", 4));
    QVERIFY2(s.ok(), s.error.c_str());
    QVERIFY(l.isRunning());
    QVERIFY(l.commandLine().contains(QStringLiteral("-np 2")));
    QVERIFY(QFileInfo::exists(QString::fromStdString(protocol::specPath(l.runDir().toStdString()))));
    QVERIFY2(rec.waitFinished(30000), qPrintable(readAll(QString::fromStdString(protocol::launchLogPath(l.runDir().toStdString())))));
    QCOMPARE(rec.finalState, QStringLiteral("finished"));
    QCOMPARE(l.exitCode(), 0);
    QVERIFY(l.socketConnected());
    // Each event once, although both the socket and the file delivered it.
    QCOMPARE(stepsOf(rec.events), (std::vector<int64_t>{1, 2, 3, 4}));
    QCOMPARE(rec.events.size(), fileEvents(l.runDir()).size());
    QCOMPARE(l.socketEventCount(), int(rec.events.size()));
    const QString log = readAll(QString::fromStdString(protocol::launchLogPath(l.runDir().toStdString())));
    QVERIFY(log.contains(QStringLiteral("command: ")));
    QVERIFY(log.contains(QStringLiteral("mpirun exited with code 0")));
}

// What `tapas bench run` relies on (tests/bench/bench_plan_run): with no socket and a poll
// interval longer than the run, the launcher never wakes for an event while the ranks step, and
// still delivers every event of the file, once, when mpirun exits.
void TstRunLauncher::fake_run_followed_by_file_alone_delivers_every_event_at_exit()
{
    QTemporaryDir tmp;
    runtime::LaunchRequest r = fakeRequest(tmp, "finish", 4);
    r.metricsSocket = false;
    r.pollMs = 600000;
    runtime::RunLauncher l;
    Recorder rec(l);
    QVERIFY(l.start(r).ok());
    QVERIFY(!l.commandLine().contains(QStringLiteral("--metrics-port")));
    QTest::qWait(500); // steps 1-3 are written by now; nothing has read them
    QVERIFY(stepsOf(rec.events).empty());
    QVERIFY(rec.waitFinished(30000));
    QCOMPARE(rec.finalState, QStringLiteral("finished"));
    QCOMPARE(stepsOf(rec.events), (std::vector<int64_t>{1, 2, 3, 4}));
    QCOMPARE(rec.events.size(), fileEvents(l.runDir()).size());
    QVERIFY(!l.socketConnected());
    QCOMPARE(l.socketEventCount(), 0);
}

void TstRunLauncher::fake_rank_death_is_recorded_as_failed_with_rank_and_log()
{
    QTemporaryDir tmp;
    runtime::RunLauncher l;
    Recorder rec(l);
    QVERIFY(l.start(fakeRequest(tmp, "die", 6)).ok());
    QVERIFY(rec.waitFinished(30000));
    QCOMPARE(rec.finalState, QStringLiteral("failed"));
    QCOMPARE(l.failedRank(), 1);
    const auto events = fileEvents(l.runDir());
    QVERIFY(!events.empty());
    const MetricsEvent& last = events.back();
    QCOMPARE(last.state, std::string("failed"));
    QCOMPARE(last.rank, 1);
    QVERIFY2(QString::fromStdString(last.text).contains(QStringLiteral("rank 1")), last.text.c_str());
    QVERIFY2(QString::fromStdString(last.fields.at("last_log")).contains(QStringLiteral("rank 1 about to die")),
             last.fields.at("last_log").c_str());
    // What rank 0 recorded before is intact.
    const auto steps = stepsOf(events);
    QVERIFY(steps.size() >= 2);
    QCOMPARE(steps.front(), int64_t(1));
    QVERIFY(readAll(QString::fromStdString(protocol::launchLogPath(l.runDir().toStdString()))).contains(QStringLiteral("recorded: failed")));
}

void TstRunLauncher::fake_hung_run_is_marked_hung_and_stopped()
{
    QTemporaryDir tmp;
    runtime::RunLauncher l;
    Recorder rec(l);
    runtime::LaunchRequest r = fakeRequest(tmp, "hang", 5);
    r.hungSeconds = 2;
    QVERIFY(l.start(r).ok());
    QVERIFY(rec.waitFinished(30000));
    QCOMPARE(rec.finalState, QStringLiteral("hung"));
    const auto events = fileEvents(l.runDir());
    QCOMPARE(events.back().state, std::string("hung"));
    QCOMPARE(stepsOf(events), (std::vector<int64_t>{1}));
}

void TstRunLauncher::stop_lets_the_worker_record_stopped()
{
    QTemporaryDir tmp;
    runtime::RunLauncher l;
    Recorder rec(l);
    runtime::LaunchRequest r = fakeRequest(tmp, "stop", 2);
    r.graceSeconds = 8; // Open MPI forwards SIGTERM after 4 s and gives 4 s more: room on a loaded machine
    QVERIFY(l.start(r).ok());
    QTRY_VERIFY_WITH_TIMEOUT(stepsOf(rec.events).size() == 2, 20000);
    l.stop();
    QVERIFY(rec.waitFinished(30000));
    QCOMPARE(rec.finalState, QStringLiteral("stopped"));
    const auto events = fileEvents(l.runDir());
    QCOMPARE(events.back().state, std::string("stopped"));
    // The worker wrote it (its text), the launcher did not have to.
    QCOMPARE(events.back().text, std::string("by signal"));
}

// ---------------------------------------------------------------- the real worker

// Writes the 2-layer zoo GPT and its 1x2 TAPAS plan once; returns what failed, with the
// program's own output (our programs failing is a test failure, not a reason to skip).
QString TstRunLauncher::prepareRealRun()
{
    if (!gptPlan_.isEmpty()) return {};
    auto failure = [](const char* what, QProcess& p) {
        return QStringLiteral("%1 failed (exit %2, %3): %4%5")
            .arg(QLatin1String(what))
            .arg(p.exitCode())
            .arg(p.errorString(), QString::fromLocal8Bit(p.readAllStandardError()),
                 QString::fromLocal8Bit(p.readAllStandardOutput()));
    };
    QProcess help;
    help.start(workerBinary(), {QStringLiteral("--help")});
    if (!help.waitForFinished(20000) || help.exitStatus() != QProcess::NormalExit || help.exitCode() != 0)
        return failure("tapas-worker --help", help);
    const QByteArray usage = help.readAllStandardOutput();
    if (!usage.contains("train-plan"))
        return QStringLiteral("tapas-worker --help does not list train-plan:\n") + QString::fromLocal8Bit(usage);
    const QString model = realDir_.filePath(QStringLiteral("gpt.onnx"));
    const QString plan = realDir_.filePath(QStringLiteral("gpt-1x2.tapas.json"));
    QProcess zoo;
    zoo.start(tapasBinary(), {QStringLiteral("zoo"), QStringLiteral("gpt"), QStringLiteral("--layers"), QStringLiteral("2"),
                              QStringLiteral("--hidden"), QStringLiteral("64"), QStringLiteral("--heads"), QStringLiteral("4"),
                              QStringLiteral("--vocab"), QStringLiteral("128"), QStringLiteral("--seq"), QStringLiteral("16"),
                              QStringLiteral("--batch"), QStringLiteral("4"), QStringLiteral("-o"), model});
    if (!zoo.waitForFinished(60000) || zoo.exitStatus() != QProcess::NormalExit || zoo.exitCode() != 0)
        return failure("tapas zoo", zoo);
    QProcess search;
    search.start(tapasBinary(), {QStringLiteral("search"), model, QStringLiteral("--cluster"), QStringLiteral("cpu-mpi"),
                                 QStringLiteral("--mesh"), QStringLiteral("1x2"), QStringLiteral("--searchers"),
                                 QStringLiteral("tapas"), QStringLiteral("-o"), plan});
    if (!search.waitForFinished(120000) || search.exitStatus() != QProcess::NormalExit || search.exitCode() != 0)
        return failure("tapas search", search);
    gptModel_ = model;
    gptPlan_ = plan;
    return {};
}

static runtime::LaunchRequest realRequest(const QString& runsRoot, const QString& model, const QString& plan, int steps)
{
    runtime::LaunchRequest r;
    r.spec.kind = "train-plan";
    r.spec.modelPath = model.toStdString();
    r.spec.planPath = plan.toStdString();
    r.spec.ranks = 2;
    r.spec.steps = steps;
    r.spec.checkpointEvery = 3;
    r.runsRoot = runsRoot;
    r.workerPath = workerBinary();
    r.mpirunPath = QStringLiteral(TAPAS_MPIEXEC);
    r.pollMs = 200;
    r.hungSeconds = 120;
    r.graceSeconds = 4; // a killed rank's job is torn down 2 + 2 s later
    return r;
}

void TstRunLauncher::real_two_rank_run_finishes_with_metrics_on_socket_and_in_file()
{
    const QString notReady = prepareRealRun();
    QVERIFY2(notReady.isEmpty(), qPrintable(notReady));
    runtime::RunLauncher l;
    Recorder rec(l);
    QVERIFY(l.start(realRequest(realDir_.filePath(QStringLiteral("runs")), gptModel_, gptPlan_, 6)).ok());
    QVERIFY2(rec.waitFinished(170000), "the 2-rank run did not end");
    const QString launchLog = readAll(QString::fromStdString(protocol::launchLogPath(l.runDir().toStdString())));
    QVERIFY2(rec.finalState == QLatin1String("finished"), qPrintable(launchLog));
    QVERIFY(l.socketConnected());
    QVERIFY(launchLog.contains(QStringLiteral("metrics socket: rank 0 connected")));
    const auto file = fileEvents(l.runDir());
    QCOMPARE(stepsOf(file), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
    // Every line of the file also came over the socket, and each was emitted once.
    QCOMPARE(l.socketEventCount(), int(file.size()));
    QCOMPARE(rec.events.size(), file.size());
    QCOMPARE(stepsOf(rec.events), stepsOf(file));
    for (const MetricsEvent& e : rec.events)
        if (e.type == EventType::Step) {
            QVERIFY(e.values.count("loss"));
            QVERIFY(e.values.count("step_time"));
        }
    QCOMPARE(l.exitCode(), 0);
}

void TstRunLauncher::real_rank_killed_mid_run_is_failed_and_resume_finishes()
{
    const QString notReady = prepareRealRun();
    QVERIFY2(notReady.isEmpty(), qPrintable(notReady));
    const int steps = 400; // long enough to be killed mid-run on 2 slow cores
    runtime::RunLauncher l;
    Recorder rec(l);
    runtime::LaunchRequest r = realRequest(realDir_.filePath(QStringLiteral("runs")), gptModel_, gptPlan_, steps);
    QVERIFY(l.start(r).ok());
    const QString runDir = l.runDir();
    const QString latest = QString::fromStdString(protocol::checkpointsDir(runDir.toStdString())) + QStringLiteral("/latest");
    // Wait for a checkpoint past step 3, then kill rank 1.
    QTRY_VERIFY_WITH_TIMEOUT(readAll(latest).trimmed().startsWith(QStringLiteral("step-")) &&
                                 readAll(latest).trimmed() != QLatin1String("step-0"),
                             150000);
    const qint64 pid = findRankPid(runDir, 1);
    QVERIFY2(pid > 0, "rank 1's tapas-worker was not found in /proc");
    const auto before = stepsOf(fileEvents(runDir));
    QVERIFY(!before.empty());
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    QVERIFY(rec.waitFinished(60000));
    QCOMPARE(rec.finalState, QStringLiteral("failed"));
    QCOMPARE(l.failedRank(), 1);
    const auto afterKill = fileEvents(runDir);
    QCOMPARE(afterKill.back().state, std::string("failed"));
    QCOMPARE(afterKill.back().rank, 1);
    QVERIFY2(QString::fromStdString(afterKill.back().text).contains(QStringLiteral("rank 1")), afterKill.back().text.c_str());
    QVERIFY(afterKill.back().fields.count("last_log"));
    // Earlier lines are intact: the steps read before the kill are still the file's prefix.
    const auto stepsAfter = stepsOf(afterKill);
    QVERIFY(stepsAfter.size() >= before.size());
    QVERIFY(std::equal(before.begin(), before.end(), stepsAfter.begin()));
    QVERIFY(stepsAfter.back() < steps);

    // Resume from the last checkpoint: the next step is its step + 1.
    const int checkpointStep = readAll(latest).trimmed().mid(5).toInt();
    QVERIFY(checkpointStep > 0);
    auto resume = runtime::RunLauncher::resumeRequest(runDir);
    QVERIFY2(resume.ok(), resume.error().c_str());
    resume->workerPath = workerBinary();
    resume->mpirunPath = QStringLiteral(TAPAS_MPIEXEC);
    resume->pollMs = 200;
    resume->spec.steps = checkpointStep + 4; // a short finish
    runtime::RunLauncher l2;
    Recorder rec2(l2);
    const Status s = l2.start(*resume);
    QVERIFY2(s.ok(), s.error.c_str());
    QCOMPARE(l2.runDir(), runDir);
    QVERIFY(l2.commandLine().contains(QStringLiteral("--resume")));
    QVERIFY2(rec2.waitFinished(170000), "the resumed run did not end");
    QVERIFY2(rec2.finalState == QLatin1String("finished"),
             qPrintable(readAll(QString::fromStdString(protocol::launchLogPath(runDir.toStdString())))));
    const auto resumedSteps = stepsOf(rec2.events);
    QVERIFY(!resumedSteps.empty());
    QCOMPARE(resumedSteps.front(), int64_t(checkpointStep + 1));
    QCOMPARE(resumedSteps.back(), int64_t(checkpointStep + 4));
    // The file holds both launches: the failed one first, untouched.
    const auto all = fileEvents(runDir);
    QVERIFY(all.size() > afterKill.size());
    QCOMPARE(all[afterKill.size() - 1].state, std::string("failed"));
}

void TstRunLauncher::real_stop_records_stopped_with_a_checkpoint_and_resume_continues()
{
    const QString notReady = prepareRealRun();
    QVERIFY2(notReady.isEmpty(), qPrintable(notReady));
    // Never reached: Open MPI passes mpirun's SIGTERM on to the ranks only after
    // odls_base_sigkill_timeout (half the grace period), and a step takes a few ms.
    const int steps = 100000;
    runtime::RunLauncher l;
    Recorder rec(l);
    runtime::LaunchRequest r = realRequest(realDir_.filePath(QStringLiteral("runs")), gptModel_, gptPlan_, steps);
    r.spec.checkpointEvery = 0; // the only checkpoint is the one the stop writes
    r.graceSeconds = 8;         // as in stop_lets_the_worker_record_stopped: room on a loaded machine
    QVERIFY(l.start(r).ok());
    const QString runDir = l.runDir();
    QTRY_VERIFY_WITH_TIMEOUT(stepsOf(fileEvents(runDir)).size() >= 3, 150000);
    const auto before = stepsOf(fileEvents(runDir));
    l.stop();
    QVERIFY2(rec.waitFinished(60000), "the stopped run did not end");
    const QString launchLog = readAll(QString::fromStdString(protocol::launchLogPath(runDir.toStdString())));
    QVERIFY2(rec.finalState == QLatin1String("stopped"), qPrintable(rec.finalState + QLatin1Char('\n') + launchLog));
    const auto afterStop = fileEvents(runDir);
    // The worker recorded the stop itself (the launcher's fallback says "did not confirm").
    QCOMPARE(afterStop.back().state, std::string("stopped"));
    QVERIFY2(QString::fromStdString(afterStop.back().text).contains(QStringLiteral("after step")), afterStop.back().text.c_str());
    QVERIFY2(!launchLog.contains(QStringLiteral("SIGKILL")), qPrintable(launchLog));
    for (const MetricsEvent& e : afterStop) QVERIFY2(e.state != "failed", e.text.c_str());
    // The steps recorded before the stop are intact, and the steps are 1..n without a gap.
    const auto stepsAfter = stepsOf(afterStop);
    QVERIFY(stepsAfter.size() >= before.size());
    QVERIFY(std::equal(before.begin(), before.end(), stepsAfter.begin()));
    for (size_t i = 0; i < stepsAfter.size(); ++i) QCOMPARE(stepsAfter[i], int64_t(i + 1));
    const int64_t last = stepsAfter.back();
    QVERIFY(last < steps);
    QVERIFY2(QString::fromStdString(afterStop.back().text).endsWith(QString::number(last)), afterStop.back().text.c_str());
    // The stop's checkpoint: the last step, every rank's shard.
    const QString checkpoints = QString::fromStdString(protocol::checkpointsDir(runDir.toStdString()));
    QCOMPARE(readAll(checkpoints + QStringLiteral("/latest")).trimmed(), QStringLiteral("step-%1").arg(last));
    for (int rank = 0; rank < 2; ++rank)
        QVERIFY(QFileInfo::exists(checkpoints + QStringLiteral("/step-%1/rank-%2.pt").arg(last).arg(rank)));

    // --resume continues with the next step.
    auto resume = runtime::RunLauncher::resumeRequest(runDir);
    QVERIFY2(resume.ok(), resume.error().c_str());
    resume->workerPath = workerBinary();
    resume->mpirunPath = QStringLiteral(TAPAS_MPIEXEC);
    resume->pollMs = 200;
    resume->spec.steps = int(last) + 3;
    runtime::RunLauncher l2;
    Recorder rec2(l2);
    const Status s = l2.start(*resume);
    QVERIFY2(s.ok(), s.error.c_str());
    QVERIFY2(rec2.waitFinished(170000), "the resumed run did not end");
    QVERIFY2(rec2.finalState == QLatin1String("finished"),
             qPrintable(readAll(QString::fromStdString(protocol::launchLogPath(runDir.toStdString())))));
    QCOMPARE(stepsOf(rec2.events), (std::vector<int64_t>{last + 1, last + 2, last + 3}));
    qInfo("stop requested after step %lld, stopped after step %lld, resumed with steps %lld..%lld",
          static_cast<long long>(before.back()), static_cast<long long>(last), static_cast<long long>(last + 1),
          static_cast<long long>(last + 3));
    // The stopped launch's lines stay as they were, before the resumed one's.
    const auto all = fileEvents(runDir);
    QVERIFY(all.size() > afterStop.size());
    QCOMPARE(all[afterStop.size() - 1].state, std::string("stopped"));
    QCOMPARE(stepsOf(std::vector<MetricsEvent>(all.begin(), all.begin() + qsizetype(afterStop.size()))), stepsAfter);
}

void TstRunLauncher::tapas_run_cli_prints_steps_and_exits_zero_when_finished()
{
    const QString notReady = prepareRealRun();
    QVERIFY2(notReady.isEmpty(), qPrintable(notReady));
    QProcess p;
    p.start(tapasBinary(), {QStringLiteral("run"), gptPlan_, gptModel_, QStringLiteral("-np"), QStringLiteral("2"),
                            QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--checkpoint-every"),
                            QStringLiteral("0"), QStringLiteral("--runs-dir"), realDir_.filePath(QStringLiteral("cli-runs")),
                            QStringLiteral("--worker"), workerBinary()});
    QVERIFY(p.waitForFinished(170000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
    QVERIFY(out.contains(QStringLiteral("step     3  loss")));
    QVERIFY(out.contains(QStringLiteral(": finished")));

    QProcess bad;
    bad.start(tapasBinary(), {QStringLiteral("run"), gptPlan_, gptModel_, QStringLiteral("-np"), QStringLiteral("2"),
                              QStringLiteral("--hosts"), QStringLiteral("ok,bad;host"), QStringLiteral("--runs-dir"),
                              realDir_.filePath(QStringLiteral("cli-runs"))});
    QVERIFY(bad.waitForFinished(30000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains(QStringLiteral("bad;host")));
}

QTEST_MAIN(TstRunLauncher)
#include "tst_run_launcher.moc"
