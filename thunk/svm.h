// Shared virtual memory: the thunk's side of AMDKFD_IOC_SVM.
//
// Plays libhsakmt's svm.c (hsaKmtSVMSetAttr / hsaKmtSVMGetAttr). An SVM range is a page-aligned piece of the
// process's own CPU address space, which every GPU sees at the same address; its attributes say where it prefers
// to live, where to move it now, which GPUs may reach it and how. Locations and GPUs are named by topology node
// (node 0, the CPU, is system memory) and translated to the KFD's gpu_ids here, as libhsakmt does. XNACK (whether
// a GPU touching an unmapped range retries instead of faulting) is device_controls.h's SetXnackMode. Thread-safe:
// the kernel serialises the ioctls.
#ifndef HIPMEM_THUNK_SVM_H_
#define HIPMEM_THUNK_SVM_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

// HSA_SVM_ATTR_TYPE.
enum class SvmAttrType : uint32_t {
  kPreferredLoc = 0,   // value: a node (0: system memory) or kSvmNoNode (no preference)
  kPrefetchLoc = 1,    // value: a node; setting it migrates the range there at once
  kAccess = 2,         // value: a GPU node that may map the range, migrating it as it likes
  kAccessInPlace = 3,  // value: a GPU node that may map the range where it lies
  kNoAccess = 4,       // value: a GPU node that may not map it
  kSetFlags = 5,       // value: HSA_SVM_FLAGS to set
  kClrFlags = 6,       // value: HSA_SVM_FLAGS to clear
  kGranularity = 7,    // value: log2 of the migration granule, in pages
};

// INVALID_NODEID: a location attribute with no value (PREFERRED_LOC to clear a preference; GET_ATTR's answer when
// the ranges disagree or none was ever set).
inline constexpr uint32_t kSvmNoNode = 0xffffffff;

struct SvmAttribute {
  SvmAttrType type;
  uint32_t value;
};

// Applies `attrs`, in order, to [start, start + size). Errors: NOT_SUPPORTED (kUnimplemented) on a KFD older than
// 1.5; INVALID_PARAMETER (kInvalidArgument) for a null or unaligned start, or a zero or unaligned size;
// INVALID_NODE_UNIT for an unknown node, or the CPU node in an access attribute; HSAKMT_STATUS_ERROR with the
// kernel's errno when it refuses (-EINVAL: an unknown attribute type; -EFAULT: part of the range is not mapped
// in the process; -EADDRINUSE: a GPU buffer lives there).
absl::Status SvmSetAttr(Kfd& kfd, DeviceAddress start, Bytes size, std::span<const SvmAttribute> attrs);

// Returns the answers to `queries` over [start, start + size), one per query in order: PREFERRED_LOC and
// PREFETCH_LOC get a node (kSvmNoNode where the ranges there disagree or none was set); an ACCESS query names a GPU
// node and gets back its type (kAccess, kAccessInPlace or kNoAccess) with the node; SET_FLAGS gets the flags every
// range has, CLR_FLAGS the complement of those any range has; GRANULARITY the smallest. Errors: SvmSetAttr's, and
// HSAKMT_STATUS_ERROR (-EINVAL) for an ACCESS_IN_PLACE or NO_ACCESS query.
absl::StatusOr<std::vector<SvmAttribute>> SvmGetAttr(Kfd& kfd, DeviceAddress start, Bytes size,
                                                     std::span<const SvmAttribute> queries);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_SVM_H_
