#include "runtime/gan/fashion_mnist.h"

#include "runtime/gan/idx_file.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>

namespace tapas::runtime::gan {
namespace {

constexpr int kSide = 28, kPad = (kFashionMnistSide - kSide) / 2;

std::string fileOf(const std::string& dir, const std::string& split, const char* what)
{
    const std::string base = dir.empty() ? std::string(kFashionMnistDefaultDir) : dir;
    const std::string stem = (split == "train" ? "train" : "t10k") + std::string("-") + what;
    // The package ships .gz files; an unpacked copy (another distribution's layout) works too.
    for (const char* ext : {"-ubyte.gz", "-ubyte", ".idx3-ubyte", ".idx1-ubyte"}) {
        const std::string p = base + "/" + stem + ext;
        std::error_code ec;
        if (std::filesystem::exists(p, ec)) return p;
    }
    return base + "/" + stem + "-ubyte.gz";
}

// One 28 x 28 byte image into a 32 x 32 float plane: 0 (background) -> -1, 255 -> 1.
void padInto(const uint8_t* src, float* dst)
{
    std::fill(dst, dst + kFashionMnistSide * kFashionMnistSide, -1.f);
    for (int r = 0; r < kSide; ++r)
        for (int c = 0; c < kSide; ++c)
            dst[(r + kPad) * kFashionMnistSide + c + kPad] = float(src[r * kSide + c]) / 127.5f - 1.f;
}

class FashionMnistSource : public DataSource {
public:
    FashionMnistSource(IdxArray images, IdxArray labels, uint64_t seed)
        : images_(std::move(images)), labels_(std::move(labels)), seed_(seed) {}
    std::string name() const override { return "fashion-mnist"; }
    int channels() const override { return 1; }
    int height() const override { return kFashionMnistSide; }
    int width() const override { return kFashionMnistSide; }
    int numClasses() const override { return kFashionMnistClasses; }
    size_t datasetSize() const override { return size_t(images_.dims[0]); }
    Result<Batch> load(int64_t index, int batchSize, int rank, int ranks) const override
    {
        Batch b;
        b.index = index;
        b.size = batchSize;
        const size_t plane = size_t(kFashionMnistSide) * kFashionMnistSide, n = datasetSize();
        b.x.resize(size_t(batchSize) * plane);
        b.y.resize(size_t(batchSize));
        for (int i = 0; i < batchSize; ++i) {
            const uint64_t pos = (uint64_t(index) * uint64_t(batchSize) + uint64_t(i)) * uint64_t(ranks) + uint64_t(rank);
            const size_t k = permuted(pos / n, pos % n);
            padInto(images_.values.data() + k * size_t(kSide * kSide), b.x.data() + size_t(i) * plane);
            b.y[size_t(i)] = labels_.values[k];
        }
        return b;
    }

private:
    size_t permuted(uint64_t epoch, size_t k) const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (epoch != permEpoch_ || perm_.empty()) {
            perm_.resize(datasetSize());
            std::iota(perm_.begin(), perm_.end(), size_t(0));
            std::mt19937_64 rng(mixSeed(seed_, 0xfa5410, epoch));
            std::shuffle(perm_.begin(), perm_.end(), rng);
            permEpoch_ = epoch;
        }
        return perm_[k];
    }
    IdxArray images_, labels_;
    uint64_t seed_;
    mutable std::mutex mutex_;
    mutable std::vector<size_t> perm_;
    mutable uint64_t permEpoch_ = ~0ULL;
};

struct RawSplit {
    IdxArray images, labels;
};

Result<RawSplit> readSplit(const std::string& dir, const std::string& split, int64_t maxItems)
{
    using R = Result<RawSplit>;
    if (split != "train" && split != "test") return R::failure("Fashion-MNIST has no split '" + split + "' (train or test)");
    const std::string imgPath = fileOf(dir, split, "images-idx3"), labPath = fileOf(dir, split, "labels-idx1");
    std::error_code ec;
    if (!std::filesystem::exists(imgPath, ec))
        return R::failure("Fashion-MNIST file '" + imgPath + "' does not exist (install Debian's dataset-fashion-mnist, "
                          "or pass --data-dir with the IDX files)");
    Result<IdxArray> img = readIdxFile(imgPath, maxItems);
    if (!img) return R::failure(img.error());
    Result<IdxArray> lab = readIdxFile(labPath, maxItems);
    if (!lab) return R::failure(lab.error());
    if (img->dims.size() != 3 || img->dims[1] != kSide || img->dims[2] != kSide)
        return R::failure("Fashion-MNIST file '" + imgPath + "': images are not 28 x 28");
    if (lab->dims.size() != 1 || lab->dims[0] != img->dims[0])
        return R::failure("Fashion-MNIST file '" + labPath + "': " + std::to_string(lab->dims[0]) + " labels for " +
                          std::to_string(img->dims[0]) + " images");
    for (size_t i = 0; i < lab->values.size(); ++i)
        if (lab->values[i] >= kFashionMnistClasses)
            return R::failure("Fashion-MNIST file '" + labPath + "': label " + std::to_string(int(lab->values[i])) +
                              " of entry " + std::to_string(i) + " is not a class 0-9");
    return RawSplit{std::move(*img), std::move(*lab)};
}

} // namespace

Result<ImageSet> loadFashionMnistSplit(const std::string& dir, const std::string& split, int64_t maxItems)
{
    Result<RawSplit> raw = readSplit(dir, split, maxItems);
    if (!raw) return Result<ImageSet>::failure(raw.error());
    ImageSet s;
    s.count = raw->images.dims[0];
    const size_t plane = size_t(kFashionMnistSide) * kFashionMnistSide;
    s.x.resize(size_t(s.count) * plane);
    s.y.resize(size_t(s.count));
    for (int64_t i = 0; i < s.count; ++i) {
        padInto(raw->images.values.data() + size_t(i) * size_t(kSide * kSide), s.x.data() + size_t(i) * plane);
        s.y[size_t(i)] = raw->labels.values[size_t(i)];
    }
    return s;
}

Result<std::unique_ptr<DataSource>> makeFashionMnistSource(const std::string& dir, uint64_t seed)
{
    using R = Result<std::unique_ptr<DataSource>>;
    Result<RawSplit> raw = readSplit(dir, "train", 0);
    if (!raw) return R::failure(raw.error());
    return std::unique_ptr<DataSource>(new FashionMnistSource(std::move(raw->images), std::move(raw->labels), seed));
}

} // namespace tapas::runtime::gan
