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

// Far from the heap, the stack and the sanitizers' shadow (x86-64, 47-bit user space), page-aligned.
inline constexpr uint64_t kScratchAddress = 0x5f0000000000;
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
