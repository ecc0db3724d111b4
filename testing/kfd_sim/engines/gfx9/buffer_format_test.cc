// Typed buffer access, each instruction encoded by llvm-mc-19 from testdata/buffer_format.s: MTBUF with the format in
// the instruction, MUBUF's format ops with the format in the V# (s[8:11]). Every lane has its own 16 bytes of memory
// (v0 = 16 * lane); lane 63 is inactive. Expected values are worked out by hand from the formats' definitions.
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/buffer_format_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::buffer_format_encodings_gfx90a;

constexpr uint64_t kExec = ~uint64_t{0} >> 1;
constexpr uint32_t kPreset = 0x1234abcd;
constexpr uint8_t kFill = 0xee;

uint32_t F(float v) { return std::bit_cast<uint32_t>(v); }

// Word 3 of a V# with a data and a number format (MUBUF's format ops read them there).
constexpr uint32_t Word3(uint32_t dfmt, uint32_t nfmt) { return (dfmt << 15) | (nfmt << 12); }

struct BufferWave {
  IsaHarness h{Target::kGfx90a};
  std::vector<uint8_t> memory = std::vector<uint8_t>(16 * kWaveSize, kFill);

  // Every lane's 16 bytes start as `bytes` (the rest kFill); v2..v5 as `regs`.
  BufferWave(const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& regs, uint32_t word3) {
    h.memory().Map(memory.data(), memory.size());
    Wave& w = h.wave();
    const uint64_t base = reinterpret_cast<uint64_t>(memory.data());
    w.s[8] = static_cast<uint32_t>(base);
    w.s[9] = static_cast<uint32_t>(base >> 32);
    w.s[10] = static_cast<uint32_t>(memory.size());
    w.s[11] = word3;
    w.set_exec(kExec);
    for (int l = 0; l < kWaveSize; ++l) {
      std::copy(bytes.begin(), bytes.end(), memory.begin() + 16 * l);
      w.vgpr(0)[l] = static_cast<uint32_t>(16 * l);
      int r = 2;
      for (int k = 2; k < 6; ++k) w.vgpr(k)[l] = kPreset;
      for (const uint32_t v : regs) w.vgpr(r++)[l] = v;
    }
  }
};

struct LoadRow {
  const char* line;
  std::vector<uint8_t> memory;
  std::vector<uint32_t> expect;  // v2..
  uint32_t word3 = 0;
};

TEST(BufferFormatTest, LoadsConvertToRegisters) {
  const LoadRow rows[] = {
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen",
       {0x00, 0xff, 0x80, 0x33},
       {F(0.0f), F(1.0f), F(static_cast<float>(128.0 / 255.0)), F(0.2f)}},
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_SNORM] offen",
       {0x81, 0x7f, 0x80, 0x00},
       {F(-1.0f), F(1.0f), F(-1.0f), F(0.0f)}},  // -128 clamps to -1
      {"tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_USCALED] offen",
       {0x05, 0xfb},
       {F(5.0f), F(251.0f)}},
      {"tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SSCALED] offen",
       {0x05, 0xfb},
       {F(5.0f), F(-5.0f)}},
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT] offen",
       {1, 2, 3, 0xff},
       {1, 2, 3, 255}},
      {"tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SINT] offen",
       {0xfe, 0xff, 0x07, 0x00},
       {0xfffffffeu, 7}},
      // Components the format lacks: z reads 0, w 1.0 (float-valued) or 1 (integer).
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen",
       {0x00, 0x3c, 0x00, 0xc0},
       {F(1.0f), F(-2.0f), 0, F(1.0f)}},
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT] offen",
       {0x00, 0x3c, 0x00, 0xc0},
       {0x3c00, 0xc000, 0, 1}},
      {"tbuffer_load_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen offset:4",
       {0, 0, 0, 0, 0x00, 0x00, 0x50, 0x40},
       {F(3.25f)}},
      // 10_11_11: x = 11-bit 1.0 (0x3c0), y = 11-bit 2.0 (0x400), z = 10-bit 0.5 (0x1c0): 0x702003c0.
      {"tbuffer_load_format_xyz v[2:4], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen",
       {0xc0, 0x03, 0x20, 0x70},
       {F(1.0f), F(2.0f), F(0.5f)}},
      // 2_10_10_10: x 1023, y 512, z 0, w 2 = 0x800803ff.
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_2_10_10_10,BUF_NUM_FORMAT_UNORM] offen",
       {0xff, 0x03, 0x08, 0x80},
       {F(1.0f), F(static_cast<float>(512.0 / 1023.0)), F(0.0f), F(static_cast<float>(2.0 / 3.0))}},
      {"tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_UINT] offen",
       {1, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde, 3, 0, 0, 0, 4, 0, 0, 0},
       {1, 0xdeadbeef, 3, 4}},
      {"tbuffer_load_format_d16_xy v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen",
       {0x00, 0x3c, 0x00, 0xc0},
       {0xc0003c00u}},
      {"tbuffer_load_format_d16_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_UNORM] offen",
       {0xff, 0x00},
       {(kPreset & 0xffff0000u) | 0x3c00u}},  // the high half is kept
      {"buffer_load_format_xy v[2:3], v0, s[8:11], 0 offen", {0x00, 0x3c, 0x00, 0xc0}, {F(1.0f), F(-2.0f)},
       Word3(5, 7)},
      {"buffer_load_format_d16_hi_x v2, v0, s[8:11], 0 offen", {0x00, 0x3c}, {0x3c000000u | (kPreset & 0xffffu)},
       Word3(2, 7)},
  };
  for (const LoadRow& row : rows) {
    SCOPED_TRACE(row.line);
    BufferWave s(row.memory, {}, row.word3);
    const absl::Status status = s.h.Run(buffer_format_encodings_gfx90a, {row.line});
    ASSERT_TRUE(status.ok()) << status;
    for (size_t k = 0; k < row.expect.size(); ++k) {
      EXPECT_EQ(s.h.wave().vgpr(2 + static_cast<int>(k))[7], row.expect[k]) << std::hex << "v" << 2 + k;
      EXPECT_EQ(s.h.wave().vgpr(2 + static_cast<int>(k))[63], kPreset) << "inactive lane written";
    }
  }
}

struct StoreRow {
  const char* line;
  std::vector<uint32_t> regs;  // v2..
  std::vector<uint8_t> expect;           // the lane's first bytes; the rest must keep kFill
  uint32_t word3 = 0;
};

TEST(BufferFormatTest, StoresConvertFromRegisters) {
  const StoreRow rows[] = {
      // 0.5 * 255 = 127.5 rounds to even (128); 2.0 clamps to 255.
      {"tbuffer_store_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen",
       {F(0.0f), F(1.0f), F(0.5f), F(2.0f)},
       {0x00, 0xff, 0x80, 0xff}},
      // -1 -> -32767 (0x8001); 0.5 * 32767 = 16383.5 -> 16384.
      {"tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen",
       {F(-1.0f), F(0.5f)},
       {0x01, 0x80, 0x00, 0x40}},
      {"tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen",
       {F(1.5f), F(-0.25f)},
       {0x00, 0x3e, 0x00, 0xb4}},
      // Fewer components than the format: only x's byte is written.
      {"tbuffer_store_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT] offen",
       {0x1234},
       {0x34}},
      {"tbuffer_store_format_d16_xy v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen",
       {0x40003c00u},
       {0x00, 0x3c, 0x00, 0x40}},
      {"tbuffer_store_format_xyz v[2:4], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen",
       {F(1.0f), F(2.0f), F(0.5f)},
       {0xc0, 0x03, 0x20, 0x70}},
      // -300 clamps to -128; 3.5 rounds to even (4).
      {"tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SSCALED] offen",
       {F(-300.0f), F(3.5f)},
       {0x80, 0x04}},
      {"buffer_store_format_x v2, v0, s[8:11], 0 offen", {0xcafef00du}, {0x0d, 0xf0, 0xfe, 0xca}, Word3(4, 4)},
      {"buffer_store_format_d16_hi_x v2, v0, s[8:11], 0 offen", {0x42001111u}, {0x00, 0x42}, Word3(2, 7)},
  };
  for (const StoreRow& row : rows) {
    SCOPED_TRACE(row.line);
    BufferWave s({}, row.regs, row.word3);
    const absl::Status status = s.h.Run(buffer_format_encodings_gfx90a, {row.line});
    ASSERT_TRUE(status.ok()) << status;
    for (int l : {0, 7}) {
      for (size_t b = 0; b < 16; ++b) {
        const uint8_t want = b < row.expect.size() ? row.expect[b] : kFill;
        EXPECT_EQ(s.memory[16 * l + b], want) << "lane " << l << " byte " << b;
      }
    }
    for (size_t b = 0; b < 16; ++b) EXPECT_EQ(s.memory[16 * 63 + b], kFill) << "inactive lane stored";
  }
}

// What the ISA leaves undefined or the engine does not simulate is an illegal instruction, never a guess.
TEST(BufferFormatTest, RefusesFormatsItCannotConvert) {
  struct Row {
    const char* line;
    uint32_t word3;
  };
  const Row rows[] = {
      {"tbuffer_load_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_FLOAT] offen", 0},
      {"tbuffer_store_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen", 0},
      {"buffer_load_format_xy v[2:3], v0, s[8:11], 0 offen", 0},  // DATA_FORMAT 0: invalid
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.line);
    BufferWave s({}, {}, row.word3);
    EXPECT_EQ(s.h.Run(buffer_format_encodings_gfx90a, {row.line}).code(), absl::StatusCode::kFailedPrecondition);
    for (size_t b = 0; b < 16; ++b) ASSERT_EQ(s.memory[b], kFill);
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
