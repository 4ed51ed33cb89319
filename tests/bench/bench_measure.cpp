#include "tests/bench/bench_measure.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tapas::bench {

namespace {

double statusMiB(const char* key)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind(key, 0) == 0) {
            std::istringstream is(line.substr(std::strlen(key)));
            double kb = 0;
            is >> kb;
            return kb / 1024.0;
        }
    }
    return 0;
}

void resetPeakRss()
{
    // Writing 5 to clear_refs resets VmHWM (Linux >= 4.0), so the peak is this case's own.
    std::ofstream("/proc/self/clear_refs") << "5";
}

bool writeAll(int fd, const std::string& s)
{
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

} // namespace

Measurement measureInChild(const std::function<std::string(std::string& detail)>& fn, int repeats)
{
    Measurement m;
    int fds[2];
    if (pipe(fds) != 0) {
        m.error = "pipe() failed";
        return m;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        m.error = "fork() failed";
        return m;
    }
    if (pid == 0) {
        ::close(fds[0]);
        resetPeakRss();
        const double baseline = statusMiB("VmRSS:");
        double best = 1e300;
        std::string detail, error;
        for (int i = 0; i < repeats && error.empty(); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            error = fn(detail);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (s < best) best = s;
        }
        std::ostringstream os;
        os << (error.empty() ? 1 : 0) << '\n' << best << '\n' << statusMiB("VmHWM:") << '\n'
           << baseline << '\n' << detail << '\n' << error;
        writeAll(fds[1], os.str());
        ::close(fds[1]);
        _exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
    ::close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || out.empty()) {
        m.error = "the measuring process died";
        return m;
    }
    std::istringstream is(out);
    int ok = 0;
    is >> ok >> m.seconds >> m.peakRssMiB >> m.baselineRssMiB;
    is.ignore(1);
    std::getline(is, m.detail);
    std::getline(is, m.error, '\0');
    m.ok = ok == 1;
    return m;
}

} // namespace tapas::bench
