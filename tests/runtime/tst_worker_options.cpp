// The one option grammar of tapas-worker's sub-commands (runtime/worker_options.h): what each
// kind of option accepts, the sentence it refuses the rest with, and the sub-commands built on it.
#include "runtime/calibrate/calibrate_worker.h"
#include "runtime/comm/comm_check_options.h"
#include "runtime/exec/train_plan.h"
#include "runtime/gan/gan_options.h"
#include "runtime/worker_options.h"

#include <QtTest>

#include <utility>

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

// GAN options as parsed and completed by their preset, with the status of both steps (a parse
// error leaves the options at their defaults).
std::pair<Status, gan::GanOptions> checked(std::vector<std::string> args)
{
    Result<gan::GanOptions> o = gan::parseGanOptions(args);
    gan::GanOptions p = o.ok() ? *o : gan::GanOptions{};
    const Status s = o.ok() ? gan::applyPresetAndCheck(p) : Status::failure(o.error());
    return {s, p};
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
        qputenv("TAPAS_METRICS_TOKEN", "t");
        const auto o = trainPlan({"--steps", "50", "--checkpoint-every", "10", "--dim", " batch = 8", "--seed", "7",
                                  "--lr", "0.01", "--metrics-port", "4000", "--resume", "--no-rank-logs", "--profile-nodes"});
        qunsetenv("TAPAS_METRICS_TOKEN");
        QVERIFY2(o.ok(), o.error().c_str());
        QCOMPARE(o->steps, int64_t(50));
        QCOMPARE(o->checkpointEvery, int64_t(10));
        QCOMPARE(o->dims.at("batch"), int64_t(8));
        QCOMPARE(o->seed, uint64_t(7));
        QCOMPARE(o->lr, 0.01);
        QCOMPARE(o->metricsPort, 4000);
        QCOMPARE(o->metricsToken, std::string("t")); // from the environment
        QVERIFY(o->resume);
        QVERIFY(!o->rankLogs);
        QVERIFY(o->profileNodes);
        QVERIFY(!trainPlan({})->profileNodes); // off unless asked: it adds a profiled step
    }

    void train_plan_refuses_what_it_cannot_run()
    {
        QCOMPARE(QString::fromStdString(trainPlan({"--dim", "batch=8", "--dim", "batch=4"}).error()),
                 QStringLiteral("option --dim: --dim 'batch=4': 'batch' is already bound to 8"));
        QCOMPARE(QString::fromStdString(trainPlan({"--metrics-port", "70000"}).error()),
                 QStringLiteral("option --metrics-port: '70000' is not an integer in [0, 65535]"));
        QCOMPARE(QString::fromStdString(trainPlan({"--metrics-port", "4000"}).error()),
                 QStringLiteral("option --metrics-port: a metrics port needs the run's token in the environment variable "
                                "TAPAS_METRICS_TOKEN, which is not set"));
        // The token is never taken from the command line, where any local user can read it.
        QVERIFY(QString::fromStdString(trainPlan({"--metrics-token", "t"}).error())
                    .startsWith(QStringLiteral("option --metrics-token: the metrics token is not taken on the command line")));
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

    // tapas-worker gan on the shared grammar: each of these fell back to a default, wrapped or
    // trained NaN before; now each is an error naming the option and the value.
    void gan_refuses_bad_numbers_naming_option_and_value_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("lr inf") << QStringList{"--lr-d", "inf"} << "option --lr-d: 'inf' is not a number in (0, 10]";
        QTest::newRow("lr nan") << QStringList{"--lr-d", "nan"} << "option --lr-d: 'nan' is not a number in (0, 10]";
        QTest::newRow("lr negative") << QStringList{"--lr-g", "-0.001"} << "option --lr-g: '-0.001' is not a number in (0, 10]";
        QTest::newRow("lr zero") << QStringList{"--lr-g", "0"} << "option --lr-g: '0' is not a number in (0, 10]";
        QTest::newRow("batch wraps") << QStringList{"--batch", "4294967312"}
                                     << "option --batch: '4294967312' is not an integer in [1, 1048576]";
        QTest::newRow("batch 0") << QStringList{"--batch", "0"} << "option --batch: '0' is not an integer in [1, 1048576]";
        QTest::newRow("width 0") << QStringList{"--width", "0"} << "option --width: '0' is not an integer in [4, 1024]";
        QTest::newRow("z-dim 0") << QStringList{"--z-dim", "0"} << "option --z-dim: '0' is not an integer in [1, 4096]";
        QTest::newRow("d-steps 0") << QStringList{"--d-steps", "0"} << "option --d-steps: '0' is not an integer in [1, 16]";
        QTest::newRow("g-layers 0") << QStringList{"--g-layers", "0"} << "option --g-layers: '0' is not an integer in [1, 8]";
        QTest::newRow("g-layers 9") << QStringList{"--g-layers", "9"} << "option --g-layers: '9' is not an integer in [1, 8]";
        QTest::newRow("g-width 2") << QStringList{"--g-width", "2"} << "option --g-width: '2' is not an integer in [4, 1024]";
        QTest::newRow("d-norm") << QStringList{"--d-norm", "group"} << "option --d-norm: 'group' is not none, spectral, batch, layer, batch-detached or batch-real";
        QTest::newRow("loss") << QStringList{"--loss", "wgan"} << "option --loss: 'wgan' is not bce, hinge or minimax";
        QTest::newRow("steps") << QStringList{"--steps", "2.5"} << "option --steps: '2.5' is not an integer in [1, 1000000000]";
        QTest::newRow("beta 1") << QStringList{"--beta2-d", "1"} << "option --beta2-d: '1' is not a number in [0, 1)";
        QTest::newRow("ema") << QStringList{"--ema", "1e400"} << "option --ema: '1e400' is not a number in [0, 1)";
        QTest::newRow("seed") << QStringList{"--seed", "-1"} << "option --seed: '-1' is not an integer in [0, 18446744073709551615]";
        QTest::newRow("staleness") << QStringList{"--staleness", "65"} << "option --staleness: '65' is not an integer in [0, 64]";
        QTest::newRow("data") << QStringList{"--data", "ring9"} << "option --data: 'ring9' is not ring8, grid25, shapes, fashion-mnist or folder";
        QTest::newRow("switch word") << QStringList{"--async", "maybe"} << "unknown option 'maybe'";
        QTest::newRow("token") << QStringList{"--metrics-token", "t"}
                               << "option --metrics-token: the metrics token is not taken on the command line, where every "
                                  "local user can read it; set it in the environment variable TAPAS_METRICS_TOKEN";
    }

    void gan_refuses_bad_numbers_naming_option_and_value()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> a;
        for (const QString& s : args) a.push_back(s.toStdString());
        const Result<gan::GanOptions> o = gan::parseGanOptions(a);
        QVERIFY(!o.ok());
        QCOMPARE(QString::fromStdString(o.error()), error);
    }

    // Values each valid alone that do not go together, refused once the preset is known.
    void gan_refuses_options_that_do_not_fit_together_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("batch-norm mixture D") << QStringList{"--data", "ring8", "--d-norm", "batch"}
                                              << "option --d-norm: 'batch' is not none or spectral";
        QTest::newRow("detached batch norm in a mixture D") << QStringList{"--data", "ring8", "--d-norm", "batch-detached"}
                                                            << "option --d-norm: 'batch-detached' is not none or spectral";
        QTest::newRow("biggan D norm") << QStringList{"--data", "shapes", "--model", "biggan", "--d-norm", "none"}
                                       << "option --d-norm: model 'biggan' has spectral norm on every layer of D already";
        QTest::newRow("single D backward alone")
            << QStringList{"--data", "fashion-mnist", "--d-norm", "spectral", "--single-d-backward"}
            << "option --single-d-backward: it takes G's gradient from the shared D forward's backward pass; give --async "
               "--shared-d-forward as well";
        QTest::newRow("approximate single D backward alone")
            << QStringList{"--data", "fashion-mnist", "--async", "--approx-single-d-backward"}
            << "option --approx-single-d-backward: it takes G's gradient from the shared D forward's backward pass; give --async "
               "--shared-d-forward as well";
        QTest::newRow("approximate single D backward where the exact one applies")
            << QStringList{"--data", "fashion-mnist", "--d-norm", "layer", "--async", "--shared-d-forward", "--approx-single-d-backward"}
            << "option --approx-single-d-backward: it approximates G's gradient through DCGAN's batch-norm D; this D mixes no "
               "samples in its backward, so give --single-d-backward, which is exact";
        QTest::newRow("single D backward through batch norm")
            << QStringList{"--data", "fashion-mnist", "--async", "--shared-d-forward", "--single-d-backward"}
            << "option --single-d-backward: D's batch norm couples the samples of a batch, so G's gradient is not a "
               "per-sample rescale of D's for loss 'bce'; give --loss minimax (G's loss minus D's fake half, exact with "
               "batch norm) or --d-norm batch-real, batch-detached, spectral, layer or none";
        QTest::newRow("single D backward through batch norm, hinge")
            << QStringList{"--data", "fashion-mnist", "--loss", "hinge", "--async", "--shared-d-forward", "--single-d-backward"}
            << "option --single-d-backward: D's batch norm couples the samples of a batch, so G's gradient is not a "
               "per-sample rescale of D's for loss 'hinge'; give --loss minimax (G's loss minus D's fake half, exact with "
               "batch norm) or --d-norm batch-real, batch-detached, spectral, layer or none";
        QTest::newRow("minimax single D backward alone")
            << QStringList{"--data", "fashion-mnist", "--loss", "minimax", "--single-d-backward"}
            << "option --single-d-backward: it takes G's gradient from the shared D forward's backward pass; give --async "
               "--shared-d-forward as well";
        QTest::newRow("approximate single D backward where minimax makes it exact")
            << QStringList{"--data", "fashion-mnist", "--loss", "minimax", "--async", "--shared-d-forward", "--approx-single-d-backward"}
            << "option --approx-single-d-backward: it approximates G's gradient through DCGAN's batch-norm D; with --loss "
               "minimax G's loss is minus D's fake half, so give --single-d-backward, which is exact";

    }

    void gan_refuses_options_that_do_not_fit_together()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> a;
        for (const QString& s : args) a.push_back(s.toStdString());
        const Status s = checked(a).first;
        QVERIFY(!s.ok());
        QCOMPARE(QString::fromStdString(s.error), error);
    }

    void gan_takes_good_values_switch_words_and_resolves_data_dir()
    {
        const Result<gan::GanOptions> o = gan::parseGanOptions(
            {"--async", "1", "--self-attention", "--resume", "off", "--batch", "16", "--lr-d", "0.0004", "--beta1-g", "0",
             "--seed", "18446744073709551615", "--static-pipeline", "--data-dir", "pics/../images"});
        QVERIFY2(o.ok(), o.error().c_str());
        QVERIFY(o->async);
        QVERIFY(o->selfAttention);
        QVERIFY(!o->resume);
        QVERIFY(!o->adaptivePipeline);
        QCOMPARE(o->localBatch, 16);
        QCOMPARE(o->d.lr, 0.0004);
        QCOMPARE(o->g.beta1, 0.0);
        QCOMPARE(o->seed, 18446744073709551615ull);
        // Relative to where the command was given, not to the run directory the ranks run in.
        QCOMPARE(QString::fromStdString(o->dataDir), QDir::current().absoluteFilePath(QStringLiteral("images")));
        QCOMPARE(o->data, std::string("folder"));
        // Unset values still come from the preset.
        gan::GanOptions p = *o;
        QVERIFY(gan::applyPresetAndCheck(p).ok());
        QCOMPARE(p.g.lr, 2e-4);
        QCOMPARE(p.zDim, 64);
    }

    // The ring keeps PacGAN's packs of 2 and the strong R1; the grid's preset judges single points
    // with a weaker R1 (packed or with γ = 5 D never told its 25 modes from a uniform cloud:
    // docs/paragan.md, "Search for precision"). Options given still win over either.
    void mixture_presets_pack_the_ring_and_not_the_grid()
    {
        auto preset = [](std::vector<std::string> args) {
            Result<gan::GanOptions> o = gan::parseGanOptions(args);
            gan::GanOptions p = o.ok() ? *o : gan::GanOptions{};
            const bool ok = o.ok() && gan::applyPresetAndCheck(p).ok();
            return std::make_pair(ok, p);
        };
        const auto [ringOk, ring] = preset({"--data", "ring8"});
        QVERIFY(ringOk);
        QCOMPARE(ring.pack, 2);
        QCOMPARE(ring.r1Gamma, 5.0);
        const auto [gridOk, grid] = preset({"--data", "grid25"});
        QVERIFY(gridOk);
        QCOMPARE(grid.pack, 1);
        QCOMPARE(grid.r1Gamma, 1.0);
        QCOMPARE(grid.globalBatch, ring.globalBatch);
        const auto [givenOk, given] = preset({"--data", "grid25", "--pack", "4", "--r1-gamma", "5"});
        QVERIFY(givenOk);
        QCOMPARE(given.pack, 4);
        QCOMPARE(given.r1Gamma, 5.0);
    }

    // The mixtures' precision comes from an average of G over the second half of their 24,000
    // steps (docs/paragan.md, "Presets"); the image presets but BigGAN's keep none. --ema 0 turns
    // it off, and an --ema-start with no EMA to start is refused by name instead of ignored.
    void mixture_presets_average_g_over_the_second_half_of_their_budget()
    {
        const auto [ringOk, ring] = checked({"--data", "ring8"});
        QVERIFY2(ringOk.ok(), ringOk.error.c_str());
        QCOMPARE(ring.ema, 0.999);
        QCOMPARE(ring.emaStart, 0.5);
        QCOMPARE(ring.steps, 24000);
        const auto [gridOk, grid] = checked({"--data", "grid25"});
        QVERIFY(gridOk.ok());
        QCOMPARE(grid.ema, 0.999);
        QCOMPARE(grid.emaStart, 0.5);
        QCOMPARE(grid.steps, 24000);
        const auto [offOk, off] = checked({"--data", "ring8", "--ema", "0"});
        QVERIFY(offOk.ok());
        QCOMPARE(off.ema, 0.0);
        const auto [laterOk, later] = checked({"--data", "ring8", "--ema-start", "0.75"});
        QVERIFY(laterOk.ok());
        QCOMPARE(later.ema, 0.999);
        QCOMPARE(later.emaStart, 0.75);
        const auto [noneOk, none] = checked({"--data", "ring8", "--ema", "0", "--ema-start", "0.5"});
        QVERIFY(!noneOk.ok());
        QVERIFY2(noneOk.error.rfind("option --ema-start: the EMA is off", 0) == 0, noneOk.error.c_str());
        const auto [imagesNoneOk, imagesNone] = checked({"--data", "shapes", "--ema-start", "0.5"});
        QVERIFY(!imagesNoneOk.ok());
        QVERIFY2(imagesNoneOk.error.find("preset 'shapes-dcgan' without one") != std::string::npos, imagesNoneOk.error.c_str());
    }

    // The mixtures' network shape: G's depth and width and D's norm come from the preset unless
    // given; G's width follows --width when only that is given. They shape the MLP only, so an
    // image model refuses them by name instead of ignoring them.
    void mixture_network_shape_options_fill_from_the_preset_and_fit_the_mlp_only()
    {
        const auto [ringOk, ring] = checked({"--data", "ring8"});
        QVERIFY2(ringOk.ok(), ringOk.error.c_str());
        QCOMPARE(ring.gWidth, ring.width);
        QVERIFY(ring.gLayers >= 1);
        QVERIFY(ring.dNorm == "none" || ring.dNorm == "spectral");
        const auto [widthOk, width] = checked({"--data", "grid25", "--width", "64"});
        QVERIFY(widthOk.ok());
        QCOMPARE(width.gWidth, 64);
        const auto [givenOk, given] = checked({"--data", "ring8", "--g-layers", "5", "--g-width", "256", "--d-norm", "spectral"});
        QVERIFY(givenOk.ok());
        QCOMPARE(given.gLayers, 5);
        QCOMPARE(given.gWidth, 256);
        QCOMPARE(given.dNorm, std::string("spectral"));
        // DCGAN's D: batch norm as Radford et al. built it unless --d-norm says spectral or none;
        // without batch norm the shared D forward may take G's gradient from D's one backward pass.
        const auto [imageOk, image] = checked({"--data", "fashion-mnist"});
        QVERIFY(imageOk.ok());
        QCOMPARE(image.dNorm, std::string("batch"));
        const auto [snOk, sn] = checked({"--data", "fashion-mnist", "--d-norm", "spectral", "--async", "--shared-d-forward",
                                         "--single-d-backward"});
        QVERIFY2(snOk.ok(), snOk.error.c_str());
        QCOMPARE(sn.dNorm, std::string("spectral"));
        QVERIFY(sn.singleDBackward);
        QVERIFY(checked({"--data", "ring8", "--async", "--shared-d-forward", "--single-d-backward"}).first.ok()); // MLP D: no batch norm
        const auto [approxOk, approx] = checked({"--data", "fashion-mnist", "--async", "--shared-d-forward", "--approx-single-d-backward"});
        QVERIFY2(approxOk.ok(), approxOk.error.c_str());
        QVERIFY(approx.approxSingleDBackward && !approx.singleDBackward);
        // Batch norm whose statistics are constants of the backward: per-sample backward, so allowed.
        const auto [bdOk, bd] = checked({"--data", "fashion-mnist", "--d-norm", "batch-detached", "--async", "--shared-d-forward",
                                         "--single-d-backward"});
        QVERIFY2(bdOk.ok(), bdOk.error.c_str());
        QCOMPARE(bd.dNorm, std::string("batch-detached"));
        // The minimax loss: G's loss is minus D's fake half, so the preset's batch-norm D may take
        // the single backward (exact, factor -1); packs of the mixtures' MLP D too.
        const auto [mmOk, mm] = checked({"--data", "fashion-mnist", "--loss", "minimax", "--async", "--shared-d-forward",
                                         "--single-d-backward"});
        QVERIFY2(mmOk.ok(), mmOk.error.c_str());
        QCOMPARE(mm.dNorm, std::string("batch"));
        QCOMPARE(mm.loss, std::string("minimax"));
        QVERIFY(mm.singleDBackward);
        QVERIFY(checked({"--data", "ring8", "--loss", "minimax", "--pack", "2", "--async", "--shared-d-forward",
                         "--single-d-backward"}).first.ok());
        const auto [depthStatus, depth] = checked({"--data", "shapes", "--g-layers", "4"});
        QVERIFY(!depthStatus.ok());
        QCOMPARE(QString::fromStdString(depthStatus.error),
                 QStringLiteral("options --g-layers/--g-width: they shape the MLP of the 2-D mixtures, not model 'dcgan'"));
    }
};

QTEST_GUILESS_MAIN(TstWorkerOptions)
#include "tst_worker_options.moc"
