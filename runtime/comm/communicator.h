#pragma once
// Tensor collectives behind one interface (DESIGN.md, Runtime): MPI on CPU, NCCL on CUDA when
// built with TAPAS_WITH_CUDA. Works on raw float buffers so no torch or MPI leaks into the
// callers' headers; the autograd wrappers in exec/ and the GAN trainer build on it.
// Ranks of a dp x pp x tp mesh are numbered tp fastest, then dp, then pp (Megatron-LM's order,
// DeviceMesh): rank = (ppIndex * dp + dpIndex) * tp + tpIndex.
#include <cstddef>
#include <memory>
#include <string>

namespace tapas::runtime {

// A collective started without waiting (for overlapping communication with compute).
class PendingCollective {
public:
    virtual ~PendingCollective() = default;
    virtual void wait() = 0;
    virtual bool test() = 0; // true when complete (then wait() returns at once)
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual std::string backend() const = 0; // "mpi", "nccl"

    virtual void allReduceSum(float* data, size_t count) = 0;
    virtual std::unique_ptr<PendingCollective> allReduceSumAsync(float* data, size_t count) = 0;
    // out holds size() * count floats, rank r's block at r * count. `in` may be this rank's own
    // block of out (in place).
    virtual void allGather(const float* in, size_t count, float* out) = 0;
    // in holds size() * count floats; this rank receives the sum of block rank() into out. `out`
    // may be this rank's own block of in (in place; the other blocks of in are then overwritten).
    virtual void reduceScatterSum(const float* in, size_t count, float* out) = 0;
    // in and out hold size() * count floats: block j of in goes to rank j, block i of out came
    // from rank i.
    virtual void allToAll(const float* in, size_t count, float* out) = 0;
    virtual void broadcast(float* data, size_t count, int root) = 0;
    virtual void allReduceMax(double* data, size_t count) = 0; // control figures
    virtual void barrier() = 0;

    // Point to point (pipeline stages): `bytes` raw bytes to or from rank `peer` of this
    // communicator. Messages from one rank to another with one tag arrive in the order sent; a
    // send returns at once and its buffer must stay untouched until the pending send completes.
    virtual std::unique_ptr<PendingCollective> sendAsync(const void* data, size_t bytes, int peer, int tag) = 0;
    virtual void recv(void* data, size_t bytes, int peer, int tag) = 0;

    // Ranks with the same color form a new communicator, ordered by key.
    virtual std::unique_ptr<Communicator> split(int color, int key) = 0;
};

// MPI_COMM_WORLD (MPI must be initialised; see MpiContext).
std::unique_ptr<Communicator> makeWorldCommunicator();

struct MeshGroups {
    std::unique_ptr<Communicator> tp; // the tp ranks sharing this rank's dp and pp index
    std::unique_ptr<Communicator> dp; // the dp ranks sharing this rank's tp and pp index
    std::unique_ptr<Communicator> pp; // the pipeline ranks sharing this rank's dp and tp index (rank = pp index)
    int dpIndex = 0, tpIndex = 0, ppIndex = 0;
};
// Throws std::runtime_error naming both sizes when dp x pp x tp differs from the world size.
MeshGroups splitMesh(Communicator& world, int dp, int tp, int pp = 1);

#ifdef TAPAS_WITH_CUDA
// NCCL over the GPUs of this node, bootstrapped through `world` (the unique id is broadcast).
// Buffers passed to it are device pointers.
std::unique_ptr<Communicator> makeNcclCommunicator(Communicator& world, int device);
#endif

} // namespace tapas::runtime
