// The CPU communicator: MPI collectives on float buffers. Debian's libtorch has no
// ProcessGroupMPI (TOOLCHAIN.md §4), and MPI_Allreduce on data_ptr<float>() is as fast on
// shared memory as Gloo and needs no store, so the runtime talks to MPI directly.
#include "runtime/comm/communicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tapas::runtime {

namespace {

void check(int rc, const char* what)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string("MPI ") + what + " failed: " + std::string(text, size_t(len)));
}

// MPI counts are int: large tensors go in chunks so a >2 GiB gradient never overflows.
constexpr size_t kMaxChunk = size_t(1) << 30;

class MpiPending final : public PendingCollective {
public:
    explicit MpiPending(MPI_Request r) : request_(r) {}
    ~MpiPending() override
    {
        if (request_ != MPI_REQUEST_NULL)
            MPI_Wait(&request_, MPI_STATUS_IGNORE);
    }
    void wait() override
    {
        if (request_ != MPI_REQUEST_NULL)
            check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "Wait");
    }
    bool test() override
    {
        if (request_ == MPI_REQUEST_NULL)
            return true;
        int done = 0;
        check(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "Test");
        return done != 0;
    }

private:
    MPI_Request request_;
};

// Several chunked requests behave as one.
class MpiPendingGroup final : public PendingCollective {
public:
    std::vector<std::unique_ptr<PendingCollective>> parts;
    void wait() override
    {
        for (auto& p : parts)
            p->wait();
    }
    bool test() override
    {
        bool all = true;
        for (auto& p : parts)
            all = p->test() && all;
        return all;
    }
};

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned)
    {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }
    ~MpiCommunicator() override
    {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (owned_ && !finalized)
            MPI_Comm_free(&comm_);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::string backend() const override { return "mpi"; }

    void allReduceSum(float* data, size_t count) override
    {
        if (size_ == 1)
            return;
        for (size_t off = 0; off < count; off += kMaxChunk)
            check(MPI_Allreduce(MPI_IN_PLACE, data + off, int(std::min(kMaxChunk, count - off)), MPI_FLOAT, MPI_SUM, comm_),
                  "Allreduce");
    }

    std::unique_ptr<PendingCollective> allReduceSumAsync(float* data, size_t count) override
    {
        auto group = std::make_unique<MpiPendingGroup>();
        if (size_ == 1)
            return group;
        for (size_t off = 0; off < count; off += kMaxChunk) {
            MPI_Request r;
            check(MPI_Iallreduce(MPI_IN_PLACE, data + off, int(std::min(kMaxChunk, count - off)), MPI_FLOAT, MPI_SUM,
                                 comm_, &r),
                  "Iallreduce");
            group->parts.push_back(std::make_unique<MpiPending>(r));
        }
        return group;
    }

    void allGather(const float* in, size_t count, float* out) override
    {
        checkCount(count, "Allgather");
        // In place when `in` is this rank's own block of `out` (as NCCL takes it).
        const void* send = in == out + size_t(rank_) * count ? MPI_IN_PLACE : static_cast<const void*>(in);
        check(MPI_Allgather(send, int(count), MPI_FLOAT, out, int(count), MPI_FLOAT, comm_), "Allgather");
    }

    void reduceScatterSum(const float* in, size_t count, float* out) override
    {
        checkCount(count, "Reduce_scatter_block");
        if (out == in + size_t(rank_) * count) {
            // In place (out is this rank's own block of in, as NCCL takes it): MPI puts the
            // result at the start of the buffer, so it moves to this rank's block after.
            float* buffer = out - size_t(rank_) * count;
            check(MPI_Reduce_scatter_block(MPI_IN_PLACE, buffer, int(count), MPI_FLOAT, MPI_SUM, comm_),
                  "Reduce_scatter_block");
            if (rank_ != 0) std::memmove(out, buffer, count * sizeof(float));
            return;
        }
        check(MPI_Reduce_scatter_block(in, out, int(count), MPI_FLOAT, MPI_SUM, comm_), "Reduce_scatter_block");
    }

    void allToAll(const float* in, size_t count, float* out) override
    {
        checkCount(count, "Alltoall");
        check(MPI_Alltoall(in, int(count), MPI_FLOAT, out, int(count), MPI_FLOAT, comm_), "Alltoall");
    }

    void broadcast(float* data, size_t count, int root) override
    {
        if (size_ == 1)
            return;
        for (size_t off = 0; off < count; off += kMaxChunk)
            check(MPI_Bcast(data + off, int(std::min(kMaxChunk, count - off)), MPI_FLOAT, root, comm_), "Bcast");
    }

    void allReduceMax(double* data, size_t count) override
    {
        if (size_ == 1)
            return;
        checkCount(count, "Allreduce(max)");
        check(MPI_Allreduce(MPI_IN_PLACE, data, int(count), MPI_DOUBLE, MPI_MAX, comm_), "Allreduce(max)");
    }

    void barrier() override { check(MPI_Barrier(comm_), "Barrier"); }

    std::unique_ptr<PendingCollective> sendAsync(const void* data, size_t bytes, int peer, int tag) override
    {
        auto group = std::make_unique<MpiPendingGroup>();
        const char* p = static_cast<const char*>(data);
        // Chunks of one message share the tag; MPI keeps them in order between two ranks.
        for (size_t off = 0; off < bytes || off == 0; off += kMaxChunk) {
            MPI_Request r;
            check(MPI_Isend(p + off, int(std::min(kMaxChunk, bytes - off)), MPI_BYTE, peer, tag, comm_, &r), "Isend");
            group->parts.push_back(std::make_unique<MpiPending>(r));
            if (bytes == 0) break;
        }
        return group;
    }

    void recv(void* data, size_t bytes, int peer, int tag) override
    {
        char* p = static_cast<char*>(data);
        for (size_t off = 0; off < bytes || off == 0; off += kMaxChunk) {
            check(MPI_Recv(p + off, int(std::min(kMaxChunk, bytes - off)), MPI_BYTE, peer, tag, comm_, MPI_STATUS_IGNORE), "Recv");
            if (bytes == 0) break;
        }
    }

    std::unique_ptr<Communicator> split(int color, int key) override
    {
        MPI_Comm sub;
        check(MPI_Comm_split(comm_, color, key, &sub), "Comm_split");
        return std::make_unique<MpiCommunicator>(sub, true);
    }

private:
    static void checkCount(size_t count, const char* what)
    {
        if (count > kMaxChunk)
            throw std::runtime_error(std::string("MPI ") + what + ": " + std::to_string(count) +
                                     " elements per rank exceed the 2^30 this communicator sends at once");
    }

    MPI_Comm comm_;
    bool owned_;
    int rank_ = 0, size_ = 1;
};

} // namespace

std::unique_ptr<Communicator> makeWorldCommunicator()
{
    return std::make_unique<MpiCommunicator>(MPI_COMM_WORLD, false);
}

MeshGroups splitMesh(Communicator& world, int dp, int tp, int pp)
{
    if (dp * tp * pp != world.size()) {
        const std::string mesh = pp > 1 ? std::to_string(dp) + "x" + std::to_string(pp) + "x" + std::to_string(tp)
                                        : std::to_string(dp) + "x" + std::to_string(tp);
        throw std::runtime_error("mesh " + mesh + " needs " + std::to_string(dp * tp * pp) + " ranks, the run has " +
                                 std::to_string(world.size()));
    }
    MeshGroups g;
    const int r = world.rank();
    g.tpIndex = r % tp;
    g.dpIndex = (r / tp) % dp;
    g.ppIndex = r / (tp * dp);
    g.tp = world.split(g.ppIndex * dp + g.dpIndex, g.tpIndex);
    g.dp = world.split(g.ppIndex * tp + g.tpIndex, g.dpIndex);
    g.pp = world.split(g.dpIndex * tp + g.tpIndex, g.ppIndex);
    return g;
}

} // namespace tapas::runtime
