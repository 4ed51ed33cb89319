#pragma once
// The ParaGAN training loop (docs/paragan.md). Torch-free interface: the worker's entry point
// (gan_worker.cpp) includes this; the torch code stays in gan_trainer.cpp and gan_models.cpp.
#include "runtime/comm/communicator.h"
#include "runtime/gan/gan_data.h"
#include "runtime/gan/gan_options.h"
#include "runtime/metrics/metrics_sink.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace tapas::runtime::gan {

struct TrainerEnv {
    const GanOptions* options = nullptr;  // preset applied
    const DataSource* data = nullptr;
    Communicator* comm = nullptr;         // all ranks of the run
    MetricsSink* sink = nullptr;          // rank 0 only; null elsewhere
    std::vector<std::string> hosts;       // per rank (rank 0: all; others may be empty)
    const std::atomic<bool>* stopRequested = nullptr; // set by SIGTERM/SIGINT: checkpoint and stop
};

// Runs the whole training; returns the process exit code (0 finished or stopped, 1 failed).
// Every rank calls it; rank 0 writes metrics, samples and checkpoints.
int trainGan(TrainerEnv& env);

} // namespace tapas::runtime::gan
