#pragma once
// Where rank 0 of a run sends its events (DESIGN.md, "Metrics protocol"): appended to
// runs/<id>/metrics.jsonl and, when the launcher passed --metrics-port (the token comes in the
// environment), to 127.0.0.1:port over TCP after the hello line. A lost socket is logged once
// and the file goes on; the file is the record.
//
// The file is written a whole line per write(2), each one checked. A line the disk could not
// take is cut back off (no torn line stays behind) and the sink remembers the first failure
// (file and errno text): the trainers poll writeFailed() once a step and end the run `failed`
// with that cause. So that this last status line still fits on a full disk, the sink holds a
// small reserve file in the run folder and gives its space back when the first write fails.
#include "runtime/protocol/metrics_event.h"

#include <cstdint>
#include <string>

namespace tapas::runtime {

class MetricsSink {
public:
    // `runDir` empty: events go only to the socket (if any) and stderr on error.
    MetricsSink(std::string runDir, std::string runId, int port = 0, std::string token = {});
    ~MetricsSink();
    MetricsSink(const MetricsSink&) = delete;
    MetricsSink& operator=(const MetricsSink&) = delete;

    bool ok() const { return fd_ >= 0 || runDir_.empty(); }
    const std::string& error() const { return error_; }
    // Named record, not emit: Qt defines `emit` as a macro in every TU that includes it.
    void record(const protocol::MetricsEvent& e);
    bool socketConnected() const { return socket_ >= 0; }
    // A line of the record could not be written (or synced): the run has lost data and must end.
    bool writeFailed() const { return !writeError_.empty(); }
    // "metrics file 'PATH': No space left on device" and what was being written.
    const std::string& writeError() const { return writeError_; }

    // The reserve file's name inside the run folder, and its size.
    static constexpr const char* kReserveName = ".metrics-reserve";
    static constexpr size_t kReserveBytes = 64 * 1024;

private:
    bool appendLine(const std::string& line); // line without '\n'
    bool writeAll(const std::string& data, int& err);
    void releaseReserve();
    void sendLine(const std::string& line);
    std::string runDir_, runId_, path_, reservePath_, error_, writeError_;
    int fd_ = -1;
    int64_t committed_ = 0; // file size after the last whole line
    int socket_ = -1;
};

} // namespace tapas::runtime
