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

    QStringList lineKeys() const { return series_.keys(); }
    int pointCount(const QString& key) const;
    QList<QPointF> points(const QString& key) const;
    QString lineName(const QString& key) const;
    QColor lineColor(const QString& key) const;

    // A run's colour in overlays and a rank's colour in per-rank charts: distinct and stable.
    static QColor paletteColor(int i);

private:
    void rescale();

    QMap<QString, QLineSeries*> series_;
    QValueAxis* x_;
    QValueAxis* y_;
};

} // namespace tapas
