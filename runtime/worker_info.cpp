#include "runtime/worker_info.h"

#include "runtime/blas_probe.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tapas::runtime {

RankInfo localRankInfo(int rank)
{
    RankInfo r;
    r.rank = rank;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    r.host = host;
    r.pid = long(getpid());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) r.cpus = CPU_COUNT(&set);
    if (const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) r.localRank = std::atoi(lr);
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) r.memoryGiB = double(pages) * double(pageSize) / (1024.0 * 1024 * 1024);
    const BlasInfo blas = probeBlas();
    r.blas = describeBlas(blas);
    r.blasWarning = blasWarning(blas);
    return r;
}

int defaultComputeThreads()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    int local = 1;
    if (const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) local = std::max(1, std::atoi(ls));
    // Unpinned ranks share the host's mask. Ranks pinned to disjoint sets of several CPUs get
    // fewer threads than they could use, which costs little; more than their CPUs costs a lot.
    return std::max(1, cpus / local);
}

nlohmann::json rankInfoToJson(const RankInfo& r)
{
    return {{"rank", r.rank}, {"host", r.host}, {"pid", r.pid}, {"cpus", r.cpus},
            {"local_rank", r.localRank}, {"memory_gib", r.memoryGiB}, {"blas", r.blas},
            {"blas_warning", r.blasWarning}};
}

int runInfo(const MpiContext& mpi, bool json)
{
    const std::string mine = rankInfoToJson(localRankInfo(mpi.rank())).dump();
    const std::vector<std::string> all = mpi.gatherToRoot(mine);
    if (mpi.rank() != 0) return 0;
    nlohmann::json ranks = nlohmann::json::array();
    for (const std::string& s : all) ranks.push_back(nlohmann::json::parse(s));
    if (json) {
        nlohmann::json out = {{"world_size", mpi.size()}, {"mpi", MpiContext::libraryVersion()},
                              {"ranks", ranks}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("%d rank(s), %s\n", mpi.size(), MpiContext::libraryVersion().c_str());
        std::printf("%-6s %-24s %-9s %-6s %-10s %s\n", "rank", "host", "pid", "cpus", "local", "memory");
        for (const auto& r : ranks)
            std::printf("%-6d %-24s %-9ld %-6d %-10d %.1f GiB\n", r["rank"].get<int>(),
                        r["host"].get<std::string>().c_str(), r["pid"].get<long>(), r["cpus"].get<int>(),
                        r["local_rank"].get<int>(), r["memory_gib"].get<double>());
        // Ranks on one host load the same library: print each distinct BLAS once.
        std::vector<std::string> seen;
        for (const auto& r : ranks) {
            const std::string blas = r["blas"].get<std::string>();
            if (std::find(seen.begin(), seen.end(), blas) != seen.end()) continue;
            seen.push_back(blas);
            std::printf("BLAS: %s\n", blas.c_str());
            const std::string warn = r["blas_warning"].get<std::string>();
            if (!warn.empty()) std::printf("warning: rank %d: %s\n", r["rank"].get<int>(), warn.c_str());
        }
    }
    return 0;
}

} // namespace tapas::runtime
