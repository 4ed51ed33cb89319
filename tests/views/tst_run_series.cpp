// RunSeries: a 100k-step run stays within a fixed number of stored points, and the downsampled
// curve keeps its shape (extremes, mean, trend, the newest points exact); the EMA smoothing of
// the GAN monitor.
#include "views/runs/run_series.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace tapas;

class TstRunSeries : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void memory_stays_bounded_over_a_100k_step_run()
    {
        RunSeries s(500, 200);
        std::size_t most = 0;
        for (int i = 0; i < 100000; ++i) {
            s.add(i, std::sin(i * 0.01));
            most = std::max(most, s.stored());
        }
        QVERIFY2(most <= s.capacity(), qPrintable(QStringLiteral("stored %1 > capacity %2").arg(most).arg(s.capacity())));
        QCOMPARE(s.totalAdded(), std::size_t(100000));
        QVERIFY(s.points().size() <= s.capacity() + 1); // + the bucket being filled
        QVERIFY(s.linePoints().size() > 300);           // and still a curve, not a handful of points
    }

    void downsampling_keeps_extremes_mean_and_order()
    {
        RunSeries s(500, 200);
        double sum = 0;
        const int n = 100000;
        for (int i = 0; i < n; ++i) {
            double y = std::sin(i * 0.001) + (i == 30000 ? 100.0 : 0.0) - (i == 70000 ? 50.0 : 0.0);
            s.add(i, y);
            sum += y;
        }
        const auto pts = s.points();
        double weighted = 0, seenMax = -1e9, seenMin = 1e9;
        std::size_t count = 0;
        for (std::size_t i = 0; i < pts.size(); ++i) {
            weighted += pts[i].y * double(pts[i].count);
            count += pts[i].count;
            seenMax = std::max(seenMax, pts[i].max);
            seenMin = std::min(seenMin, pts[i].min);
            if (i > 0) QVERIFY2(pts[i].x > pts[i - 1].x, "points are in step order");
            QVERIFY(pts[i].min <= pts[i].y + 1e-12 && pts[i].y <= pts[i].max + 1e-12);
        }
        QCOMPARE(count, std::size_t(n));
        QVERIFY(std::abs(weighted / double(count) - sum / n) < 1e-9);
        // The one-step spikes survive in the envelope though their buckets span hundreds of steps.
        QCOMPARE(seenMax, s.maxValue());
        QCOMPARE(seenMax, std::sin(30.0) + 100.0);
        QCOMPARE(seenMin, std::sin(70.0) - 50.0);
        // The newest points are the raw ones.
        QCOMPARE(pts.back().x, double(n - 1));
        QCOMPARE(pts.back().y, std::sin((n - 1) * 0.001));
        QCOMPARE(pts.back().count, std::size_t(1));
        QCOMPARE(pts[pts.size() - 500].x, double(n - 500));
    }

    void a_linear_trend_stays_on_its_line()
    {
        RunSeries s(100, 50);
        for (int i = 0; i < 20000; ++i) s.add(i, 3.0 * i + 1.0);
        for (const SeriesPoint& p : s.points()) QVERIFY(std::abs(p.y - (3.0 * p.x + 1.0)) < 1e-6);
        QCOMPARE(s.minX(), s.points().front().x);
        QCOMPARE(s.maxX(), 19999.0);
    }

    void short_series_are_kept_exactly()
    {
        RunSeries s(2000, 1000);
        for (int i = 0; i < 50; ++i) s.add(i, i * i);
        const QList<QPointF> pts = s.linePoints();
        QCOMPARE(pts.size(), 50);
        for (int i = 0; i < 50; ++i) QCOMPARE(pts[i], QPointF(i, i * i));
        double x = 0, y = 0;
        QVERIFY(s.last(x, y));
        QCOMPARE(x, 49.0);
        s.clear();
        QVERIFY(s.isEmpty());
        QVERIFY(!s.last(x, y));
    }

    void non_finite_values_are_counted_not_plotted()
    {
        RunSeries s;
        s.add(0, 1.0);
        s.add(1, std::numeric_limits<double>::quiet_NaN());
        s.add(2, std::numeric_limits<double>::infinity());
        s.add(3, 2.0);
        QCOMPARE(s.linePoints().size(), 2);
        QCOMPARE(s.skippedNonFinite(), std::size_t(2));
        QCOMPARE(s.totalAdded(), std::size_t(4));
    }

    void ema_smoothing_reduces_noise_and_keeps_level()
    {
        QList<QPointF> noisy;
        for (int i = 0; i < 400; ++i) noisy << QPointF(i, 5.0 + ((i % 2) ? 1.0 : -1.0));
        QCOMPARE(emaSmoothed(noisy, 0.0), noisy);
        const QList<QPointF> smooth = emaSmoothed(noisy, 0.9);
        QCOMPARE(smooth.size(), noisy.size());
        double spread = 0;
        for (int i = 200; i < 400; ++i) spread = std::max(spread, std::abs(smooth[i].y() - 5.0));
        QVERIFY2(spread < 0.2, qPrintable(QString::number(spread)));
        // Debiased: a constant series is not dragged towards zero at its start.
        const QList<QPointF> flat = emaSmoothed({QPointF(0, 7), QPointF(1, 7), QPointF(2, 7)}, 0.95);
        for (const QPointF& p : flat) QVERIFY(std::abs(p.y() - 7.0) < 1e-9);
    }
};

QTEST_GUILESS_MAIN(TstRunSeries)
#include "tst_run_series.moc"
