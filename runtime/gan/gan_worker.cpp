#include "runtime/gan/gan_worker.h"

#include "runtime/blas_probe.h"
#include "runtime/comm/communicator.h"
#include "runtime/gan/gan_trainer.h"
#include "runtime/metrics/metrics_sink.h"
#include "runtime/mpi_context.h"
#include "runtime/rank_log.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace tapas::runtime::gan {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void onStopSignal(int) { g_stop.store(true); }

std::string runIdOf(const GanOptions& o)
{
    if (!o.runId.empty()) return o.runId;
    return o.runDir.empty() ? std::string("gan") : std::filesystem::path(o.runDir).filename().string();
}

// Before MPI_Init there is no rank number from MPI; Open MPI's environment says which we are.
bool launchedAsRankZero()
{
    const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
    return !r || std::strcmp(r, "0") == 0;
}

int failEarly(const GanOptions& o, const std::string& error)
{
    std::fprintf(stderr, "tapas-worker gan: %s\n", error.c_str());
    if (!o.runDir.empty() && launchedAsRankZero()) {
        MetricsSink sink(o.runDir, runIdOf(o), o.metricsPort, o.metricsToken);
        sink.record(protocol::MetricsEvent::statusEvent("failed", error, 0));
    }
    return 2;
}

} // namespace

int runGanWorker(int argc, char** argv)
{
    std::vector<std::string> args(argv + 2, argv + argc);
    for (const std::string& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(ganUsage().c_str(), stdout);
            return 0;
        }
    Result<GanOptions> parsed = parseGanOptions(args);
    if (!parsed) {
        std::fputs(ganUsage().c_str(), stderr);
        // The launcher's user reads the run record: put the refusal there too.
        GanOptions where;
        for (size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == "--run-dir") where.runDir = args[i + 1];
        return failEarly(where, parsed.error());
    }
    GanOptions o = std::move(*parsed);
    if (Status s = applyPresetAndCheck(o); !s) return failEarly(o, s.error);
    Result<std::unique_ptr<DataSource>> data = makeDataSource(o, o.seed);
    if (!data) return failEarly(o, data.error());

    MpiContext mpi(&argc, &argv);
    if (!o.runDir.empty()) {
        // Each rank's output goes to logs/rank-N.log; the first lines say what it is.
        const std::string err = redirectOutputToRankLog(o.runDir, mpi.rank());
        if (!err.empty()) std::fprintf(stderr, "tapas-worker gan: %s\n", err.c_str());
    }
    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::unique_ptr<Communicator> comm = makeWorldCommunicator();
    std::unique_ptr<MetricsSink> sink;
    if (mpi.rank() == 0) {
        sink = std::make_unique<MetricsSink>(o.runDir, runIdOf(o), o.metricsPort, o.metricsToken);
        if (!sink->ok()) std::fprintf(stderr, "tapas-worker gan: %s\n", sink->error().c_str());
        sink->record(protocol::MetricsEvent::statusEvent("starting",
                                                       std::string(o.resume ? "resuming" : "starting") + " ParaGAN on " +
                                                           std::to_string(mpi.size()) + " ranks"));
        sink->record(blasLogEvent(0));
    }
    TrainerEnv env;
    env.options = &o;
    env.data = data->get();
    env.comm = comm.get();
    env.sink = sink.get();
    env.hosts = mpi.gatherToRoot(host);
    env.stopRequested = &g_stop;
    const int rc = trainGan(env);
    std::fflush(stdout);
    std::fflush(stderr);
    if (rc != 0) {
        sink.reset();
        mpi.abort(rc); // the other ranks may be blocked in a collective
    }
    return rc;
}

} // namespace tapas::runtime::gan
