#pragma once
// What both fuzz targets assert of one import: a Graph whose summary computes, or an error that
// names the file. Crashes, sanitizer reports, leaks and hangs are what the fuzzers find.
#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"

#include <string>
#include <string_view>

namespace tapas::fuzz {

inline void importAndCheck(std::string_view bytes, const ImportOptions& options)
{
    // A base dir that does not exist: external data references are recorded, never read.
    Result<Graph> g = importOnnxBytes(bytes, "fuzz.onnx", "/nonexistent-tapas-fuzz", options);
    if (g.ok()) {
        const ModelSummary s = summarizeModel(*g);
        (void)summaryToText(s);
    } else if (g.error().find("fuzz.onnx") == std::string::npos && g.error() != "cancelled") {
        __builtin_trap(); // every error must name the file
    }
}

} // namespace tapas::fuzz
