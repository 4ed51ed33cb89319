#include "views/runs/run_chart.h"

#include "views/runs/run_series.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tapas {

RunChart::RunChart(QWidget* parent) : QChartView(parent), x_(new QValueAxis), y_(new QValueAxis), logY_(new QLogValueAxis)
{
    auto* c = new QChart;
    c->setMargins(QMargins(2, 2, 2, 2));
    // The default layout margins cost a monitor's small charts most of their plot height (and
    // then Qt Charts elides the axis labels to "...").
    c->layout()->setContentsMargins(0, 0, 0, 0);
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignTop);
    QFont small = c->legend()->font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.5));
    c->legend()->setFont(small);
    x_->setLabelsFont(small);
    y_->setLabelsFont(small);
    logY_->setLabelsFont(small);
    logY_->setBase(10);
    logY_->setLabelFormat(QStringLiteral("%g"));
    // Ticks at round values (niceTicks in rescale), not at fifths of the data's range.
    for (QValueAxis* a : {x_, y_}) a->setTickCount(5);
    c->addAxis(x_, Qt::AlignBottom);
    c->addAxis(y_, Qt::AlignLeft);
    c->setTitleFont([&] { QFont f = small; f.setBold(true); return f; }());
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 150);
    setMouseTracking(true);
    // The crosshair is drawn over the plot: repaint the whole view as it moves.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
}

void RunChart::setTitle(const QString& title)
{
    chart()->setTitle(title);
}

void RunChart::setAxisTitles(const QString& x, const QString& y)
{
    QFont f = x_->labelsFont();
    x_->setTitleFont(f);
    y_->setTitleFont(f);
    logY_->setTitleFont(f);
    x_->setTitleText(x);
    y_->setTitleText(y);
    logY_->setTitleText(y);
}

QColor RunChart::paletteColor(int i)
{
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                    QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                    QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf), QColor(0xbc, 0xbd, 0x22),
                                    QColor(0x7f, 0x7f, 0x7f)};
    return colors[(i % 10 + 10) % 10];
}

void RunChart::freezeTicks()
{
    // Qt Charts fits an axis to the data it is attached to as the series change, lays it out at
    // once and makes a label per tick: with the interval of the old range that can be millions
    // of ticks (or endless with the default interval 0). Counted ticks until rescale() is done.
    for (QValueAxis* a : {x_, y_}) a->setTickType(QValueAxis::TicksFixed);
}

void RunChart::setLine(const QString& key, const QString& name, const QList<QPointF>& points, const QColor& color)
{
    freezeTicks();
    QLineSeries* s = series_.value(key);
    if (!s) {
        s = new QLineSeries(this);
        chart()->addSeries(s);
        s->attachAxis(x_);
        s->attachAxis(logScale_ ? static_cast<QAbstractAxis*>(logY_) : y_);
        QPen pen = s->pen();
        pen.setWidthF(1.5);
        pen.setColor(color.isValid() ? color : paletteColor(int(series_.size())));
        s->setPen(pen);
        series_.insert(key, s);
    }
    if (s->name() != name) s->setName(name);
    raw_[key] = points;
    redraw(key);
    rescale();
    updateLegend();
}

void RunChart::setLineStyle(const QString& key, double width, Qt::PenStyle style)
{
    QLineSeries* s = series_.value(key);
    if (!s) return;
    QPen pen = s->pen();
    if (pen.widthF() == width && pen.style() == style) return;
    pen.setWidthF(width);
    pen.setStyle(style);
    s->setPen(pen);
}

// The drawn points: smoothed as asked, and on a log axis only the positive ones.
void RunChart::redraw(const QString& key)
{
    QList<QPointF> pts = emaSmoothed(raw_.value(key), smoothing_);
    if (logScale_) pts.removeIf([](const QPointF& p) { return !(p.y() > 0); });
    series_.value(key)->replace(pts);
}

void RunChart::setSmoothing(double weight)
{
    weight = std::clamp(weight, 0.0, 0.99);
    if (weight == smoothing_) return;
    smoothing_ = weight;
    freezeTicks();
    for (const QString& key : series_.keys()) redraw(key);
    rescale();
}

void RunChart::setLogScale(bool on)
{
    if (on == logScale_) return;
    logScale_ = on;
    attachValueAxis();
    freezeTicks();
    for (const QString& key : series_.keys()) redraw(key);
    rescale();
}

void RunChart::attachValueAxis()
{
    QAbstractAxis* drop = logScale_ ? static_cast<QAbstractAxis*>(y_) : logY_;
    QAbstractAxis* use = logScale_ ? static_cast<QAbstractAxis*>(logY_) : y_;
    for (QLineSeries* s : series_) s->detachAxis(drop);
    if (chart()->axes(Qt::Vertical).contains(drop)) chart()->removeAxis(drop);
    if (!chart()->axes(Qt::Vertical).contains(use)) chart()->addAxis(use, Qt::AlignLeft);
    for (QLineSeries* s : series_) s->attachAxis(use);
}

QString RunChart::valuesAt(double x) const
{
    QStringList lines;
    double step = qQNaN();
    for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
        const QList<QPointF>& raw = raw_.value(it.key());
        if (raw.isEmpty()) continue;
        // The point nearest to x (points are in step order).
        auto at = std::lower_bound(raw.cbegin(), raw.cend(), x, [](const QPointF& p, double v) { return p.x() < v; });
        if (at == raw.cend() || (at != raw.cbegin() && std::abs((at - 1)->x() - x) < std::abs(at->x() - x))) --at;
        const int i = int(at - raw.cbegin());
        const QList<QPointF> shown = it.value()->points();
        QString value = QString::number(at->y(), 'g', 5);
        if (smoothing_ > 0 && !logScale_ && i < shown.size())
            value = tr("%1 (smoothed %2)").arg(value, QString::number(shown[i].y(), 'g', 5));
        lines << QStringLiteral("%1: %2").arg(it.value()->name().isEmpty() ? it.key() : it.value()->name(), value);
        step = at->x();
    }
    if (lines.isEmpty()) return {};
    return tr("step %1").arg(step, 0, 'f', 0) + QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
}

void RunChart::mouseMoveEvent(QMouseEvent* event)
{
    QChartView::mouseMoveEvent(event);
    const QPointF scenePos = mapToScene(event->position().toPoint());
    const QPointF chartPos = chart()->mapFromScene(scenePos);
    if (!chart()->plotArea().contains(chartPos) || series_.isEmpty()) {
        if (!qIsNaN(hoverX_)) {
            hoverX_ = qQNaN();
            viewport()->update();
        }
        QToolTip::hideText();
        return;
    }
    hoverX_ = chart()->mapToValue(chartPos, series_.first()).x();
    QToolTip::showText(event->globalPosition().toPoint(), valuesAt(hoverX_), this);
    viewport()->update();
}

void RunChart::leaveEvent(QEvent* event)
{
    hoverX_ = qQNaN();
    viewport()->update();
    QChartView::leaveEvent(event);
}

void RunChart::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    if (qIsNaN(hoverX_) || series_.isEmpty()) return;
    const QRectF plot = chart()->plotArea();
    const double x = chart()->mapToPosition(QPointF(hoverX_, logScale_ ? 1 : 0), series_.first()).x();
    if (x < plot.left() || x > plot.right()) return;
    painter->save();
    painter->setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DashLine));
    painter->drawLine(chart()->mapToScene(QPointF(x, plot.top())), chart()->mapToScene(QPointF(x, plot.bottom())));
    painter->restore();
}

void RunChart::setLegendForOneLine(bool show)
{
    legendForOneLine_ = show;
    updateLegend();
}

void RunChart::updateLegend()
{
    QLegend* legend = chart()->legend();
    legend->setVisible(legendForOneLine_ || series_.size() > 1);
    // Above the plot a legend has one row, and with four or more lines Qt Charts elides their
    // names to "..."; beside it they stack.
    const Qt::Alignment where = series_.size() > 3 ? Qt::AlignRight : Qt::AlignTop;
    if (legend->alignment() != where) legend->setAlignment(where);
}

void RunChart::retainLines(const QStringList& keep)
{
    freezeTicks();
    for (const QString& key : series_.keys()) {
        if (keep.contains(key)) continue;
        QLineSeries* s = series_.take(key);
        raw_.remove(key);
        chart()->removeSeries(s);
        delete s;
    }
    rescale();
    updateLegend();
}

void RunChart::clearLines()
{
    retainLines({});
}

int RunChart::pointCount(const QString& key) const
{
    const QLineSeries* s = series_.value(key);
    return s ? int(s->count()) : 0;
}

QList<QPointF> RunChart::points(const QString& key) const
{
    const QLineSeries* s = series_.value(key);
    return s ? s->points() : QList<QPointF>{};
}

QString RunChart::lineName(const QString& key) const
{
    const QLineSeries* s = series_.value(key);
    return s ? s->name() : QString();
}

QPen RunChart::linePen(const QString& key) const
{
    const QLineSeries* s = series_.value(key);
    return s ? s->pen() : QPen();
}

QColor RunChart::lineColor(const QString& key) const
{
    const QLineSeries* s = series_.value(key);
    return s ? s->pen().color() : QColor();
}

namespace {

// A tick interval of 1, 2 or 5 times a power of ten giving about `wanted` ticks over `span`,
// and a label format with just the decimals that interval needs (so 197.5 is not shown as
// "198" next to another "198", and steps are not labelled 15.75).
struct NiceTicks {
    double interval;
    QString format;
};

NiceTicks niceTicks(double span, int wanted, bool integral)
{
    if (!(span > 0) || !std::isfinite(span)) span = 1;
    const double raw = span / std::max(1, wanted);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double interval = 10 * mag;
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw) {
            interval = m * mag;
            break;
        }
    if (integral) interval = std::max(1.0, std::round(interval));
    const int decimals = std::max(0, int(-std::floor(std::log10(interval) + 1e-9)));
    // Very large or very small values read better in exponent form.
    const QString format = decimals > 6 || interval >= 1e6 ? QStringLiteral("%.3g")
                                                             : QStringLiteral("%.") + QString::number(decimals) + QLatin1Char('f');
    return {interval, format};
}

// Sets the range with ticks at round values, then turns the round ticks on (see freezeTicks).
void setAxis(QValueAxis* axis, double lo, double hi, int wanted, bool integral)
{
    const NiceTicks t = niceTicks(hi - lo, wanted, integral);
    axis->setRange(lo, hi);
    axis->setTickAnchor(std::floor(lo / t.interval) * t.interval);
    axis->setTickInterval(t.interval);
    axis->setLabelFormat(t.format);
    axis->setTickType(QValueAxis::TicksDynamic);
}

} // namespace

void RunChart::rescale()
{
    double x0 = std::numeric_limits<double>::max(), x1 = std::numeric_limits<double>::lowest();
    double y0 = x0, y1 = x1;
    for (const QLineSeries* s : series_) {
        for (const QPointF& p : s->points()) {
            if (!std::isfinite(p.y()) || (logScale_ && !(p.y() > 0))) continue;
            x0 = std::min(x0, p.x());
            x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y());
            y1 = std::max(y1, p.y());
        }
    }
    if (x0 > x1) {
        setAxis(x_, 0, 1, 4, false);
        setAxis(y_, 0, 1, 4, false);
        logY_->setRange(1, 10);
        return;
    }
    if (x1 - x0 < 1) x1 = x0 + 1;
    if (logScale_) {
        // Whole decades around the data, so the labels are powers of ten.
        setAxis(x_, x0, x1, 4, true);
        logY_->setRange(std::pow(10.0, std::floor(std::log10(y0))), std::pow(10.0, std::ceil(std::log10(y1) + 1e-9)));
        return;
    }
    // A little headroom so a flat line is not glued to the frame.
    // A flat line at 0 (staleness of a synchronous run) gets -1..1, not a range of 1e-6.
    const double pad = (y1 - y0) > 0 ? (y1 - y0) * 0.05 : y0 == 0 ? 1.0 : std::abs(y0) * 0.05;
    setAxis(x_, x0, x1, 4, true);
    setAxis(y_, y0 - pad, y1 + pad, 4, false);
}

} // namespace tapas
