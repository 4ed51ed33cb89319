// The quality measurements ParaGAN's figures rest on, checked on inputs whose answer a person can
// work out by hand: PacGAN's mixture metrics (modes, high-quality share, reverse KL) and the
// Fashion-MNIST IDX reader's handling of good and damaged files.
#include "runtime/gan/gan_data.h"
#include "runtime/gan/idx_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <cmath>

using namespace tapas::runtime::gan;

namespace {

// n points at each listed mode, offset by (dx, dy).
std::vector<float> pointsAt(const std::vector<Point2>& modes, const std::vector<int>& which, int n, double dx = 0, double dy = 0)
{
    std::vector<float> xy;
    for (int m : which)
        for (int i = 0; i < n; ++i) {
            xy.push_back(float(modes[size_t(m)].x + dx));
            xy.push_back(float(modes[size_t(m)].y + dy));
        }
    return xy;
}

// Writes an IDX file, gzip-compressed, with the given header bytes and payload.
void writeGz(const QString& path, const std::vector<unsigned char>& bytes)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "wb");
    QVERIFY(f);
    QCOMPARE(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
    gzclose(f);
}

std::vector<unsigned char> idxHeader(unsigned char type, std::vector<uint32_t> dims)
{
    std::vector<unsigned char> h{0, 0, type, (unsigned char)dims.size()};
    for (uint32_t d : dims)
        for (int s = 24; s >= 0; s -= 8) h.push_back((unsigned char)(d >> s));
    return h;
}

} // namespace

class TstGanMetrics : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // PacGAN's Table 1 setup: ring of 8 at radius 1 (sigma 0.01), 5 x 5 grid at {-4,-2,0,2,4}^2 (sigma 0.05).
    void mixtures_are_pacgans()
    {
        const auto ring = mixtureModes("ring8");
        QCOMPARE(ring.size(), size_t(8));
        for (const Point2& p : ring) QVERIFY(std::abs(std::hypot(p.x, p.y) - 1.0) < 1e-12);
        const auto grid = mixtureModes("grid25");
        QCOMPARE(grid.size(), size_t(25));
        double lo = 1e9, hi = -1e9;
        for (const Point2& p : grid) { lo = std::min({lo, p.x, p.y}); hi = std::max({hi, p.x, p.y}); }
        QCOMPARE(lo, -4.0);
        QCOMPARE(hi, 4.0);
        QCOMPARE(mixtureStdOf("ring8"), 0.01);
        QCOMPARE(mixtureStdOf("grid25"), 0.05);
    }

    void samples_on_every_mode_score_perfectly()
    {
        const auto modes = mixtureModes("ring8");
        const MixtureQuality q = evaluateMixture(pointsAt(modes, {0, 1, 2, 3, 4, 5, 6, 7}, 10), modes, 0.01);
        QCOMPARE(q.modesCovered, 8);
        QCOMPARE(q.highQualityShare, 1.0);
        QVERIFY(std::abs(q.reverseKl) < 1e-12);
    }

    // Mode collapse: everything on one mode is high quality but covers 1 mode, KL = log 8.
    void a_collapsed_generator_covers_one_mode_at_kl_log8()
    {
        const auto modes = mixtureModes("ring8");
        const MixtureQuality q = evaluateMixture(pointsAt(modes, {3}, 100), modes, 0.01);
        QCOMPARE(q.modesCovered, 1);
        QCOMPARE(q.highQualityShare, 1.0);
        QVERIFY(std::abs(q.reverseKl - std::log(8.0)) < 1e-12);
        // Two modes evenly: log(8 / 2).
        const MixtureQuality two = evaluateMixture(pointsAt(modes, {0, 4}, 50), modes, 0.01);
        QCOMPARE(two.modesCovered, 2);
        QVERIFY(std::abs(two.reverseKl - std::log(4.0)) < 1e-12);
    }

    // One high-quality sample is enough to cover a mode; 3 sigma is the boundary of high quality.
    void one_sample_within_three_sigma_covers_a_mode()
    {
        const auto modes = mixtureModes("grid25");
        std::vector<float> xy = pointsAt(modes, {0}, 99);
        const std::vector<float> near = pointsAt(modes, {12}, 1, 0.149, 0); // 2.98 sigma of 0.05
        xy.insert(xy.end(), near.begin(), near.end());
        const std::vector<float> far = pointsAt(modes, {24}, 100, 0.151, 0); // 3.02 sigma: low quality
        xy.insert(xy.end(), far.begin(), far.end());
        const MixtureQuality q = evaluateMixture(xy, modes, 0.05);
        QCOMPARE(q.modesCovered, 2);
        QCOMPARE(q.perMode[12], 1);
        QCOMPARE(q.perMode[24], 0);
        QVERIFY(std::abs(q.highQualityShare - 0.5) < 1e-12);
        // The histogram is over the 100 high-quality samples: 99 on one mode, 1 on another.
        const double kl = 0.99 * std::log(0.99 * 25) + 0.01 * std::log(0.01 * 25);
        QVERIFY(std::abs(q.reverseKl - kl) < 1e-9);
    }

    void no_high_quality_sample_is_the_worst_case_not_a_perfect_zero()
    {
        const auto modes = mixtureModes("ring8");
        const MixtureQuality q = evaluateMixture(std::vector<float>(200, 0.f), modes, 0.01); // all at the centre
        QCOMPARE(q.modesCovered, 0);
        QCOMPARE(q.highQualityShare, 0.0);
        QVERIFY(std::abs(q.reverseKl - std::log(8.0)) < 1e-12);
    }

    void idx_file_reads_and_limits_entries()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("x-idx3-ubyte.gz"));
        std::vector<unsigned char> b = idxHeader(0x08, {3, 2, 2});
        for (int i = 0; i < 12; ++i) b.push_back((unsigned char)(i * 20));
        writeGz(path, b);
        const auto all = readIdxFile(path.toStdString());
        QVERIFY2(all.ok(), all.error().c_str());
        QCOMPARE(all->dims, (std::vector<int64_t>{3, 2, 2}));
        QCOMPARE(all->values.size(), size_t(12));
        QCOMPARE(int(all->values[11]), 220);
        const auto two = readIdxFile(path.toStdString(), 2);
        QVERIFY(two.ok());
        QCOMPARE(two->dims[0], int64_t(2));
        QCOMPARE(two->values.size(), size_t(8));
    }

    void damaged_idx_files_name_the_file_and_the_fault_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        auto raw = [](std::vector<unsigned char> v) { return QByteArray(reinterpret_cast<const char*>(v.data()), int(v.size())); };
        std::vector<unsigned char> truncated = idxHeader(0x08, {10, 28, 28});
        truncated.resize(truncated.size() + 100);
        QTest::newRow("truncated") << raw(truncated) << QStringLiteral("truncated (the header announces 7840 values");
        QTest::newRow("not idx") << raw({'P', 'K', 3, 4, 0, 0}) << QStringLiteral("does not start with two zero bytes");
        QTest::newRow("float type") << raw(idxHeader(0x0D, {1})) << QStringLiteral("element type code 13 is not unsigned bytes");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("no header");
        QTest::newRow("zero dimension") << raw(idxHeader(0x08, {0, 28})) << QStringLiteral("dimension 0 has size 0");
    }
    void damaged_idx_files_name_the_file_and_the_fault()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("bad-idx.gz"));
        writeGz(path, std::vector<unsigned char>(bytes.begin(), bytes.end()));
        const auto r = readIdxFile(path.toStdString());
        QVERIFY(!r.ok());
        const QString err = QString::fromStdString(r.error());
        QVERIFY2(err.contains(path), qPrintable(err));
        QVERIFY2(err.contains(expected), qPrintable(err));
    }

    void a_missing_idx_file_is_named()
    {
        const auto r = readIdxFile("/nonexistent/train-images-idx3-ubyte.gz");
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error()).contains(QStringLiteral("'/nonexistent/train-images-idx3-ubyte.gz' cannot be opened")),
                 r.error().c_str());
    }
};

QTEST_GUILESS_MAIN(TstGanMetrics)
#include "tst_gan_metrics.moc"
