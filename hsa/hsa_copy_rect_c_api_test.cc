// hsa_amd_memory_async_copy_rect through the C API, as HIP's hipMemcpy3D reaches it: boxes between pitched
// surfaces in host memory and VRAM, checked byte by byte against a reference (bytes outside the box must keep
// their old values), dependency signals, and ROCr's argument checks and error codes. Built once per preset and
// once with HSA_ENABLE_SDMA=0 (see BUILD). VRAM is only ever read back through a copy, so the private VRAM of
// rx7900xtx works the same.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/copy_c_api_fixture.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

using hsa_copy_test::Pattern;
using hsa_copy_test::SdmaDisabled;

// A box between two pitched surfaces; sizes and offsets in bytes (x), rows (y) and slices (z).
struct Geometry {
  size_t src_pitch, src_slice;
  hsa_dim3_t src_offset;
  size_t dst_pitch, dst_slice;
  hsa_dim3_t dst_offset;
  hsa_dim3_t range;
};

// What `dst` must hold after the copy: its old bytes, except the box, taken from `src`.
std::vector<uint8_t> Expected(const std::vector<uint8_t>& src, std::vector<uint8_t> dst, const Geometry& g) {
  for (size_t z = 0; z < g.range.z; ++z) {
    for (size_t y = 0; y < g.range.y; ++y) {
      for (size_t x = 0; x < g.range.x; ++x) {
        dst.at((g.dst_offset.z + z) * g.dst_slice + (g.dst_offset.y + y) * g.dst_pitch + g.dst_offset.x + x) =
            src.at((g.src_offset.z + z) * g.src_slice + (g.src_offset.y + y) * g.src_pitch + g.src_offset.x + x);
      }
    }
  }
  return dst;
}

TEST(HsaCopyRectCApiBeforeInit, IsNotInitialized) {
  char a[64] = {}, b[64] = {};
  const hsa_pitched_ptr_t d{a, 16, 64}, s{b, 16, 64};
  const hsa_dim3_t zero{0, 0, 0}, range{4, 1, 1};
  EXPECT_EQ(hsa_amd_memory_async_copy_rect(&d, &zero, &s, &zero, &range, hsa_agent_t{1}, hsaHostToDevice, 0, nullptr,
                                           hsa_signal_t{1}),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
}

class HsaCopyRectCApi : public hsa_copy_test::CopyCApiTest {
 protected:
  hsa_status_t Rect(void* dst, const void* src, const Geometry& g, hsa_amd_copy_direction_t dir, hsa_signal_t done,
                    std::vector<hsa_signal_t> deps = {}) {
    const hsa_pitched_ptr_t d{dst, g.dst_pitch, g.dst_slice};
    const hsa_pitched_ptr_t s{const_cast<void*>(src), g.src_pitch, g.src_slice};
    return hsa_amd_memory_async_copy_rect(&d, &g.dst_offset, &s, &g.src_offset, &g.range, gpu_, dir,
                                          static_cast<uint32_t>(deps.size()), deps.empty() ? nullptr : deps.data(),
                                          done);
  }

};

// Pitches that are not powers of two, unaligned x offsets, and a width of no particular element size.
constexpr Geometry k3dBox{100, 100 * 9, {3, 2, 1}, 132, 132 * 7, {6, 1, 0}, {37, 5, 2}};

TEST_F(HsaCopyRectCApi, HostToDeviceBoxLandsAndNothingElseChanges) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  const Geometry& g = k3dBox;
  const std::vector<uint8_t> src = Pattern(g.src_slice * 3, 1);  // plain, unregistered host memory
  const std::vector<uint8_t> background = Pattern(g.dst_slice * 2, 99);
  void* vram = VramWith(background);
  const hsa_signal_t done = Signal(1);
  ASSERT_EQ(Rect(vram, src.data(), g, hsaHostToDevice, done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0) << "the completion signal is decremented by one";
  EXPECT_EQ(ReadVram(vram, background.size()), Expected(src, background, g));
}

TEST_F(HsaCopyRectCApi, DeviceToHostBoxLandsAndNothingElseChanges) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  // The reverse geometry: from the 132-byte pitched surface into the 100-byte one.
  const Geometry g{132, 132 * 7, {6, 1, 0}, 100, 100 * 9, {3, 2, 1}, {37, 5, 2}};
  const std::vector<uint8_t> contents = Pattern(g.src_slice * 2, 5);
  void* vram = VramWith(contents);
  std::vector<uint8_t> host(g.dst_slice * 3, 0xee);
  const std::vector<uint8_t> before = host;
  const hsa_signal_t done = Signal(1);
  ASSERT_EQ(Rect(host.data(), vram, g, hsaDeviceToHost, done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(host, Expected(contents, before, g));
}

TEST_F(HsaCopyRectCApi, DeviceToDeviceBoxOfDwordsLands) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  // Everything a multiple of 4 (the engine moves whole dwords), three slices.
  const Geometry g{256, 256 * 8, {16, 3, 0}, 192, 192 * 6, {4, 0, 2}, {64, 5, 3}};
  const std::vector<uint8_t> src = Pattern(g.src_slice * 3, 11);
  const std::vector<uint8_t> background = Pattern(g.dst_slice * 5, 77);
  void* from = VramWith(src);
  void* to = VramWith(background);
  const hsa_signal_t done = Signal(1);
  ASSERT_EQ(Rect(to, from, g, hsaDeviceToDevice, done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(ReadVram(to, background.size()), Expected(src, background, g));
}

TEST_F(HsaCopyRectCApi, RowsWiderThanOnePacketAndPitchesBeyondItsFieldStillLand) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  // A source pitch beyond the packet's 2^19-element pitch field (rows walked as slices), rows of 70001 bytes
  // starting one byte into a dword (several 1-byte-element packets per row).
  const Geometry g{600004, 0, {1, 1, 0}, 70008, 0, {2, 0, 0}, {70001, 3, 1}};
  const std::vector<uint8_t> src = Pattern(g.src_pitch * 4, 3);
  const std::vector<uint8_t> background = Pattern(g.dst_pitch * 3, 200);
  void* vram = VramWith(background);
  const hsa_signal_t done = Signal(1);
  ASSERT_EQ(Rect(vram, src.data(), g, hsaHostToDevice, done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(ReadVram(vram, background.size()), Expected(src, background, g));
}

TEST_F(HsaCopyRectCApi, WaitsForDependencySignalsOnTheEngine) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  const Geometry g{132, 132 * 7, {6, 1, 0}, 100, 100 * 9, {3, 2, 1}, {37, 5, 2}};
  const std::vector<uint8_t> contents = Pattern(g.src_slice * 2, 5);
  void* vram = VramWith(contents);
  std::vector<uint8_t> host(g.dst_slice * 3, 0xee);
  const std::vector<uint8_t> before = host;
  const hsa_signal_t first = Signal(1), second = Signal(1), done = Signal(1);
  // Returns at once: the engine, not the caller, waits for the dependencies.
  ASSERT_EQ(Rect(host.data(), vram, g, hsaDeviceToHost, done, {first, second}), HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(first, 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 50'000'000, HSA_WAIT_STATE_BLOCKED), 1)
      << "one dependency is still 1";
  // (The destination is not read here: while the copy may run, the engine's only synchronization with this
  // thread is the completion signal.)
  hsa_signal_store_screlease(second, 0);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(host, Expected(contents, before, g));
}

TEST_F(HsaCopyRectCApi, BadArgumentsAreRefusedWithRocrsCodesAndTheSignalKeepsItsValue) {
  if (SdmaDisabled()) GTEST_SKIP() << "no SDMA: see SdmaOffIsOutOfResources";
  std::vector<uint8_t> host(4096, 1);
  void* vram = Vram(gpu_, 4096);
  const hsa_signal_t done = Signal(1);
  const hsa_pitched_ptr_t d{vram, 64, 64 * 8}, s{host.data(), 64, 64 * 8};
  const hsa_dim3_t zero{0, 0, 0}, range{16, 4, 2};
  const hsa_signal_t dep = Signal(0);
  auto call = [&](const hsa_pitched_ptr_t* dp, const hsa_dim3_t* doff, const hsa_pitched_ptr_t* sp,
                  const hsa_dim3_t* soff, const hsa_dim3_t* r, hsa_agent_t agent, hsa_amd_copy_direction_t dir,
                  uint32_t ndeps = 0, const hsa_signal_t* deps = nullptr) {
    return hsa_amd_memory_async_copy_rect(dp, doff, sp, soff, r, agent, dir, ndeps, deps, done);
  };
  EXPECT_EQ(call(nullptr, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, nullptr, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, nullptr, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, nullptr, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, nullptr, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, &range, gpu_, hsaHostToDevice, 0, &dep), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, &range, gpu_, hsaHostToDevice, 1, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, &range, gpu_, hsaHostToHost), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, &range, agents_.cpu, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(call(&d, &zero, &s, &zero, &range, hsa_agent_t{0x1234}, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_memory_async_copy_rect(&d, &zero, &s, &zero, &range, gpu_, hsaHostToDevice, 0, nullptr,
                                           hsa_signal_t{0}),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // SubmitCopyRectCommand's checks.
  const hsa_pitched_ptr_t odd_base{static_cast<char*>(vram) + 2, 64, 64 * 8};
  const hsa_pitched_ptr_t odd_pitch{vram, 62, 62 * 8};
  const hsa_pitched_ptr_t odd_slice{vram, 64, 64 * 8 + 2};
  const hsa_pitched_ptr_t no_slice{vram, 64, 0};
  const hsa_pitched_ptr_t short_slice{vram, 64, 64 * 3};
  const hsa_dim3_t past_pitch{50, 0, 0};
  EXPECT_EQ(call(&odd_base, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&odd_pitch, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&odd_slice, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&d, &past_pitch, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&short_slice, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(&no_slice, &zero, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // A pitch the packet cannot express in 1-byte elements (the odd width forces them) for a box of two slices.
  std::vector<uint8_t> wide(((1u << 19) + 4) * 2 * 2, 0);
  const hsa_pitched_ptr_t too_wide{wide.data(), (1u << 19) + 4, ((1u << 19) + 4) * 2};
  const hsa_dim3_t odd_range{15, 2, 2};
  EXPECT_EQ(call(&d, &zero, &too_wide, &zero, &odd_range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The box runs past the end of the VRAM allocation.
  const hsa_dim3_t late{0, 0, 7};
  EXPECT_EQ(call(&d, &late, &s, &zero, &range, gpu_, hsaHostToDevice), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1) << "a refused copy leaves the signal alone";
  // A box with a zero dimension succeeds without doing anything, not even to the signal (as ROCr).
  const hsa_dim3_t flat{16, 0, 2};
  EXPECT_EQ(call(&d, &zero, &s, &zero, &flat, gpu_, hsaHostToDevice), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
}

TEST_F(HsaCopyRectCApi, SdmaOffIsOutOfResources) {
  if (!SdmaDisabled()) GTEST_SKIP() << "only with HSA_ENABLE_SDMA=0";
  std::vector<uint8_t> host(4096, 1);
  void* vram = Vram(gpu_, 4096);
  const hsa_signal_t done = Signal(1);
  const Geometry g{64, 0, {0, 0, 0}, 64, 0, {0, 0, 0}, {16, 4, 1}};
  // ROCr has no blit-kernel path for rectangles: without an SDMA blit it answers OUT_OF_RESOURCES.
  EXPECT_EQ(Rect(vram, host.data(), g, hsaHostToDevice, done), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
}

}  // namespace
