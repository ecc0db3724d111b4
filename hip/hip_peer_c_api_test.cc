// Peer access through the C API on two-GPU presets: 2xmi250x (two GCDs joined by XGMI) and 2xrx7900xtx (PCIe
// cards without a P2P path).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

class HipPeerCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    ASSERT_EQ(count, 2) << "a two-GPU preset";
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
};

TEST_F(HipPeerCApi, SelfAndBadOrdinals) {
  int can = -1;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 0, 0), hipSuccess);
  EXPECT_EQ(can, 0) << "a device is not its own peer";
  EXPECT_EQ(hipDeviceCanAccessPeer(&can, 0, 2), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceCanAccessPeer(nullptr, 0, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceEnablePeerAccess(5, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceDisablePeerAccess(0), hipErrorInvalidDevice);
  uint32_t type = 0, hops = 0;
  EXPECT_EQ(hipExtGetLinkTypeAndHopCount(0, 0, &type, &hops), hipErrorInvalidValue);
  EXPECT_EQ(hipExtGetLinkTypeAndHopCount(0, 2, &type, &hops), hipErrorInvalidDevice);
  EXPECT_EQ(hipExtGetLinkTypeAndHopCount(-1, 1, &type, &hops), hipErrorInvalidValue);
  int value = 0;
  EXPECT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 2), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetP2PAttribute(nullptr, hipDevP2PAttrAccessSupported, 0, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetP2PAttribute(&value, static_cast<hipDeviceP2PAttr>(9), 0, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipExtGetLinkTypeAndHopCount(0, 1, nullptr, &hops), hipErrorInvalidValue);
}

TEST_F(HipPeerCApi, XgmiPeersShareMemory) {
  if (Preset() != "2xmi250x") GTEST_SKIP() << "2xmi250x only";
  int can = 0;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 0, 1), hipSuccess);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 1, 0), hipSuccess);
  EXPECT_EQ(can, 1);
  uint32_t type = 0, hops = 0;
  ASSERT_EQ(hipExtGetLinkTypeAndHopCount(0, 1, &type, &hops), hipSuccess);
  EXPECT_EQ(type, 4u) << "HSA_AMD_LINK_INFO_TYPE_XGMI";
  EXPECT_EQ(hops, 1u);
  int value = -1;
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 1), hipSuccess);
  EXPECT_EQ(value, 1);
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrHipArrayAccessSupported, 0, 1), hipSuccess);
  EXPECT_EQ(value, 1) << "same ISA on both GCDs";
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrPerformanceRank, 0, 1), hipSuccess);
  EXPECT_EQ(value, 4) << "CLR's rank is the link type";
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrNativeAtomicSupported, 0, 1), hipSuccess);
  EXPECT_EQ(value, 1) << "XGMI carries atomics";

  // An allocation made on the peer before access is enabled, and one after: both reachable from device 0's GPU.
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  void* before = nullptr;
  ASSERT_EQ(hipMalloc(&before, 1 << 20), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  ASSERT_EQ(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  void* after = nullptr;
  ASSERT_EQ(hipMalloc(&after, 1 << 20), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);

  // Device 0's null stream runs a fill kernel on each of device 1's buffers: its GPU must have them mapped.
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  for (void* p : {before, after}) {
    ASSERT_EQ(hipMemsetAsync(p, 0x5a, 1 << 20, s), hipSuccess);
  }
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  std::vector<uint8_t> host(1 << 20);
  for (void* p : {before, after}) {
    ASSERT_EQ(hipMemcpy(host.data(), p, host.size(), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(host.front(), 0x5a);
    EXPECT_EQ(host.back(), 0x5a);
  }
  ASSERT_EQ(hipStreamDestroy(s), hipSuccess);

  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  EXPECT_EQ(hipFree(before), hipSuccess);
  EXPECT_EQ(hipFree(after), hipSuccess);
}

TEST_F(HipPeerCApi, PcieCardsWithoutP2pAreNotPeers) {
  if (Preset() != "2xrx7900xtx") GTEST_SKIP() << "2xrx7900xtx only";
  int can = -1;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 0, 1), hipSuccess);
  EXPECT_EQ(can, 0);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorInvalidDevice);
  uint32_t type = 0, hops = 7;
  ASSERT_EQ(hipExtGetLinkTypeAndHopCount(0, 1, &type, &hops), hipSuccess);
  EXPECT_EQ(type, UINT32_MAX) << "no path: ROCclr's -1";
  EXPECT_EQ(hops, 0u);
  int value = -2;
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrAccessSupported, 0, 1), hipSuccess);
  EXPECT_EQ(value, 0);
  ASSERT_EQ(hipDeviceGetP2PAttribute(&value, hipDevP2PAttrPerformanceRank, 0, 1), hipSuccess);
  EXPECT_EQ(value, -1);
}

// A plain hipMemcpy / hipMemcpyAsync between two devices' memory, in both directions, before any peer access is
// enabled: CLR stages it through host memory, so it works on linked and unlinked GPUs alike.
TEST_F(HipPeerCApi, CopiesBetweenDevicesWorkWithoutPeerAccess) {
  constexpr size_t kSize = (size_t{5} << 20) + 123;  // several staging chunks and a tail
  std::vector<uint8_t> in(kSize), out(kSize, 0);
  for (size_t i = 0; i < kSize; ++i) in[i] = static_cast<uint8_t>(i * 13 + (i >> 12));
  void* d0 = nullptr;
  void* d1 = nullptr;
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipMalloc(&d0, kSize), hipSuccess);
  ASSERT_EQ(hipMemcpy(d0, in.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  ASSERT_EQ(hipMalloc(&d1, kSize), hipSuccess);
  EXPECT_EQ(hipMemcpy(d1, d0, kSize, hipMemcpyDefault), hipSuccess);
  ASSERT_EQ(hipMemcpy(out.data(), d1, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, in);
  ASSERT_EQ(hipMemset(d0, 0, kSize), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(d0, d1, kSize, hipMemcpyDeviceToDevice, stream), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  std::fill(out.begin(), out.end(), 0);
  ASSERT_EQ(hipMemcpy(out.data(), d0, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, in);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipFree(d1), hipSuccess);
  EXPECT_EQ(hipFree(d0), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

// HIP_POINTER_ATTRIBUTE_DEVICE_POINTER of another device's memory: refused until the current device enables peer
// access to it (current CLR), while the memory's other attributes answer all along.
TEST_F(HipPeerCApi, ADevicePointerForAPeerNeedsPeerAccess) {
  int can = 0;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 1, 0), hipSuccess);
  void* d0 = nullptr;
  ASSERT_EQ(hipMalloc(&d0, 4096), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  (void)hipDeviceDisablePeerAccess(0);  // whatever an earlier test left enabled
  (void)hipGetLastError();
  void* seen = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(hipPointerGetAttribute(&seen, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, d0), hipErrorInvalidValue);
  int ordinal = -1;
  EXPECT_EQ(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d0), hipSuccess);
  EXPECT_EQ(ordinal, 0);
  if (can) {
    ASSERT_EQ(hipDeviceEnablePeerAccess(0, 0), hipSuccess);
    EXPECT_EQ(hipPointerGetAttribute(&seen, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, d0), hipSuccess);
    EXPECT_EQ(seen, d0);
    EXPECT_EQ(hipDeviceDisablePeerAccess(0), hipSuccess);
  }
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  EXPECT_EQ(hipPointerGetAttribute(&seen, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, d0), hipSuccess);
  EXPECT_EQ(seen, d0);
  EXPECT_EQ(hipFree(d0), hipSuccess);
  (void)hipGetLastError();
}

// An event belongs to the device current when it was made (CLR's Event::deviceId): it records only on that
// device's streams and times only against its events, while any device's stream may wait on it.
TEST_F(HipPeerCApi, EventsBelongToTheirDevice) {
  hipEvent_t e0 = nullptr, e1 = nullptr;
  ASSERT_EQ(hipEventCreate(&e0), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  ASSERT_EQ(hipEventCreate(&e1), hipSuccess);
  hipStream_t s1 = nullptr;
  ASSERT_EQ(hipStreamCreate(&s1), hipSuccess);
  EXPECT_EQ(hipEventRecord(e0, s1), hipErrorInvalidHandle) << "device 0's event on device 1's stream";
  EXPECT_EQ(hipEventRecord(e0, nullptr), hipErrorInvalidHandle) << "device 1's null stream";
  EXPECT_EQ(hipEventQuery(e0), hipSuccess) << "a refused record leaves the event unrecorded";
  ASSERT_EQ(hipEventRecord(e1, s1), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipEventRecord(e0, nullptr), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(e0), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(e1), hipSuccess);
  float ms = -1;
  EXPECT_EQ(hipEventElapsedTime(&ms, e0, e1), hipErrorInvalidHandle) << "events of two devices";
  EXPECT_EQ(hipEventElapsedTime(&ms, e0, e0), hipSuccess);
  EXPECT_EQ(ms, 0.0f);
  hipStream_t s0 = nullptr;
  ASSERT_EQ(hipStreamCreate(&s0), hipSuccess);
  EXPECT_EQ(hipStreamWaitEvent(s0, e1, 0), hipSuccess) << "waiting across devices is allowed";
  EXPECT_EQ(hipStreamSynchronize(s0), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s0), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s1), hipSuccess);
  EXPECT_EQ(hipEventDestroy(e0), hipSuccess);
  EXPECT_EQ(hipEventDestroy(e1), hipSuccess);
  (void)hipGetLastError();
}

}  // namespace
