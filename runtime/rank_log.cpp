#include "runtime/rank_log.h"

#include "runtime/protocol/run_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tapas::runtime {

std::string redirectOutputToRankLog(const std::string& runDir, int rank)
{
    const std::string path = protocol::rankLogPath(runDir, rank);
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return "rank " + std::to_string(rank) + " log '" + path + "': " + std::strerror(errno);
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // line-buffered: the tail is current when a rank dies
    return {};
}

} // namespace tapas::runtime
