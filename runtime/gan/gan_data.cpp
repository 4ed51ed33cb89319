#include "runtime/gan/gan_data.h"

#include "runtime/gan/fashion_mnist.h"
#include "runtime/gan/gan_image_io.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>

namespace fs = std::filesystem;

namespace tapas::runtime::gan {

uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    auto mix = [](uint64_t z) {
        z += 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}

std::vector<Point2> mixtureModes(const std::string& name)
{
    std::vector<Point2> m;
    if (name == "ring8") {
        for (int i = 0; i < 8; ++i) m.push_back({std::cos(2 * M_PI * i / 8), std::sin(2 * M_PI * i / 8)});
    } else if (name == "grid25") {
        for (int i = -2; i <= 2; ++i)
            for (int j = -2; j <= 2; ++j) m.push_back({2.0 * i, 2.0 * j});
    }
    return m;
}

double mixtureStdOf(const std::string& name)
{
    if (name == "ring8") return 0.01;
    if (name == "grid25") return 0.05;
    return 0;
}

MixtureQuality evaluateMixture(const std::vector<float>& xy, const std::vector<Point2>& modes, double stddev)
{
    MixtureQuality q;
    q.perMode.assign(modes.size(), 0);
    const size_t n = xy.size() / 2;
    if (n == 0 || modes.empty()) return q;
    const double r2 = 9.0 * stddev * stddev;
    size_t good = 0;
    for (size_t i = 0; i < n; ++i) {
        double best = 1e300;
        size_t arg = 0;
        for (size_t m = 0; m < modes.size(); ++m) {
            const double dx = xy[2 * i] - modes[m].x, dy = xy[2 * i + 1] - modes[m].y;
            const double d2 = dx * dx + dy * dy;
            if (d2 < best) { best = d2; arg = m; }
        }
        if (best <= r2) { ++good; ++q.perMode[arg]; }
    }
    q.highQualityShare = double(good) / double(n);
    for (int c : q.perMode) {
        if (c == 0) continue;
        ++q.modesCovered;
        const double p = double(c) / double(good);
        q.reverseKl += p * std::log(p * double(modes.size()));
    }
    // No high-quality sample at all: the histogram is undefined; report the worst case a single
    // mode would give rather than a perfect 0.
    if (good == 0) q.reverseKl = std::log(double(modes.size()));
    return q;
}

namespace {

class MixtureSource : public DataSource {
public:
    MixtureSource(std::string name, double stddev, uint64_t seed)
        : name_(std::move(name)), modes_(mixtureModes(name_)), std_(stddev), seed_(seed) {}
    std::string name() const override { return name_; }
    int channels() const override { return 2; }
    int height() const override { return 1; }
    int width() const override { return 1; }
    int numClasses() const override { return 1; }
    bool isMixture() const override { return true; }
    Result<Batch> load(int64_t index, int batchSize, int rank, int) const override
    {
        Batch b;
        b.index = index;
        b.size = batchSize;
        std::mt19937_64 rng(mixSeed(seed_, 0xda7a, uint64_t(rank), uint64_t(index)));
        std::uniform_int_distribution<size_t> pick(0, modes_.size() - 1);
        std::normal_distribution<double> noise(0.0, std_);
        b.x.resize(size_t(batchSize) * 2);
        b.y.assign(size_t(batchSize), 0);
        for (int i = 0; i < batchSize; ++i) {
            const Point2& m = modes_[pick(rng)];
            b.x[2 * i] = float(m.x + noise(rng));
            b.x[2 * i + 1] = float(m.y + noise(rng));
        }
        return b;
    }

private:
    std::string name_;
    std::vector<Point2> modes_;
    double std_;
    uint64_t seed_;
};

// Coloured shapes on a coloured background; the shape kind is the class (circle, square, triangle).
class ShapesSource : public DataSource {
public:
    ShapesSource(int res, uint64_t seed) : res_(res), seed_(seed) {}
    std::string name() const override { return "shapes"; }
    int channels() const override { return 3; }
    int height() const override { return res_; }
    int width() const override { return res_; }
    int numClasses() const override { return 3; }
    Result<Batch> load(int64_t index, int batchSize, int rank, int) const override
    {
        Batch b;
        b.index = index;
        b.size = batchSize;
        const size_t plane = size_t(res_) * res_;
        b.x.assign(size_t(batchSize) * 3 * plane, 0.f);
        b.y.resize(size_t(batchSize));
        std::mt19937_64 rng(mixSeed(seed_, 0x5ba9e, uint64_t(rank), uint64_t(index)));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (int i = 0; i < batchSize; ++i) {
            const int kind = int(u(rng) * 3) % 3;
            b.y[i] = kind;
            float bg[3], fg[3];
            for (int c = 0; c < 3; ++c) bg[c] = float(u(rng) * 0.6 - 0.9);  // dark background
            for (int c = 0; c < 3; ++c) fg[c] = float(u(rng) * 1.2 - 0.2);  // brighter shape
            const double cx = (0.3 + 0.4 * u(rng)) * res_, cy = (0.3 + 0.4 * u(rng)) * res_;
            const double r = (0.15 + 0.15 * u(rng)) * res_;
            float* img = b.x.data() + size_t(i) * 3 * plane;
            for (int yy = 0; yy < res_; ++yy)
                for (int xx = 0; xx < res_; ++xx) {
                    const double dx = xx + 0.5 - cx, dy = yy + 0.5 - cy;
                    bool in = false;
                    if (kind == 0) in = dx * dx + dy * dy <= r * r;
                    else if (kind == 1) in = std::abs(dx) <= r && std::abs(dy) <= r;
                    else in = dy <= r && dy >= -r && std::abs(dx) <= (dy + r) * 0.5; // apex up
                    for (int c = 0; c < 3; ++c) img[c * plane + size_t(yy) * res_ + xx] = in ? fg[c] : bg[c];
                }
        }
        return b;
    }

private:
    int res_;
    uint64_t seed_;
};

// Files found once at start; each epoch visits them in a permutation drawn from (seed, epoch),
// and rank r of R reads the positions r, r + R, ... of the global order (no two ranks overlap).
class FolderSource : public DataSource {
public:
    FolderSource(std::vector<std::string> files, std::vector<int64_t> labels, int classes, int res, uint64_t seed)
        : files_(std::move(files)), labels_(std::move(labels)), classes_(classes), res_(res), seed_(seed) {}
    std::string name() const override { return "folder"; }
    int channels() const override { return 3; }
    int height() const override { return res_; }
    int width() const override { return res_; }
    int numClasses() const override { return classes_; }
    size_t datasetSize() const override { return files_.size(); }
    Result<Batch> load(int64_t index, int batchSize, int rank, int ranks) const override
    {
        Batch b;
        b.index = index;
        b.size = batchSize;
        const size_t plane = size_t(3) * res_ * res_;
        b.x.resize(size_t(batchSize) * plane);
        b.y.resize(size_t(batchSize));
        for (int i = 0; i < batchSize; ++i) {
            const uint64_t pos = (uint64_t(index) * batchSize + i) * uint64_t(ranks) + uint64_t(rank);
            const size_t file = permuted(pos / files_.size(), pos % files_.size());
            Result<std::vector<float>> img = loadImageRgb(files_[file], res_);
            if (!img) return Result<Batch>::failure(img.error());
            std::copy(img->begin(), img->end(), b.x.begin() + long(i * plane));
            b.y[i] = labels_[file];
        }
        return b;
    }

private:
    size_t permuted(uint64_t epoch, size_t k) const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (epoch != permEpoch_ || perm_.empty()) {
            perm_.resize(files_.size());
            std::iota(perm_.begin(), perm_.end(), size_t(0));
            std::mt19937_64 rng(mixSeed(seed_, 0xf01de4, epoch));
            std::shuffle(perm_.begin(), perm_.end(), rng);
            permEpoch_ = epoch;
        }
        return perm_[k];
    }
    std::vector<std::string> files_;
    std::vector<int64_t> labels_;
    int classes_, res_;
    uint64_t seed_;
    mutable std::mutex mutex_;
    mutable std::vector<size_t> perm_;
    mutable uint64_t permEpoch_ = ~0ULL;
};

Result<std::unique_ptr<DataSource>> makeFolder(const GanOptions& o, uint64_t seed)
{
    using R = Result<std::unique_ptr<DataSource>>;
    std::error_code ec;
    if (!fs::exists(o.dataDir, ec)) return R::failure("image folder '" + o.dataDir + "' does not exist");
    if (!fs::is_directory(o.dataDir, ec)) return R::failure("image folder '" + o.dataDir + "' is not a folder");
    std::vector<std::string> files;
    std::vector<int64_t> labels;
    // Top-level images are class 0 when there are no class sub-folders; each sub-folder with
    // images is one class, in name order.
    std::vector<fs::path> top, dirs;
    for (const auto& e : fs::directory_iterator(o.dataDir, ec)) {
        if (e.is_directory()) dirs.push_back(e.path());
        else if (e.is_regular_file() && isImageFileName(e.path().filename().string())) top.push_back(e.path());
    }
    std::sort(top.begin(), top.end());
    std::sort(dirs.begin(), dirs.end());
    int classes = 0;
    for (const fs::path& d : dirs) {
        std::vector<fs::path> in;
        for (const auto& e : fs::recursive_directory_iterator(d, ec))
            if (e.is_regular_file() && isImageFileName(e.path().filename().string())) in.push_back(e.path());
        if (in.empty()) continue;
        std::sort(in.begin(), in.end());
        for (const fs::path& p : in) { files.push_back(p.string()); labels.push_back(classes); }
        ++classes;
    }
    if (classes == 0) {
        for (const fs::path& p : top) { files.push_back(p.string()); labels.push_back(0); }
        classes = 1;
    } else if (!top.empty()) {
        for (const fs::path& p : top) { files.push_back(p.string()); labels.push_back(classes); }
        ++classes; // loose top-level files become one more class
    }
    if (files.empty()) return R::failure("image folder '" + o.dataDir + "' holds no PNG or JPEG images");
    // Decode the first file now so a folder of unreadable files fails at start, not mid-run.
    if (Result<std::vector<float>> first = loadImageRgb(files.front(), o.resolution); !first)
        return R::failure(first.error());
    return std::unique_ptr<DataSource>(new FolderSource(std::move(files), std::move(labels), classes, o.resolution, seed));
}

} // namespace

Result<std::unique_ptr<DataSource>> makeDataSource(const GanOptions& o, unsigned long long seed)
{
    using R = Result<std::unique_ptr<DataSource>>;
    if (o.data == "ring8" || o.data == "grid25")
        return std::unique_ptr<DataSource>(new MixtureSource(o.data, o.mixtureStd, seed));
    if (o.data == "shapes") return std::unique_ptr<DataSource>(new ShapesSource(o.resolution, seed));
    if (o.data == "fashion-mnist") return makeFashionMnistSource(o.dataDir, seed);
    if (o.data == "folder") return makeFolder(o, seed);
    return R::failure("unknown data set '" + o.data + "' (known: ring8, grid25, shapes, folder)");
}

} // namespace tapas::runtime::gan
