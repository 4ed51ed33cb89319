#pragma once
// RAII over MPI_Init/MPI_Finalize for tapas-worker, plus the few collectives the control path
// needs. Tensor collectives (later: MPI, Gloo, NCCL communicators) live behind their own interface.
#include <string>
#include <vector>

namespace tapas::runtime {

class MpiContext {
public:
    MpiContext(int* argc, char*** argv);
    ~MpiContext();
    MpiContext(const MpiContext&) = delete;
    MpiContext& operator=(const MpiContext&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    // Every rank's string, in rank order, on rank 0 (empty elsewhere).
    std::vector<std::string> gatherToRoot(const std::string& mine) const;
    void barrier() const;
    // Aborts all ranks with `code` (used when one rank hits an error the others cannot see).
    [[noreturn]] void abort(int code) const;
    static std::string libraryVersion();

private:
    int rank_ = 0;
    int size_ = 1;
};

} // namespace tapas::runtime
