// `tapas run PLAN.tapas.json MODEL.onnx -np N [--steps S] [--checkpoint-every K] [--hosts a,b]
//   [--hostfile F] [--map-by X] [--runs-dir DIR] [--resume RUNDIR] [--dim k=v] [--srun]
//   [--hung-seconds T] [--grace-seconds G]`: wiring only; runtime/launch starts and supervises.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_supervise.h"

#include "runtime/launch/mpirun_command.h"
#include "runtime/launch/run_launcher.h"
#include "runtime/launch/worker_command.h"


#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace tapas::cli {

namespace {

std::string seconds(double s)
{
    char b[32];
    if (!std::isfinite(s)) return "-";
    std::snprintf(b, sizeof b, s < 1 ? "%.1f ms" : "%.3f s", s < 1 ? s * 1e3 : s);
    return b;
}

void printEvent(const protocol::MetricsEvent& e)
{
    using protocol::EventType;
    auto value = [&](const char* k) {
        auto it = e.values.find(k);
        return it == e.values.end() ? std::nan("") : it->second;
    };
    if (e.type == EventType::Step) {
        char b[256];
        std::snprintf(b, sizeof b, "step %5lld  loss %-10.5g step time %-10s predicted %s", static_cast<long long>(e.step),
                      value("loss"), seconds(value("step_time")).c_str(), seconds(value("predicted_step_time")).c_str());
        printOut(b);
    } else if (e.type == EventType::Status) {
        std::string line = "status " + e.state;
        if (e.rank >= 0) line += " (rank " + std::to_string(e.rank) + ")";
        if (!e.text.empty()) line += ": " + e.text;
        printOut(line);
        if (auto it = e.fields.find("last_log"); it != e.fields.end() && !it->second.empty())
            printOut("last log lines:\n" + it->second);
    } else if (e.type == EventType::Log && (e.level == "error" || e.level == "warn")) {
        printErr(e.level + " (rank " + std::to_string(e.rank) + "): " + e.text);
    }
}

} // namespace

int runRunCommand(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Train a sharded plan on N MPI ranks (mpirun + tapas-worker train-plan), print one line per step "
        "and the final state. Exit code 0 only when the run finished."));
    // `-np 4` as mpirun users type it, not -n -p.
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addOption(dimOption());
    parser.addOption(batchOption());
    const QCommandLineOption npOpt(QStringList{QStringLiteral("np"), QStringLiteral("n")}, QStringLiteral("Number of ranks."), QStringLiteral("N"));
    const QCommandLineOption stepsOpt(QStringLiteral("steps"), QStringLiteral("Training steps (default 50)."), QStringLiteral("S"), QStringLiteral("50"));
    const QCommandLineOption ckptOpt(QStringLiteral("checkpoint-every"), QStringLiteral("Checkpoint every K steps, 0: never (default 10)."), QStringLiteral("K"), QStringLiteral("10"));
    const QCommandLineOption hostsOpt(QStringLiteral("hosts"), QStringLiteral("Comma-separated hosts (name or name:slots)."), QStringLiteral("list"));
    const QCommandLineOption hostfileOpt(QStringLiteral("hostfile"), QStringLiteral("Open MPI hostfile."), QStringLiteral("file"));
    const QCommandLineOption mapByOpt(QStringLiteral("map-by"), QStringLiteral("Open MPI --map-by value."), QStringLiteral("policy"));
    const QCommandLineOption runsOpt(QStringLiteral("runs-dir"), QStringLiteral("Where run directories go (default ./runs)."), QStringLiteral("dir"), QStringLiteral("runs"));
    const QCommandLineOption resumeOpt(QStringLiteral("resume"), QStringLiteral("Resume the run in this directory from its last checkpoint."), QStringLiteral("rundir"));
    const QCommandLineOption srunOpt(QStringLiteral("srun"), QStringLiteral("Print the srun line for SLURM instead of running."));
    const QCommandLineOption hungOpt(QStringLiteral("hung-seconds"), QStringLiteral("Stop as hung after this long without metrics (default 300)."), QStringLiteral("T"), QStringLiteral("300"));
    const QCommandLineOption graceOpt(QStringLiteral("grace-seconds"), QStringLiteral("SIGTERM .. SIGKILL on stop (default 10)."), QStringLiteral("G"), QStringLiteral("10"));
    const QCommandLineOption workerOpt(QStringLiteral("worker"), QStringLiteral("The tapas-worker program (default: next to tapas)."), QStringLiteral("path"));
    const QCommandLineOption mpirunOpt(QStringLiteral("mpirun"), QStringLiteral("The mpirun program."), QStringLiteral("path"));
    parser.addOptions({npOpt, stepsOpt, ckptOpt, hostsOpt, hostfileOpt, mapByOpt, runsOpt, resumeOpt, srunOpt, hungOpt,
                       graceOpt, workerOpt, mpirunOpt});
    parser.addPositionalArgument(QStringLiteral("plan"), QStringLiteral("The plan (.tapas.json)."));
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The ONNX model."));
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;

    auto intOption = [&](const QCommandLineOption& o, int min, int* out) {
        bool ok = false;
        *out = parser.value(o).toInt(&ok);
        if (ok && *out >= min) return true;
        printErr("tapas run: --" + o.names().constLast().toStdString() + " must be an integer >= " + std::to_string(min) +
                 ", not '" + parser.value(o).toStdString() + "'");
        return false;
    };

    runtime::LaunchRequest request;
    protocol::RunSpec& spec = request.spec;
    if (parser.isSet(resumeOpt)) {
        auto r = runtime::RunLauncher::resumeRequest(parser.value(resumeOpt));
        if (!r) {
            printErr("tapas run: " + r.error());
            return kExitBadInput;
        }
        request = std::move(*r);
    } else {
        if (parser.positionalArguments().size() != 2 || !parser.isSet(npOpt)) {
            printErr("tapas run: expected a plan, a model and -np, e.g. tapas run plan.tapas.json model.onnx -np 4 --steps 50");
            return kExitBadInput;
        }
        spec.kind = "train-plan";
        spec.planPath = parser.positionalArguments()[0].toStdString();
        spec.modelPath = parser.positionalArguments()[1].toStdString();
        request.runsRoot = parser.value(runsOpt);
    }
    if (parser.isSet(npOpt) && !intOption(npOpt, 1, &spec.ranks)) return kExitBadInput;
    if ((parser.isSet(stepsOpt) || !spec.resume) && !intOption(stepsOpt, 1, &spec.steps)) return kExitBadInput;
    if ((parser.isSet(ckptOpt) || !spec.resume) && !intOption(ckptOpt, 0, &spec.checkpointEvery)) return kExitBadInput;
    if (!intOption(hungOpt, 0, &request.hungSeconds) || !intOption(graceOpt, 1, &request.graceSeconds)) return kExitBadInput;
    if (parser.isSet(hostsOpt)) {
        spec.hosts.clear();
        for (const QString& h : parser.value(hostsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) spec.hosts.push_back(h.trimmed().toStdString());
    }
    if (const Result<DimBindings> dims = parseDimBindings(parser.values(dimOption())); !dims) {
        printErr("tapas run: " + dims.error());
        return kExitBadInput;
    }
    const Result<int64_t> batch = parseBatchOption(parser);
    if (!batch) {
        printErr("tapas run: " + batch.error());
        return kExitBadInput;
    }
    if (*batch > 0) spec.options["batch"] = std::to_string(*batch);
    for (const QString& d : parser.values(dimOption()))
        spec.options[runtime::kDimOptionPrefix + d.section(QLatin1Char('='), 0, 0).trimmed().toStdString()] =
            d.section(QLatin1Char('='), 1).trimmed().toStdString();
    request.hostfile = parser.value(hostfileOpt);
    request.mapBy = parser.value(mapByOpt);
    request.workerPath = parser.value(workerOpt);
    request.mpirunPath = parser.value(mpirunOpt);

    if (parser.isSet(srunOpt)) {
        // The worker's path on the cluster is the user's business; name it as installed here.
        auto worker = runtime::findWorker(request.workerPath);
        runtime::MpirunOptions o;
        o.ranks = spec.ranks;
        for (const std::string& h : spec.hosts) o.hosts << QString::fromStdString(h);
        o.hostfile = request.hostfile;
        o.mapBy = request.mapBy;
        o.exportVars = runtime::exportedVariables(QProcessEnvironment::systemEnvironment());
        o.program = worker ? *worker : QStringLiteral("tapas-worker");
        if (spec.id.empty()) spec.id = protocol::newRunId(spec.kind);
        const QString runDir = request.runDir.isEmpty() ? request.runsRoot + QLatin1Char('/') + QString::fromStdString(spec.id) : request.runDir;
        auto workerArgs = runtime::buildWorkerArguments(spec, {runDir, 0});
        if (!workerArgs) {
            printErr("tapas run: " + workerArgs.error());
            return kExitBadInput;
        }
        o.programArgs = *workerArgs;
        auto line = runtime::buildSrunLine(o);
        if (!line) {
            printErr("tapas run: " + line.error());
            return kExitBadInput;
        }
        printOut(line->toStdString());
        return kExitOk;
    }

    return superviseRun("tapas run", request, &printEvent);
}

} // namespace tapas::cli
