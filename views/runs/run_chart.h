#pragma once
// One live chart of a run monitor: a QChartView with named line series over the step axis,
// replaced wholesale from RunSeries points (already downsampled, so a replace stays cheap) and
// axes that follow the data.
#include <QChartView>
#include <QColor>
#include <QList>
#include <QMap>
#include <QPointF>
#include <QString>

class QLineSeries;
class QValueAxis;

namespace tapas {

class RunChart : public QChartView {
    Q_OBJECT
public:
    explicit RunChart(QWidget* parent = nullptr);

    void setTitle(const QString& title);
    void setAxisTitles(const QString& x, const QString& y);
    // Creates the series `key` on first use (legend text `name`), then replaces its points.
    void setLine(const QString& key, const QString& name, const QList<QPointF>& points, const QColor& color = {});
    // Removes series whose key is not in `keep` (e.g. ranks that disappeared, runs deselected).
    void retainLines(const QStringList& keep);
    void clearLines();
    // Whether a chart with a single line shows its legend (default yes). A monitor's charts
    // turn it off: their title names the one line, and the row is better spent on the plot.
    void setLegendForOneLine(bool show);

    QStringList lineKeys() const { return series_.keys(); }
    int pointCount(const QString& key) const;
    QList<QPointF> points(const QString& key) const;
    QString lineName(const QString& key) const;
    QColor lineColor(const QString& key) const;

    // A run's colour in overlays and a rank's colour in per-rank charts: distinct and stable.
    static QColor paletteColor(int i);

private:
    void freezeTicks();
    void rescale();
    void updateLegend();

    QMap<QString, QLineSeries*> series_;
    QValueAxis* x_;
    QValueAxis* y_;
    bool legendForOneLine_ = true;
};

} // namespace tapas
