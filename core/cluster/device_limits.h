#pragma once
// The most devices a cluster or a mesh may have: every device count (nodes x devices per node,
// dp x tp) stays exact in an int, and far above any real cluster. Files that say more are
// refused with the field named rather than wrapped.
namespace tapas {

inline constexpr int kMaxDevices = 1 << 24;

} // namespace tapas
