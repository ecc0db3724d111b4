// Every hsaKmt* entry point hipmem does not implement (hsakmt_unsupported.cc) links and answers what a
// libhsakmt without the feature answers: NOT_SUPPORTED once the KFD is open, INVALID_PARAMETER for a
// missing mandatory out-pointer, KERNEL_IO_CHANNEL_NOT_OPENED before hsaKmtOpenKFD. Calling each one by
// name also means a function that loses its definition fails this test's link.
#include <cstdint>
#include <functional>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace {

// Out-parameter storage for the calls; only its addresses matter (nothing may be written).
struct Outs {
  void* ptr = nullptr;
  HSAuint32 u32 = 0;
  HSAint32 i32 = 0;
  HSAuint64 u64 = 0;
  uint64_t age = 0;
  int fd = -1;
  bool flag = false;
  HsaEvent* events[1] = {nullptr};
  HsaQueueReport queue_report{};
  HsaQueueInfo queue_info{};
  HsaMemoryRange range{};
  HsaDbgWaveMessage wave_message{};
  HSA_DBG_WATCH_MODE watch_mode[1] = {HSA_DBG_WATCH_ALL};
  void* watch_address[1] = {nullptr};
  HSAuint64 watch_mask[1] = {0};
  HsaEvent* watch_event[1] = {nullptr};
  HsaClockCounters clocks{};
  HsaGpuTileConfig tile_config{};
  HsaPcSamplingInfo pc_info{};
  HsaPcSamplingTraceId pc_trace = 0;
  HsaAMDGPUDeviceHandle device = nullptr;
  HSA_QUEUEID queue_id = 0;
  alignas(8) unsigned char dbg_trap_args[32] = {};  // struct kfd_ioctl_dbg_trap_args is 32 bytes
};

struct Call {
  const char* name;
  std::function<HSAKMT_STATUS(Outs&)> call;
};

// Each call with well-formed arguments. A GPU node id of 1 (the default machine's GPU) where one is taken.
std::vector<Call> AllCalls() {
  auto dbg = [](Outs& o) { return reinterpret_cast<struct kfd_ioctl_dbg_trap_args*>(o.dbg_trap_args); };
  return {
      {"hsaKmtDbgRegister", [](Outs&) { return hsaKmtDbgRegister(1); }},
      {"hsaKmtDbgUnregister", [](Outs&) { return hsaKmtDbgUnregister(1); }},
      {"hsaKmtDbgWavefrontControl",
       [](Outs& o) {
         return hsaKmtDbgWavefrontControl(1, HSA_DBG_WAVEOP_HALT, HSA_DBG_WAVEMODE_SINGLE, 0, &o.wave_message);
       }},
      {"hsaKmtDbgAddressWatch",
       [](Outs& o) {
         return hsaKmtDbgAddressWatch(1, 1, o.watch_mode, o.watch_address, o.watch_mask, o.watch_event);
       }},
      {"hsaKmtDbgEnable", [](Outs& o) { return hsaKmtDbgEnable(&o.ptr, &o.u32); }},
      {"hsaKmtDbgDisable", [](Outs&) { return hsaKmtDbgDisable(); }},
      {"hsaKmtDbgGetDeviceData", [](Outs& o) { return hsaKmtDbgGetDeviceData(&o.ptr, &o.u32, &o.u32); }},
      {"hsaKmtDbgGetQueueData", [](Outs& o) { return hsaKmtDbgGetQueueData(&o.ptr, &o.u32, &o.u32, false); }},
      {"hsaKmtCheckRuntimeDebugSupport", [](Outs&) { return hsaKmtCheckRuntimeDebugSupport(); }},
      {"hsaKmtDebugTrapIoctl", [dbg](Outs& o) { return hsaKmtDebugTrapIoctl(dbg(o), &o.queue_id, &o.u64); }},
      {"hsaKmtSPMAcquire", [](Outs&) { return hsaKmtSPMAcquire(1); }},
      {"hsaKmtSPMRelease", [](Outs&) { return hsaKmtSPMRelease(1); }},
      {"hsaKmtSPMSetDestBuffer",
       [](Outs& o) { return hsaKmtSPMSetDestBuffer(1, sizeof(o.u64), &o.u32, &o.u32, &o.u64, &o.flag); }},
      {"hsaKmtPcSamplingSupport", [](Outs&) { return hsaKmtPcSamplingSupport(); }},
      {"hsaKmtPcSamplingQueryCapabilities",
       [](Outs& o) { return hsaKmtPcSamplingQueryCapabilities(1, &o.pc_info, 1, &o.u32); }},
      {"hsaKmtPcSamplingCreate", [](Outs& o) { return hsaKmtPcSamplingCreate(1, &o.pc_info, &o.pc_trace); }},
      {"hsaKmtPcSamplingDestroy", [](Outs&) { return hsaKmtPcSamplingDestroy(1, 1); }},
      {"hsaKmtPcSamplingStart", [](Outs&) { return hsaKmtPcSamplingStart(1, 1); }},
      {"hsaKmtPcSamplingStop", [](Outs&) { return hsaKmtPcSamplingStop(1, 1); }},
      {"hsaKmtOpenSMI", [](Outs& o) { return hsaKmtOpenSMI(1, &o.fd); }},
      {"hsaKmtReportQueue", [](Outs& o) { return hsaKmtReportQueue(1, &o.queue_report); }},
      {"hsaKmtGetQueueInfo", [](Outs& o) { return hsaKmtGetQueueInfo(1, &o.queue_info); }},
      {"hsaKmtMapGraphicHandle", [](Outs& o) { return hsaKmtMapGraphicHandle(1, 1, 1, 0, 4096, &o.u64); }},
      {"hsaKmtUnmapGraphicHandle", [](Outs&) { return hsaKmtUnmapGraphicHandle(1, 0x1000, 4096); }},
      {"hsaKmtGetAMDGPUDeviceHandle", [](Outs& o) { return hsaKmtGetAMDGPUDeviceHandle(1, &o.device); }},
      {"hsaKmtGetMemoryHandle", [](Outs& o) { return hsaKmtGetMemoryHandle(&o.u64, 4096, &o.age); }},
      {"hsaKmtProcessVMRead",
       [](Outs& o) { return hsaKmtProcessVMRead(1, &o.range, 1, &o.range, 1, &o.u64); }},
      {"hsaKmtProcessVMWrite",
       [](Outs& o) { return hsaKmtProcessVMWrite(1, &o.range, 1, &o.range, 1, &o.u64); }},
      {"hsaKmtReplaceAsanHeaderPage", [](Outs& o) { return hsaKmtReplaceAsanHeaderPage(&o.u64); }},
      {"hsaKmtReturnAsanHeaderPage", [](Outs& o) { return hsaKmtReturnAsanHeaderPage(&o.u64); }},
      {"hsaKmtAisReadWriteFile",
       [](Outs& o) { return hsaKmtAisReadWriteFile(&o.u64, 4096, 0, 0, HSA_AIS_READ, &o.u64, &o.i32); }},
  };
}

// Calls whose mandatory out-pointer is null.
std::vector<Call> NullOutputCalls() {
  return {
      {"hsaKmtDbgEnable", [](Outs& o) { return hsaKmtDbgEnable(nullptr, &o.u32); }},
      {"hsaKmtDbgGetDeviceData", [](Outs& o) { return hsaKmtDbgGetDeviceData(&o.ptr, nullptr, &o.u32); }},
      {"hsaKmtDebugTrapIoctl", [](Outs& o) { return hsaKmtDebugTrapIoctl(nullptr, &o.queue_id, &o.u64); }},
      {"hsaKmtPcSamplingCreate", [](Outs& o) { return hsaKmtPcSamplingCreate(1, &o.pc_info, nullptr); }},
      {"hsaKmtOpenSMI", [](Outs&) { return hsaKmtOpenSMI(1, nullptr); }},
      {"hsaKmtGetQueueInfo", [](Outs&) { return hsaKmtGetQueueInfo(1, nullptr); }},
      {"hsaKmtGetClockCounters", [](Outs&) { return hsaKmtGetClockCounters(1, nullptr); }},
  };
}

TEST(HsakmtUnsupportedTest, EveryCallAnswersNotOpenedBeforeOpenKfd) {
  for (const Call& c : AllCalls()) {
    SCOPED_TRACE(c.name);
    Outs outs;
    EXPECT_EQ(c.call(outs), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
}

TEST(HsakmtUnsupportedTest, EveryCallAnswersNotSupportedOnceOpen) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  for (const Call& c : AllCalls()) {
    SCOPED_TRACE(c.name);
    Outs outs;
    EXPECT_EQ(c.call(outs), HSAKMT_STATUS_NOT_SUPPORTED);
    // A refused call hands nothing out: the out-parameters keep their values.
    EXPECT_EQ(outs.ptr, nullptr);
    EXPECT_EQ(outs.fd, -1);
    EXPECT_EQ(outs.u64, 0u);
  }
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

TEST(HsakmtUnsupportedTest, MissingOutPointerIsInvalidParameter) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  for (const Call& c : NullOutputCalls()) {
    SCOPED_TRACE(c.name);
    Outs outs;
    EXPECT_EQ(c.call(outs), HSAKMT_STATUS_INVALID_PARAMETER);
  }
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

TEST(HsakmtUnsupportedTest, AfterCloseKfdCallsAnswerNotOpenedAgain) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  HSAint32 mode = 0;
  EXPECT_EQ(hsaKmtSVMSetAttr(&mode, 4096, 0, nullptr), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtPcSamplingSupport(), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

TEST(HsakmtUnsupportedTest, ModelEnabledSaysNoWhetherOrNotOpen) {
  bool enabled = true;
  EXPECT_EQ(hsaKmtModelEnabled(&enabled), HSAKMT_STATUS_SUCCESS);
  EXPECT_FALSE(enabled);
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  enabled = true;
  EXPECT_EQ(hsaKmtModelEnabled(&enabled), HSAKMT_STATUS_SUCCESS);
  EXPECT_FALSE(enabled);
  EXPECT_EQ(hsaKmtModelEnabled(nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
