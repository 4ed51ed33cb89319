#pragma once
// Megatron-LM's published runs (resources/reference/megatron_sc21.json, compiled into `tapas`):
// each row predicted under its published configuration, and planned by TAPAS on the same cluster.
#include <string>
#include <vector>

namespace tapas::bench {

// `tapas bench search --megatron [--rows 1.7B,145B,...]`: the table of Narayanan et al., SC'21.
// `efficiency` > 0: the preset priced on the A100 roofline (core/cost/gpu_roofline.h) at that
// efficiency instead of its flat fraction of peak (the sensitivity the README reports).
int runMegatronTable(const std::vector<std::string>& rows, double rooflineEfficiency = 0);
// GPT-3 175B on the 1,024-A100 preset: TAPAS's plan and its CPU time beside Megatron-LM's run.
int runGpt3Target();

} // namespace tapas::bench
