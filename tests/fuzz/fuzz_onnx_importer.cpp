// libFuzzer target: whatever bytes arrive, the importer returns a Graph or an error message,
// and the summary of any Graph it returns can be computed. Crashes, sanitizer reports, leaks
// and hangs are the bugs this finds.
#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tapas::ImportOptions options;
    options.dims = {{"batch", 2}, {"seq", 8}};
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // A base dir that does not exist: external data references are recorded, never read.
    tapas::Result<tapas::Graph> g = tapas::importOnnxBytes(bytes, "fuzz.onnx", "/nonexistent-tapas-fuzz", options);
    if (g.ok()) {
        const tapas::ModelSummary s = tapas::summarizeModel(*g);
        (void)tapas::summaryToText(s);
    } else if (g.error().find("fuzz.onnx") == std::string::npos && g.error() != "cancelled") {
        __builtin_trap(); // every error must name the file
    }
    return 0;
}
