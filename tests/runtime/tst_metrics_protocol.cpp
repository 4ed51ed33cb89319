// The metrics protocol and run directories (docs/metrics-protocol.md): what the worker writes,
// the launcher and the Runs dock must read back exactly, and damage must stay local to a line.
#include "runtime/metrics/metrics_sink.h"
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace tapas::protocol;

class TstMetricsProtocol : public QObject {
    Q_OBJECT
private slots:
    void every_event_type_round_trips();
    void nan_loss_survives_as_null();
    void newer_version_and_garbage_are_refused_with_origin();
    void half_written_line_waits_for_the_next_read();
    void bad_line_becomes_a_warning_not_a_lost_file();
    void run_spec_round_trips_and_bad_kind_is_named();
    void runs_are_listed_newest_first_with_their_last_state();
    void sink_writes_file_and_socket_after_hello_with_token();
    void sink_without_listener_keeps_writing_the_file();
};

void TstMetricsProtocol::every_event_type_round_trips()
{
    MetricsEvent step = MetricsEvent::stepEvent(7, {{"loss", 1.25}, {"step_time", 0.5}});
    step.time = 1000.5;
    MetricsEvent stats;
    stats.type = EventType::RankStats;
    stats.step = 7;
    stats.ranks = {{0, "a", {{"step_time", 0.4}}}, {1, "b", {{"step_time", 0.6}}}};
    MetricsEvent status = MetricsEvent::statusEvent("failed", "rank 1 died", 1);
    status.fields["last_log"] = "boom";
    const std::vector<MetricsEvent> events{step, MetricsEvent::metricEvent(8, {{"modes_covered", 7}}), stats,
                                           MetricsEvent::sampleEvent(9, "samples/step_000009.png"),
                                           MetricsEvent::logEvent("warn", 2, "slow \"quoted\" line"), status};
    for (const MetricsEvent& e : events) {
        const std::string line = toJsonLine(e);
        QVERIFY2(line.find('\n') == std::string::npos, line.c_str());
        auto back = parseJsonLine(line);
        QVERIFY2(back.ok(), back.error().c_str());
        QCOMPARE(int(back->type), int(e.type));
        QCOMPARE(back->step, e.step);
        QCOMPARE(back->values, e.values);
        QCOMPARE(back->text, e.text);
        QCOMPARE(back->state, e.state);
        QCOMPARE(back->rank, e.rank);
        QCOMPARE(back->fields, e.fields);
        QCOMPARE(back->ranks.size(), e.ranks.size());
        for (size_t i = 0; i < e.ranks.size(); ++i) {
            QCOMPARE(back->ranks[i].host, e.ranks[i].host);
            QCOMPARE(back->ranks[i].values, e.ranks[i].values);
        }
        QVERIFY(back->time > 0);
    }
    QCOMPARE(parseJsonLine(toJsonLine(step))->time, 1000.5);
}

void TstMetricsProtocol::nan_loss_survives_as_null()
{
    const std::string line = toJsonLine(MetricsEvent::stepEvent(1, {{"loss", std::nan("")}}));
    QVERIFY(line.find("null") != std::string::npos);
    auto back = parseJsonLine(line);
    QVERIFY(back.ok());
    QVERIFY(std::isnan(back->values.at("loss")));
}

void TstMetricsProtocol::newer_version_and_garbage_are_refused_with_origin()
{
    auto newer = parseJsonLine(R"({"v":99,"type":"step","step":1})", "m.jsonl:3");
    QVERIFY(!newer.ok());
    QVERIFY2(newer.error().find("m.jsonl:3") != std::string::npos, newer.error().c_str());
    QVERIFY2(newer.error().find("99") != std::string::npos, newer.error().c_str());
    QVERIFY(!parseJsonLine("{not json", "x").ok());
    QVERIFY(!parseJsonLine(R"({"v":1,"type":"bogus"})", "x").ok());
    auto badValue = parseJsonLine(R"({"v":1,"type":"step","step":1,"values":{"loss":"high"}})", "x");
    QVERIFY(!badValue.ok());
    QVERIFY2(badValue.error().find("loss") != std::string::npos, badValue.error().c_str());
    QVERIFY(!parseJsonLine(R"({"v":1,"type":"status"})", "x").ok());
}

void TstMetricsProtocol::half_written_line_waits_for_the_next_read()
{
    QTemporaryDir dir;
    const std::string runDir = dir.path().toStdString();
    const std::string full = toJsonLine(MetricsEvent::stepEvent(1, {{"loss", 2}}));
    const std::string second = toJsonLine(MetricsEvent::stepEvent(2, {{"loss", 1}}));
    {
        std::ofstream out(metricsPath(runDir));
        out << full << '\n' << second.substr(0, 10);
    }
    auto first = readMetrics(runDir);
    QVERIFY(first.ok());
    QCOMPARE(first->events.size(), size_t(1));
    QCOMPARE(first->nextOffset, uint64_t(full.size() + 1));
    {
        std::ofstream out(metricsPath(runDir), std::ios::app);
        out << second.substr(10) << '\n';
    }
    auto rest = readMetrics(runDir, first->nextOffset);
    QVERIFY(rest.ok());
    QCOMPARE(rest->events.size(), size_t(1));
    QCOMPARE(rest->events[0].step, int64_t(2));
}

void TstMetricsProtocol::bad_line_becomes_a_warning_not_a_lost_file()
{
    QTemporaryDir dir;
    const std::string runDir = dir.path().toStdString();
    {
        std::ofstream out(metricsPath(runDir));
        out << toJsonLine(MetricsEvent::stepEvent(1, {{"loss", 2}})) << "\n"
            << "garbage\n"
            << toJsonLine(MetricsEvent::stepEvent(2, {{"loss", 1}})) << "\n";
    }
    auto chunk = readMetrics(runDir);
    QVERIFY(chunk.ok());
    QCOMPARE(chunk->events.size(), size_t(3));
    QCOMPARE(int(chunk->events[1].type), int(EventType::Log));
    QVERIFY2(chunk->events[1].text.find("metrics.jsonl at byte") != std::string::npos, chunk->events[1].text.c_str());
    QCOMPARE(chunk->events[2].step, int64_t(2));
}

void TstMetricsProtocol::run_spec_round_trips_and_bad_kind_is_named()
{
    RunSpec s;
    s.id = newRunId("gan");
    s.kind = "gan";
    s.ranks = 4;
    s.hosts = {"node01", "node02"};
    s.options = {{"data", "ring8"}, {"async", "1"}};
    auto back = parseRunSpec(runSpecToJson(s), "spec.json");
    QVERIFY2(back.ok(), back.error().c_str());
    QCOMPARE(back->id, s.id);
    QCOMPARE(back->ranks, 4);
    QCOMPARE(back->hosts, s.hosts);
    QCOMPARE(back->options, s.options);
    QVERIFY(s.id.find("-gan-") != std::string::npos);
    auto bad = parseRunSpec(R"({"id":"x","kind":"rm -rf"})", "spec.json");
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().find("'kind'") != std::string::npos, bad.error().c_str());
    QVERIFY(!parseRunSpec(R"({"kind":"gan"})", "spec.json").ok());
}

void TstMetricsProtocol::runs_are_listed_newest_first_with_their_last_state()
{
    QTemporaryDir root;
    auto make = [&](const std::string& id, const std::string& state, int lastStep) {
        RunSpec s;
        s.id = id;
        s.kind = "train-plan";
        const std::string dir = root.path().toStdString() + "/" + id;
        QVERIFY(writeRunSpec(dir, s).ok());
        tapas::runtime::MetricsSink sink(dir, id);
        for (int i = 0; i <= lastStep; ++i)
            sink.record(MetricsEvent::stepEvent(i, {{"loss", 1.0 / (i + 1)}}));
        sink.record(MetricsEvent::statusEvent(state, "why"));
    };
    make("20261201-100000-train-plan-aaaa", "finished", 4);
    make("20261202-100000-train-plan-bbbb", "failed", 2);
    QDir(root.path()).mkdir("not-a-run");
    auto runs = listRuns(root.path().toStdString());
    QCOMPARE(runs.size(), size_t(2));
    QCOMPARE(runs[0].spec.id, std::string("20261202-100000-train-plan-bbbb"));
    QCOMPARE(runs[0].state, std::string("failed"));
    QCOMPARE(runs[0].lastStep, int64_t(2));
    QCOMPARE(runs[1].state, std::string("finished"));
    QVERIFY(QFileInfo(QString::fromStdString(runs[1].dir + "/logs")).isDir());
}

void TstMetricsProtocol::sink_writes_file_and_socket_after_hello_with_token()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    QTemporaryDir dir;
    {
        tapas::runtime::MetricsSink sink(dir.path().toStdString(), "run-1", server.serverPort(), "s3cret");
        QVERIFY(server.waitForNewConnection(5000));
        sink.record(MetricsEvent::stepEvent(3, {{"loss", 0.5}}));
        QVERIFY(sink.socketConnected());
    }
    QTcpSocket* peer = server.nextPendingConnection();
    QVERIFY(peer);
    QByteArray data;
    while (data.count('\n') < 2 && peer->waitForReadyRead(5000))
        data += peer->readAll();
    data += peer->readAll();
    const QList<QByteArray> lines = data.split('\n');
    QVERIFY(lines.size() >= 2);
    std::string run, token;
    QVERIFY(parseHelloLine(lines[0].toStdString(), run, token));
    QCOMPARE(token, std::string("s3cret"));
    QCOMPARE(run, std::string("run-1"));
    auto e = parseJsonLine(lines[1].toStdString());
    QVERIFY(e.ok());
    QCOMPARE(e->values.at("loss"), 0.5);
    auto file = readMetrics(dir.path().toStdString());
    QVERIFY(file.ok());
    QCOMPARE(file->events.size(), size_t(1));
}

void TstMetricsProtocol::sink_without_listener_keeps_writing_the_file()
{
    QTcpServer probe; // find a port nobody listens on
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();
    QTemporaryDir dir;
    {
        tapas::runtime::MetricsSink sink(dir.path().toStdString(), "run-2", port, "t");
        QVERIFY(!sink.socketConnected());
        QVERIFY(sink.ok());
        sink.record(MetricsEvent::stepEvent(1, {{"loss", 1}}));
    }
    auto file = readMetrics(dir.path().toStdString());
    QVERIFY(file.ok());
    QCOMPARE(file->events.size(), size_t(2)); // the warning and the step
    QCOMPARE(file->events[0].level, std::string("warn"));
    QVERIFY(file->events[0].text.find("unreachable") != std::string::npos);
}

QTEST_GUILESS_MAIN(TstMetricsProtocol)
#include "tst_metrics_protocol.moc"
