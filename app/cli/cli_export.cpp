// `tapas export PLAN.tapas.json --model MODEL.onnx --format F -o OUT [--hosts a,b]
//   [--gpus-per-node N] [--worker PATH] [--steps N] [--time HH:MM:SS] [--job-name NAME]
//   [--run-dir DIR] [--dim name=value]`: wiring only; the formats live in core/plan/export_*.cpp.
// The model is needed to check the plan belongs to it (model hash) and to read its graph.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/fold/folded_graph.h"
#include "core/plan/plan_exporter.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace tapas::cli {

int runExport(const QStringList& args)
{
    std::string formats;
    for (const auto& e : planExporters()) formats += (formats.empty() ? "" : ", ") + e->name();
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Export a plan for a cluster: %1.").arg(QString::fromStdString(formats)));
    parser.addHelpOption();
    parser.addOption(dimOption());
    parser.addOption(batchOption());
    const QCommandLineOption modelOpt(QStringLiteral("model"), QStringLiteral("The ONNX model the plan was made for."), QStringLiteral("file"));
    const QCommandLineOption formatOpt(QStringLiteral("format"), QStringLiteral("One of: %1.").arg(QString::fromStdString(formats)),
                                       QStringLiteral("format"));
    const QCommandLineOption outOpt(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                    QStringLiteral("Folder to write the exported files into (created)."), QStringLiteral("dir"));
    const QCommandLineOption hostsOpt(QStringLiteral("hosts"), QStringLiteral("Comma-separated host names, one per node (default: node01, ...)."),
                                      QStringLiteral("list"));
    const QCommandLineOption gpusOpt(QStringLiteral("gpus-per-node"), QStringLiteral("GPUs per node (default: the plan's cluster)."),
                                     QStringLiteral("n"));
    const QCommandLineOption workerOpt(QStringLiteral("worker"), QStringLiteral("tapas-worker as the cluster sees it."),
                                       QStringLiteral("path"), QStringLiteral("tapas-worker"));
    const QCommandLineOption modelPathOpt(QStringLiteral("cluster-model-path"),
                                          QStringLiteral("The model's path on the cluster (default: its absolute path here)."), QStringLiteral("path"));
    const QCommandLineOption planPathOpt(QStringLiteral("cluster-plan-path"),
                                         QStringLiteral("The plan's path on the cluster (default: its absolute path here)."), QStringLiteral("path"));
    const QCommandLineOption stepsOpt(QStringLiteral("steps"), QStringLiteral("Training steps (default 100)."), QStringLiteral("n"), QStringLiteral("100"));
    const QCommandLineOption timeOpt(QStringLiteral("time"), QStringLiteral("SLURM time limit (default 01:00:00)."), QStringLiteral("limit"),
                                     QStringLiteral("01:00:00"));
    const QCommandLineOption jobOpt(QStringLiteral("job-name"), QStringLiteral("Job name (default tapas)."), QStringLiteral("name"),
                                    QStringLiteral("tapas"));
    const QCommandLineOption runDirOpt(QStringLiteral("run-dir"), QStringLiteral("Run directory on the cluster (default runs/<job name>)."),
                                       QStringLiteral("dir"));
    parser.addOptions({modelOpt, formatOpt, outOpt, hostsOpt, gpusOpt, workerOpt, modelPathOpt, planPathOpt, stepsOpt, timeOpt, jobOpt, runDirOpt});
    parser.addPositionalArgument(QStringLiteral("plan"), QStringLiteral("The plan file (.tapas.json)."));
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;
    if (parser.positionalArguments().size() != 1 || !parser.isSet(modelOpt) || !parser.isSet(formatOpt) || !parser.isSet(outOpt)) {
        printErr("usage: tapas export PLAN.tapas.json --model MODEL.onnx --format F -o OUT [--hosts a,b] [--gpus-per-node N]");
        return kExitBadInput;
    }
    const PlanExporter* exporter = findPlanExporter(parser.value(formatOpt).toStdString());
    if (!exporter) {
        printErr("tapas export: unknown format '" + parser.value(formatOpt).toStdString() + "' (available: " + formats + ")");
        return kExitBadInput;
    }
    ExportOptions options;
    for (const QString& h : parser.value(hostsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) options.hosts.push_back(h.toStdString());
    bool ok = true;
    if (parser.isSet(gpusOpt)) {
        options.gpusPerNode = parser.value(gpusOpt).toInt(&ok);
        if (!ok || options.gpusPerNode < 1) {
            printErr("tapas export: --gpus-per-node must be a positive integer, not '" + parser.value(gpusOpt).toStdString() + "'");
            return kExitBadInput;
        }
    }
    options.steps = parser.value(stepsOpt).toInt(&ok);
    if (!ok || options.steps < 1) {
        printErr("tapas export: --steps must be a positive integer, not '" + parser.value(stepsOpt).toStdString() + "'");
        return kExitBadInput;
    }
    const QString planArg = parser.positionalArguments()[0];
    options.workerPath = parser.value(workerOpt).toStdString();
    options.modelPath = (parser.isSet(modelPathOpt) ? parser.value(modelPathOpt) : QFileInfo(parser.value(modelOpt)).absoluteFilePath()).toStdString();
    options.planPath = (parser.isSet(planPathOpt) ? parser.value(planPathOpt) : QFileInfo(planArg).absoluteFilePath()).toStdString();
    options.timeLimit = parser.value(timeOpt).toStdString();
    options.jobName = parser.value(jobOpt).toStdString();
    options.runDir = parser.value(runDirOpt).toStdString();

    const Result<DimBindings> dims = parseDimBindings(parser.values(dimOption()));
    if (!dims) {
        printErr("tapas export: " + dims.error());
        return kExitBadInput;
    }
    const Result<int64_t> batch = parseBatchOption(parser);
    if (!batch) {
        printErr("tapas export: " + batch.error());
        return kExitBadInput;
    }
    const std::optional<Graph> graph = loadGraphOrReport(parser.value(modelOpt), *dims, *batch, true);
    if (!graph) return kExitBadInput;
    Result<PlanDocument> doc = loadPlanFile(planArg.toStdString(), *graph);
    if (!doc) {
        printErr("tapas export: " + doc.error());
        return kExitBadInput;
    }
    Result<FoldedGraph> folded = foldGraph(*graph);
    ExportInput in;
    in.graph = &*graph;
    in.folded = folded ? &*folded : nullptr;
    in.plan = &doc->plan;
    in.cluster = &doc->cluster;
    in.provenance = doc->provenance;
    Result<ExportFiles> files = exporter->write(in, options);
    if (!files) {
        printErr("tapas export: " + files.error());
        return kExitFailed;
    }
    const std::string dir = parser.value(outOpt).toStdString();
    if (Status s = writeExportFiles(dir, *files); !s) {
        printErr("tapas export: " + s.error);
        return kExitFailed;
    }
    std::string written;
    for (const auto& [name, content] : *files) written += "  " + dir + "/" + name + " (" + std::to_string(content.size()) + " bytes)\n";
    printOut("exported " + exporter->description() + ":\n" + written);
    return kExitOk;
}

} // namespace tapas::cli
