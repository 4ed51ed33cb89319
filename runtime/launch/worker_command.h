#pragma once
// What mpirun starts on each rank: `tapas-worker <kind> ...`, built from a run's spec so a
// resumed run gets exactly the options it was first launched with.
#include "core/util/result.h"
#include "runtime/protocol/run_directory.h"

#include <QString>
#include <QStringList>

namespace tapas::runtime {

// RunSpec::options become worker options: {"lr","0.01"} -> --lr 0.01; an empty value is a
// bare flag ({"async",""} -> --async); a key "dim:NAME" is a dim binding ({"dim:seq","16"}
// -> --dim seq=16), since the worker takes --dim repeatedly.
inline constexpr const char* kDimOptionPrefix = "dim:";

struct WorkerArgs {
    QString runDir;
    int metricsPort = 0; // 0: no socket; its token travels in TAPAS_METRICS_TOKEN, never here
};

// train-plan: --model --plan --run-dir --steps --checkpoint-every [--resume] [--dim k=v]...
//             [options] [--metrics-port]
// gan (and other kinds): --run-dir --steps --checkpoint-every [--resume] [options] [--metrics-port]
// An option named metrics-token is refused: the token is not put on a command line.
// Refuses a spec without a kind, or a train-plan spec without plan or model.
Result<QStringList> buildWorkerArguments(const protocol::RunSpec& spec, const WorkerArgs& a);

// `preferred` non-empty: it must be an executable file. Otherwise tapas-worker next to the
// running executable, then on PATH.
Result<QString> findWorker(const QString& preferred = {});

} // namespace tapas::runtime
