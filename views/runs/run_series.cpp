#include "views/runs/run_series.h"

#include <algorithm>
#include <cmath>

namespace tapas {

RunSeries::RunSeries(std::size_t recent, std::size_t maxBuckets)
    : recentCap_(std::max<std::size_t>(recent, 1)), maxBuckets_(std::max<std::size_t>(maxBuckets, 2))
{
    pending_.count = 0;
}

void RunSeries::add(double x, double y)
{
    ++total_;
    if (!std::isfinite(y) || !std::isfinite(x)) {
        ++nonFinite_;
        return;
    }
    if (isEmpty() && pending_.count == 0) {
        min_ = max_ = y;
    } else {
        min_ = std::min(min_, y);
        max_ = std::max(max_, y);
    }
    recent_.push_back({x, y, y, y, 1});
    if (recent_.size() > recentCap_) spill();
}

void RunSeries::clear()
{
    recent_.clear();
    buckets_.clear();
    pending_ = SeriesPoint{};
    pending_.count = 0;
    bucketWidth_ = 1;
    total_ = nonFinite_ = 0;
    min_ = max_ = 0;
}

SeriesPoint RunSeries::merge(const SeriesPoint& a, const SeriesPoint& b)
{
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    SeriesPoint m;
    m.count = a.count + b.count;
    const double wa = double(a.count) / double(m.count);
    const double wb = 1.0 - wa;
    m.x = a.x * wa + b.x * wb;
    m.y = a.y * wa + b.y * wb;
    m.min = std::min(a.min, b.min);
    m.max = std::max(a.max, b.max);
    return m;
}

// The oldest full-resolution point leaves the tail for the bucket being filled.
void RunSeries::spill()
{
    pending_ = merge(pending_, recent_.front());
    recent_.pop_front();
    if (pending_.count < bucketWidth_) return;
    buckets_.push_back(pending_);
    pending_ = SeriesPoint{};
    pending_.count = 0;
    if (buckets_.size() < maxBuckets_) return;
    // Halve the resolution of the history: every bucket now spans twice the steps.
    std::vector<SeriesPoint> halved;
    halved.reserve(buckets_.size() / 2 + 1);
    for (std::size_t i = 0; i < buckets_.size(); i += 2)
        halved.push_back(i + 1 < buckets_.size() ? merge(buckets_[i], buckets_[i + 1]) : buckets_[i]);
    buckets_.swap(halved);
    bucketWidth_ *= 2;
}

std::vector<SeriesPoint> RunSeries::points() const
{
    std::vector<SeriesPoint> out;
    out.reserve(stored() + 1);
    out.insert(out.end(), buckets_.begin(), buckets_.end());
    if (pending_.count > 0) out.push_back(pending_);
    out.insert(out.end(), recent_.begin(), recent_.end());
    return out;
}

QList<QPointF> RunSeries::linePoints() const
{
    QList<QPointF> out;
    out.reserve(qsizetype(stored() + 1));
    for (const SeriesPoint& p : points()) out.append(QPointF(p.x, p.y));
    return out;
}

QList<QPointF> RunSeries::minPoints() const
{
    QList<QPointF> out;
    for (const SeriesPoint& p : points()) out.append(QPointF(p.x, p.min));
    return out;
}

QList<QPointF> RunSeries::maxPoints() const
{
    QList<QPointF> out;
    for (const SeriesPoint& p : points()) out.append(QPointF(p.x, p.max));
    return out;
}

bool RunSeries::last(double& x, double& y) const
{
    const SeriesPoint* p = !recent_.empty() ? &recent_.back()
        : pending_.count > 0                ? &pending_
        : !buckets_.empty()                 ? &buckets_.back()
                                            : nullptr;
    if (!p) return false;
    x = p->x;
    y = p->y;
    return true;
}

double RunSeries::minX() const
{
    if (!buckets_.empty()) return buckets_.front().x;
    if (pending_.count > 0) return pending_.x;
    return recent_.empty() ? 0 : recent_.front().x;
}

double RunSeries::maxX() const
{
    double x = 0, y = 0;
    return last(x, y) ? x : 0;
}

QList<QPointF> emaSmoothed(const QList<QPointF>& points, double weight)
{
    weight = std::clamp(weight, 0.0, 0.999);
    if (weight <= 0) return points;
    QList<QPointF> out;
    out.reserve(points.size());
    double ema = 0;
    double norm = 0; // debias: the first points are not pulled towards 0
    for (const QPointF& p : points) {
        ema = weight * ema + (1 - weight) * p.y();
        norm = weight * norm + (1 - weight);
        out.append(QPointF(p.x(), ema / norm));
    }
    return out;
}

} // namespace tapas
