// The GPU communicator: NCCL collectives on device buffers, one CUDA stream per communicator.
// NCCL is bootstrapped through the MPI world communicator (rank 0 creates the ncclUniqueId and
// broadcasts it), so tapas-worker keeps a single launcher, mpirun, for CPU and GPU runs.
//
// Stream semantics: the stream is created *blocking* (cudaStreamCreate, not
// cudaStreamNonBlocking), so it is ordered after work the caller queued on the legacy default
// stream and the other way round, and a synchronous collective also synchronizes this stream
// before it returns. That gives the same contract as the MPI communicator: when a call returns,
// the result is in the buffer.
#include "runtime/cuda/nccl_communicator.h"

#include "runtime/comm/communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

// ncclCommSplit exists from NCCL 2.18; older libraries (or a build forcing it, to compile-check the
// fallback) get a fresh unique id through the bootstrap communicator's split instead.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0) && !defined(TAPAS_NCCL_BOOTSTRAP_SPLIT)
#define TAPAS_HAVE_NCCL_COMM_SPLIT 1
#else
#define TAPAS_HAVE_NCCL_COMM_SPLIT 0
#endif

namespace tapas::runtime {

namespace {

std::string onRank(int rank)
{
    return rank >= 0 ? " on rank " + std::to_string(rank) : std::string();
}

void checkCuda(cudaError_t rc, const char* call, int rank)
{
    if (rc == cudaSuccess)
        return;
    throw std::runtime_error(std::string("CUDA ") + call + " failed" + onRank(rank) + ": " + cudaGetErrorName(rc) +
                             " (" + cudaGetErrorString(rc) + ")");
}

void checkNccl(ncclResult_t rc, const char* call, int rank, ncclComm_t comm = nullptr)
{
    if (rc == ncclSuccess)
        return;
    std::string text = std::string("NCCL ") + call + " failed" + onRank(rank) + ": " + ncclGetErrorString(rc);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
    // The last error carries NCCL's own detail (which peer, which transport) when it has one.
    const char* detail = ncclGetLastError(comm);
    if (detail && *detail)
        text += std::string(" (") + detail + ")";
#endif
    if (rc == ncclUnhandledCudaError || rc == ncclSystemError || rc == ncclInternalError)
        text += "; rerun with NCCL_DEBUG=WARN for NCCL's log";
    throw std::runtime_error(text);
}

// A collective queued on the communicator's stream, complete when the event after it fires.
class NcclPending final : public PendingCollective {
public:
    NcclPending(cudaStream_t stream, int rank) : rank_(rank)
    {
        checkCuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags", rank_);
        checkCuda(cudaEventRecord(event_, stream), "cudaEventRecord", rank_);
    }
    ~NcclPending() override
    {
        // A destroyed event stays pending on the GPU; waiting keeps the caller's buffer alive
        // until the collective is done with it, as the MPI version does.
        cudaEventSynchronize(event_);
        cudaEventDestroy(event_);
    }
    void wait() override { checkCuda(cudaEventSynchronize(event_), "cudaEventSynchronize", rank_); }
    bool test() override
    {
        const cudaError_t rc = cudaEventQuery(event_);
        if (rc == cudaErrorNotReady)
            return false;
        checkCuda(rc, "cudaEventQuery", rank_);
        return true;
    }

private:
    cudaEvent_t event_ = nullptr;
    int rank_;
};

// Creates a communicator over the ranks of `boot` (a host communicator such as MPI's world):
// boot's rank 0 makes the unique id, every rank gets it through boot.broadcast.
ncclComm_t initThroughBootstrap(Communicator& boot, int device)
{
    if (boot.backend() == "nccl")
        throw std::runtime_error("makeNcclCommunicator needs a host communicator (mpi) to bootstrap NCCL, got nccl");
    const int rank = boot.rank();
    checkCuda(cudaSetDevice(device), "cudaSetDevice", rank);

    // The id travels as raw bytes inside floats (broadcast is bit-exact), followed by a flag so that
    // a failure on rank 0 stops every rank instead of leaving them waiting in ncclCommInitRank.
    constexpr size_t kIdFloats = (sizeof(ncclUniqueId) + sizeof(float) - 1) / sizeof(float);
    std::vector<float> packet(kIdFloats + 1, 0.0f);
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    std::string rootError;
    if (rank == 0) {
        const ncclResult_t rc = ncclGetUniqueId(&id);
        if (rc == ncclSuccess) {
            std::memcpy(packet.data(), &id, sizeof id);
            packet[kIdFloats] = 1.0f;
        } else {
            rootError = ncclGetErrorString(rc);
        }
    }
    boot.broadcast(packet.data(), packet.size(), 0);
    if (packet[kIdFloats] != 1.0f)
        throw std::runtime_error("NCCL ncclGetUniqueId failed on rank 0" +
                                 (rootError.empty() ? std::string() : ": " + rootError) + " (seen" + onRank(rank) + ")");
    std::memcpy(&id, packet.data(), sizeof id);

    ncclComm_t comm = nullptr;
    checkNccl(ncclCommInitRank(&comm, boot.size(), id, rank), "ncclCommInitRank", rank);
    return comm;
}

class NcclCommunicator final : public Communicator {
public:
    // `bootstrap` (owned or not) is kept for split() where NCCL has no ncclCommSplit.
    NcclCommunicator(ncclComm_t comm, int device, Communicator* bootstrap, std::unique_ptr<Communicator> owned)
        : comm_(comm), device_(device), bootstrap_(bootstrap), ownedBootstrap_(std::move(owned))
    {
        try {
            checkNccl(ncclCommUserRank(comm_, &rank_), "ncclCommUserRank", -1, comm_);
            checkNccl(ncclCommCount(comm_, &size_), "ncclCommCount", rank_, comm_);
            checkCuda(cudaSetDevice(device_), "cudaSetDevice", rank_);
            checkCuda(cudaStreamCreate(&stream_), "cudaStreamCreate", rank_);
            checkCuda(cudaMalloc(&scratch_, sizeof(float)), "cudaMalloc", rank_);
        } catch (...) {
            release(); // the destructor does not run for a constructor that throws
            throw;
        }
    }
    ~NcclCommunicator() override { release(); }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::string backend() const override { return "nccl"; }

    void allReduceSum(float* data, size_t count) override
    {
        if (count == 0)
            return;
        activate();
        nccl(ncclAllReduce(data, data, count, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce");
        sync();
    }

    std::unique_ptr<PendingCollective> allReduceSumAsync(float* data, size_t count) override
    {
        activate();
        if (count > 0)
            nccl(ncclAllReduce(data, data, count, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce(async)");
        return std::make_unique<NcclPending>(stream_, rank_);
    }

    void allGather(const float* in, size_t count, float* out) override
    {
        if (count == 0)
            return;
        activate();
        nccl(ncclAllGather(in, out, count, ncclFloat, comm_, stream_), "ncclAllGather");
        sync();
    }

    void reduceScatterSum(const float* in, size_t count, float* out) override
    {
        if (count == 0)
            return;
        activate();
        nccl(ncclReduceScatter(in, out, count, ncclFloat, ncclSum, comm_, stream_), "ncclReduceScatter");
        sync();
    }

    void allToAll(const float* in, size_t count, float* out) override
    {
        if (count == 0)
            return;
        activate();
        // One group so NCCL schedules all pairs together; the self pair is an ordinary send/recv.
        nccl(ncclGroupStart(), "ncclGroupStart");
        for (int peer = 0; peer < size_; ++peer) {
            const size_t offset = size_t(peer) * count;
            nccl(ncclSend(in + offset, count, ncclFloat, peer, comm_, stream_), "ncclSend");
            nccl(ncclRecv(out + offset, count, ncclFloat, peer, comm_, stream_), "ncclRecv");
        }
        nccl(ncclGroupEnd(), "ncclGroupEnd(allToAll)");
        sync();
    }

    void broadcast(float* data, size_t count, int root) override
    {
        if (root < 0 || root >= size_)
            throw std::runtime_error("NCCL broadcast" + onRank(rank_) + ": root " + std::to_string(root) +
                                     " is outside the communicator's " + std::to_string(size_) + " ranks");
        if (count == 0)
            return;
        activate();
        nccl(ncclBroadcast(data, data, count, ncclFloat, root, comm_, stream_), "ncclBroadcast");
        sync();
    }

    void allReduceMax(double* data, size_t count) override
    {
        if (count == 0)
            return;
        activate();
        // Control figures (losses, timings) usually live on the host; NCCL needs device memory,
        // so host buffers go through a staging buffer instead of failing.
        if (isDevicePointer(data)) {
            nccl(ncclAllReduce(data, data, count, ncclDouble, ncclMax, comm_, stream_), "ncclAllReduce(max)");
            sync();
            return;
        }
        double* dev = staging(count * sizeof(double));
        cuda(cudaMemcpyAsync(dev, data, count * sizeof(double), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
        nccl(ncclAllReduce(dev, dev, count, ncclDouble, ncclMax, comm_, stream_), "ncclAllReduce(max)");
        cuda(cudaMemcpyAsync(data, dev, count * sizeof(double), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
        sync();
    }

    void barrier() override
    {
        // NCCL has no barrier: a one-element all-reduce completes only when every rank joined it.
        activate();
        nccl(ncclAllReduce(scratch_, scratch_, 1, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce(barrier)");
        sync();
    }

    // NCCL's sends complete only when the peer has posted the matching receive on its stream,
    // so a 1F1B schedule needs grouped send/receive pairs there; the pipeline runs over MPI
    // (train-plan is CPU-only), and this backend refuses point to point by name.
    std::unique_ptr<PendingCollective> sendAsync(const void*, size_t, int peer, int) override
    {
        throw std::runtime_error("NCCL send" + onRank(rank_) + " to rank " + std::to_string(peer) +
                                 ": point-to-point sends between pipeline stages run on the MPI communicator");
    }
    void recv(void*, size_t, int peer, int) override
    {
        throw std::runtime_error("NCCL receive" + onRank(rank_) + " from rank " + std::to_string(peer) +
                                 ": point-to-point sends between pipeline stages run on the MPI communicator");
    }

    std::unique_ptr<Communicator> split(int color, int key) override
    {
        if (color < 0)
            throw std::runtime_error("NCCL split" + onRank(rank_) + ": color " + std::to_string(color) +
                                     " is negative; colors name groups and must be >= 0");
        activate();
#if TAPAS_HAVE_NCCL_COMM_SPLIT
        ncclComm_t sub = nullptr;
        nccl(ncclCommSplit(comm_, color, key, &sub, nullptr), "ncclCommSplit");
        return std::make_unique<NcclCommunicator>(sub, device_, nullptr, nullptr);
#else
        auto subBoot = bootstrap_->split(color, key);
        ncclComm_t sub = initThroughBootstrap(*subBoot, device_);
        Communicator* raw = subBoot.get();
        return std::make_unique<NcclCommunicator>(sub, device_, raw, std::move(subBoot));
#endif
    }

private:
    // No throwing here: this runs in the destructor, possibly while unwinding after another error.
    void release() noexcept
    {
        cudaSetDevice(device_);
        if (stream_)
            cudaStreamSynchronize(stream_);
        if (comm_)
            ncclCommDestroy(comm_);
        if (stream_)
            cudaStreamDestroy(stream_);
        cudaFree(scratch_);
        cudaFree(staging_);
        comm_ = nullptr;
        stream_ = nullptr;
        scratch_ = staging_ = nullptr;
    }

    void activate() { cuda(cudaSetDevice(device_), "cudaSetDevice"); }
    void sync() { cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
    void cuda(cudaError_t rc, const char* call) const { checkCuda(rc, call, rank_); }
    void nccl(ncclResult_t rc, const char* call) const { checkNccl(rc, call, rank_, comm_); }

    bool isDevicePointer(const void* p) const
    {
        cudaPointerAttributes attr{};
        const cudaError_t rc = cudaPointerGetAttributes(&attr, p);
        if (rc == cudaErrorInvalidValue) { // plain host memory on old runtimes
            cudaGetLastError();
            return false;
        }
        cuda(rc, "cudaPointerGetAttributes");
        return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
    }

    double* staging(size_t bytes)
    {
        if (bytes > stagingBytes_) {
            cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
            cuda(cudaFree(staging_), "cudaFree");
            staging_ = nullptr;
            stagingBytes_ = 0;
            cuda(cudaMalloc(&staging_, bytes), "cudaMalloc");
            stagingBytes_ = bytes;
        }
        return static_cast<double*>(staging_);
    }

    ncclComm_t comm_ = nullptr;
    int device_ = 0;
    int rank_ = -1, size_ = 0;
    cudaStream_t stream_ = nullptr;
    void* scratch_ = nullptr;
    void* staging_ = nullptr;
    size_t stagingBytes_ = 0;
    [[maybe_unused]] Communicator* bootstrap_ = nullptr; // used by split() only without ncclCommSplit
    std::unique_ptr<Communicator> ownedBootstrap_;
};

} // namespace

std::unique_ptr<Communicator> makeNcclCommunicator(Communicator& world, int device)
{
    std::string why;
    const int devices = cuda::deviceCount(&why);
    if (devices == 0)
        throw std::runtime_error("NCCL on rank " + std::to_string(world.rank()) + ": no CUDA device (" + why + ")");
    if (device < 0 || device >= devices)
        throw std::runtime_error("NCCL on rank " + std::to_string(world.rank()) + ": device " + std::to_string(device) +
                                 " does not exist, this node has " + std::to_string(devices));
    ncclComm_t comm = initThroughBootstrap(world, device);
    return std::make_unique<NcclCommunicator>(comm, device, &world, nullptr);
}

namespace cuda {

int deviceCount(std::string* why)
{
    int n = 0;
    const cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
        if (why)
            *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc);
        cudaGetLastError(); // clear the sticky error so later calls report their own
        return 0;
    }
    if (n == 0 && why)
        *why = "cudaGetDeviceCount found no device";
    return n;
}

std::string ncclVersion()
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess)
        return "unknown";
    // NCCL_VERSION: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch before.
    const int major = v >= 10000 ? v / 10000 : v / 1000;
    const int minor = v >= 10000 ? (v / 100) % 100 : (v / 100) % 10;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

std::string cudaRuntimeVersion()
{
    int v = 0;
    if (cudaRuntimeGetVersion(&v) != cudaSuccess)
        return "unknown";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string deviceName(int device)
{
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return "device " + std::to_string(device);
    }
    return prop.name;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes)
{
    checkCuda(cudaMalloc(&data_, bytes == 0 ? 1 : bytes), "cudaMalloc", -1);
}

DeviceBuffer::~DeviceBuffer()
{
    cudaFree(data_);
}

void DeviceBuffer::upload(const void* host, size_t bytes)
{
    if (bytes > bytes_)
        throw std::runtime_error("DeviceBuffer::upload: " + std::to_string(bytes) + " bytes into a buffer of " +
                                 std::to_string(bytes_));
    checkCuda(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(host to device)", -1);
}

void DeviceBuffer::download(void* host, size_t bytes) const
{
    if (bytes > bytes_)
        throw std::runtime_error("DeviceBuffer::download: " + std::to_string(bytes) + " bytes from a buffer of " +
                                 std::to_string(bytes_));
    checkCuda(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)", -1);
}

} // namespace cuda

} // namespace tapas::runtime
