// libFuzzer target: whatever bytes arrive, the importer returns a Graph or an error message,
// and the summary of any Graph it returns can be computed. Crashes, sanitizer reports, leaks
// and hangs are the bugs this finds.
#include "tests/fuzz/fuzz_import_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tapas::ImportOptions options;
    options.dims = {{"batch", 2}, {"seq", 8}};
    tapas::fuzz::importAndCheck(std::string_view(reinterpret_cast<const char*>(data), size), options);
    return 0;
}
