// hsaKmtSVMSetAttr / hsaKmtSVMGetAttr: thin shells over thunk/svm.h on the shared thunk::Kfd. They check what
// libhsakmt checks before the C++ API (the KFD open, attributes present when counted), convert and return
// ToHsakmtStatus(status).
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/units.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"
#include "thunk/svm.h"

namespace {

using hipmem::Bytes;
using hipmem::DeviceAddress;
using hipmem::thunk::SvmAttribute;
using hipmem::thunk::SvmAttrType;

std::vector<SvmAttribute> FromC(const HSA_SVM_ATTRIBUTE* attrs, unsigned int nattr) {
  std::vector<SvmAttribute> out(nattr);
  for (unsigned int i = 0; i < nattr; ++i) out[i] = {static_cast<SvmAttrType>(attrs[i].type), attrs[i].value};
  return out;
}

}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs) {
  const absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (nattr != 0 && attrs == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  const std::vector<SvmAttribute> in = FromC(attrs, nattr);
  return hipmem::thunk::ToHsakmtStatus(hipmem::thunk::SvmSetAttr(
      **kfd, DeviceAddress(reinterpret_cast<uintptr_t>(start_addr)), Bytes(size), in));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void* start_addr, HSAuint64 size, unsigned int nattr,
                                         HSA_SVM_ATTRIBUTE* attrs) {
  const absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (nattr != 0 && attrs == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  const absl::StatusOr<std::vector<SvmAttribute>> answers = hipmem::thunk::SvmGetAttr(
      **kfd, DeviceAddress(reinterpret_cast<uintptr_t>(start_addr)), Bytes(size), FromC(attrs, nattr));
  if (!answers.ok()) return hipmem::thunk::ToHsakmtStatus(answers.status());
  for (unsigned int i = 0; i < nattr; ++i) {
    attrs[i].type = static_cast<HSAuint32>((*answers)[i].type);
    attrs[i].value = (*answers)[i].value;
  }
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
