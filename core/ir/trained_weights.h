#pragma once
// Which tensors a training step trains: the weights the worker gives a gradient and an optimizer
// state (runtime/exec), and the cost model charges weight memory and gradient sync for. One rule
// for both, so a plan's memory counts what the worker holds.
#include "core/ir/graph.h"

namespace tapas {

// An initializer of floats (not a batch norm's running statistic, not a one-element eps or
// scale), or a float Constant node's output of two or more elements read only as data
// (paddle2onnx keeps every weight so), even when the importer knows its value.
bool isTrainedWeight(const Graph& g, TensorId t);

// A weight as a step holds it (its memory, and a gradient unless it is a running statistic): a
// trained one, or stored float data the importer did not fold into a known value.
bool isHeldWeight(const Graph& g, TensorId t);

} // namespace tapas
