// The simulated kernel's AMDKFD_IOC_SVM (kfd_chardev.c's kfd_ioctl_svm over kfd_svm.c's svm_ioctl): the argument
// checks in the kernel's order, then the process's SVM ranges (svm_space.h) do the work.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/sim_internal.h"
#include "testing/kfd_sim/svm_space.h"

namespace hipmem::kfd_sim::sim_internal {

SvmSpace& SvmOf(IoctlContext& c) {
  if (c.process.svm == nullptr) {
    // The GPUs as the ranges see them: which VRAM each one reaches (itself and its io-link peers).
    std::vector<SvmGpu> gpus;
    for (size_t i = 0; i < c.topology.gpus.size(); ++i) {
      uint64_t reaches = uint64_t{1} << i;
      for (const IoLinkConfig& link : c.topology.io_links) {
        if (link.node_from == i + 1 && link.node_to >= 1 && link.node_to - 1 < 64) reaches |= uint64_t{1} << (link.node_to - 1);
      }
      gpus.push_back(SvmGpu{.gpu_id = c.topology.gpus[i].gpu_id, .reaches = reaches});
    }
    c.process.svm = SvmSpace::Create(std::move(gpus), &c.shared, &c.log, c.process_id, c.process.xnack_enabled);
    for (size_t i = 0; i < c.process.devices.size(); ++i) c.process.devices[i].page_table->AttachSvm(c.process.svm.get(), i);
  }
  return *c.process.svm;
}

int Svm(IoctlContext& c, std::byte* kdata, uint32_t size) {
  uapi::SvmArgs args;
  std::memcpy(&args, kdata, sizeof(args));
  // kfd_ioctl_svm: page-aligned, non-zero start and size.
  if (!IsAligned(Bytes(args.start_addr), kPageSize) || !IsAligned(Bytes(args.size), kPageSize)) return -EINVAL;
  if (args.start_addr == 0 || args.size == 0) return -EINVAL;
  // Deliberate: attributes beyond what the request's size field carried are refused; the kernel would read past
  // the copy it made.
  if (args.nattr > (size - sizeof(uapi::SvmArgs)) / sizeof(uapi::SvmAttribute)) return -EINVAL;
  std::vector<uapi::SvmAttribute> attrs(args.nattr);
  std::memcpy(attrs.data(), kdata + sizeof(uapi::SvmArgs), attrs.size() * sizeof(uapi::SvmAttribute));
  SvmSpace& svm = SvmOf(c);

  // svm_range_is_valid's buffer half: no GPU of the process maps a buffer there.
  const auto range_checks = [&]() {
    if (const int r = SvmSpace::CheckRange(args.start_addr, args.size); r != 0) return r;
    const AddressRange range{DeviceAddress(args.start_addr), Bytes(args.size)};
    for (const ProcessDevice& device : c.process.devices) {
      if (device.page_table->Overlaps(range)) return -EADDRINUSE;
    }
    return 0;
  };
  switch (static_cast<uapi::SvmOp>(args.op)) {
    case uapi::SvmOp::kSetAttr: {
      if (const int r = svm.CheckSetAttrs(attrs); r != 0) return r;
      if (const int r = range_checks(); r != 0) return r;
      return svm.SetAttr(args.start_addr, args.size, attrs);
    }
    case uapi::SvmOp::kGetAttr: {
      if (const int r = range_checks(); r != 0) return r;
      const int r = svm.GetAttr(args.start_addr, args.size, attrs);
      // Copied back even on failure, as the kernel's attrs live in the ioctl's own copy.
      std::memcpy(kdata + sizeof(uapi::SvmArgs), attrs.data(), attrs.size() * sizeof(uapi::SvmAttribute));
      return r;
    }
  }
  return -EINVAL;
}

}  // namespace hipmem::kfd_sim::sim_internal
