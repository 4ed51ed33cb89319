#pragma once
// The step budgets of ParaGAN's built-in data sets: what `tapas gan --data X` and the Runs dock's
// presets run when no step count is given. One table for the worker, the CLI and the GUI, so the
// budget a benchmark measured is the one a user gets (docs/paragan.md, "Presets"). Plain C++.
#include <string_view>

namespace tapas::protocol {

// Generator updates; 0 for a name that is not a built-in data set.
constexpr int ganDefaultSteps(std::string_view data)
{
    if (data == "ring8") return 24000;
    if (data == "grid25") return 24000;
    if (data == "fashion-mnist") return 1200;
    if (data == "shapes" || data == "folder") return 200;
    return 0;
}

} // namespace tapas::protocol
