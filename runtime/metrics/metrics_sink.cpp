#include "runtime/metrics/metrics_sink.h"

#include "runtime/protocol/durable_file.h"
#include "runtime/protocol/run_directory.h"

#include <fcntl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tapas::runtime {

namespace {

// Connects to the launcher's listener on loopback; -1 when nobody listens.
int connectLoopback(int port, std::string& error)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        error = std::strerror(errno);
        return -1;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = std::strerror(errno);
        ::close(fd);
        return -1;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // a step line should not wait
    return fd;
}

// Cuts off what part of a failed line reached the file, so the record ends on a whole line
// (on /dev/full or a pipe there is nothing to cut and ftruncate fails harmlessly).
void cutBack(int fd, int64_t size)
{
    const int rc = ::ftruncate(fd, off_t(size));
    (void)rc;
}

} // namespace

MetricsSink::MetricsSink(std::string runDir, std::string runId, int port, std::string token)
    : runDir_(std::move(runDir)), runId_(std::move(runId))
{
    if (!runDir_.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(runDir_, ec);
        path_ = protocol::metricsPath(runDir_);
        // Append: a resumed run continues the record.
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) {
            error_ = "metrics file '" + path_ + "': " + std::strerror(errno);
        } else {
            committed_ = int64_t(::lseek(fd_, 0, SEEK_END));
            // The reserve: real blocks (zeros written, not a sparse hole) freed for the last line.
            reservePath_ = (std::filesystem::path(runDir_) / kReserveName).string();
            protocol::DurableFile reserve(reservePath_);
            const std::string zeros(kReserveBytes, '\0');
            reserve.write(zeros.data(), zeros.size());
            if (!reserve.finish().ok()) releaseReserve(); // no room even for it: go on without
        }
    }
    if (port > 0) {
        std::string why;
        socket_ = connectLoopback(port, why);
        if (socket_ < 0) {
            record(protocol::MetricsEvent::logEvent("warn", 0,
                                                  "metrics socket 127.0.0.1:" + std::to_string(port) +
                                                      " unreachable (" + why + "); writing the file only"));
        } else {
            sendLine(protocol::helloLine(runId_, token));
        }
    }
}

MetricsSink::~MetricsSink()
{
    if (fd_ >= 0) ::close(fd_);
    releaseReserve();
    if (socket_ >= 0) ::close(socket_);
}

void MetricsSink::releaseReserve()
{
    if (reservePath_.empty()) return;
    ::unlink(reservePath_.c_str());
    reservePath_.clear();
}

bool MetricsSink::writeAll(const std::string& data, int& err)
{
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            err = n < 0 ? errno : ENOSPC;
            return false;
        }
        p += n;
        left -= size_t(n);
    }
    return true;
}

bool MetricsSink::appendLine(const std::string& line)
{
    if (fd_ < 0) return false;
    const std::string data = line + '\n'; // one write(2) for the whole line
    int err = 0;
    if (writeAll(data, err)) {
        committed_ += int64_t(data.size());
        return true;
    }
    cutBack(fd_, committed_);
    if (writeError_.empty()) {
        const std::string what = line.size() > 60 ? line.substr(0, 60) + "..." : line;
        writeError_ = "metrics file '" + path_ + "': " + std::strerror(err) + " (writing " + what + ")";
    }
    if (reservePath_.empty()) return false;
    releaseReserve(); // room for this line and the `failed` status that follows it
    err = 0;
    if (writeAll(data, err)) {
        committed_ += int64_t(data.size());
        return true;
    }
    cutBack(fd_, committed_);
    return false;
}

void MetricsSink::record(const protocol::MetricsEvent& e)
{
    const std::string line = protocol::toJsonLine(e);
    // A status line is a state change the launcher and a resume rely on: make it durable, and
    // learn about a write-back the kernel could not do. (EINVAL: a device without fsync.)
    if (appendLine(line) && e.type == protocol::EventType::Status && ::fsync(fd_) != 0 && errno != EINVAL &&
        writeError_.empty())
        writeError_ = "metrics file '" + path_ + "': fsync failed: " + std::strerror(errno);
    sendLine(line);
}

void MetricsSink::sendLine(const std::string& line)
{
    if (socket_ < 0)
        return;
    std::string data = line + '\n';
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        const ssize_t n = ::send(socket_, p, left, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            // The GUI went away: the file stays the record, say so once in it.
            ::close(socket_);
            socket_ = -1;
            appendLine(protocol::toJsonLine(protocol::MetricsEvent::logEvent(
                "warn", 0, "metrics socket closed by the listener; writing the file only")));
            return;
        }
        p += n;
        left -= size_t(n);
    }
}

} // namespace tapas::runtime
