// The input format of //testing/kfd_sim:ioctl_fuzzer, shared by the fuzzer and its seed tool.
//
// An input is one KFD process's life: `[u16 scratch_len][scratch bytes]` then records `[u32 request][u16 len]
// [len argument bytes]` until the input ends. The scratch bytes go to the start of a fixed scratch region
// (kScratchAddress) the fuzzer maps, so that pointers inside arguments (an events array, a gpu_id array, an SVM
// range) can name memory that exists; every other pointer is whatever the bytes say. The argument buffer is
// max(len, the request's size field) bytes, the rest zero. Little-endian, unaligned.
#ifndef HIPMEM_TESTING_KFD_SIM_IOCTL_FUZZ_INPUT_H_
#define HIPMEM_TESTING_KFD_SIM_IOCTL_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace hipmem::kfd_sim::fuzz {

// Page-aligned, and application memory in every build (x86-64, 47-bit user space): TSan allows applications only
// [0x1000, 0x80'0000'0000), [0x5500'0000'0000, 0x5680'0000'0000), its heap and [0x7e80'0000'0000, 2^47), and refuses a
// mapping anywhere else (0x5f00'0000'0000, used before, was refused); ASan wants it above its shadow
// (0x1000'7fff'8000) and outside its allocator ([0x6000'0000'0000, 0x6400'0000'0000)). This is above where a PIE
// binary and its brk heap land (0x5555'5555'5000 plus at most 1 TiB of randomisation), below TSan's limit.
inline constexpr uint64_t kScratchAddress = 0x567000000000;
inline constexpr uint64_t kScratchBytes = 64 * 4096;
// Records run per input at most: an input is one short scenario, not a soak.
inline constexpr size_t kMaxRecords = 64;

// Builds an input (the seed tool).
class InputWriter {
 public:
  explicit InputWriter(std::span<const std::byte> scratch = {}) {
    Put16(static_cast<uint16_t>(scratch.size()));
    bytes_.insert(bytes_.end(), scratch.begin(), scratch.end());
  }
  template <typename Args>
  void Add(unsigned long request, const Args& args) {
    Put32(static_cast<uint32_t>(request));
    Put16(static_cast<uint16_t>(sizeof(Args)));
    const auto* p = reinterpret_cast<const std::byte*>(&args);
    bytes_.insert(bytes_.end(), p, p + sizeof(Args));
  }
  void AddRaw(unsigned long request, std::span<const std::byte> arg) {
    Put32(static_cast<uint32_t>(request));
    Put16(static_cast<uint16_t>(arg.size()));
    bytes_.insert(bytes_.end(), arg.begin(), arg.end());
  }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  void Put16(uint16_t v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    bytes_.insert(bytes_.end(), p, p + 2);
  }
  void Put32(uint32_t v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    bytes_.insert(bytes_.end(), p, p + 4);
  }
  std::vector<std::byte> bytes_;
};

}  // namespace hipmem::kfd_sim::fuzz

#endif  // HIPMEM_TESTING_KFD_SIM_IOCTL_FUZZ_INPUT_H_
