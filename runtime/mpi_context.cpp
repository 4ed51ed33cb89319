#include "runtime/mpi_context.h"

#include <mpi.h>

#include <cstdlib>

namespace tapas::runtime {

MpiContext::MpiContext(int* argc, char*** argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiContext::~MpiContext()
{
    MPI_Finalize();
}

std::vector<std::string> MpiContext::gatherToRoot(const std::string& mine) const
{
    // Variable-length gather: lengths first, then the bytes.
    int len = int(mine.size());
    std::vector<int> lens(rank_ == 0 ? size_ : 0);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displs(lens.size());
    int total = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
        displs[i] = total;
        total += lens[i];
    }
    std::string all(size_t(total), '\0');
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t i = 0; i < lens.size(); ++i) out.push_back(all.substr(size_t(displs[i]), size_t(lens[i])));
    return out;
}

void MpiContext::barrier() const
{
    MPI_Barrier(MPI_COMM_WORLD);
}

void MpiContext::abort(int code) const
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code); // MPI_Abort does not return; keeps the compiler's [[noreturn]] check happy
}

std::string MpiContext::libraryVersion()
{
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    std::string v(buf, size_t(len));
    const size_t nl = v.find_first_of("\r\n,");
    return nl == std::string::npos ? v : v.substr(0, nl);
}

} // namespace tapas::runtime
