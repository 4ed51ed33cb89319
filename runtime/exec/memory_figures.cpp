#include "runtime/exec/memory_figures.h"

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <fstream>
#include <limits>
#include <mutex>
#include <string>
#include <unistd.h>
#include <unordered_map>

namespace tapas::runtime {

double peakResidentBytes()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmHWM:") {
            double kb = 0;
            in >> kb;
            return kb * 1024.0;
        }
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return 0;
}

double residentBytes()
{
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE));
}

namespace {

std::atomic<int64_t> g_now{0};
std::atomic<int64_t> g_peak{0};

// Wraps the default CPU allocator. The data pointer is its own context (as with the default), so
// raw_allocate/raw_deleter keep working; the size of each live block is kept in a table because
// the deleter receives only the pointer.
class CountingCpuAllocator final : public c10::Allocator {
public:
    explicit CountingCpuAllocator(c10::Allocator* base) : base_(base), baseDelete_(base->raw_deleter()) {}

    c10::DataPtr allocate(size_t n) const override
    {
        c10::DataPtr inner = base_->allocate(n);
        void* p = inner.get();
        // Only blocks the default hands out as plain pointers can be re-wrapped; anything else
        // (none in libtorch 1.13's CPU allocator) is passed through uncounted.
        if (!p || inner.get_context() != p || inner.get_deleter() != baseDelete_) return inner;
        inner.release_context();
        add(p, int64_t(n));
        return {p, p, &release, inner.device()};
    }

    c10::DeleterFnPtr raw_deleter() const override { return &release; }

    static void release(void* p)
    {
        if (!p) return;
        const CountingCpuAllocator* self = instance();
        {
            std::lock_guard<std::mutex> lock(self->mutex_);
            auto it = self->sizes_.find(p);
            if (it != self->sizes_.end()) {
                g_now -= it->second;
                self->sizes_.erase(it);
            }
        }
        self->baseDelete_(p);
    }

    static CountingCpuAllocator*& instanceSlot()
    {
        static CountingCpuAllocator* slot = nullptr;
        return slot;
    }
    static const CountingCpuAllocator* instance() { return instanceSlot(); }

private:
    void add(void* p, int64_t n) const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sizes_[p] = n;
        const int64_t now = (g_now += n);
        if (now > g_peak) g_peak = now;
    }

    c10::Allocator* base_;
    c10::DeleterFnPtr baseDelete_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<void*, int64_t> sizes_;
};

} // namespace

void countTensorMemory()
{
    static std::once_flag once;
    std::call_once(once, [] {
        c10::Allocator* base = c10::GetCPUAllocator();
        // Without a raw deleter the default's blocks could not be re-wrapped: leave it alone.
        if (!base || !base->raw_deleter()) return;
        // Lives as long as the process: tensors may be freed during static destruction.
        auto* counting = new CountingCpuAllocator(base);
        CountingCpuAllocator::instanceSlot() = counting;
        c10::SetCPUAllocator(counting, /*priority=*/1);
    });
}

double tensorBytesNow() { return double(g_now.load()); }
double tensorBytesPeak() { return double(g_peak.load()); }
void resetTensorBytesPeak() { g_peak = g_now.load(); }

} // namespace tapas::runtime
