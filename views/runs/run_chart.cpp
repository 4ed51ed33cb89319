#include "views/runs/run_chart.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tapas {

RunChart::RunChart(QWidget* parent) : QChartView(parent), x_(new QValueAxis), y_(new QValueAxis)
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
    // Ticks at round values (niceTicks in rescale), not at fifths of the data's range.
    for (QValueAxis* a : {x_, y_}) a->setTickCount(5);
    c->addAxis(x_, Qt::AlignBottom);
    c->addAxis(y_, Qt::AlignLeft);
    c->setTitleFont([&] { QFont f = small; f.setBold(true); return f; }());
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(200, 150);
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
    x_->setTitleText(x);
    y_->setTitleText(y);
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
        s->attachAxis(y_);
        QPen pen = s->pen();
        pen.setWidthF(1.5);
        pen.setColor(color.isValid() ? color : paletteColor(int(series_.size())));
        s->setPen(pen);
        series_.insert(key, s);
    }
    if (s->name() != name) s->setName(name);
    s->replace(points);
    rescale();
    updateLegend();
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
            if (!std::isfinite(p.y())) continue;
            x0 = std::min(x0, p.x());
            x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y());
            y1 = std::max(y1, p.y());
        }
    }
    if (x0 > x1) {
        setAxis(x_, 0, 1, 4, false);
        setAxis(y_, 0, 1, 4, false);
        return;
    }
    if (x1 - x0 < 1) x1 = x0 + 1;
    // A little headroom so a flat line is not glued to the frame.
    // A flat line at 0 (staleness of a synchronous run) gets -1..1, not a range of 1e-6.
    const double pad = (y1 - y0) > 0 ? (y1 - y0) * 0.05 : y0 == 0 ? 1.0 : std::abs(y0) * 0.05;
    setAxis(x_, x0, x1, 4, true);
    setAxis(y_, y0 - pad, y1 + pad, 4, false);
}

} // namespace tapas
