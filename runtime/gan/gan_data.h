#pragma once
// The GAN data sets (docs/paragan.md, "Data"): 2-D Gaussian mixtures (ring8, grid25) with their
// quality metric, small procedural images (coloured shapes, 3 classes) and an image folder
// (PNG/JPEG, optional class sub-folders). Plain C++ and thread-safe: the pipeline's loader
// threads call load() concurrently. A batch is a pure function of (seed, rank, batch index),
// which is what makes resume exact: the data position in a checkpoint is one integer.
#include "core/util/result.h"
#include "runtime/gan/gan_options.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tapas::runtime::gan {

struct Batch {
    int64_t index = 0;
    int size = 0;
    std::vector<float> x;      // size x channels x height x width, images in [-1, 1]
    std::vector<int64_t> y;    // class per sample (0 when the set has no classes)
    double loadSeconds = 0;    // how long loading took (pipeline latency measurement)
};

class DataSource {
public:
    virtual ~DataSource() = default;
    virtual std::string name() const = 0;
    virtual int channels() const = 0;     // 2 for mixtures (a point), 3 for images
    virtual int height() const = 0;       // 1 for mixtures
    virtual int width() const = 0;
    virtual int numClasses() const = 0;   // 1: unconditional
    virtual bool isMixture() const { return false; }
    virtual size_t datasetSize() const { return 0; } // 0: infinite (synthetic)
    // Batch `index` of rank `rank` (of `ranks`). Errors name the file that failed.
    virtual Result<Batch> load(int64_t index, int batchSize, int rank, int ranks) const = 0;
};

struct Point2 { double x = 0, y = 0; };

// The mixture benchmarks exactly as PacGAN (Lin et al. 2018, Table 1) sets them up, so our figures
// stand beside its published ones: ring8 is 8 Gaussians on a circle of radius 1 with standard
// deviation 0.01; grid25 is 25 Gaussians at {-4,-2,0,2,4}^2 with standard deviation 0.05.
std::vector<Point2> mixtureModes(const std::string& name);
double mixtureStdOf(const std::string& name); // the benchmark's standard deviation; 0 if unknown
constexpr int kMixtureEvalSamples = 2500;     // PacGAN evaluates 2,500 generated samples

// PacGAN's metrics (docs/paragan.md, "Mixture metrics"): a sample is high-quality when it lies
// within 3 standard deviations (Euclidean) of its nearest mode; a mode is covered when it is the
// nearest mode of at least one high-quality sample; the reverse KL is KL(p || uniform) of the
// high-quality samples' histogram over the modes (0 when every mode holds the same share, log of
// modes / covered when the covered ones are even, and larger when they are uneven).
struct MixtureQuality {
    int modesCovered = 0;
    double highQualityShare = 0;
    double reverseKl = 0;
    std::vector<int> perMode; // high-quality samples per mode
};
MixtureQuality evaluateMixture(const std::vector<float>& xy, const std::vector<Point2>& modes, double stddev);

// Builds the data set named in the options; fails with a sentence naming the data set or folder
// (unknown name, missing folder, folder without images).
Result<std::unique_ptr<DataSource>> makeDataSource(const GanOptions& o, unsigned long long seed);

// A 64-bit mix of the inputs (splitmix64), used to seed every random stream from (seed, ...).
uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c = 0, uint64_t d = 0);

} // namespace tapas::runtime::gan
