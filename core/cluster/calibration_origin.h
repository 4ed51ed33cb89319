#pragma once
// Where a calibrated cluster's rates come from: `tapas cluster calibrate` names the CPU and the
// time in the spec's device text, so a benchmark judging predictions against this machine can
// say when the file describes another CPU, and otherwise remind that it may describe another
// machine of the same model or another load (a committed preset was measured elsewhere).
#include "core/cluster/cluster_spec.h"

#include <string>

namespace tapas {

// This machine's CPU as /proc/cpuinfo's first "model name" names it; "" where it cannot be read.
std::string thisMachineCpu();

// One line for a calibrated cluster (op_families present; "" for any other): a warning when the
// CPU the device text names differs from `cpu`, else a note naming when it was measured.
// "" too when the device text does not say (a hand-written file).
std::string calibrationOriginNote(const ClusterSpec& c, const std::string& cpu);

} // namespace tapas
