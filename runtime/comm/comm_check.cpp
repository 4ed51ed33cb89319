// `tapas-worker comm-check` (see comm_check.h). The MPI world communicator is the control path
// (agreeing on failures, the reference results, the timings' max over ranks); the communicator
// under test works on host buffers (mpi) or device buffers (nccl).
#include "runtime/comm/comm_check.h"
#include "runtime/comm/comm_check_options.h"

#include "runtime/comm/communicator.h"
#include "runtime/mpi_context.h"
#include "runtime/worker_options.h"
#ifdef TAPAS_WITH_CUDA
#include "runtime/cuda/nccl_communicator.h"
#endif

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tapas::runtime {

namespace {

// Host memory for mpi, device memory for nccl; get/set always move whole host vectors.
template <class T>
class Buffer {
public:
    Buffer(size_t n, bool onDevice) : host_(n)
    {
#ifdef TAPAS_WITH_CUDA
        if (onDevice)
            device_ = std::make_unique<cuda::DeviceBuffer>(n * sizeof(T));
#endif
    }
    T* data()
    {
#ifdef TAPAS_WITH_CUDA
        if (device_)
            return static_cast<T*>(device_->data());
#endif
        return host_.data();
    }
    void set(const std::vector<T>& v)
    {
        host_ = v;
#ifdef TAPAS_WITH_CUDA
        if (device_)
            device_->upload(v.data(), v.size() * sizeof(T));
#endif
    }
    std::vector<T> get()
    {
#ifdef TAPAS_WITH_CUDA
        if (device_)
            device_->download(host_.data(), host_.size() * sizeof(T));
#endif
        return host_;
    }

private:
    std::vector<T> host_;
#ifdef TAPAS_WITH_CUDA
    std::unique_ptr<cuda::DeviceBuffer> device_;
#endif
};

// Quarter-integers in [-12.5, 12.5]: sums over any number of ranks a float can count are exact,
// so the expected value does not depend on the backend's reduction order.
float sumValue(int rank, size_t i, int seed)
{
    return float(int((i * 31 + size_t(rank) * 17 + size_t(seed) * 7) % 101) - 50) * 0.25f;
}
// Distinct for each (sender, receiver, element), so a block delivered to the wrong rank shows.
float a2aValue(int sender, int receiver, size_t i)
{
    return float((size_t(sender) * 131 + size_t(receiver) * 37 + i * 7) % 1009);
}
double maxValue(int rank, size_t i)
{
    return double((i * 13 + size_t(rank) * 29) % 97) + rank * 0.5;
}

template <class T>
std::optional<std::string> firstMismatch(const std::vector<T>& got, const std::vector<T>& want)
{
    if (got.size() != want.size())
        return "result has " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i]) { // exact: every expected value is exactly representable
            std::ostringstream s;
            s << "element " << i << " is " << got[i] << " but expected " << want[i];
            return s.str();
        }
    return std::nullopt;
}

// Runs the collective under test on its own buffers (on `device` memory or not) and returns
// what this rank got, as doubles so float and double collectives share one table.
using Op = std::function<std::vector<double>(Communicator& comm, bool device)>;

template <class T>
std::vector<double> widen(const std::vector<T>& v)
{
    return std::vector<double>(v.begin(), v.end());
}

struct Check {
    std::string name;
    Op op;
    std::vector<double> expected;
};

std::vector<Check> makeChecks(int rank, int n, size_t count, bool device)
{
    std::vector<Check> checks;
    const size_t all = size_t(n) * count;
    {
        std::vector<double> want(count, 0.0);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[i] += sumValue(r, i, 1);
        checks.push_back({"allReduceSum", [=](Communicator& c, bool dev) {
                              std::vector<float> in(count);
                              for (size_t i = 0; i < count; ++i) in[i] = sumValue(rank, i, 1);
                              Buffer<float> b(count, dev);
                              b.set(in);
                              c.allReduceSum(b.data(), count);
                              return widen(b.get());
                          },
                          want});
    }
    {
        std::vector<double> want(count, 0.0);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[i] += sumValue(r, i, 2);
        checks.push_back({"allReduceSumAsync", [=](Communicator& c, bool dev) {
                              std::vector<float> in(count);
                              for (size_t i = 0; i < count; ++i) in[i] = sumValue(rank, i, 2);
                              Buffer<float> b(count, dev);
                              b.set(in);
                              auto pending = c.allReduceSumAsync(b.data(), count);
                              pending->test(); // polling before completion must be harmless
                              pending->wait();
                              if (!pending->test())
                                  return std::vector<double>{}; // shows as a size mismatch
                              return widen(b.get());
                          },
                          want});
    }
    {
        std::vector<double> want(all);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[size_t(r) * count + i] = sumValue(r, i, 3);
        checks.push_back({"allGather", [=](Communicator& c, bool dev) {
                              std::vector<float> in(count);
                              for (size_t i = 0; i < count; ++i) in[i] = sumValue(rank, i, 3);
                              Buffer<float> bin(count, dev), bout(all, dev);
                              bin.set(in);
                              bout.set(std::vector<float>(all, -1000.0f));
                              c.allGather(bin.data(), count, bout.data());
                              return widen(bout.get());
                          },
                          want});
    }
    {
        std::vector<double> want(count, 0.0);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[i] += sumValue(r, size_t(rank) * count + i, 4);
        checks.push_back({"reduceScatterSum", [=](Communicator& c, bool dev) {
                              std::vector<float> in(all);
                              for (size_t j = 0; j < all; ++j) in[j] = sumValue(rank, j, 4);
                              Buffer<float> bin(all, dev), bout(count, dev);
                              bin.set(in);
                              c.reduceScatterSum(bin.data(), count, bout.data());
                              return widen(bout.get());
                          },
                          want});
    }
    // In place, as the sharded optimizer runs them: this rank's block of one buffer is the
    // gather's input and the reduce-scatter's output.
    {
        std::vector<double> want(all);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[size_t(r) * count + i] = sumValue(r, i, 7);
        checks.push_back({"allGather(in place)", [=](Communicator& c, bool dev) {
                              std::vector<float> in(all, -1000.0f);
                              for (size_t i = 0; i < count; ++i) in[size_t(rank) * count + i] = sumValue(rank, i, 7);
                              Buffer<float> b(all, dev);
                              b.set(in);
                              c.allGather(b.data() + size_t(rank) * count, count, b.data());
                              return widen(b.get());
                          },
                          want});
    }
    {
        std::vector<double> want(count, 0.0);
        for (int r = 0; r < n; ++r)
            for (size_t i = 0; i < count; ++i) want[i] += sumValue(r, size_t(rank) * count + i, 8);
        checks.push_back({"reduceScatterSum(in place)", [=](Communicator& c, bool dev) {
                              std::vector<float> in(all);
                              for (size_t j = 0; j < all; ++j) in[j] = sumValue(rank, j, 8);
                              Buffer<float> b(all, dev);
                              b.set(in);
                              c.reduceScatterSum(b.data(), count, b.data() + size_t(rank) * count);
                              const std::vector<float> whole = b.get();
                              return widen(std::vector<float>(whole.begin() + std::ptrdiff_t(size_t(rank) * count),
                                                              whole.begin() + std::ptrdiff_t(size_t(rank + 1) * count)));
                          },
                          want});
    }
    {
        std::vector<double> want(all);
        for (int s = 0; s < n; ++s)
            for (size_t i = 0; i < count; ++i) want[size_t(s) * count + i] = a2aValue(s, rank, i);
        checks.push_back({"allToAll", [=](Communicator& c, bool dev) {
                              std::vector<float> in(all);
                              for (int to = 0; to < n; ++to)
                                  for (size_t i = 0; i < count; ++i) in[size_t(to) * count + i] = a2aValue(rank, to, i);
                              Buffer<float> bin(all, dev), bout(all, dev);
                              bin.set(in);
                              c.allToAll(bin.data(), count, bout.data());
                              return widen(bout.get());
                          },
                          want});
    }
    {
        const int root = n - 1; // not 0, so a backend that ignores `root` fails
        std::vector<double> want(count);
        for (size_t i = 0; i < count; ++i) want[i] = sumValue(root, i, 6);
        checks.push_back({"broadcast", [=](Communicator& c, bool dev) {
                              std::vector<float> in(count, -1000.0f);
                              if (rank == root)
                                  for (size_t i = 0; i < count; ++i) in[i] = sumValue(rank, i, 6);
                              Buffer<float> b(count, dev);
                              b.set(in);
                              c.broadcast(b.data(), count, root);
                              return widen(b.get());
                          },
                          want});
    }
    std::vector<double> wantMax(count, -1.0);
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < count; ++i) wantMax[i] = std::max(wantMax[i], maxValue(r, i));
    auto maxOp = [=](bool hostBuffer) {
        return [=](Communicator& c, bool dev) {
            std::vector<double> in(count);
            for (size_t i = 0; i < count; ++i) in[i] = maxValue(rank, i);
            Buffer<double> b(count, dev && !hostBuffer);
            b.set(in);
            c.allReduceMax(b.data(), count);
            return b.get();
        };
    };
    checks.push_back({"allReduceMax", maxOp(false), wantMax});
    if (device) // control figures on the host must work with the GPU communicator too
        checks.push_back({"allReduceMax(host)", maxOp(true), wantMax});
    checks.push_back({"barrier", [](Communicator& c, bool) {
                          c.barrier();
                          c.barrier();
                          return std::vector<double>{};
                      },
                      {}});
    {
        // Two groups by parity, ordered by descending world rank: the sub-rank checks the key.
        const int color = rank % 2;
        std::vector<int> members;
        for (int r = n - 1; r >= 0; --r)
            if (r % 2 == color) members.push_back(r);
        std::vector<double> want{double(std::find(members.begin(), members.end(), rank) - members.begin()),
                                 double(members.size())};
        for (size_t i = 0; i < count; ++i) {
            double s = 0;
            for (int r : members) s += sumValue(r, i, 10);
            want.push_back(s);
        }
        checks.push_back({"split", [=](Communicator& c, bool dev) {
                              auto sub = c.split(color, -rank);
                              std::vector<float> in(count);
                              for (size_t i = 0; i < count; ++i) in[i] = sumValue(rank, i, 10);
                              Buffer<float> b(count, dev);
                              b.set(in);
                              sub->allReduceSum(b.data(), count);
                              std::vector<double> got{double(sub->rank()), double(sub->size())};
                              for (float v : b.get()) got.push_back(v);
                              return got;
                          },
                          want});
    }
    return checks;
}

// ---- timing ----

// Bus bandwidth / algorithm bandwidth, as nccl-tests defines them.
double busFactor(const std::string& name, int n)
{
    if (name == "allReduceSum")
        return n > 1 ? 2.0 * (n - 1) / n : 0.0;
    if (name == "broadcast")
        return 1.0;
    return n > 1 ? double(n - 1) / n : 0.0; // allGather, reduceScatterSum, allToAll
}

void timeCollectives(Communicator& comm, Communicator& world, const CommCheckOptions& o, bool device)
{
    const int n = comm.size();
    const size_t maxCount = o.maxCount ? o.maxCount : (device ? size_t(64) << 20 : size_t(256) << 10);
    std::vector<size_t> sizes;
    for (size_t c = 1024; c <= maxCount; c *= 16) sizes.push_back(c);
    if (sizes.empty() || sizes.back() != maxCount)
        sizes.push_back(maxCount);
    const size_t biggest = sizes.back() * size_t(n);
    Buffer<float> in(biggest, device), out(biggest, device);
    in.set(std::vector<float>(biggest, 1.0f));

    if (world.rank() == 0)
        std::printf("\n%-18s %12s %12s %12s %12s %12s\n", "timing", "count/rank", "bytes", "time us", "algbw GB/s",
                    "busbw GB/s");
    const std::vector<std::string> names{"allReduceSum", "allGather", "reduceScatterSum", "allToAll", "broadcast"};
    for (const std::string& name : names)
        for (size_t count : sizes) {
            auto run = [&] {
                if (name == "allReduceSum") comm.allReduceSum(out.data(), count);
                else if (name == "allGather") comm.allGather(in.data(), count, out.data());
                else if (name == "reduceScatterSum") comm.reduceScatterSum(in.data(), count, out.data());
                else if (name == "allToAll") comm.allToAll(in.data(), count, out.data());
                else comm.broadcast(out.data(), count, 0);
            };
            run(); // warm-up: NCCL sets up its channels on first use
            comm.barrier();
            const auto t0 = std::chrono::steady_clock::now();
            for (int k = 0; k < o.iters; ++k) run();
            double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / o.iters;
            world.allReduceMax(&seconds, 1); // the slowest rank is the collective's time
            // Bytes as nccl-tests counts them: the per-rank buffer for all-reduce and broadcast,
            // the whole gathered/scattered buffer for the others.
            const bool whole = name != "allReduceSum" && name != "broadcast";
            const double bytes = double(count) * sizeof(float) * (whole ? n : 1);
            const double algbw = seconds > 0 ? bytes / seconds / 1e9 : 0.0;
            if (world.rank() == 0)
                std::printf("%-18s %12zu %12.0f %12.1f %12.3f %12.3f\n", name.c_str(), count, bytes, seconds * 1e6, algbw,
                            algbw * busFactor(name, n));
        }
    std::fflush(stdout);
}

#ifdef TAPAS_WITH_CUDA
int localRank(int worldRank)
{
    for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
        if (const char* v = std::getenv(var))
            return std::atoi(v);
    return worldRank; // a singleton run, or a launcher that does not say
}

// Every rank learns whether any rank failed (true when one did).
bool anyRank(Communicator& world, bool failed)
{
    double flag = failed ? 1.0 : 0.0;
    world.allReduceMax(&flag, 1);
    return flag > 0.0;
}

// Picks this rank's GPU and makes the NCCL communicator; nullptr (after printing why) when this
// rank cannot, so that all ranks stop together instead of hanging in ncclCommInitRank.
std::unique_ptr<Communicator> openNccl(Communicator& world, std::string* device)
{
    std::string why;
    const int devices = cuda::deviceCount(&why);
    const int local = localRank(world.rank());
    const char* localSize = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    std::string error;
    if (devices == 0)
        error = "--backend nccl needs a CUDA device, but " + why + " (run it on a GPU machine: tests/gpu/check_nccl.sh)";
    else if (localSize && std::atoi(localSize) > devices)
        error = std::string(localSize) + " ranks on this node share " + std::to_string(devices) +
                " GPU(s); NCCL needs a GPU of its own for every rank (use -np " + std::to_string(devices) + " or fewer)";
    if (anyRank(world, !error.empty())) {
        std::fprintf(stderr, "tapas-worker comm-check: rank %d: %s\n", world.rank(),
                     error.empty() ? "stopping because another rank cannot use NCCL" : error.c_str());
        return nullptr;
    }
    const int dev = local % devices;
    *device += ", GPU " + std::to_string(dev) + " (" + cuda::deviceName(dev) + ")";
    return makeNcclCommunicator(world, dev);
}
#endif

} // namespace

const char* commCheckUsage()
{
    return "  comm-check [--backend mpi|nccl] [--count N] [--max-count M] [--iters K]\n"
           "                  check every collective against host-computed results and time them\n";
}

int runCommCheck(int argc, char** argv)
{
    CommCheckOptions o;
    if (wantsHelp(argc, argv, 2)) {
        std::fputs(commCheckUsage(), stdout);
        return 0;
    }
    if (auto error = parseCommCheckArgs(argc, argv, &o)) {
        std::fprintf(stderr, "tapas-worker comm-check: %s\n%s", error->c_str(), commCheckUsage());
        return 2;
    }
#ifndef TAPAS_WITH_CUDA
    if (o.backend == "nccl") {
        std::fprintf(stderr, "tapas-worker comm-check: this tapas-worker was built without CUDA; configure with "
                             "-DTAPAS_WITH_CUDA=ON for --backend nccl (docs/train-plan.md, CUDA / NCCL)\n");
        return 2;
    }
#endif
    MpiContext mpi(&argc, &argv);
    auto world = makeWorldCommunicator();
    const bool device = o.backend == "nccl";
    try {
        std::unique_ptr<Communicator> tested;
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        std::string where = std::string("host memory on ") + host;
#ifdef TAPAS_WITH_CUDA
        if (device) {
            tested = openNccl(*world, &where);
            if (!tested)
                return 1;
        }
#endif
        Communicator& comm = device ? *tested : *world;
        const auto places = mpi.gatherToRoot(where);
        if (mpi.rank() == 0) {
            std::printf("comm-check: backend %s, %d ranks, %zu elements per rank; %s", o.backend.c_str(), comm.size(),
                        o.count, MpiContext::libraryVersion().c_str());
#ifdef TAPAS_WITH_CUDA
            if (device)
                std::printf("; NCCL %s, CUDA runtime %s", cuda::ncclVersion().c_str(), cuda::cudaRuntimeVersion().c_str());
#endif
            std::printf("\n");
            for (size_t r = 0; r < places.size(); ++r) std::printf("  rank %zu: %s\n", r, places[r].c_str());
            std::printf("\n%-20s %-8s %s\n", "collective", "result", device ? "vs host / vs mpi" : "vs host");
        }

        const auto checks = makeChecks(comm.rank(), comm.size(), o.count, device);
        std::vector<double> failed(checks.size(), 0.0);
        for (size_t k = 0; k < checks.size(); ++k) {
            const Check& c = checks[k];
            std::string problem;
            std::vector<double> got = c.op(comm, device);
            // Test hook: proves that a wrong element is caught and named (tests/CMakeLists.txt).
            if (const char* corrupt = std::getenv("TAPAS_TEST_CORRUPT_COMM_CHECK");
                corrupt && c.name == corrupt && comm.rank() == comm.size() - 1 && !got.empty())
                got[std::min<size_t>(5, got.size() - 1)] += 1.0;
            if (auto m = firstMismatch(got, c.expected))
                problem = m->insert(0, "against the host-computed result: ");
            if (device) { // the same data through MPI must give the same bits
                const std::vector<double> ref = c.op(*world, false);
                if (auto m = firstMismatch(got, ref); m && problem.empty())
                    problem = "against the MPI communicator's result: " + *m;
            }
            if (!problem.empty()) {
                failed[k] = 1.0;
                std::fprintf(stderr, "comm-check: %s FAILED on rank %d (%s, count %zu): %s\n", c.name.c_str(), comm.rank(),
                             o.backend.c_str(), o.count, problem.c_str());
            }
        }
        world->allReduceMax(failed.data(), failed.size());
        const bool anyFailed = std::any_of(failed.begin(), failed.end(), [](double f) { return f > 0; });
        if (mpi.rank() == 0) {
            for (size_t k = 0; k < checks.size(); ++k)
                std::printf("%-20s %-8s\n", checks[k].name.c_str(), failed[k] > 0 ? "WRONG" : "ok");
            std::fflush(stdout);
        }
        if (anyFailed) {
            if (mpi.rank() == 0)
                std::fprintf(stderr, "comm-check: FAILED (the failing ranks name the first wrong element above)\n");
            return 1;
        }
        timeCollectives(comm, *world, o, device);
        if (mpi.rank() == 0)
            std::printf("\ncomm-check: all collectives correct (%s, %d ranks)\n", o.backend.c_str(), comm.size());
        return 0;
    } catch (const std::exception& e) {
        // The other ranks may be inside a collective this rank will never join.
        std::fprintf(stderr, "tapas-worker comm-check: rank %d: %s\n", mpi.rank(), e.what());
        std::fflush(stderr);
        mpi.abort(1);
    }
}

} // namespace tapas::runtime
