// The cluster presets compiled in, so the core needs no resource files at run time.
// Keep in step with resources/clusters/*.json: tst_cluster_spec checks that both agree.
#include "core/cluster/cluster_spec.h"

namespace tapas {

const std::vector<std::pair<std::string, std::string>>& builtinClusterPresets()
{
    static const std::vector<std::pair<std::string, std::string>> presets = {
        {"a100x8", R"json({
  "name": "a100x8",
  "device": "A100-SXM4-80GB",
  "nodes": 1,
  "devices_per_node": 8,
  "peak_flops": { "fp32": 19.5e12, "fp16": 312e12, "bf16": 312e12 },
  "memory_bytes": 85899345920,
  "intra_node": { "bandwidth": 300e9, "latency": 5e-6 },
  "inter_node": { "bandwidth": 25e9, "latency": 1e-5 },
  "efficiency": 0.5
}
)json"},
        {"h100x16", R"json({
  "name": "h100x16",
  "device": "H100-SXM5-80GB",
  "nodes": 2,
  "devices_per_node": 8,
  "peak_flops": { "fp32": 67e12, "fp16": 989e12, "bf16": 989e12 },
  "memory_bytes": 85899345920,
  "intra_node": { "bandwidth": 450e9, "latency": 5e-6 },
  "inter_node": { "bandwidth": 50e9, "latency": 1e-5 },
  "efficiency": 0.5
}
)json"},
        {"v100x32", R"json({
  "name": "v100x32",
  "device": "V100-SXM2-32GB",
  "nodes": 4,
  "devices_per_node": 8,
  "peak_flops": { "fp32": 15.7e12, "fp16": 125e12, "bf16": 15.7e12 },
  "memory_bytes": 34359738368,
  "intra_node": { "bandwidth": 150e9, "latency": 5e-6 },
  "inter_node": { "bandwidth": 12.5e9, "latency": 1.5e-5 },
  "efficiency": 0.5
}
)json"},
        {"cpu-mpi", R"json({
  "name": "cpu-mpi",
  "device": "x86-64 core (MPI rank)",
  "nodes": 1,
  "devices_per_node": 2,
  "peak_flops": { "fp32": 50e9, "fp16": 50e9, "bf16": 50e9 },
  "memory_bytes": 12884901888,
  "intra_node": { "bandwidth": 5e9, "latency": 2e-5 },
  "inter_node": { "bandwidth": 5e9, "latency": 2e-5 },
  "efficiency": 0.6
}
)json"},
    };
    return presets;
}

} // namespace tapas
