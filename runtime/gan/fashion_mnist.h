#pragma once
// Fashion-MNIST (Xiao et al. 2017; Debian's dataset-fashion-mnist): 70,000 greyscale 28 x 28
// images of 10 clothing classes, read from the package's gzip'd IDX files. Images are padded to
// 32 x 32 (the DCGAN and the quality classifier work at 32 px) with the background value and
// scaled to [-1, 1]. Plain C++: the data source feeds the GAN pipeline, the split loader the
// classifier that measures the GAN's images (runtime/gan/fashion_classifier.h).
#include "core/util/result.h"
#include "runtime/gan/gan_data.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tapas::runtime::gan {

constexpr const char* kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";
constexpr int kFashionMnistSide = 32;   // after padding 28 -> 32
constexpr int kFashionMnistClasses = 10;

struct ImageSet {
    int64_t count = 0;
    std::vector<float> x;     // count x 1 x 32 x 32 in [-1, 1]
    std::vector<int64_t> y;   // class per image
};

// Reads the "train" or "test" split from `dir` (empty: the Debian package's folder), at most
// `maxItems` images (0: all). Errors name the file and say which package provides it.
Result<ImageSet> loadFashionMnistSplit(const std::string& dir, const std::string& split, int64_t maxItems = 0);

// The training split as a GAN data source (10 classes, 1 channel, 32 x 32), epoch by epoch in a
// permutation drawn from the seed; rank r of R reads positions r, r + R, ... of it.
Result<std::unique_ptr<DataSource>> makeFashionMnistSource(const std::string& dir, uint64_t seed);

} // namespace tapas::runtime::gan
