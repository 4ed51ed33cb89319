#include "runtime/gan/gan_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tapas::runtime::gan {
namespace {
double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

DataPipeline::DataPipeline(const DataSource& source, int batchSize, int rank, int ranks, PipelineSettings s,
                           int64_t startIndex)
    : source_(source), batchSize_(batchSize), rank_(rank), ranks_(ranks), s_(s)
{
    nextTake_ = nextClaim_ = startIndex;
    active_ = std::clamp(s.threads, 1, s.maxThreads);
    prefetch_ = std::max(1, s.prefetch);
    // The pool holds the most threads adaptation may use; those above `active_` sleep.
    const int poolSize = s.adaptive ? s.maxThreads : active_;
    for (int i = 0; i < poolSize; ++i) pool_.emplace_back([this, i] { loaderLoop(i); });
}

DataPipeline::~DataPipeline()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : pool_) t.join();
}

void DataPipeline::loaderLoop(int id)
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        // A loader works while it is one of the active ones and the queue (ready plus in flight)
        // is below the prefetch depth.
        cv_.wait(lock, [&] { return stop_ || (id < active_ && nextClaim_ - nextTake_ < prefetch_); });
        if (stop_) return;
        const int64_t index = nextClaim_++;
        lock.unlock();
        const auto t0 = std::chrono::steady_clock::now();
        if (s_.ioLatencyMs > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(s_.ioLatencyMs));
        Result<Batch> b = source_.load(index, batchSize_, rank_, ranks_);
        const double took = secondsSince(t0);
        if (b) b->loadSeconds = took;
        lock.lock();
        winLoad_ += took;
        ++winLoads_;
        ready_.emplace(index, std::move(b));
        cv_.notify_all();
    }
}

Result<Batch> DataPipeline::next(double& waitSeconds)
{
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return ready_.count(nextTake_) > 0; });
    waitSeconds = secondsSince(t0);
    auto it = ready_.find(nextTake_);
    Result<Batch> b = std::move(it->second);
    ready_.erase(it);
    ++nextTake_;
    lastQueueDepth_ = int(ready_.size());
    winWait_ += waitSeconds;
    lock.unlock();
    cv_.notify_all();
    return b;
}

std::string DataPipeline::endStep(double stepSeconds)
{
    std::lock_guard<std::mutex> lock(mutex_);
    winStep_ += stepSeconds;
    if (++winSteps_ < s_.window) return {};
    const double starvation = winStep_ > 0 ? winWait_ / winStep_ : 0;
    const double latency = winLoads_ ? winLoad_ / winLoads_ : lastLatency_;
    const double computePerStep = std::max(1e-6, (winStep_ - winWait_) / winSteps_);
    lastLatency_ = latency;
    std::string note;
    if (s_.adaptive) {
        const int oldThreads = active_, oldPrefetch = prefetch_;
        if (starvation > 0.05) {
            // Enough loaders that one batch's latency is hidden behind the compute of the batches
            // in flight: latency / compute per step, plus one in reserve.
            // Right after a change the new loaders are still filling an empty queue, so that
            // window starves whatever the count; grow then only when the estimate asks for more,
            // otherwise every transient would add a loader.
            const int needed = int(std::ceil(latency / computePerStep)) + 1;
            const int floor = changedLastWindow_ ? active_ : active_ + 1;
            active_ = std::clamp(std::max(floor, needed), 1, s_.maxThreads);
            prefetch_ = std::clamp(std::max(prefetch_, 2 * active_), 1, 64);
        } else if (starvation < 0.005 && active_ > 1 && lastQueueDepth_ >= prefetch_ - 1) {
            // The queue stays full: one loader fewer frees a core for compute.
            const int needed = int(std::ceil(latency / computePerStep)) + 1;
            if (active_ > needed) --active_;
        }
        changedLastWindow_ = active_ != oldThreads || prefetch_ != oldPrefetch;
        if (changedLastWindow_)
            note = "pipeline: data wait " + std::to_string(int(std::lround(starvation * 100))) + "% of step time, load " +
                   std::to_string(int(std::lround(latency * 1000))) + " ms/batch -> loader threads " +
                   std::to_string(oldThreads) + " -> " + std::to_string(active_) + ", prefetch " +
                   std::to_string(oldPrefetch) + " -> " + std::to_string(prefetch_);
    }
    winWait_ = winStep_ = winLoad_ = 0;
    winSteps_ = winLoads_ = 0;
    cv_.notify_all();
    return note;
}

int64_t DataPipeline::position() const { std::lock_guard<std::mutex> l(mutex_); return nextTake_; }
int DataPipeline::threads() const { std::lock_guard<std::mutex> l(mutex_); return active_; }
int DataPipeline::prefetchDepth() const { std::lock_guard<std::mutex> l(mutex_); return prefetch_; }
int DataPipeline::queueDepth() const { std::lock_guard<std::mutex> l(mutex_); return lastQueueDepth_; }
double DataPipeline::meanLoadLatency() const { std::lock_guard<std::mutex> l(mutex_); return lastLatency_; }

} // namespace tapas::runtime::gan
