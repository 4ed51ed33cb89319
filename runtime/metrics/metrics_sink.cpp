#include "runtime/metrics/metrics_sink.h"

#include "runtime/protocol/run_directory.h"

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

} // namespace

MetricsSink::MetricsSink(std::string runDir, std::string runId, int port, std::string token)
    : runDir_(std::move(runDir)), runId_(std::move(runId))
{
    if (!runDir_.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(runDir_, ec);
        const std::string path = protocol::metricsPath(runDir_);
        file_ = std::fopen(path.c_str(), "a"); // append: a resumed run continues the record
        if (!file_)
            error_ = "metrics file '" + path + "': " + std::strerror(errno);
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
    if (file_)
        std::fclose(file_);
    if (socket_ >= 0)
        ::close(socket_);
}

void MetricsSink::record(const protocol::MetricsEvent& e)
{
    const std::string line = protocol::toJsonLine(e);
    if (file_) {
        std::fputs(line.c_str(), file_);
        std::fputc('\n', file_);
        std::fflush(file_); // per line: whatever was written survives a crash
        if (e.type == protocol::EventType::Status)
            ::fsync(fileno(file_));
    }
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
            if (file_) {
                const std::string note = protocol::toJsonLine(protocol::MetricsEvent::logEvent(
                    "warn", 0, "metrics socket closed by the listener; writing the file only"));
                std::fputs((note + '\n').c_str(), file_);
                std::fflush(file_);
            }
            return;
        }
        p += n;
        left -= size_t(n);
    }
}

} // namespace tapas::runtime
