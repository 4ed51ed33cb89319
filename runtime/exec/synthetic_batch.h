#pragma once
// INTERNAL to runtime/exec (includes torch): the seeded numbers train-plan trains on when the
// model file has no weights for a tensor, and every step's synthetic inputs and targets.
//
// Each generator is a splitmix64 stream whose i-th number depends only on (seed, i), so a rank
// can draw just its piece of a global tensor (one dp replica's, one micro-batch's) and get
// exactly the values the whole tensor has there: the unsharded reference and every split of it
// see the same batch, and no rank spends a step drawing the other ranks' data.
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tapas::runtime {

uint64_t mixSeed(uint64_t a, uint64_t b);
uint64_t hashName(const std::string& s);

// Normal(0, stddev) values of a tensor of `shape` (Box-Muller over the stream's pairs).
torch::Tensor seededNormal(uint64_t seed, const std::vector<int64_t>& shape, double stddev);
// Integers in [0, high).
torch::Tensor seededInts(uint64_t seed, const std::vector<int64_t>& shape, int64_t high);

// Piece `index` of `pieces` equal parts along `axis` of the tensor seededNormal / seededInts
// would make for `shape` (contiguous). `axis` < 0: the whole tensor.
torch::Tensor seededNormalPiece(uint64_t seed, const std::vector<int64_t>& shape, double stddev, int axis,
                                int64_t index, int64_t pieces);
torch::Tensor seededIntsPiece(uint64_t seed, const std::vector<int64_t>& shape, int64_t high, int axis,
                              int64_t index, int64_t pieces);

} // namespace tapas::runtime
