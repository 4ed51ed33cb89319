#include "views/runs/run_chart.h"

#include <QChart>
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
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignTop);
    QFont small = c->legend()->font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.5));
    c->legend()->setFont(small);
    x_->setLabelFormat(QStringLiteral("%g"));
    y_->setLabelFormat(QStringLiteral("%.3g"));
    x_->setLabelsFont(small);
    y_->setLabelsFont(small);
    x_->setTickCount(5);
    y_->setTickCount(5);
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

void RunChart::setLine(const QString& key, const QString& name, const QList<QPointF>& points, const QColor& color)
{
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
}

void RunChart::retainLines(const QStringList& keep)
{
    for (const QString& key : series_.keys()) {
        if (keep.contains(key)) continue;
        QLineSeries* s = series_.take(key);
        chart()->removeSeries(s);
        delete s;
    }
    rescale();
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
        x_->setRange(0, 1);
        y_->setRange(0, 1);
        return;
    }
    if (x1 - x0 < 1) x1 = x0 + 1;
    // A little headroom so a flat line is not glued to the frame.
    const double pad = (y1 - y0) > 0 ? (y1 - y0) * 0.05 : std::max(std::abs(y0) * 0.05, 1e-6);
    x_->setRange(x0, x1);
    y_->setRange(y0 - pad, y1 + pad);
}

} // namespace tapas
