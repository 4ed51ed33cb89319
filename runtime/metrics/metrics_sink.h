#pragma once
// Where rank 0 of a run sends its events (DESIGN.md, "Metrics protocol"): appended to
// runs/<id>/metrics.jsonl (flushed per line, so a crash loses nothing written) and, when the
// launcher passed --metrics-port/--metrics-token, to 127.0.0.1:port over TCP after the hello
// line. A lost socket is logged once and the file goes on; the file is the record.
#include "runtime/protocol/metrics_event.h"

#include <cstdio>
#include <string>

namespace tapas::runtime {

class MetricsSink {
public:
    // `runDir` empty: events go only to the socket (if any) and stderr on error.
    MetricsSink(std::string runDir, std::string runId, int port = 0, std::string token = {});
    ~MetricsSink();
    MetricsSink(const MetricsSink&) = delete;
    MetricsSink& operator=(const MetricsSink&) = delete;

    bool ok() const { return file_ != nullptr || runDir_.empty(); }
    const std::string& error() const { return error_; }
    // Named record, not emit: Qt defines `emit` as a macro in every TU that includes it.
    void record(const protocol::MetricsEvent& e);
    bool socketConnected() const { return socket_ >= 0; }

private:
    void sendLine(const std::string& line);
    std::string runDir_, runId_, error_;
    std::FILE* file_ = nullptr;
    int socket_ = -1;
};

} // namespace tapas::runtime
