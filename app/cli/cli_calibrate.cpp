// `tapas cluster calibrate -np N [-o spec.json] [--name NAME] [--gemm MxKxN,...] ...`: measures
// the figures a cluster spec holds (fp32 GEMM FLOP/s at training sizes, MPI all-reduce latency and
// bus bandwidth) on N ranks started through mpirun + `tapas-worker calibrate`, checks the spec
// it wrote with the same parser `tapas search --cluster` uses, prints the table and saves the spec.
// Wiring only: runtime/launch builds the mpirun line, runtime/calibrate measures.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/cluster/cluster_spec.h"
#include "runtime/launch/mpi_failure.h"
#include "runtime/launch/mpirun_command.h"
#include "runtime/launch/worker_command.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tapas::cli {

namespace {

const char* kName = "tapas cluster calibrate";

// Refuses an output path that cannot be written before minutes of measuring, naming why.
std::string outputProblem(const QString& path)
{
    const QFileInfo fi(path);
    if (fi.isDir()) return "'" + path.toStdString() + "' is a directory";
    const QFileInfo dir(fi.absolutePath());
    if (!dir.exists()) return "the directory '" + dir.filePath().toStdString() + "' does not exist";
    if (!dir.isDir()) return "'" + dir.filePath().toStdString() + "' is not a directory";
    if (fi.exists() ? !fi.isWritable() : !dir.isWritable())
        return "'" + path.toStdString() + "' is not writable (permission denied)";
    return {};
}

std::string gflops(double f)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", f / 1e9);
    return b;
}

void printSummary(const ClusterSpec& c, const nlohmann::json& cal)
{
    char b[256];
    printOut("cluster '" + c.name + "': " + std::to_string(c.nodes) + " node(s) x " + std::to_string(c.devicesPerNode) +
             " rank(s), " + c.device);
    printOut("\nfp32 GEMM (libtorch mm, all ranks at once), GFLOP/s:");
    std::snprintf(b, sizeof b, "  %-14s %14s  %s", "shape MxKxN", "slowest rank", "per rank");
    printOut(b);
    for (const auto& row : cal.value("gemm", nlohmann::json::array())) {
        std::string per;
        for (const auto& f : row.value("flops_per_rank", nlohmann::json::array())) per += (per.empty() ? "" : " ") + gflops(f.get<double>());
        std::snprintf(b, sizeof b, "  %-14s %14s  %s", row.value("shape", std::string()).c_str(),
                      gflops(row.value("flops_slowest_rank", 0.0)).c_str(), per.c_str());
        printOut(b);
    }
    std::snprintf(b, sizeof b, "  representative (median) %s: %s GFLOP/s = peak %s x efficiency %.3f",
                  cal.value("representative_shape", std::string()).c_str(), gflops(cal.value("representative_flops", 0.0)).c_str(),
                  gflops(c.peakFp32).c_str(), c.efficiency);
    printOut(b);
    printOut("\nop families, forward + backward (cost model: overhead + max(FLOPs / FLOP rate, bytes / byte rate)):");
    std::snprintf(b, sizeof b, "  %-14s %12s %14s %14s", "family", "overhead us", "GFLOP/s", "GB/s");
    printOut(b);
    for (const auto& [family, r] : c.opFamilies) {
        std::snprintf(b, sizeof b, "  %-14s %12.1f %14s %14s", family.c_str(), r.overhead * 1e6,
                      r.flopRate > 0 ? gflops(r.flopRate).c_str() : "-", r.byteRate > 0 ? gflops(r.byteRate).c_str() : "-");
        printOut(b);
        for (const OpFamilyRate::SizeRate& p : r.bySize) {
            std::snprintf(b, sizeof b, "    by product size %12.3g FLOPs %12s", p.unitFlops, gflops(p.flopRate).c_str());
            printOut(b);
        }
        for (const OpFamilyRate::ByteSizeRate& p : r.byteBySize) {
            std::snprintf(b, sizeof b, "    by node size %15.3g B %29s", p.bytes, gflops(p.byteRate).c_str());
            printOut(b);
        }
    }
    if (const auto it = cal.find("collective_in_step"); it != cal.end() && it->is_object()) {
        std::snprintf(b, sizeof b,
                      "\nall-reduce of %ld B between torch ops, %d calls: median %.1f us (mean %.1f us), back to back %.1f us: "
                      "%.1f us more per collective",
                      it->value("bytes", 0L), it->value("calls", 0), it->value("median_seconds", 0.0) * 1e6,
                      it->value("mean_seconds", 0.0) * 1e6, it->value("tight_loop_seconds", 0.0) * 1e6,
                      it->value("overhead_s", 0.0) * 1e6);
        printOut(b);
    }
    printOut("\nMPI_Allreduce (cost model: 2(n-1) x latency + 2(n-1)/n x bytes / bandwidth):");
    for (const char* key : {"intra_node", "inter_node"}) {
        const auto it = cal.find(key);
        if (it == cal.end() || !it->is_object()) {
            printOut(std::string("  ") + key + ": same as intra_node (one node)");
            continue;
        }
        const auto& l = *it;
        std::snprintf(b, sizeof b,
                      "  %s, %d ranks: %ld B in %.2f us -> latency %.2f us per ring step; %ld B in %.3f ms -> bus bandwidth %.2f GB/s",
                      key, l.value("ranks", 0), l.value("small_bytes", 0L), l.value("small_allreduce_seconds", 0.0) * 1e6,
                      l.value("latency_per_ring_step", 0.0) * 1e6, l.value("large_bytes", 0L),
                      l.value("large_allreduce_seconds", 0.0) * 1e3, l.value("bus_bandwidth", 0.0) / 1e9);
        printOut(b);
    }
    std::snprintf(b, sizeof b, "\nmemory per rank %.1f GiB", c.memoryBytes / (1024.0 * 1024 * 1024));
    printOut(b);
}

int runCalibrate(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Measure a cluster spec on N MPI ranks (mpirun + tapas-worker calibrate): fp32 GEMM FLOP/s at training sizes, "
        "each op family's forward + backward (overhead, FLOP or byte rate), MPI all-reduce latency and bus bandwidth; write it as JSON (resources/clusters schema)."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    const QCommandLineOption npOpt(QStringList{QStringLiteral("np"), QStringLiteral("n")}, QStringLiteral("Number of ranks (>= 2)."), QStringLiteral("N"));
    const QCommandLineOption outOpt(QStringList{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Write the spec here (default: print it)."), QStringLiteral("file"));
    const QCommandLineOption nameOpt(QStringLiteral("name"), QStringLiteral("The spec's name (default: calibrated)."), QStringLiteral("name"), QStringLiteral("calibrated"));
    const QCommandLineOption gemmOpt(QStringLiteral("gemm"), QStringLiteral("GEMM sizes MxKxN,... (default: the bench GPT's)."), QStringLiteral("list"));
    const QCommandLineOption gemmSecOpt(QStringLiteral("gemm-seconds"), QStringLiteral("Timed seconds per GEMM size (default 0.5)."), QStringLiteral("S"));
    const QCommandLineOption familySecOpt(QStringLiteral("family-seconds"), QStringLiteral("Timed seconds per op-family case (default 0.3)."), QStringLiteral("S"));
    const QCommandLineOption collectiveSecOpt(QStringLiteral("collective-seconds"), QStringLiteral("Timed seconds of all-reduces between torch ops (default 1)."), QStringLiteral("S"));
    const QCommandLineOption threadsOpt(QStringLiteral("threads"), QStringLiteral("Intra-op threads per rank (default: libtorch's, as training)."), QStringLiteral("T"));
    const QCommandLineOption smallOpt(QStringLiteral("small-bytes"), QStringLiteral("Latency message size (default 8)."), QStringLiteral("B"));
    const QCommandLineOption largeOpt(QStringLiteral("large-bytes"), QStringLiteral("Bandwidth message size (default 8 MiB)."), QStringLiteral("B"));
    const QCommandLineOption smallRepsOpt(QStringLiteral("small-reps"), QStringLiteral("Small all-reduces timed (default 200)."), QStringLiteral("R"));
    const QCommandLineOption largeRepsOpt(QStringLiteral("large-reps"), QStringLiteral("Large all-reduces timed (default 10)."), QStringLiteral("R"));
    const QCommandLineOption hostsOpt(QStringLiteral("hosts"), QStringLiteral("Comma-separated hosts (name or name:slots)."), QStringLiteral("list"));
    const QCommandLineOption hostfileOpt(QStringLiteral("hostfile"), QStringLiteral("Open MPI hostfile."), QStringLiteral("file"));
    const QCommandLineOption mapByOpt(QStringLiteral("map-by"), QStringLiteral("Open MPI --map-by value."), QStringLiteral("policy"));
    const QCommandLineOption timeoutOpt(QStringLiteral("timeout-seconds"), QStringLiteral("Give up after this long (default 600)."), QStringLiteral("T"), QStringLiteral("600"));
    const QCommandLineOption workerOpt(QStringLiteral("worker"), QStringLiteral("The tapas-worker program (default: next to tapas)."), QStringLiteral("path"));
    const QCommandLineOption mpirunOpt(QStringLiteral("mpirun"), QStringLiteral("The mpirun program."), QStringLiteral("path"));
    parser.addOptions({npOpt, outOpt, nameOpt, gemmOpt, gemmSecOpt, familySecOpt, collectiveSecOpt, threadsOpt, smallOpt, largeOpt, smallRepsOpt, largeRepsOpt,
                       hostsOpt, hostfileOpt, mapByOpt, timeoutOpt, workerOpt, mpirunOpt});
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;
    if (!parser.positionalArguments().isEmpty()) {
        printErr(std::string(kName) + ": unexpected argument '" + parser.positionalArguments()[0].toStdString() + "'");
        return kExitBadInput;
    }
    auto intOption = [&](const QCommandLineOption& o, int min, int* out) {
        bool ok = false;
        *out = parser.value(o).toInt(&ok);
        if (ok && *out >= min) return true;
        printErr(std::string(kName) + ": -" + o.names().constFirst().toStdString() + " must be an integer >= " + std::to_string(min) +
                 ", not '" + parser.value(o).toStdString() + "'" + (&o == &npOpt ? " (the links between ranks are measured)" : ""));
        return false;
    };
    if (!parser.isSet(npOpt)) {
        printErr(std::string(kName) + ": -np is required, e.g. tapas cluster calibrate -np 2 -o cluster.json");
        return kExitBadInput;
    }
    runtime::MpirunOptions mo;
    int timeout = 600;
    if (!intOption(npOpt, 2, &mo.ranks) || !intOption(timeoutOpt, 1, &timeout)) return kExitBadInput;
    const QString output = parser.value(outOpt);
    if (parser.isSet(outOpt)) {
        if (const std::string why = outputProblem(output); !why.empty()) {
            printErr(std::string(kName) + ": cannot write -o '" + output.toStdString() + "': " + why);
            return kExitBadInput;
        }
    }

    auto mpirun = runtime::findMpirun(parser.value(mpirunOpt));
    auto worker = runtime::findWorker(parser.value(workerOpt));
    if (!mpirun || !worker) {
        printErr(std::string(kName) + ": " + (!mpirun ? mpirun.error() : worker.error()));
        return kExitBadInput;
    }
    QTemporaryDir tmp;
    if (!tmp.isValid()) {
        printErr(std::string(kName) + ": cannot create a temporary directory: " + tmp.errorString().toStdString());
        return kExitFailed;
    }
    const QString specPath = tmp.filePath(QStringLiteral("cluster.json"));
    // Worker options are checked by the worker before MPI starts; its sentence comes back below.
    QStringList workerArgs{QStringLiteral("calibrate"), QStringLiteral("--output"), specPath, QStringLiteral("--name"), parser.value(nameOpt)};
    for (const QCommandLineOption* o : {&gemmOpt, &gemmSecOpt, &familySecOpt, &collectiveSecOpt, &threadsOpt, &smallOpt, &largeOpt, &smallRepsOpt, &largeRepsOpt})
        if (parser.isSet(*o)) workerArgs << QStringLiteral("--") + o->names().constFirst() << parser.value(*o);

    mo.mpirun = *mpirun;
    for (const QString& h : parser.value(hostsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) mo.hosts << h.trimmed();
    mo.hostfile = parser.value(hostfileOpt);
    mo.mapBy = parser.value(mapByOpt);
    // As the run launcher does: more local ranks than cores need Open MPI's consent, and so does root.
    mo.oversubscribe = mo.hosts.isEmpty() && mo.hostfile.isEmpty() && mo.ranks > QThread::idealThreadCount();
    mo.runningAsRoot = ::geteuid() == 0;
    mo.exportVars = runtime::exportedVariables(QProcessEnvironment::systemEnvironment());
    mo.program = *worker;
    mo.programArgs = workerArgs;
    auto line = runtime::buildMpirunCommand(mo);
    if (!line) {
        printErr(std::string(kName) + ": " + line.error());
        return kExitBadInput;
    }
    printOut(line->toShellString().toStdString());

    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(line->program, line->arguments);
    if (!p.waitForStarted(30000)) {
        printErr(std::string(kName) + ": cannot start " + line->program.toStdString() + ": " + p.errorString().toStdString());
        return kExitFailed;
    }
    if (!p.waitForFinished(timeout * 1000)) {
        p.terminate();
        if (!p.waitForFinished(5000)) p.kill();
        p.waitForFinished(5000);
        printErr(std::string(kName) + ": gave up after " + std::to_string(timeout) + " s (--timeout-seconds)");
        return kExitFailed;
    }
    const QString log = QString::fromUtf8(p.readAll());
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const runtime::RankFailure f = runtime::parseRankFailure(log);
        printErr(std::string(kName) + ": the measurement failed" + (f.rank >= 0 ? " (" + f.describe().toStdString() + ")" : "") +
                 ", mpirun exit code " + std::to_string(p.exitCode()) + "; its output:\n" + log.trimmed().toStdString());
        // The worker's usage errors (exit code 2) are the user's input.
        return p.exitCode() == 2 ? kExitBadInput : kExitFailed;
    }

    // The spec must load with the parser everything else uses, or it is not a spec.
    Result<ClusterSpec> spec = loadClusterSpecFile(specPath.toStdString());
    if (!spec) {
        printErr(std::string(kName) + ": the worker wrote an invalid spec: " + spec.error());
        return kExitFailed;
    }
    std::ifstream in(specPath.toStdString());
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    printSummary(*spec, j.is_object() ? j.value("calibration", nlohmann::json::object()) : nlohmann::json::object());

    if (output.isEmpty()) {
        printOut("\n" + text.str());
        return kExitOk;
    }
    QSaveFile out(output);
    if (!out.open(QIODevice::WriteOnly) || out.write(QByteArray::fromStdString(text.str())) < 0 || !out.commit()) {
        printErr(std::string(kName) + ": cannot write -o '" + output.toStdString() + "': " + out.errorString().toStdString());
        return kExitFailed;
    }
    printOut("\nwrote " + output.toStdString());
    return kExitOk;
}

} // namespace

int runClusterCommand(const QStringList& args)
{
    const char* usage = "usage: tapas cluster calibrate -np N [-o spec.json] [--name NAME] [options]  (--help lists them)";
    if (args.size() >= 2 && (args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h"))) {
        printOut(usage);
        return kExitOk;
    }
    if (args.size() < 2 || args[1] != QLatin1String("calibrate")) {
        printErr(std::string("tapas cluster: ") + (args.size() < 2 ? "expected a sub-command" : "unknown sub-command '" + args[1].toStdString() + "'") +
                 "\n" + usage);
        return kExitBadInput;
    }
    QStringList rest = args;
    rest.removeAt(1); // the parser sees "tapas <options>"
    return runCalibrate(rest);
}

} // namespace tapas::cli
