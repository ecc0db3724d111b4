#include "thunk/svm.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

constexpr uint64_t kPageBytes = 4096;
// CHECK_KFD_MINOR_VERSION(5): the KFD that brought AMDKFD_IOC_SVM.
constexpr uint32_t kSvmMinMinor = 5;

bool IsAccess(SvmAttrType type) {
  return type == SvmAttrType::kAccess || type == SvmAttrType::kAccessInPlace || type == SvmAttrType::kNoAccess;
}
// The attributes whose value is a node (a location or a GPU), which the KFD names by gpu_id.
bool NamesNode(SvmAttrType type) {
  return type == SvmAttrType::kPreferredLoc || type == SvmAttrType::kPrefetchLoc || IsAccess(type);
}

// The checks both calls share, before anything reaches the kernel.
absl::Status CheckCall(const Kfd& kfd, DeviceAddress start, Bytes size, absl::string_view context) {
  const KfdVersion version = kfd.version();
  if (version.major < 1 || (version.major == 1 && version.minor < kSvmMinMinor)) {
    return WithHsakmtStatus(absl::UnimplementedError(absl::StrCat(context, ": KFD ", version.major, ".",
                                                                  version.minor, " has no AMDKFD_IOC_SVM")),
                            HSAKMT_STATUS_NOT_SUPPORTED);
  }
  if (start.raw() == 0 || size.raw() == 0 || start.raw() % kPageBytes != 0 || size.raw() % kPageBytes != 0) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": null, empty or unaligned range")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  return absl::OkStatus();
}

// hsakmt_validate_nodeid: the node's gpu_id, 0 for the CPU node (system memory); INVALID_NODE_UNIT for an unknown
// node, and for the CPU node where a GPU is meant.
absl::StatusOr<uint32_t> GpuIdOfNode(const Kfd& kfd, uint32_t node, bool gpu_only, absl::string_view context) {
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd.Node(NodeId(node)));
  const uint32_t gpu_id = properties->gpu_id ? properties->gpu_id->raw() : 0;
  if (gpu_id == 0 && gpu_only) {
    return InvalidNodeUnitError(absl::StrCat(context, ": node ", node, " is not a GPU"));
  }
  return gpu_id;
}

// hsakmt_gpuid_to_nodeid, with the KFD's two location values.
absl::StatusOr<uint32_t> NodeOfGpuId(const Kfd& kfd, uint32_t gpu_id, absl::string_view context) {
  if (gpu_id == uapi::kSvmLocationSysmem) return 0;
  if (gpu_id == uapi::kSvmLocationUndefined) return kSvmNoNode;
  for (const NodeProperties& node : kfd.topology().nodes) {
    if (node.gpu_id && node.gpu_id->raw() == gpu_id) return node.id.raw();
  }
  return InvalidNodeUnitError(absl::StrCat(context, ": the KFD answered unknown gpu_id 0x", absl::Hex(gpu_id)));
}

// Issues AMDKFD_IOC_SVM as libhsakmt does: the attributes follow the header in one buffer, and the request's size
// field counts them too, so the kernel copies everything in (and back out) at once.
absl::Status IssueSvm(Kfd& kfd, uapi::SvmOp op, DeviceAddress start, Bytes size,
                      std::vector<uapi::SvmAttribute>& attrs) {
  if (attrs.size() > uapi::kSvmMaxAttributes) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat("AMDKFD_IOC_SVM: ", attrs.size(),
                                                                    " attributes do not fit one request")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  const uapi::SvmArgs args{.start_addr = start.raw(), .size = size.raw(), .op = uapi::ToRaw(op),
                           .nattr = static_cast<uint32_t>(attrs.size())};
  std::vector<std::byte> buffer(sizeof(args) + attrs.size() * sizeof(uapi::SvmAttribute));
  std::memcpy(buffer.data(), &args, sizeof(args));
  std::memcpy(buffer.data() + sizeof(args), attrs.data(), attrs.size() * sizeof(uapi::SvmAttribute));
  const int err = kfd.device().Ioctl(uapi::SvmRequest(args.nattr), buffer.data());
  if (TraceEnabled()) {
    const std::string line = absl::StrCat(uapi::kSvm.name, "(start_addr=0x", absl::Hex(args.start_addr), ", size=0x",
                                          absl::Hex(args.size), ", op=", args.op, ", nattr=", args.nattr,
                                          ") = ", err == 0 ? 0 : -err);
    Trace(Layer::kKfd, line);
  }
  std::memcpy(attrs.data(), buffer.data() + sizeof(args), attrs.size() * sizeof(uapi::SvmAttribute));
  return FromErrno(err, uapi::kSvm.name);
}

}  // namespace

absl::Status SvmSetAttr(Kfd& kfd, DeviceAddress start, Bytes size, std::span<const SvmAttribute> attrs) {
  const std::string context =
      absl::StrCat("hsaKmtSVMSetAttr(start=0x", absl::Hex(start.raw()), ", size=0x", absl::Hex(size.raw()), ")");
  RETURN_IF_ERROR(CheckCall(kfd, start, size, context));
  std::vector<uapi::SvmAttribute> raw(attrs.size());
  for (size_t i = 0; i < attrs.size(); ++i) {
    raw[i] = uapi::SvmAttribute{.type = static_cast<uint32_t>(attrs[i].type), .value = attrs[i].value};
    if (!NamesNode(attrs[i].type)) continue;
    if (attrs[i].type == SvmAttrType::kPreferredLoc && attrs[i].value == kSvmNoNode) {
      raw[i].value = uapi::kSvmLocationUndefined;
      continue;
    }
    ASSIGN_OR_RETURN(raw[i].value, GpuIdOfNode(kfd, attrs[i].value, IsAccess(attrs[i].type), context));
  }
  const absl::Status status = IssueSvm(kfd, uapi::SvmOp::kSetAttr, start, size, raw);
  if (!status.ok()) return WithHsakmtStatus(Annotate(status, context), HSAKMT_STATUS_ERROR);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SvmAttribute>> SvmGetAttr(Kfd& kfd, DeviceAddress start, Bytes size,
                                                     std::span<const SvmAttribute> queries) {
  const std::string context =
      absl::StrCat("hsaKmtSVMGetAttr(start=0x", absl::Hex(start.raw()), ", size=0x", absl::Hex(size.raw()), ")");
  RETURN_IF_ERROR(CheckCall(kfd, start, size, context));
  std::vector<uapi::SvmAttribute> raw(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    raw[i] = uapi::SvmAttribute{.type = static_cast<uint32_t>(queries[i].type), .value = queries[i].value};
    if (IsAccess(queries[i].type)) {
      ASSIGN_OR_RETURN(raw[i].value, GpuIdOfNode(kfd, queries[i].value, /*gpu_only=*/true, context));
    }
  }
  const absl::Status status = IssueSvm(kfd, uapi::SvmOp::kGetAttr, start, size, raw);
  if (!status.ok()) return WithHsakmtStatus(Annotate(status, context), HSAKMT_STATUS_ERROR);
  std::vector<SvmAttribute> answers(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    answers[i] = SvmAttribute{.type = static_cast<SvmAttrType>(raw[i].type), .value = raw[i].value};
    if (NamesNode(answers[i].type)) {
      ASSIGN_OR_RETURN(answers[i].value, NodeOfGpuId(kfd, raw[i].value, context));
    }
  }
  return answers;
}

}  // namespace hipmem::thunk
