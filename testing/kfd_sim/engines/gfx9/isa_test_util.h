// For instruction tests: runs a few instructions, encoded by LLVM's assembler at build time (amdgpu_encodings in
// tools/build/amdgpu.bzl), on one wave whose registers the test sets up and then checks.
//
//   IsaHarness h(Target::kGfx90a);
//   h.wave().s[2] = 5; ...
//   ASSERT_TRUE(h.Run(kGfx90aSalu, {"s_add_u32 s1, s2, s3"}).ok());
//   EXPECT_EQ(h.wave().s[1], ...);
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_TEST_UTIL_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_TEST_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem_testing {
#ifndef HIPMEM_ASM_ENCODING_DEFINED
#define HIPMEM_ASM_ENCODING_DEFINED
struct AsmEncoding {
  const char* text;
  std::vector<uint8_t> bytes;
};
#endif
}  // namespace hipmem_testing

namespace hipmem::kfd_sim::gfx9 {

class IsaHarness {
 public:
  // A wave with every lane active, 256 VGPRs and AGPRs, 64 KiB of LDS and `private_bytes` of scratch per lane: host
  // memory the page table maps, in the hardware's swizzled layout (ScratchLaneVa), which FLAT_SCRATCH names.
  explicit IsaHarness(Target target, uint32_t private_bytes = 256);
  ~IsaHarness();

  Wave& wave() { return wave_; }
  IdentityPageTable& memory() { return memory_; }
  std::vector<unsigned char>& lds() { return lds_; }
  // The wave's scratch (its VA), and byte `byte` of lane `lane`'s private segment in it.
  uint64_t scratch_base() const { return reinterpret_cast<uint64_t>(scratch_.data()); }
  unsigned char& scratch_byte(int lane, uint32_t byte) {
    return scratch_[ScratchLaneVa(0, byte, lane)];
  }
  uint32_t scratch_word(int lane, uint32_t byte);  // four private bytes from `byte` on, little-endian
  void set_scratch_word(int lane, uint32_t byte, uint32_t value);
  const DispatchInfo& dispatch() const { return info_; }

  // Runs `lines` (each looked up in `encodings` by its exact text) followed by s_endpgm. Returns kInternal for a
  // line the table lacks, kAborted with the VA for a VM fault, kCancelled naming the trap id for an s_trap that
  // halts the wave, kFailedPrecondition with the reason for an illegal instruction. The wave keeps its state for the
  // next Run.
  absl::Status Run(std::span<const hipmem_testing::AsmEncoding> encodings, std::initializer_list<const char*> lines);
  // The number of instructions the last Run executed (s_endpgm included).
  uint64_t executed() const { return executed_; }

 private:
  IdentityPageTable memory_;
  DispatchInfo info_;
  Wave wave_;
  std::vector<unsigned char> lds_;
  std::vector<unsigned char> scratch_;
  std::vector<uint32_t> code_;
  uint64_t executed_ = 0;
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_TEST_UTIL_H_
