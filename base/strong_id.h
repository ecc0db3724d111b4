// Strong identifier types: a raw integer that cannot be mixed up with another kind of id.
//
// Plays the role of the bare HSAuint32 node ids, gpu_ids and KFD handles that libhsakmt and the
// kernel pass around; here each is its own type. Usage:
//   using GpuId = StrongId<struct GpuIdTag, uint32_t>;
// Explicit construction, raw(), comparisons, hashing and printing; no arithmetic, no default, no
// sentinel: absence is std::optional<GpuId>.
#ifndef HIPMEM_BASE_STRONG_ID_H_
#define HIPMEM_BASE_STRONG_ID_H_

#include <compare>
#include <ostream>
#include <type_traits>
#include <utility>

namespace hipmem {

template <typename Tag, typename T>
class StrongId {
  static_assert(std::is_integral_v<T>, "StrongId wraps an integer");

 public:
  using ValueType = T;

  constexpr explicit StrongId(T value) : value_(value) {}

  constexpr T raw() const { return value_; }

  friend constexpr auto operator<=>(const StrongId&, const StrongId&) = default;
  friend constexpr bool operator==(const StrongId&, const StrongId&) = default;

  template <typename H>
  friend H AbslHashValue(H h, const StrongId& id) {
    return H::combine(std::move(h), id.value_);
  }

  friend std::ostream& operator<<(std::ostream& os, const StrongId& id) {
    return os << "0x" << std::hex << +id.value_ << std::dec;
  }

 private:
  T value_;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_STRONG_ID_H_
