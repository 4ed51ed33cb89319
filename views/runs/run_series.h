#pragma once
// One metric of one run as a bounded time series. A 100k-step run must neither grow the GUI's
// memory without limit nor hand QtCharts 100k points per redraw, yet the chart must keep the
// curve's shape (spikes included). So the newest `recent` points stay at full resolution and
// older ones are merged into buckets that keep count, mean, min and max; when the buckets
// overflow, neighbours merge pairwise (each bucket then spans twice as many steps). Memory is
// at most recent + maxBuckets entries whatever the run's length.
#include <QList>
#include <QPointF>

#include <cstddef>
#include <deque>
#include <vector>

namespace tapas {

struct SeriesPoint {
    double x = 0;    // step (the mean step of a bucket)
    double y = 0;    // the value (a bucket's mean)
    double min = 0;  // a bucket's extremes; equal to y for a full-resolution point
    double max = 0;
    std::size_t count = 1; // raw points behind this one
};

class RunSeries {
public:
    explicit RunSeries(std::size_t recent = 2000, std::size_t maxBuckets = 1000);

    // Non-finite values (a diverged loss arrives as NaN) are counted but not plotted.
    void add(double x, double y);
    void clear();

    // Buckets first (oldest), then the full-resolution tail, in x order.
    std::vector<SeriesPoint> points() const;
    // The same as chart points: (x, mean) per entry.
    QList<QPointF> linePoints() const;
    // (x, min) and (x, max) per entry, for an envelope drawn behind the line.
    QList<QPointF> minPoints() const;
    QList<QPointF> maxPoints() const;

    std::size_t stored() const { return buckets_.size() + recent_.size(); }
    std::size_t capacity() const { return recentCap_ + maxBuckets_; }
    std::size_t totalAdded() const { return total_; }
    std::size_t skippedNonFinite() const { return nonFinite_; }
    bool isEmpty() const { return recent_.empty() && buckets_.empty(); }
    // The newest finite point; false when there is none.
    bool last(double& x, double& y) const;
    // Extremes over everything ever added (buckets keep them).
    double minValue() const { return min_; }
    double maxValue() const { return max_; }
    double minX() const;
    double maxX() const;

private:
    void spill();
    static SeriesPoint merge(const SeriesPoint& a, const SeriesPoint& b);

    std::size_t recentCap_;
    std::size_t maxBuckets_;
    std::size_t bucketWidth_ = 1; // raw points per new bucket; doubles with each pairwise merge
    std::deque<SeriesPoint> recent_;
    std::vector<SeriesPoint> buckets_;
    SeriesPoint pending_;          // the bucket being filled from the recent tail
    std::size_t total_ = 0;
    std::size_t nonFinite_ = 0;
    double min_ = 0;
    double max_ = 0;
};

// Exponential moving average, the "smoothing" slider of the GAN monitor: weight in [0, 1),
// 0 returns the points unchanged (TensorBoard's convention, debiased at the start).
QList<QPointF> emaSmoothed(const QList<QPointF>& points, double weight);

} // namespace tapas
