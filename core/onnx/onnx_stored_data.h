#pragma once
// The weight values a model file stores, read for training (the importer keeps only dims and
// small values in the IR). Float tensors of the main graph: initializers, with external data
// read from beside the model, and the `value` of Constant nodes (exporters such as paddle2onnx
// keep every weight that way), keyed by the tensor name the graph uses.
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tapas {

struct StoredFloats {
    std::vector<int64_t> dims;
    std::vector<float> values; // every element, converted to fp32 (fp16, bf16 and fp64 too)
};

struct StoredWeights {
    std::unordered_map<std::string, StoredFloats> tensors;
    // Float tensors the file declares without their bytes: name -> why (external file absent,
    // data shorter than its dims, ...). Such tensors fall back to synthetic values.
    std::unordered_map<std::string, std::string> missing;
};

// Reads every stored float tensor of the model at `path`. Fails (naming the file) only when the
// file itself cannot be read or parsed; a tensor whose data cannot be read lands in `missing`.
Result<StoredWeights> readStoredWeights(const std::string& path);

} // namespace tapas
