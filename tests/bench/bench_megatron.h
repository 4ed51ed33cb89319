#pragma once
// Megatron-LM's published runs (resources/reference/megatron_sc21.json, compiled into `tapas`):
// each row predicted under its published configuration, and planned by TAPAS on the same cluster.
#include <string>
#include <vector>

namespace tapas::bench {

// How the table prices compute; left default, the preset as it is (selene-a100x1024: the A100
// roofline at its achieved constants, core/cost/gpu_roofline.h).
struct MegatronPricing {
    double efficiency = 0;  // > 0: this GEMM efficiency instead of the preset's (--roofline-efficiency E)
    bool datasheet = false; // the roofline at the datasheet constants (kA100SxmRoofline: --roofline, at MAMF's 0.859)
    bool flat = false;      // no roofline: every op at `efficiency` of peak (--flat-efficiency E, the old 0.5 model)
};

// `tapas bench search --megatron [--rows 1.7B,145B,...]`: the table of Narayanan et al., SC'21.
int runMegatronTable(const std::vector<std::string>& rows, const MegatronPricing& pricing = {});
// GPT-3 175B on the 1,024-A100 preset: TAPAS's plan and its CPU time beside Megatron-LM's run.
int runGpt3Target();

} // namespace tapas::bench
