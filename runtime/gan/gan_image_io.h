#pragma once
// Image files for the GAN worker, through QImage (the one TU in runtime/ that uses Qt Gui; it
// never includes torch): reading PNG/JPEG into float tensors and writing sample grids and the
// mixture scatter plot as PNG.
#include "core/util/result.h"
#include "runtime/gan/gan_data.h"

#include <string>
#include <vector>

namespace tapas::runtime::gan {

// Reads `path`, centre-crops to a square, scales to size x size, returns 3 x size x size floats
// in [-1, 1] (CHW). Errors name the file.
Result<std::vector<float>> loadImageRgb(const std::string& path, int size);
bool isImageFileName(const std::string& name); // .png .jpg .jpeg (any case)

// Writes n images (n x channels x h x w, values in [-1, 1]) as a grid of `cols` columns.
Status writeImageGrid(const std::string& path, const std::vector<float>& images, int n, int channels,
                      int h, int w, int cols);
// Writes a size x size scatter plot: the modes as circles of radius 3 sigma, the samples as dots.
Status writeScatterPlot(const std::string& path, const std::vector<float>& xy, const std::vector<Point2>& modes,
                        double stddev, int size = 512);

} // namespace tapas::runtime::gan
