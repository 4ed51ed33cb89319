// tapas inspect model.onnx [--json] [--dim name=value]...
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/report/model_summary.h"

#include <nlohmann/json.hpp>

namespace tapas::cli {

int runInspect(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Describe an ONNX model: op histogram, parameters, FLOPs per forward pass, inputs and "
        "outputs with shapes, dims left symbolic, and warnings."));
    parser.addHelpOption();
    parser.addOption(jsonOption());
    parser.addOption(dimOption());
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The .onnx file."));
    int code = kExitOk;
    if (!parseOrExplain(parser, args, &code)) return code;

    const QStringList files = parser.positionalArguments();
    if (files.size() != 1) {
        printErr("tapas inspect: expected exactly one model file, got " + std::to_string(files.size()));
        printErr(parser.helpText().toStdString());
        return kExitBadInput;
    }
    const Result<DimBindings> dims = parseDimBindings(parser.values(QStringLiteral("dim")));
    if (!dims) {
        printErr("tapas inspect: " + dims.error());
        return kExitBadInput;
    }
    const std::optional<Graph> graph = loadGraphOrReport(files.front(), *dims);
    if (!graph) return kExitBadInput;

    const ModelSummary summary = summarizeModel(*graph);
    if (parser.isSet(QStringLiteral("json"))) printJson(summaryToJson(summary));
    else printOut(summaryToText(summary));
    return kExitOk;
}

} // namespace tapas::cli
