#pragma once
// ParaGAN's congestion-aware data pipeline: loader threads fill a bounded prefetch queue; each
// step measures how long it waited for data (starvation) and how long a batch takes to load
// (latency); every few steps the pipeline adapts the number of loader threads and the prefetch
// depth to those measurements (or keeps them fixed: static mode). Batches come out strictly in
// index order whatever the thread count, so adapting never changes what trains.
#include "runtime/gan/gan_data.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace tapas::runtime::gan {

struct PipelineSettings {
    int threads = 1;
    int prefetch = 2;
    bool adaptive = true;
    double ioLatencyMs = 0;   // injected per batch, on the loader thread (as a slow disk would)
    int maxThreads = 8;
    int window = 5;           // steps between adaptation decisions
};

class DataPipeline {
public:
    DataPipeline(const DataSource& source, int batchSize, int rank, int ranks, PipelineSettings s, int64_t startIndex);
    ~DataPipeline();
    DataPipeline(const DataPipeline&) = delete;
    DataPipeline& operator=(const DataPipeline&) = delete;

    // The next batch in index order; `waitSeconds` receives the time spent blocked.
    Result<Batch> next(double& waitSeconds);
    // Called once per training step with that step's wall time; adapts every `window` steps.
    // Returns a sentence when it changed something (for the log), else empty.
    std::string endStep(double stepSeconds);

    int64_t position() const;      // index of the next batch next() returns (checkpointed)
    int threads() const;
    int prefetchDepth() const;
    int queueDepth() const;        // ready batches when the last next() returned
    double meanLoadLatency() const; // seconds per batch over the last window

private:
    void loaderLoop(int id);

    const DataSource& source_;
    int batchSize_, rank_, ranks_;
    PipelineSettings s_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::map<int64_t, Result<Batch>> ready_;
    int64_t nextTake_ = 0, nextClaim_ = 0;
    int active_ = 1, prefetch_ = 2, lastQueueDepth_ = 0;
    bool stop_ = false;
    std::vector<std::thread> pool_;
    // window measurements
    double winWait_ = 0, winStep_ = 0, winLoad_ = 0, lastLatency_ = 0;
    int winSteps_ = 0, winLoads_ = 0;
    bool changedLastWindow_ = false; // the last decision changed threads or prefetch
};

} // namespace tapas::runtime::gan
