#pragma once
// Helpers every `tapas` sub-command shares: `--dim name=value` bindings, loading a model with
// the importer's error printed to stderr (exit code 2), and the --json / text output switch.
#include "core/ir/graph.h"
#include "core/ir/shape.h"
#include "core/util/result.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace tapas::cli {

// Exit codes shared by all commands (cli_commands.h).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

// The repeatable `--dim name=value` option.
QCommandLineOption dimOption();
// `--batch N`: train with N samples a step; the importer probes the model for its batch axis and
// binds (or, for a fixed-batch export, re-batches) it.
QCommandLineOption batchOption();
// --assume-branch NODE=then|else (repeatable): the branch an If whose condition reads data is
// priced by (core/ops/control_bodies.h, assumeIfBranches).
QCommandLineOption assumeBranchOption();
// Applies the --assume-branch values to `g`; the refusal names the value at fault.
Status applyAssumedBranches(const QCommandLineParser& parser, Graph& g);
// The value of --batch: 0 when absent; an error naming the value when not a positive integer.
Result<int64_t> parseBatchOption(const QCommandLineParser& parser);
// The `--json` switch.
QCommandLineOption jsonOption();

// Parses "batch=8", "seq=2048", ... into bindings (core/ir/dim_bindings.h, the grammar
// tapas-studio shares); an error names the offending argument.
Result<DimBindings> parseDimBindings(const QStringList& values);

// Parses the command line; on a usage error prints it (and the help) to stderr and returns
// false with `*exitCode` set to kExitBadInput. `--help`/`-h` (add parser.addHelpOption())
// prints the help and returns false with 0.
bool parseOrExplain(QCommandLineParser& parser, const QStringList& args, int* exitCode);

// Imports an ONNX file with the given dim bindings. On failure prints "tapas: <error>" to
// stderr and returns nullopt: the caller returns kExitBadInput. Commands that plan for a
// workload set `batch` (--batch, 0 = none) and `probeBatch`, so Graph::batch is known.
std::optional<Graph> loadGraphOrReport(const QString& path, const DimBindings& dims, int64_t batch = 0, bool probeBatch = false);
// The same without printing: the importer's error as a value.
Result<Graph> loadGraph(const QString& path, const DimBindings& dims, int64_t batch = 0, bool probeBatch = false);

// Writes to stdout / stderr (UTF-8), with a trailing newline when the text has none.
void printOut(const std::string& text);
void printErr(const std::string& text);
// Prints a JSON document indented by 2 spaces.
void printJson(const nlohmann::json& j);

} // namespace tapas::cli
