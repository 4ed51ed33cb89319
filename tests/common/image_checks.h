#pragma once
// Checks on exported or grabbed pictures shared by the GUI suites.
#include <QImage>

namespace tapas::testing {

// Pixels that are neither the white background nor fully transparent (every other pixel sampled):
// a blank export has none.
inline int inkPixels(const QImage& img)
{
    int ink = 0;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) {
            const QRgb p = img.pixel(x, y);
            if (qAlpha(p) > 0 && (qRed(p) < 235 || qGreen(p) < 235 || qBlue(p) < 235)) ++ink;
        }
    return ink;
}

} // namespace tapas::testing
