#pragma once
// The foreground half of `tapas run` and `tapas gan`: start the run through the launcher, print
// each event as it arrives, turn Ctrl-C into a graceful stop (a second Ctrl-C leaves at once),
// and map the run's final state to the exit code.
#include "runtime/launch/run_launcher.h"
#include "runtime/protocol/metrics_event.h"

namespace tapas::cli {

using EventPrinter = void (*)(const protocol::MetricsEvent&);

// `command` names the caller in messages ("tapas run"). Needs a QCoreApplication.
int superviseRun(const char* command, const runtime::LaunchRequest& request, EventPrinter printEvent);

} // namespace tapas::cli
