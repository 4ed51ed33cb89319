// The Fashion-MNIST quality classifier (torch) and the metrics computed with it.
#include <torch/torch.h>

#include "runtime/gan/fashion_quality.h"

#include "runtime/gan/fashion_mnist.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tapas::runtime::gan {
namespace {

constexpr int kFeatures = 128;
constexpr int64_t kFloorSamples = 10000;
constexpr const char* kCacheFile = "fashion_mnist_classifier_v1.pt";

// Two conv blocks and a 128-unit feature layer: small enough to train on the CPU in a minute or
// two (3 epochs) and to reach about 91% test accuracy, the level of the data set's published
// two-layer CNN baselines.
struct ClassifierImpl : torch::nn::Module {
    ClassifierImpl()
    {
        conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).padding(1)));
        bn1 = register_module("bn1", torch::nn::BatchNorm2d(16));
        conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)));
        bn2 = register_module("bn2", torch::nn::BatchNorm2d(32));
        fc1 = register_module("fc1", torch::nn::Linear(32 * 8 * 8, kFeatures));
        fc2 = register_module("fc2", torch::nn::Linear(kFeatures, kFashionMnistClasses));
    }
    torch::Tensor features(torch::Tensor x)
    {
        x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 2);
        x = torch::max_pool2d(torch::relu(bn2(conv2(x))), 2);
        return torch::relu(fc1(x.flatten(1)));
    }
    torch::Tensor forward(torch::Tensor x) { return fc2(features(std::move(x))); }
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Classifier);

torch::Tensor asTensor(const std::vector<float>& x, int64_t n)
{
    return torch::from_blob(const_cast<float*>(x.data()), {n, 1, kFashionMnistSide, kFashionMnistSide}, torch::kFloat);
}

void train(Classifier& net, const ImageSet& set, const std::function<void(const std::string&)>& log)
{
    torch::manual_seed(20170825); // Fashion-MNIST's release date: any fixed seed, the same model each time
    net->train();
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(2e-3));
    const int64_t n = set.count, batch = 128;
    const auto x = asTensor(set.x, n);
    const auto y = torch::from_blob(const_cast<int64_t*>(set.y.data()), {n}, torch::kLong);
    const int epochs = 3;
    for (int e = 0; e < epochs; ++e) {
        // The last epoch at a tenth of the rate settles the weights (about +1% test accuracy).
        for (auto& g : opt.param_groups())
            static_cast<torch::optim::AdamOptions&>(g.options()).lr(e + 1 == epochs ? 2e-4 : 2e-3);
        const auto perm = torch::randperm(n, torch::kLong);
        double lossSum = 0;
        int64_t batches = 0;
        for (int64_t i = 0; i + batch <= n; i += batch) {
            const auto idx = perm.narrow(0, i, batch);
            opt.zero_grad();
            const auto loss = torch::nn::functional::cross_entropy(net->forward(x.index_select(0, idx)), y.index_select(0, idx));
            loss.backward();
            opt.step();
            lossSum += loss.item<double>();
            ++batches;
        }
        if (log) log("quality classifier: epoch " + std::to_string(e + 1) + "/" + std::to_string(epochs) + ", training loss " +
                     std::to_string(lossSum / double(std::max<int64_t>(batches, 1))));
    }
    net->eval();
}

// Logits and features of `x` (n x 1 x 32 x 32) in batches, without gradients.
std::pair<torch::Tensor, torch::Tensor> run(Classifier& net, const torch::Tensor& x)
{
    torch::NoGradGuard ng;
    std::vector<torch::Tensor> logits, feats;
    for (int64_t i = 0; i < x.size(0); i += 1000) {
        const auto part = x.narrow(0, i, std::min<int64_t>(1000, x.size(0) - i));
        const auto f = net->features(part);
        feats.push_back(f.to(torch::kDouble));
        logits.push_back(net->fc2(f));
    }
    return {torch::cat(logits), torch::cat(feats)};
}

struct Gaussian {
    torch::Tensor mean, cov; // double
};

Gaussian fit(const torch::Tensor& f)
{
    const auto mu = f.mean(0);
    const auto c = f - mu;
    return {mu, c.t().mm(c) / double(std::max<int64_t>(f.size(0) - 1, 1))};
}

// Fréchet distance of two Gaussians: |mu1 - mu2|^2 + tr(S1 + S2 - 2 (S1 S2)^1/2). The trace of the
// square root is taken through the symmetric S1^1/2 S2 S1^1/2, whose eigenvalues are those of S1 S2,
// so only symmetric eigendecompositions are needed (stable where S1 S2 is not symmetric).
double frechet(const Gaussian& a, const Gaussian& b)
{
    auto [la, va] = torch::linalg::eigh(a.cov, "L");
    const auto rootA = va.mm(torch::diag(la.clamp_min(0).sqrt())).mm(va.t());
    const auto m = rootA.mm(b.cov).mm(rootA);
    const auto lm = std::get<0>(torch::linalg::eigh((m + m.t()) / 2, "L"));
    const double trRoot = lm.clamp_min(0).sqrt().sum().item<double>();
    const double d2 = (a.mean - b.mean).pow(2).sum().item<double>();
    return d2 + a.cov.trace().item<double>() + b.cov.trace().item<double>() - 2 * trRoot;
}

} // namespace

struct FashionQuality::Impl {
    Classifier net;
    Gaussian test;
    double accuracy = 0, floor = 0;
    bool trainedNow = false;
};

FashionQuality::FashionQuality() : d_(std::make_unique<Impl>()) {}
FashionQuality::~FashionQuality() = default;
double FashionQuality::testAccuracy() const { return d_->accuracy; }
double FashionQuality::frechetFloor() const { return d_->floor; }
bool FashionQuality::trainedNow() const { return d_->trainedNow; }

std::string defaultClassifierCache()
{
    std::string dir;
    if (const char* t = std::getenv("TAPAS_CACHE_DIR"); t && *t) dir = t;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = std::string(x) + "/tapas";
    else if (const char* h = std::getenv("HOME"); h && *h) dir = std::string(h) + "/.cache/tapas";
    else dir = fs::temp_directory_path().string() + "/tapas-cache";
    return dir + "/" + kCacheFile;
}

Result<std::unique_ptr<FashionQuality>> FashionQuality::open(const std::string& dataDir, const std::string& cachePath,
                                                             const std::function<void(const std::string&)>& log)
{
    using R = Result<std::unique_ptr<FashionQuality>>;
    std::unique_ptr<FashionQuality> q(new FashionQuality());
    Impl& d = *q->d_;
    const std::string cache = cachePath.empty() ? defaultClassifierCache() : cachePath;
    Result<ImageSet> test = loadFashionMnistSplit(dataDir, "test");
    if (!test) return R::failure(test.error());
    std::error_code ec;
    bool loaded = false;
    if (fs::exists(cache, ec)) {
        try {
            torch::load(d.net, cache);
            d.net->eval();
            loaded = true;
        } catch (const c10::Error& e) {
            // A damaged or older cache is rebuilt, not trusted; say so, since training takes a while.
            if (log) log("quality classifier cache '" + cache + "' cannot be read (" + e.what_without_backtrace() + "); training a new one");
            d.net = Classifier();
        }
    }
    // The floor needs only the first 10,000 training images; all 60,000 (245 MB as floats) only
    // when the classifier has to be trained.
    Result<ImageSet> trainSet = loadFashionMnistSplit(dataDir, "train", loaded ? kFloorSamples : 0);
    if (!trainSet) return R::failure(trainSet.error());
    if (!loaded) {
        if (log) log("quality classifier: training on the 60,000 Fashion-MNIST training images (cached in " + cache + ")");
        train(d.net, *trainSet, log);
        d.trainedNow = true;
        // Write beside the final name and rename: two runs training at once never leave half a file.
        fs::create_directories(fs::path(cache).parent_path(), ec);
        const std::string tmp = cache + ".tmp-" + std::to_string(::getpid());
        try {
            torch::save(d.net, tmp);
            fs::rename(tmp, cache, ec);
            if (ec && log) log("quality classifier: cannot cache it as '" + cache + "': " + ec.message());
        } catch (const c10::Error& e) {
            if (log) log("quality classifier: cannot cache it as '" + cache + "': " + e.what_without_backtrace());
        }
        fs::remove(tmp, ec);
    }
    auto [logits, feats] = run(d.net, asTensor(test->x, test->count));
    const auto labels = torch::from_blob(test->y.data(), {test->count}, torch::kLong);
    d.accuracy = logits.argmax(1).eq(labels).to(torch::kDouble).mean().item<double>();
    d.test = fit(feats);
    const int64_t nFloor = std::min<int64_t>(kFloorSamples, trainSet->count);
    auto trainFeats = run(d.net, asTensor(trainSet->x, trainSet->count).narrow(0, 0, nFloor)).second;
    d.floor = frechet(fit(trainFeats), d.test);
    return q;
}

ImageQuality FashionQuality::measure(const std::vector<float>& images, int64_t n) const
{
    ImageQuality r;
    r.samples = int(n);
    r.perClass.assign(kFashionMnistClasses, 0);
    if (n <= 1) return r;
    auto [logits, feats] = run(d_->net, asTensor(images, n));
    const auto counts = torch::bincount(logits.argmax(1), {}, kFashionMnistClasses);
    const double uniform = double(n) / kFashionMnistClasses;
    for (int c = 0; c < kFashionMnistClasses; ++c) {
        const int k = int(counts[c].item<int64_t>());
        r.perClass[size_t(c)] = k;
        if (k >= 0.1 * uniform) ++r.classesCovered;
        if (k > 0) {
            const double p = double(k) / double(n);
            r.classKl += p * std::log(p * kFashionMnistClasses);
        }
    }
    r.frechet = frechet(fit(feats), d_->test);
    return r;
}

} // namespace tapas::runtime::gan
