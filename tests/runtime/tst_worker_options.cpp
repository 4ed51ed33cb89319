// The one option grammar of tapas-worker's sub-commands (runtime/worker_options.h): what each
// kind of option accepts, the sentence it refuses the rest with, and the sub-commands built on it.
#include "runtime/calibrate/calibrate_worker.h"
#include "runtime/comm/comm_check_options.h"
#include "runtime/exec/train_plan.h"
#include "runtime/worker_options.h"

#include <QtTest>

using namespace tapas;
using namespace tapas::runtime;

namespace {

// argv for the parsers that take (argc, argv, first): {"tapas-worker", command, args...}.
struct Argv {
    std::vector<std::string> text;
    std::vector<char*> ptrs;
    Argv(std::string command, std::vector<std::string> args)
    {
        text = {"tapas-worker", std::move(command)};
        text.insert(text.end(), args.begin(), args.end());
        for (std::string& s : text) ptrs.push_back(s.data());
    }
    int argc() const { return int(ptrs.size()); }
    char** argv() { return ptrs.data(); }
};

std::vector<std::string> trainPlanBase() { return {"--model", "m.onnx", "--plan", "p.json", "--run-dir", "r"}; }

Result<TrainPlanOptions> trainPlan(std::vector<std::string> extra)
{
    std::vector<std::string> args = trainPlanBase();
    args.insert(args.end(), extra.begin(), extra.end());
    Argv a("train-plan", args);
    return parseTrainPlanArgs(a.argc(), a.argv(), 2);
}

} // namespace

class TstWorkerOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void every_kind_of_option_is_stored()
    {
        bool on = false, off = true;
        std::string name, backend;
        int64_t steps = 0;
        uint64_t seed = 0;
        double lr = 0;
        std::vector<std::string> custom;
        WorkerOptions o;
        o.flag("--on", &on).flag("--no-x", &off, false).text("--name", &name)
            .choice("--backend", &backend, {"mpi", "nccl"})
            .integer<int64_t>("--steps", &steps, 0, 100).integer<uint64_t>("--seed", &seed)
            .number("--lr", &lr, 0, 1)
            .custom("--item", [&](const std::string& v) { custom.push_back(v); return Status::success(); });
        const Status s = o.parse({"--on", "--no-x", "--name", "n", "--backend", "nccl", "--steps", "+7", "--seed",
                                  "18446744073709551615", "--lr", "0.5", "--item", "a", "--item", "b"});
        QVERIFY2(s.ok(), s.error.c_str());
        QVERIFY(on);
        QVERIFY(!off);
        QCOMPARE(name, std::string("n"));
        QCOMPARE(backend, std::string("nccl"));
        QCOMPARE(steps, int64_t(7));
        QCOMPARE(seed, UINT64_MAX);
        QCOMPARE(lr, 0.5);
        QCOMPARE(custom, (std::vector<std::string>{"a", "b"}));
        QVERIFY(o.isSet("--steps"));
        QVERIFY(!o.helpRequested());
    }

    void bad_values_are_refused_naming_option_and_value_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown") << QStringList{"--frobnicate"} << "unknown option '--frobnicate'";
        QTest::newRow("missing value") << QStringList{"--steps"} << "option --steps needs a value";
        QTest::newRow("below range") << QStringList{"--steps", "-3"} << "option --steps: '-3' is not an integer in [0, 100]";
        QTest::newRow("above range") << QStringList{"--steps", "101"} << "option --steps: '101' is not an integer in [0, 100]";
        QTest::newRow("not whole") << QStringList{"--steps", "2.5"} << "option --steps: '2.5' is not an integer in [0, 100]";
        QTest::newRow("empty") << QStringList{"--steps", ""} << "option --steps: '' is not an integer in [0, 100]";
        QTest::newRow("unsigned negative") << QStringList{"--seed", "-1"}
                                           << "option --seed: '-1' is not an integer in [0, 18446744073709551615]";
        QTest::newRow("overflow") << QStringList{"--seed", "18446744073709551616"}
                                  << "option --seed: '18446744073709551616' is not an integer in [0, 18446744073709551615]";
        QTest::newRow("number") << QStringList{"--lr", "fast"} << "option --lr: 'fast' is not a number in [0, 1]";
        QTest::newRow("nan") << QStringList{"--lr", "nan"} << "option --lr: 'nan' is not a number in [0, 1]";
        QTest::newRow("choice") << QStringList{"--backend", "gloo"} << "option --backend: 'gloo' is not mpi or nccl";
        QTest::newRow("custom") << QStringList{"--item", "x"} << "option --item: no x";
    }

    void bad_values_are_refused_naming_option_and_value()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        int64_t steps = 0;
        uint64_t seed = 0;
        double lr = 0;
        std::string backend;
        WorkerOptions o;
        o.integer<int64_t>("--steps", &steps, 0, 100).integer<uint64_t>("--seed", &seed).number("--lr", &lr, 0, 1)
            .choice("--backend", &backend, {"mpi", "nccl"})
            .custom("--item", [](const std::string& v) { return Status::failure("no " + v); });
        std::vector<std::string> a;
        for (const QString& s : args) a.push_back(s.toStdString());
        const Status s = o.parse(a);
        QVERIFY(!s.ok());
        QCOMPARE(QString::fromStdString(s.error), error);
    }

    void help_anywhere_wins_over_errors()
    {
        WorkerOptions o;
        QVERIFY(o.parse({"--bogus", "-h"}).ok());
        QVERIFY(o.helpRequested());
        Argv a("calibrate", {"--threads", "x", "--help"});
        QVERIFY(wantsHelp(a.argc(), a.argv(), 2));
    }

    void train_plan_takes_its_options_and_the_shared_dim_grammar()
    {
        const auto o = trainPlan({"--steps", "50", "--checkpoint-every", "10", "--dim", " batch = 8", "--seed", "7",
                                  "--lr", "0.01", "--metrics-port", "4000", "--metrics-token", "t", "--resume",
                                  "--no-rank-logs"});
        QVERIFY2(o.ok(), o.error().c_str());
        QCOMPARE(o->steps, int64_t(50));
        QCOMPARE(o->checkpointEvery, int64_t(10));
        QCOMPARE(o->dims.at("batch"), int64_t(8));
        QCOMPARE(o->seed, uint64_t(7));
        QCOMPARE(o->lr, 0.01);
        QCOMPARE(o->metricsPort, 4000);
        QVERIFY(o->resume);
        QVERIFY(!o->rankLogs);
    }

    void train_plan_refuses_what_it_cannot_run()
    {
        QCOMPARE(QString::fromStdString(trainPlan({"--dim", "batch=8", "--dim", "batch=4"}).error()),
                 QStringLiteral("option --dim: --dim 'batch=4': 'batch' is already bound to 8"));
        QCOMPARE(QString::fromStdString(trainPlan({"--metrics-port", "70000"}).error()),
                 QStringLiteral("option --metrics-port: '70000' is not an integer in [0, 65535]"));
        QCOMPARE(QString::fromStdString(trainPlan({"--metrics-port", "4000"}).error()),
                 QStringLiteral("--metrics-port needs --metrics-token"));
        Argv noModel("train-plan", {"--plan", "p.json"});
        QCOMPARE(QString::fromStdString(parseTrainPlanArgs(noModel.argc(), noModel.argv(), 2).error()),
                 QStringLiteral("--model, --plan and --run-dir are required"));
    }

    void comm_check_and_calibrate_use_the_same_grammar()
    {
        CommCheckOptions c;
        Argv good("comm-check", {"--backend", "mpi", "--count", "7", "--iters", "3"});
        QVERIFY(!parseCommCheckArgs(good.argc(), good.argv(), &c));
        QCOMPARE(c.count, size_t(7));
        QCOMPARE(c.iters, 3);
        Argv zero("comm-check", {"--iters", "0"});
        const auto e = parseCommCheckArgs(zero.argc(), zero.argv(), &c);
        QVERIFY(e);
        QCOMPARE(QString::fromStdString(*e), QStringLiteral("option --iters: '0' is not an integer in [1, 100000]"));

        Argv cal("calibrate", {"--gemm", "64x64x64,128x8x8", "--threads", "2", "--name", "mine"});
        const auto o = parseCalibrateArgs(cal.argc(), cal.argv(), 2);
        QVERIFY2(o.ok(), o.error().c_str());
        QCOMPARE(o->gemms.size(), size_t(2));
        QCOMPARE(o->threads, 2);
        Argv badGemm("calibrate", {"--gemm", "64x64"});
        QCOMPARE(QString::fromStdString(parseCalibrateArgs(badGemm.argc(), badGemm.argv(), 2).error()),
                 QStringLiteral("option --gemm: '64x64' is not MxKxN with sizes 1..65536"));
        Argv noName("calibrate", {"--name", ""});
        QCOMPARE(QString::fromStdString(parseCalibrateArgs(noName.argc(), noName.argv(), 2).error()),
                 QStringLiteral("option --name: must not be empty"));
    }
};

QTEST_GUILESS_MAIN(TstWorkerOptions)
#include "tst_worker_options.moc"
