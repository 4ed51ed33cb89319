#pragma once
// Compute time from the per-family rates a calibrated cluster carries (ClusterSpec::opFamilies):
// on a CPU rank a step is not FLOPs at one rate. Element-wise ops are bound by memory, small
// ops by dispatch and autograd, the weight update by Adam's passes over the weights; one
// rate per family, measured by `tapas cluster calibrate` through libtorch, prices each.
#include "core/cluster/cluster_spec.h"

#include <optional>
#include <string>

namespace tapas {

// Seconds for the forward and backward of one node of op family `family` doing `flops` and
// moving `bytes` (its share on this device), or nothing when the cluster has no rate for it.
std::optional<double> familyComputeSeconds(const ClusterSpec& c, const std::string& family, double flops, double bytes);

// Seconds of the optimizer's update of one weight tensor of `paramBytes` (fp32 bytes held by this
// device); 0 when the cluster has no "optimizer" rate (GPU presets fold it into efficiency).
double optimizerSeconds(const ClusterSpec& c, double paramBytes);

} // namespace tapas
