/* Compiles the event part of <hsakmt/hsakmt.h> as C and pins what libhsakmt callers depend on:
 * HSA_EVENTTYPE values (the KFD's KFD_IOC_EVENT_*), the 4-byte-packed layouts of ROCR-Runtime's
 * hsakmttypes.h (October 2024) at compile time, and HsaAccessAttributeFailure's bit positions at run
 * time (main fails on a mismatch). */
#include <hsakmt/hsakmt.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(HSA_EVENTTYPE_SIGNAL == 0 && HSA_EVENTTYPE_NODECHANGE == 1, "");
_Static_assert(HSA_EVENTTYPE_DEVICESTATECHANGE == 2 && HSA_EVENTTYPE_HW_EXCEPTION == 3, "");
_Static_assert(HSA_EVENTTYPE_SYSTEM_EVENT == 4 && HSA_EVENTTYPE_DEBUG_EVENT == 5, "");
_Static_assert(HSA_EVENTTYPE_PROFILE_EVENT == 6 && HSA_EVENTTYPE_QUEUE_EVENT == 7, "");
_Static_assert(HSA_EVENTTYPE_MEMORY == 8 && HSA_EVENTTYPE_MAXID == 9, "");
_Static_assert(HSA_EVENTTIMEOUT_IMMEDIATE == 0 && HSA_EVENTTIMEOUT_INFINITE == 0xFFFFFFFF, "");
_Static_assert(HSA_EVENTID_MEMORY_FATAL_PROCESS == 1 && HSA_EVENTID_HW_EXCEPTION_ECC == 1, "");
_Static_assert(HSA_DEVICE_GPU == 1 && MAX_HSA_DEVICE == 2, "");
_Static_assert(sizeof(HSA_EVENTID) == 4 && sizeof(HSA_EVENTTYPE) == 4, "");

_Static_assert(sizeof(HsaSyncVar) == 16 && offsetof(HsaSyncVar, SyncVarSize) == 8, "");
_Static_assert(sizeof(HsaNodeChange) == 4 && sizeof(HsaDeviceStateChange) == 12, "");
_Static_assert(sizeof(HsaAccessAttributeFailure) == 4 && sizeof(HsaHwException) == 16, "");

/* 4-byte packing: the 64-bit address follows the node id without padding. */
_Static_assert(offsetof(HsaMemoryAccessFault, NodeId) == 0, "");
_Static_assert(offsetof(HsaMemoryAccessFault, VirtualAddress) == 4, "");
_Static_assert(offsetof(HsaMemoryAccessFault, Failure) == 12, "");
_Static_assert(offsetof(HsaMemoryAccessFault, Flags) == 16, "");
_Static_assert(sizeof(HsaMemoryAccessFault) == 20, "");

_Static_assert(offsetof(HsaEventData, EventType) == 0, "");
_Static_assert(offsetof(HsaEventData, EventData) == 4, "");
_Static_assert(offsetof(HsaEventData, HWData1) == 24, "");
_Static_assert(offsetof(HsaEventData, HWData2) == 32, "");
_Static_assert(offsetof(HsaEventData, HWData3) == 40, "");
_Static_assert(sizeof(HsaEventData) == 44, "");

_Static_assert(offsetof(HsaEventDescriptor, EventType) == 0, "");
_Static_assert(offsetof(HsaEventDescriptor, NodeId) == 4, "");
_Static_assert(offsetof(HsaEventDescriptor, SyncVar) == 8, "");
_Static_assert(sizeof(HsaEventDescriptor) == 24, "");

_Static_assert(offsetof(HsaEvent, EventId) == 0 && offsetof(HsaEvent, EventData) == 4, "");
_Static_assert(sizeof(HsaEvent) == 48, "");

#define HAS_TYPE(fn, type) _Generic(&(fn), type: 1, default: 0)
_Static_assert(HAS_TYPE(hsaKmtCreateEvent, HSAKMT_STATUS (*)(HsaEventDescriptor*, bool, bool, HsaEvent**)), "");
_Static_assert(HAS_TYPE(hsaKmtDestroyEvent, HSAKMT_STATUS (*)(HsaEvent*)), "");
_Static_assert(HAS_TYPE(hsaKmtSetEvent, HSAKMT_STATUS (*)(HsaEvent*)), "");
_Static_assert(HAS_TYPE(hsaKmtResetEvent, HSAKMT_STATUS (*)(HsaEvent*)), "");
_Static_assert(HAS_TYPE(hsaKmtQueryEventState, HSAKMT_STATUS (*)(HsaEvent*)), "");
_Static_assert(HAS_TYPE(hsaKmtWaitOnEvent, HSAKMT_STATUS (*)(HsaEvent*, HSAuint32)), "");
_Static_assert(HAS_TYPE(hsaKmtWaitOnMultipleEvents, HSAKMT_STATUS (*)(HsaEvent**, HSAuint32, bool, HSAuint32)), "");

static int failures = 0;
static void Expect(unsigned got, unsigned want, const char* what) {
  if (got != want) {
    fprintf(stderr, "%s: got 0x%x, want 0x%x\n", what, got, want);
    ++failures;
  }
}
#define FAILURE_BIT(field, value, want)        \
  do {                                         \
    HsaAccessAttributeFailure f;               \
    unsigned raw;                              \
    memset(&f, 0, sizeof f);                   \
    f.field = (value);                         \
    memcpy(&raw, &f, sizeof raw);              \
    Expect(raw, (want), #field);               \
  } while (0)

int main(void) {
  FAILURE_BIT(NotPresent, 1, 1u << 0);
  FAILURE_BIT(ReadOnly, 1, 1u << 1);
  FAILURE_BIT(NoExecute, 1, 1u << 2);
  FAILURE_BIT(GpuAccess, 1, 1u << 3);
  FAILURE_BIT(ECC, 1, 1u << 4);
  FAILURE_BIT(Imprecise, 1, 1u << 5);
  FAILURE_BIT(ErrorType, 7, 7u << 6);
  return failures == 0 ? 0 : 1;
}
