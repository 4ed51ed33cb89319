#pragma once
// How good a GAN's Fashion-MNIST images are, measured the way the field measures image GANs but
// with a classifier this project trains itself (no download): a small CNN trained on the training
// split (test accuracy reported, and required to be at least 90% by tst_fashion_quality) labels the
// generated images and gives 128-dimensional features for the Fréchet distance (FID's formula on
// our classifier's features, so the figures compare runs with each other, not with published FIDs).
// The header is torch-free (pimpl): the trainer and the tests include it.
#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tapas::runtime::gan {

struct ImageQuality {
    int samples = 0;
    int classesCovered = 0;        // classes predicted for at least 10% of their uniform share
    double classKl = 0;            // KL(predicted-class histogram || uniform)
    double frechet = 0;            // generated images against the test split
    std::vector<int> perClass;
};

class FashionQuality {
public:
    ~FashionQuality();
    // Loads the cached classifier from `cachePath` (empty: defaultClassifierCache()), or trains one
    // on the training split of `dataDir` (empty: the Debian package's folder) and caches it, then
    // measures its test accuracy and the real-against-real floor of the Fréchet distance (10,000
    // training images against the 10,000 test images). `log` hears what takes time.
    static Result<std::unique_ptr<FashionQuality>> open(const std::string& dataDir, const std::string& cachePath,
                                                        const std::function<void(const std::string&)>& log = {});

    double testAccuracy() const;   // on the 10,000 test images
    double frechetFloor() const;   // a training subset against the test split
    bool trainedNow() const;       // false: loaded from the cache

    // `images`: n x 1 x 32 x 32 in [-1, 1], as the GAN's generator makes them.
    ImageQuality measure(const std::vector<float>& images, int64_t n) const;

private:
    FashionQuality();
    struct Impl;
    std::unique_ptr<Impl> d_;
};

// $TAPAS_CACHE_DIR, else $XDG_CACHE_HOME/tapas, else $HOME/.cache/tapas; plus the file name.
std::string defaultClassifierCache();

} // namespace tapas::runtime::gan
