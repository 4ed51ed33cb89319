#include "app/cli/cli_common.h"

#include "core/ir/dim_bindings.h"
#include "core/onnx/onnx_importer.h"
#include "core/ops/control_bodies.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace tapas::cli {

QCommandLineOption dimOption()
{
    return QCommandLineOption(QStringList{QStringLiteral("dim")},
                              QStringLiteral("Bind a symbolic dimension, e.g. --dim batch=8 (repeatable)."),
                              QStringLiteral("name=value"));
}

QCommandLineOption batchOption()
{
    return QCommandLineOption(QStringList{QStringLiteral("batch")},
                              QStringLiteral("Samples per step: binds the model's batch axis (found by probing the model), "
                                             "re-batching a fixed-batch export."),
                              QStringLiteral("N"));
}

Result<int64_t> parseBatchOption(const QCommandLineParser& parser)
{
    if (!parser.isSet(batchOption())) return int64_t(0);
    bool ok = false;
    const qlonglong v = parser.value(batchOption()).trimmed().toLongLong(&ok);
    if (!ok || v < 1 || v > (qlonglong(1) << 40))
        return Result<int64_t>::failure("--batch '" + parser.value(batchOption()).toStdString() +
                                        "': expected a positive integer (samples per step)");
    return int64_t(v);
}

QCommandLineOption assumeBranchOption()
{
    return QCommandLineOption(QStringList{QStringLiteral("assume-branch")},
                              QStringLiteral("Price an If whose condition reads data as the branch the workload takes, "
                                             "e.g. --assume-branch If_32=else (repeatable; otherwise its dearer branch)."),
                              QStringLiteral("node=then|else"));
}

Status applyAssumedBranches(const QCommandLineParser& parser, Graph& g)
{
    std::vector<std::string> specs;
    for (const QString& v : parser.values(assumeBranchOption())) specs.push_back(v.toStdString());
    return assumeIfBranches(g, specs);
}

QCommandLineOption jsonOption()
{
    return QCommandLineOption(QStringList{QStringLiteral("json")},
                              QStringLiteral("Print one JSON object instead of text."));
}

Result<DimBindings> parseDimBindings(const QStringList& values)
{
    std::vector<std::string> args;
    for (const QString& v : values) args.push_back(v.toStdString());
    return tapas::parseDimBindings(args);
}

bool parseOrExplain(QCommandLineParser& parser, const QStringList& args, int* exitCode)
{
    if (!parser.parse(args)) {
        printErr("tapas: " + parser.errorText().toStdString());
        printErr(parser.helpText().toStdString());
        *exitCode = kExitBadInput;
        return false;
    }
    const QStringList seen = parser.optionNames();
    if (seen.contains(QStringLiteral("help")) || seen.contains(QStringLiteral("h"))) {
        printOut(parser.helpText().toStdString());
        *exitCode = kExitOk;
        return false;
    }
    return true;
}

Result<Graph> loadGraph(const QString& path, const DimBindings& dims, int64_t batch, bool probeBatch)
{
    ImportOptions options;
    options.dims = dims;
    options.batch = batch;
    options.probeBatch = probeBatch;
    return importOnnxFile(path.toStdString(), options);
}

std::optional<Graph> loadGraphOrReport(const QString& path, const DimBindings& dims, int64_t batch, bool probeBatch)
{
    Result<Graph> g = loadGraph(path, dims, batch, probeBatch);
    if (!g.ok()) {
        printErr("tapas: " + g.error());
        return std::nullopt;
    }
    return std::move(g).value();
}

namespace {
void writeLine(FILE* f, const std::string& text)
{
    std::fwrite(text.data(), 1, text.size(), f);
    if (text.empty() || text.back() != '\n') std::fputc('\n', f);
    std::fflush(f);
}
} // namespace

void printOut(const std::string& text) { writeLine(stdout, text); }
void printErr(const std::string& text) { writeLine(stderr, text); }

void printJson(const nlohmann::json& j)
{
    // Replace invalid UTF-8 (names come from arbitrary files) instead of throwing.
    printOut(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace tapas::cli
