#pragma once
// CPU time, for measurements on a machine whose cores other processes share: wall time would
// also count the time spent waiting for a core. POSIX clocks; no Qt, MPI or torch.
#include <ctime>

namespace tapas {

namespace detail {
inline double clockSeconds(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
} // namespace detail

// CPU seconds the calling thread has used (one core's worth of work: a search, or a torch op
// on one intra-op thread).
inline double threadCpuSeconds() { return detail::clockSeconds(CLOCK_THREAD_CPUTIME_ID); }

// CPU seconds the whole process has used (every thread: MPI's progress threads, spinning waits).
inline double processCpuSeconds() { return detail::clockSeconds(CLOCK_PROCESS_CPUTIME_ID); }

} // namespace tapas
