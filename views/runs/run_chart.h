#pragma once
// One live chart of a run monitor: a QChartView with named line series over the step axis,
// replaced wholesale from RunSeries points (already downsampled, so a replace stays cheap) and
// axes that follow the data. As in TensorBoard: exponential smoothing (the raw values stay in
// the hover text), a logarithmic value axis, and a crosshair whose tooltip reads every line's
// value at the step under the mouse.
#include <QChartView>
#include <QColor>
#include <QList>
#include <QMap>
#include <QPen>
#include <QPointF>
#include <QString>

class QLineSeries;
class QLogValueAxis;
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

    // Per line: pen width and dash (rank lines differ in both, so equal values stay visible).
    void setLineStyle(const QString& key, double width, Qt::PenStyle style);
    // EMA weight in [0, 1): 0 draws the points as given.
    void setSmoothing(double weight);
    double smoothing() const { return smoothing_; }
    // A logarithmic value axis (points at or below 0 are left out while it is on).
    void setLogScale(bool on);
    bool logScale() const { return logScale_; }
    // What the hover tooltip shows at step `x` (tests call it; the mouse calls it too).
    QString valuesAt(double x) const;

    QStringList lineKeys() const { return series_.keys(); }
    int pointCount(const QString& key) const;
    QList<QPointF> points(const QString& key) const;
    QString lineName(const QString& key) const;
    QColor lineColor(const QString& key) const;
    QPen linePen(const QString& key) const;

    // A run's colour in overlays and a rank's colour in per-rank charts: distinct and stable.
    static QColor paletteColor(int i);

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    void freezeTicks();
    void rescale();
    void updateLegend();
    void redraw(const QString& key);
    void attachValueAxis();

    QMap<QString, QLineSeries*> series_;
    QMap<QString, QList<QPointF>> raw_; // as given, before smoothing and the log axis
    QValueAxis* x_;
    QValueAxis* y_;
    QLogValueAxis* logY_;
    bool legendForOneLine_ = true;
    double smoothing_ = 0;
    bool logScale_ = false;
    double hoverX_ = qQNaN();
};

} // namespace tapas
