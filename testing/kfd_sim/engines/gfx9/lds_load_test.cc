// Loads to LDS (lds_load.h), each encoded by llvm-mc-19: MUBUF's lds forms on gfx908, gfx90a and gfx942, and gfx942's
// global_load_lds_* / scratch_load_lds_*. Lane l's value lands at M0 + offset + 4 * l, a whole dword (bytes and
// shorts extended); inactive lanes write nothing; no VGPR changes.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/lds_load_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/lds_load_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/lds_load_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/lds_load_gfx942_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::AsmEncoding;

constexpr uint32_t kM0 = 256;
constexpr uint64_t kExec = ~uint64_t{0} & ~(uint64_t{1} << 5);  // lane 5 inactive
constexpr uint32_t kUntouched = 0xa5a5a5a5;

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

uint32_t LdsDword(IsaHarness& h, uint32_t at) {
  uint32_t v;
  std::memcpy(&v, &h.lds()[at], 4);
  return v;
}

// Memory byte i is 0x80 + i (so bytes and shorts have their sign bit set), for the extension to show.
std::vector<uint8_t> Pattern(size_t bytes) {
  std::vector<uint8_t> m(bytes);
  for (size_t i = 0; i < bytes; ++i) m[i] = static_cast<uint8_t>(0x80 + i);
  return m;
}

uint32_t Expected(const uint8_t* at, uint32_t bytes, bool sign) {
  uint32_t v = 0;
  std::memcpy(&v, at, bytes);
  if (sign && bytes < 4) {
    const int shift = 32 - 8 * static_cast<int>(bytes);
    v = static_cast<uint32_t>(static_cast<int32_t>(v << shift) >> shift);
  }
  return v;
}

struct Form {
  const char* suffix;  // the mnemonic's end
  uint32_t bytes;
  bool sign;
};
const Form kForms[] = {{"dword", 4, false}, {"ubyte", 1, false}, {"sbyte", 1, true}, {"ushort", 2, false},
                       {"sshort", 2, true}};

// buffer_load_<form> v0, s[8:11], s1 offen offset:4 lds: the memory address is base + s1 + v0 + 4, the LDS address
// M0 + 4 + 4 * lane.
void CheckMubuf(Target target, std::span<const AsmEncoding> encodings) {
  for (const Form& f : kForms) {
    const std::string line = std::string("buffer_load_") + f.suffix + " v0, s[8:11], s1 offen offset:4 lds";
    SCOPED_TRACE(line);
    IsaHarness h(target);
    std::vector<uint8_t> memory = Pattern(8 * kWaveSize + 64);
    h.memory().Map(memory.data(), memory.size());
    Wave& w = h.wave();
    const uint64_t base = Va(memory.data());
    w.s[8] = static_cast<uint32_t>(base);
    w.s[9] = static_cast<uint32_t>(base >> 32);
    w.s[10] = static_cast<uint32_t>(memory.size());
    w.s[11] = 0;
    w.s[1] = 16;  // soffset
    w.s[op::kM0] = kM0;
    w.set_exec(kExec);
    for (int l = 0; l < kWaveSize; ++l) {
      w.vgpr(0)[l] = static_cast<uint32_t>(6 * l);  // unaligned for the sub-dword forms
      w.vgpr(1)[l] = kUntouched;
    }
    std::memset(h.lds().data(), 0x5a, 2048);
    ASSERT_TRUE(h.Run(encodings, {line.c_str()}).ok());
    for (int l = 0; l < kWaveSize; ++l) {
      const uint32_t want = l == 5 ? 0x5a5a5a5au : Expected(&memory[16 + 6 * l + 4], f.bytes, f.sign);
      ASSERT_EQ(LdsDword(h, kM0 + 4 + 4 * l), want) << "lane " << l;
      ASSERT_EQ(w.vgpr(0)[l], static_cast<uint32_t>(6 * l)) << "vaddr written";
    }
    EXPECT_EQ(LdsDword(h, kM0), 0x5a5a5a5au) << "below the first lane's slot";
    EXPECT_EQ(LdsDword(h, kM0 + 4 + 4 * 64), 0x5a5a5a5au) << "past the last lane's slot";
  }
}

TEST(LdsLoadTest, MubufGfx908) { CheckMubuf(Target::kGfx908, hipmem_testing::lds_load_encodings_gfx908); }
TEST(LdsLoadTest, MubufGfx90a) { CheckMubuf(Target::kGfx90a, hipmem_testing::lds_load_encodings_gfx90a); }
TEST(LdsLoadTest, MubufGfx942) { CheckMubuf(Target::kGfx942, hipmem_testing::lds_load_encodings_gfx942); }

// A raw buffer's range check applies: a lane past num_records loads 0 into its LDS slot.
TEST(LdsLoadTest, MubufOutOfRangeLanesWriteZero) {
  IsaHarness h(Target::kGfx90a);
  std::vector<uint8_t> memory = Pattern(64);
  h.memory().Map(memory.data(), memory.size());
  Wave& w = h.wave();
  w.s[8] = static_cast<uint32_t>(Va(memory.data()));
  w.s[9] = static_cast<uint32_t>(Va(memory.data()) >> 32);
  w.s[10] = 24;  // bytes 0..23: the dword at 20 is the last one in range
  w.s[1] = 20;
  w.s[op::kM0] = 0;
  std::memset(h.lds().data(), 0x5a, 1024);
  ASSERT_TRUE(h.Run(hipmem_testing::lds_load_encodings_gfx90a, {"buffer_load_dword off, s[8:11], s1 lds"}).ok());
  // Without offen every lane reads the same address; soffset is not range-checked, so all lanes are in range.
  for (int l = 0; l < kWaveSize; ++l) ASSERT_EQ(LdsDword(h, 4 * l), Expected(&memory[20], 4, false)) << l;

  w.s[10] = 4;  // with offen, every lane's offset (4 * lane + 4) is past the 4-byte range
  for (int l = 0; l < kWaveSize; ++l) w.vgpr(0)[l] = static_cast<uint32_t>(4 * l);
  std::memset(h.lds().data(), 0x5a, 1024);
  w.s[1] = 0;
  ASSERT_TRUE(
      h.Run(hipmem_testing::lds_load_encodings_gfx90a, {"buffer_load_dword v0, s[8:11], s1 offen offset:4 lds"}).ok());
  for (int l = 0; l < kWaveSize; ++l) ASSERT_EQ(LdsDword(h, 4 + 4 * l), 0u) << "lane " << l << " is out of range";
}

// An unmapped address is a VM fault, and no lane's value reaches LDS.
TEST(LdsLoadTest, AFaultWritesNothing) {
  IsaHarness h(Target::kGfx942);
  std::vector<uint8_t> memory = Pattern(4 * kWaveSize);
  h.memory().Map(memory.data(), 64);  // only the first 16 lanes' bytes
  Wave& w = h.wave();
  w.Write64(4, Va(memory.data()));
  for (int l = 0; l < kWaveSize; ++l) w.vgpr(2)[l] = static_cast<uint32_t>(4 * l);
  std::memset(h.lds().data(), 0x5a, 1024);
  const absl::Status status = h.Run(hipmem_testing::lds_load_gfx942_encodings_gfx942, {"global_load_lds_dword v2, s[4:5] offset:4"});
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  for (int l = 0; l < kWaveSize; ++l) ASSERT_EQ(LdsDword(h, 4 + 4 * l), 0x5a5a5a5au) << l;
}

// gfx942's global_load_lds_*: address s[4:5] + v2 + 4, LDS M0 + 4 + 4 * lane.
TEST(LdsLoadTest, Gfx942GlobalLoadsToLds) {
  for (const Form& f : kForms) {
    const std::string line = std::string("global_load_lds_") + f.suffix + " v2, s[4:5] offset:4";
    SCOPED_TRACE(line);
    IsaHarness h(Target::kGfx942);
    std::vector<uint8_t> memory = Pattern(8 * kWaveSize + 64);
    h.memory().Map(memory.data(), memory.size());
    Wave& w = h.wave();
    w.Write64(4, Va(memory.data()));
    w.s[op::kM0] = kM0;
    w.set_exec(kExec);
    for (int l = 0; l < kWaveSize; ++l) w.vgpr(2)[l] = static_cast<uint32_t>(6 * l);
    std::memset(h.lds().data(), 0x5a, 2048);
    ASSERT_TRUE(h.Run(hipmem_testing::lds_load_gfx942_encodings_gfx942, {line.c_str()}).ok());
    for (int l = 0; l < kWaveSize; ++l) {
      const uint32_t want = l == 5 ? 0x5a5a5a5au : Expected(&memory[6 * l + 4], f.bytes, f.sign);
      ASSERT_EQ(LdsDword(h, kM0 + 4 + 4 * l), want) << "lane " << l;
    }
  }
}

// scratch_load_lds_dword: each lane's own private segment at v2 + 8.
TEST(LdsLoadTest, Gfx942ScratchLoadsToLds) {
  IsaHarness h(Target::kGfx942);
  Wave& w = h.wave();
  for (int l = 0; l < kWaveSize; ++l) {
    const uint32_t v = 0x1000u + static_cast<uint32_t>(l);
    h.set_scratch_word(l, 24, v);
    w.vgpr(2)[l] = 16;
  }
  w.s[op::kM0] = 0;
  ASSERT_TRUE(h.Run(hipmem_testing::lds_load_gfx942_encodings_gfx942, {"scratch_load_lds_dword v2, off offset:8"}).ok());
  for (int l = 0; l < kWaveSize; ++l) ASSERT_EQ(LdsDword(h, 8 + 4 * l), 0x1000u + l) << l;
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
