// The KFD shared-virtual-memory ioctl (AMDKFD_IOC_SVM, linux include/uapi/linux/kfd_ioctl.h, KFD 1.5+), as typed C++.
//
// Plays the SVM part of the kernel's uapi header. SVM ranges are the process's own CPU virtual addresses (GPU VA ==
// CPU VA); SET_ATTR gives a page-aligned range attributes (where it prefers to live, where to prefetch it, which
// GPUs may reach it and how), GET_ATTR reads them back over a range. The request is variable-sized: its encoded
// size covers the 24-byte header only, and libhsakmt adds the bytes of the `nattr` attributes that follow it to the
// size field (request(nattr)), so the kernel copies header and attributes in, and back out, in one piece.
#ifndef HIPMEM_KFD_UAPI_KFD_SVM_H_
#define HIPMEM_KFD_UAPI_KFD_SVM_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kfd_uapi/kfd_ioctl.h"

namespace hipmem::kfd_uapi {

// KFD_IOCTL_SVM_FLAG_*: the values of SET_FLAGS / CLR_FLAGS, a range's flag word.
enum class SvmFlags : uint32_t {
  kNone = 0,
  kHostAccess = 0x01,       // the CPU may touch it (the default)
  kCoherent = 0x02,         // fine-grained: coherent with the CPU (the default)
  kHiveLocal = 0x04,        // only GPUs of one XGMI hive use it
  kGpuRo = 0x08,            // GPUs map it read-only
  kGpuExec = 0x10,          // GPUs may execute it
  kGpuReadMostly = 0x20,    // mostly read by GPUs: duplicate rather than migrate
  kGpuAlwaysMapped = 0x40,  // keep it GPU-mapped even when XNACK is on
  kExtCoherent = 0x80,      // coherent across GPUs too (1.16)
};
constexpr uint32_t ToRaw(SvmFlags f) { return static_cast<uint32_t>(f); }
constexpr SvmFlags operator|(SvmFlags a, SvmFlags b) { return static_cast<SvmFlags>(ToRaw(a) | ToRaw(b)); }
// Every flag bit this KFD knows.
inline constexpr uint32_t kSvmFlagsKnown = 0xff;

// kfd_ioctl_svm_op: SvmArgs::op.
enum class SvmOp : uint32_t { kSetAttr = 0, kGetAttr = 1 };
constexpr uint32_t ToRaw(SvmOp op) { return static_cast<uint32_t>(op); }

// kfd_ioctl_svm_location: PREFERRED_LOC / PREFETCH_LOC values other than a gpu_id.
inline constexpr uint32_t kSvmLocationSysmem = 0;
inline constexpr uint32_t kSvmLocationUndefined = 0xffffffff;

// kfd_ioctl_svm_attr_type: SvmAttribute::type.
enum class SvmAttrType : uint32_t {
  kPreferredLoc = 0,   // value: gpu_id, kSvmLocationSysmem or kSvmLocationUndefined
  kPrefetchLoc = 1,    // value: gpu_id or kSvmLocationSysmem; setting it migrates the range there
  kAccess = 2,         // value: gpu_id that may map it (migrating it as it pleases)
  kAccessInPlace = 3,  // value: gpu_id that may map it where it lies, without migrating it
  kNoAccess = 4,       // value: gpu_id that must not map it
  kSetFlags = 5,       // value: SvmFlags to set
  kClrFlags = 6,       // value: SvmFlags to clear
  kGranularity = 7,    // value: log2 of the migration granule in pages
};
constexpr uint32_t ToRaw(SvmAttrType t) { return static_cast<uint32_t>(t); }

struct SvmAttribute {
  uint32_t type;   // SvmAttrType; GET_ATTR rewrites an ACCESS query's type with the answer
  uint32_t value;
};

// kfd_ioctl_svm_args without its flexible array: `nattr` SvmAttribute follow it in memory.
struct SvmArgs {
  uint64_t start_addr;  // in: page-aligned CPU (== GPU) virtual address
  uint64_t size;        // in: bytes, page-aligned, non-zero
  uint32_t op;          // in: SvmOp
  uint32_t nattr;       // in: attributes following the header
};

static_assert(sizeof(SvmAttribute) == 8 && std::is_standard_layout_v<SvmAttribute>);
static_assert(sizeof(SvmArgs) == 24 && std::is_standard_layout_v<SvmArgs>);
static_assert(offsetof(SvmArgs, size) == 8 && offsetof(SvmArgs, op) == 16 && offsetof(SvmArgs, nattr) == 20);
static_assert(offsetof(SvmAttribute, value) == 4);

// AMDKFD_IOC_SVM: the descriptor's request() is the header-only number (0xC0184B20), as the kernel's table has it.
inline constexpr IoctlDescriptor<SvmArgs> kSvm{0x20, IoctlDirection::kReadWrite, "AMDKFD_IOC_SVM"};
static_assert(kSvm.request() == 0xC0184B20);

// Returns the request number libhsakmt issues for `nattr` attributes: the header's size plus theirs in the size
// field (14 bits, so at most (0x3fff - 24) / 8 = 2044 attributes fit).
inline constexpr uint32_t kSvmMaxAttributes = (0x3fff - sizeof(SvmArgs)) / sizeof(SvmAttribute);
constexpr unsigned long SvmRequest(uint32_t nattr) {
  return EncodeIoctl(kSvm.direction, kSvm.nr,
                     static_cast<uint32_t>(sizeof(SvmArgs) + uint64_t{nattr} * sizeof(SvmAttribute)));
}
static_assert(SvmRequest(0) == kSvm.request() && SvmRequest(2) == 0xC0284B20);

}  // namespace hipmem::kfd_uapi

#endif  // HIPMEM_KFD_UAPI_KFD_SVM_H_
