#include "runtime/gan/gan_image_io.h"

#include <QColor>
#include <QImage>
#include <QPainter>
#include <QString>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tapas::runtime::gan {

bool isImageFileName(const std::string& name)
{
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    auto ends = [&](const char* s) {
        const std::string e = s;
        return lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0;
    };
    return ends(".png") || ends(".jpg") || ends(".jpeg");
}

Result<std::vector<float>> loadImageRgb(const std::string& path, int size)
{
    QImage img;
    if (!img.load(QString::fromStdString(path)) || img.isNull())
        return Result<std::vector<float>>::failure("image '" + path + "' cannot be read as PNG or JPEG");
    const int side = std::min(img.width(), img.height());
    img = img.copy((img.width() - side) / 2, (img.height() - side) / 2, side, side)
              .scaled(size, size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
              .convertToFormat(QImage::Format_RGB888);
    std::vector<float> out(size_t(3) * size * size);
    const size_t plane = size_t(size) * size;
    for (int y = 0; y < size; ++y) {
        const uchar* row = img.constScanLine(y);
        for (int x = 0; x < size; ++x)
            for (int c = 0; c < 3; ++c) out[c * plane + size_t(y) * size + x] = row[3 * x + c] / 127.5f - 1.f;
    }
    return out;
}

Status writeImageGrid(const std::string& path, const std::vector<float>& images, int n, int channels, int h, int w,
                      int cols)
{
    if (n <= 0 || cols <= 0 || images.size() < size_t(n) * channels * h * w)
        return Status::failure("sample grid '" + path + "': no images to write");
    const int rows = (n + cols - 1) / cols, pad = 2;
    QImage grid(cols * (w + pad) + pad, rows * (h + pad) + pad, QImage::Format_RGB888);
    grid.fill(QColor(40, 40, 40));
    const size_t plane = size_t(h) * w;
    auto to8 = [](float v) { return uchar(std::clamp(std::lround((v + 1.f) * 127.5f), 0L, 255L)); };
    for (int i = 0; i < n; ++i) {
        const float* img = images.data() + size_t(i) * channels * plane;
        const int ox = pad + (i % cols) * (w + pad), oy = pad + (i / cols) * (h + pad);
        for (int y = 0; y < h; ++y) {
            uchar* row = grid.scanLine(oy + y) + 3 * ox;
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c)
                    row[3 * x + c] = to8(img[std::min(c, channels - 1) * plane + size_t(y) * w + x]);
        }
    }
    if (!grid.save(QString::fromStdString(path), "PNG")) return Status::failure("sample grid '" + path + "' cannot be written");
    return {};
}

Status writeScatterPlot(const std::string& path, const std::vector<float>& xy, const std::vector<Point2>& modes,
                        double stddev, int size)
{
    double extent = 1;
    for (const Point2& m : modes) extent = std::max({extent, std::abs(m.x), std::abs(m.y)});
    extent *= 1.3;
    QImage img(size, size, QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    auto map = [&](double x, double y) {
        return QPointF((x / extent * 0.5 + 0.5) * size, (0.5 - y / extent * 0.5) * size);
    };
    const double r = 3 * stddev / extent * 0.5 * size;
    p.setPen(QPen(QColor(200, 60, 60), 1.5));
    for (const Point2& m : modes) p.drawEllipse(map(m.x, m.y), r, r);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(30, 90, 200, 120));
    for (size_t i = 0; i + 1 < xy.size(); i += 2) p.drawEllipse(map(xy[i], xy[i + 1]), 1.6, 1.6);
    p.end();
    if (!img.save(QString::fromStdString(path), "PNG")) return Status::failure("scatter plot '" + path + "' cannot be written");
    return {};
}

} // namespace tapas::runtime::gan
