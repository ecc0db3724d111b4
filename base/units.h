// Byte counts and device addresses as affine types (tcmalloc's PageId/Length pattern).
//
// Bytes ± Bytes -> Bytes; DeviceAddress + Bytes -> DeviceAddress;
// DeviceAddress - DeviceAddress -> Bytes. Nothing else: an address is never added to an address.
// Sizes that come from a user or the kernel go through the Checked* functions, which return
// std::nullopt on overflow so the caller can turn it into kInvalidArgument.
#ifndef HIPMEM_BASE_UNITS_H_
#define HIPMEM_BASE_UNITS_H_

#include <bit>
#include <compare>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace hipmem {

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t count) : count_(count) {}

  static constexpr Bytes KiB(uint64_t n) { return Bytes(n << 10); }
  static constexpr Bytes MiB(uint64_t n) { return Bytes(n << 20); }
  static constexpr Bytes GiB(uint64_t n) { return Bytes(n << 30); }

  constexpr uint64_t raw() const { return count_; }
  constexpr bool is_zero() const { return count_ == 0; }

  friend constexpr auto operator<=>(Bytes, Bytes) = default;
  friend constexpr bool operator==(Bytes, Bytes) = default;

  // Unchecked arithmetic is for values already validated; user input uses CheckedAdd.
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes(a.count_ + b.count_); }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes(a.count_ - b.count_); }
  constexpr Bytes& operator+=(Bytes b) { count_ += b.count_; return *this; }
  constexpr Bytes& operator-=(Bytes b) { count_ -= b.count_; return *this; }

  friend std::ostream& operator<<(std::ostream& os, Bytes b) { return os << b.count_ << " B"; }

 private:
  uint64_t count_ = 0;
};

// Returns a + b, or nullopt on overflow.
constexpr std::optional<Bytes> CheckedAdd(Bytes a, Bytes b) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a.raw(), b.raw(), &sum)) return std::nullopt;
  return Bytes(sum);
}

// Returns n * count, or nullopt on overflow.
constexpr std::optional<Bytes> CheckedMultiply(Bytes n, uint64_t count) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(n.raw(), count, &product)) return std::nullopt;
  return Bytes(product);
}

constexpr bool IsPowerOfTwo(Bytes b) { return std::has_single_bit(b.raw()); }

// Rounds up to a power-of-two alignment; nullopt on overflow or a non-power-of-two alignment.
constexpr std::optional<Bytes> AlignUp(Bytes b, Bytes alignment) {
  if (!IsPowerOfTwo(alignment)) return std::nullopt;
  const uint64_t mask = alignment.raw() - 1;
  if (b.raw() > UINT64_MAX - mask) return std::nullopt;
  return Bytes((b.raw() + mask) & ~mask);
}

// Rounds down to a power-of-two alignment (which the caller guarantees).
constexpr Bytes AlignDown(Bytes b, Bytes alignment) { return Bytes(b.raw() & ~(alignment.raw() - 1)); }

constexpr bool IsAligned(Bytes b, Bytes alignment) { return (b.raw() & (alignment.raw() - 1)) == 0; }

// A virtual address in the GPU's address space. On every GPU this stack supports the SVM aperture
// makes it equal to the CPU address of the same allocation (libhsakmt's mmap aperture model).
class DeviceAddress {
 public:
  constexpr explicit DeviceAddress(uint64_t value) : value_(value) {}
  static DeviceAddress FromPointer(const void* p) { return DeviceAddress(reinterpret_cast<uintptr_t>(p)); }

  constexpr uint64_t raw() const { return value_; }
  void* ToPointer() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(value_)); }

  friend constexpr auto operator<=>(DeviceAddress, DeviceAddress) = default;
  friend constexpr bool operator==(DeviceAddress, DeviceAddress) = default;

  friend constexpr DeviceAddress operator+(DeviceAddress a, Bytes b) { return DeviceAddress(a.value_ + b.raw()); }
  friend constexpr DeviceAddress operator-(DeviceAddress a, Bytes b) { return DeviceAddress(a.value_ - b.raw()); }
  friend constexpr Bytes operator-(DeviceAddress a, DeviceAddress b) { return Bytes(a.value_ - b.value_); }

  template <typename H>
  friend H AbslHashValue(H h, DeviceAddress a) {
    return H::combine(std::move(h), a.value_);
  }

  friend std::ostream& operator<<(std::ostream& os, DeviceAddress a) {
    return os << "0x" << std::hex << a.value_ << std::dec;
  }

 private:
  uint64_t value_;
};

// "0x7f12a4000000": for messages and traces (Abseil 20220623's StrCat cannot print pointers).
std::string AddressText(DeviceAddress a);
std::string AddressText(const void* p);

// Returns a + b, or nullopt when the range would wrap the address space.
constexpr std::optional<DeviceAddress> CheckedAdd(DeviceAddress a, Bytes b) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a.raw(), b.raw(), &sum)) return std::nullopt;
  return DeviceAddress(sum);
}

// Whether `a` is a multiple of the power-of-two `alignment` (which the caller guarantees, as for Bytes).
constexpr bool IsAligned(DeviceAddress a, Bytes alignment) { return (a.raw() & (alignment.raw() - 1)) == 0; }

// The highest address at or below `a` that is a multiple of the power-of-two `alignment` (which the caller
// guarantees, as for Bytes). Cannot overflow: the result is at most `a`.
constexpr DeviceAddress AlignDown(DeviceAddress a, Bytes alignment) {
  return DeviceAddress(a.raw() & ~(alignment.raw() - 1));
}

// The lowest address at or above `a` that is a multiple of `alignment`; nullopt for an alignment that is not a
// power of two, or when that address would lie past the top of the address space (above 2^64 - alignment, where
// the rounding would wrap to 0).
constexpr std::optional<DeviceAddress> AlignUp(DeviceAddress a, Bytes alignment) {
  const std::optional<Bytes> up = AlignUp(Bytes(a.raw()), alignment);
  if (!up.has_value()) return std::nullopt;
  return DeviceAddress(up->raw());
}

// A half-open range [base, base + size) of device addresses.
struct AddressRange {
  DeviceAddress base;
  Bytes size;

  constexpr DeviceAddress end() const { return base + size; }
  constexpr bool Contains(DeviceAddress a) const { return a >= base && a - base < size; }
  constexpr bool Overlaps(const AddressRange& o) const {
    return base < o.end() && o.base < end() && !size.is_zero() && !o.size.is_zero();
  }
  friend constexpr bool operator==(const AddressRange&, const AddressRange&) = default;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_UNITS_H_
