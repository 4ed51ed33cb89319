// tapas-worker: the one MPI program that Tapas starts through mpirun (DESIGN.md, Runtime).
// Sub-commands: info (rank -> host mapping), train-plan (runtime/exec) and gan (runtime/gan).
#include "runtime/calibrate/calibrate_worker.h"
#include "runtime/comm/comm_check.h"
#include "runtime/exec/train_plan.h"
#include "runtime/gan/gan_worker.h"
#include "runtime/mpi_context.h"
#include "runtime/worker_info.h"
#include "runtime/worker_options.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void usage(FILE* out)
{
    std::fprintf(out,
                 "usage: mpirun -np N tapas-worker <command> [options]\n\n"
                 "commands:\n"
                 "  info [--json]   report each rank's host, pid, CPUs and memory\n"
                 "  gan [options]   ParaGAN training (tapas-worker gan --help; docs/paragan.md)\n"
                 "  comm-check [options]  check and time every collective, mpi or nccl (--help)\n"
                 "  calibrate [options]  measure GEMM FLOP/s and MPI all-reduce links, write a cluster spec (--help)\n"
                 "%s",
                 tapas::runtime::trainPlanUsage());
}

} // namespace

int main(int argc, char** argv)
{
    // Argument errors are reported before MPI_Init so a bad launch fails fast on every rank.
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string command = argv[1];
    if (command == "gan") return tapas::runtime::gan::runGanWorker(argc, argv); // parses its own options
    if (command == "comm-check") return tapas::runtime::runCommCheck(argc, argv); // parses its own options
    if (command == "calibrate") return tapas::runtime::runCalibrateWorker(argc, argv); // parses its own options
    if (command == "train-plan") {
        if (tapas::runtime::wantsHelp(argc, argv, 2)) {
            std::fputs(tapas::runtime::trainPlanUsage(), stdout);
            return 0;
        }
        auto options = tapas::runtime::parseTrainPlanArgs(argc, argv, 2);
        if (!options.ok()) {
            std::fprintf(stderr, "tapas-worker train-plan: %s\n%s", options.error().c_str(), tapas::runtime::trainPlanUsage());
            return tapas::runtime::kExitUsage;
        }
        tapas::runtime::MpiContext mpi(&argc, &argv);
        return tapas::runtime::runTrainPlan(mpi, *options);
    }
    if (command != "info") {
        std::fprintf(stderr, "tapas-worker: unknown command '%s'\n", command.c_str());
        usage(stderr);
        return 2;
    }
    bool json = false;
    tapas::runtime::WorkerOptions options;
    options.flag("--json", &json);
    if (tapas::Status s = options.parse(argc, argv, 2); !s) {
        std::fprintf(stderr, "tapas-worker info: %s\n", s.error.c_str());
        return 2;
    }
    if (options.helpRequested()) {
        std::fputs("  info [--json]   report each rank's host, pid, CPUs and memory\n", stdout);
        return 0;
    }
    tapas::runtime::MpiContext mpi(&argc, &argv);
    return tapas::runtime::runInfo(mpi, json);
}
