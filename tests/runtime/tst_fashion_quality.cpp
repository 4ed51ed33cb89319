// Fashion-MNIST as ParaGAN's real image set, on Debian's dataset-fashion-mnist files: the reader
// gives what the data set's documentation says (10,000 test images, 1,000 per class, 28 px padded
// to 32), the project's quality classifier reaches at least 90% test accuracy, its metrics tell a
// varied set of real images from a collapsed one, and a real 2-rank GAN run reports them.
// Cases that need the package's files skip, naming them, where it is not installed.
#include "runtime/gan/fashion_mnist.h"
#include "runtime/gan/fashion_quality.h"

#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tapas::runtime::gan;

namespace {

bool haveDataSet() { return QFile::exists(QStringLiteral("%1/t10k-images-idx3-ubyte.gz").arg(QLatin1String(kFashionMnistDefaultDir))); }

#define REQUIRE_DATA_SET()                                                                                              \
    if (!haveDataSet())                                                                                                 \
        QSKIP(qPrintable(QStringLiteral("%1 is missing: install Debian's dataset-fashion-mnist (scripts/setup.sh does)") \
                             .arg(QLatin1String(kFashionMnistDefaultDir))))

// Images [from, from + n) of a split whose label is `label` (or all, for label < 0).
std::vector<float> imagesOf(const ImageSet& s, int label, int64_t& count)
{
    std::vector<float> out;
    const size_t plane = size_t(kFashionMnistSide) * kFashionMnistSide;
    count = 0;
    for (int64_t i = 0; i < s.count; ++i) {
        if (label >= 0 && s.y[size_t(i)] != label) continue;
        out.insert(out.end(), s.x.begin() + long(size_t(i) * plane), s.x.begin() + long(size_t(i + 1) * plane));
        ++count;
    }
    return out;
}

} // namespace

class TstFashionQuality : public QObject {
    Q_OBJECT

    std::unique_ptr<FashionQuality> quality_;

private Q_SLOTS:
    void test_split_is_ten_thousand_images_a_thousand_per_class()
    {
        REQUIRE_DATA_SET();
        const auto s = loadFashionMnistSplit({}, "test");
        QVERIFY2(s.ok(), s.error().c_str());
        QCOMPARE(s->count, int64_t(10000));
        std::vector<int> perClass(10, 0);
        for (int64_t y : s->y) ++perClass[size_t(y)];
        for (int c : perClass) QCOMPARE(c, 1000);
        float lo = 1, hi = -1;
        for (float v : s->x) { lo = std::min(lo, v); hi = std::max(hi, v); }
        QCOMPARE(lo, -1.f);
        QCOMPARE(hi, 1.f);
        // The 2-pixel padding is background (-1) in every image.
        const size_t plane = 32 * 32;
        for (int64_t i = 0; i < s->count; i += 997)
            for (int k = 0; k < 32; ++k) {
                QCOMPARE(s->x[size_t(i) * plane + size_t(k)], -1.f);            // top row
                QCOMPARE(s->x[size_t(i) * plane + size_t(k) * 32 + 31], -1.f); // right column
            }
    }

    void a_missing_folder_names_the_file_and_the_package()
    {
        const auto s = loadFashionMnistSplit("/nonexistent/fm", "train");
        QVERIFY(!s.ok());
        const QString err = QString::fromStdString(s.error());
        QVERIFY2(err.contains(QStringLiteral("'/nonexistent/fm/train-images-idx3-ubyte.gz' does not exist")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("dataset-fashion-mnist")), qPrintable(err));
    }

    // Loads the cached classifier or trains it (a few minutes on 2 cores, once per machine).
    void classifier_reaches_ninety_percent_test_accuracy()
    {
        REQUIRE_DATA_SET();
        QElapsedTimer t;
        t.start();
        auto q = FashionQuality::open({}, {}, [](const std::string& line) { qInfo("%s", line.c_str()); });
        QVERIFY2(q.ok(), q.error().c_str());
        quality_ = std::move(*q);
        qInfo("classifier %s in %.1f s: test accuracy %.4f, Fréchet floor %.3f", quality_->trainedNow() ? "trained" : "loaded",
              t.elapsed() / 1e3, quality_->testAccuracy(), quality_->frechetFloor());
        QVERIFY2(quality_->testAccuracy() >= 0.90, qPrintable(QString::number(quality_->testAccuracy())));
        QVERIFY(quality_->frechetFloor() >= 0);
    }

    // Real training images the floor did not use score like the floor; one class alone is
    // recognised as a collapse: 1 class (or 2 with the classifier's confusions), KL near log 10,
    // and a Fréchet distance far above the floor.
    void metrics_tell_varied_real_images_from_a_collapsed_set()
    {
        REQUIRE_DATA_SET();
        QVERIFY2(quality_, "the classifier case failed");
        const auto train = loadFashionMnistSplit({}, "train", 20000);
        QVERIFY(train.ok());
        const size_t plane = 32 * 32;
        const std::vector<float> fresh(train->x.begin() + long(10000 * plane), train->x.end());
        const ImageQuality real = quality_->measure(fresh, 10000);
        qInfo("10,000 unseen training images: %d classes, KL %.4f, Fréchet %.3f (floor %.3f)", real.classesCovered, real.classKl,
              real.frechet, quality_->frechetFloor());
        QCOMPARE(real.classesCovered, 10);
        QVERIFY(real.classKl < 0.02);
        QVERIFY(real.frechet < 2 * quality_->frechetFloor() + 0.5);

        const auto test = loadFashionMnistSplit({}, "test");
        QVERIFY(test.ok());
        int64_t n = 0;
        const std::vector<float> trousers = imagesOf(*test, 1, n);
        QCOMPARE(n, int64_t(1000));
        const ImageQuality one = quality_->measure(trousers, n);
        qInfo("1,000 trousers: %d classes, KL %.4f, Fréchet %.3f", one.classesCovered, one.classKl, one.frechet);
        QVERIFY(one.classesCovered <= 2);
        QVERIFY(one.classKl > std::log(10.0) - 0.3);
        QVERIFY(one.frechet > 10 * real.frechet);
    }

    // A real run: 2 ranks under mpirun, a few steps, the final metric event carries the figures.
    void a_two_rank_run_reports_classes_kl_and_frechet_distance()
    {
        REQUIRE_DATA_SET();
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("run"));
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(TAPAS_MPIEXEC),
                {QStringLiteral("--oversubscribe"), QStringLiteral("--mca"), QStringLiteral("mpi_yield_when_idle"), QStringLiteral("1"),
                 QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral(TAPAS_BIN_DIR "/tapas-worker"), QStringLiteral("gan"),
                 QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--data"), QStringLiteral("fashion-mnist"),
                 QStringLiteral("--width"), QStringLiteral("8"), QStringLiteral("--batch"), QStringLiteral("8"),
                 QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--run-dir"), run});
        QVERIFY(p.waitForFinished(600000));
        const QByteArray out = p.readAll();
        QVERIFY2(p.exitCode() == 0, out.constData());
        QFile f(run + QStringLiteral("/metrics.jsonl"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject metric;
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QJsonObject e = QJsonDocument::fromJson(line).object();
            if (e.value(QStringLiteral("type")).toString() == QStringLiteral("metric")) metric = e;
        }
        QVERIFY2(!metric.isEmpty(), out.constData());
        QCOMPARE(metric.value(QStringLiteral("step")).toInt(), 4);
        const QJsonObject v = metric.value(QStringLiteral("values")).toObject();
        const int classes = v.value(QStringLiteral("classes_covered")).toInt(-1);
        QVERIFY(classes >= 0 && classes <= 10);
        QVERIFY(v.value(QStringLiteral("class_kl")).toDouble(-1) >= 0);
        // Four steps of a tiny DCGAN are far from real clothes.
        QVERIFY(v.value(QStringLiteral("frechet_distance")).toDouble() > v.value(QStringLiteral("frechet_floor")).toDouble());
        QVERIFY(v.value(QStringLiteral("classifier_accuracy")).toDouble() >= 0.90);
        // The greyscale sample grid: 8 x 8 images of 32 px with 2 px gaps.
        const QImage grid(run + QStringLiteral("/samples/step_000004.png"));
        QVERIFY(!grid.isNull());
        QCOMPARE(grid.width(), 8 * (32 + 2) + 2);
    }
};

QTEST_GUILESS_MAIN(TstFashionQuality)
#include "tst_fashion_quality.moc"
