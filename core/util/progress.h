#pragma once
// Long core operations (import, fold, search, layout) report progress and can be cancelled.
// The GUI runs them on a worker thread and flips the cancel flag from the GUI thread.
#include <atomic>
#include <functional>
#include <string_view>

namespace tapas {

struct Progress {
    // fraction in [0,1]; stage is a short human label ("parsing", "shape inference", ...)
    std::function<void(double fraction, std::string_view stage)> report;
    const std::atomic<bool>* cancel = nullptr;

    void operator()(double fraction, std::string_view stage) const {
        if (report) report(fraction, stage);
    }
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

} // namespace tapas
