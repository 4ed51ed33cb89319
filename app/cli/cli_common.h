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
// stderr and returns nullopt: the caller returns kExitBadInput.
std::optional<Graph> loadGraphOrReport(const QString& path, const DimBindings& dims);

// Writes to stdout / stderr (UTF-8), with a trailing newline when the text has none.
void printOut(const std::string& text);
void printErr(const std::string& text);
// Prints a JSON document indented by 2 spaces.
void printJson(const nlohmann::json& j);

} // namespace tapas::cli
