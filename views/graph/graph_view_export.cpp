// The graph view's export of the whole current picture (every box at its current expansion
// state, not just the visible part) as PNG or SVG.
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace tapas {

namespace {
// Exported PNGs stay within what image viewers and QImage handle comfortably.
constexpr double kMaxExportSide = 16000;
constexpr double kMaxExportPixels = 120e6;
} // namespace

bool GraphView::exportPng(const QString& path, QString* error, double scale) const
{
    const QRectF source = scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    if (scene_->items().isEmpty() || source.isEmpty()) {
        if (error) *error = tr("There is no graph to export to %1.").arg(path);
        return false;
    }
    double s = scale;
    s = std::min(s, kMaxExportSide / std::max(source.width(), source.height()));
    s = std::min(s, std::sqrt(kMaxExportPixels / (source.width() * source.height())));
    const QSize size(std::max(1, int(std::ceil(source.width() * s))), std::max(1, int(std::ceil(source.height() * s))));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) {
        if (error) *error = tr("Not enough memory for a %1×%2 image for %3.").arg(size.width()).arg(size.height()).arg(path);
        return false;
    }
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene_->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    painter.end();
    if (!image.save(path, "PNG")) {
        if (error) *error = tr("Could not write the PNG file %1.").arg(path);
        return false;
    }
    return true;
}

bool GraphView::exportSvg(const QString& path, QString* error) const
{
    const QRectF source = scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    if (scene_->items().isEmpty() || source.isEmpty()) {
        if (error) *error = tr("There is no graph to export to %1.").arg(path);
        return false;
    }
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    svg.setTitle(graph_ ? QString::fromStdString(graph_->name) : tr("Graph"));
    svg.setDescription(tr("Graph exported by Tapas Studio"));
    QPainter painter;
    if (!painter.begin(&svg)) {
        if (error) *error = tr("Could not write the SVG file %1.").arg(path);
        return false;
    }
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene_->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    if (QFileInfo(path).size() <= 0) {
        if (error) *error = tr("Could not write the SVG file %1.").arg(path);
        return false;
    }
    return true;
}

} // namespace tapas
