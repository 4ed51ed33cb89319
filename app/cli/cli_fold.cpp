// `tapas fold model.onnx [--json | --tree] [--dim name=value]`: the repeated blocks of a model.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/fold/folded_graph.h"
#include "core/report/fold_report.h"

#include <nlohmann/json.hpp>

namespace tapas::cli {

int runFold(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Find the repeated blocks of a model: each block class with its instances, nodes and "
        "parameters per instance, name scope, and the share of the graph that repeats; --tree "
        "shows them nested as stages, groups, blocks and sub-blocks; --json lists every class of "
        "that tree with its parent and coverage."));
    parser.addHelpOption();
    parser.addOption(jsonOption());
    const QCommandLineOption treeOption(QStringLiteral("tree"),
                                        QStringLiteral("Print the fold tree: model, stages, groups, blocks, sub-blocks."));
    parser.addOption(treeOption);
    parser.addOption(dimOption());
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The ONNX file."));
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) {
        printErr("tapas fold: expected exactly one model file, e.g. tapas fold model.onnx");
        return kExitBadInput;
    }
    const Result<DimBindings> dims = parseDimBindings(parser.values(dimOption()));
    if (!dims) {
        printErr("tapas fold: " + dims.error());
        return kExitBadInput;
    }
    const std::optional<Graph> graph = loadGraphOrReport(positional[0], *dims);
    if (!graph) return kExitBadInput;

    Result<FoldedGraph> folded = foldGraph(*graph);
    if (!folded) {
        printErr("tapas fold: " + positional[0].toStdString() + ": " + folded.error());
        return kExitFailed;
    }
    if (parser.isSet(jsonOption())) printJson(foldToJson(*graph, *folded));
    else if (parser.isSet(treeOption)) printOut(foldTreeToText(*graph, *folded));
    else printOut(foldToText(*graph, *folded));
    return kExitOk;
}

} // namespace tapas::cli
