// One host-memory registration (hsaKmtRegisterMemory), owned: the thunk's answer to Kfd::RegisterMemory, so that
// the runtime above holds the pinned pages through an owner and never deregisters by hand.
#ifndef HIPMEM_THUNK_KFD_REGISTRATION_H_
#define HIPMEM_THUNK_KFD_REGISTRATION_H_

#include "absl/status/status.h"
#include "base/units.h"

namespace hipmem::thunk {

class Kfd;

// One registration Kfd::RegisterMemory counted, owned: the destructor drops it (Kfd::DeregisterMemory on the
// registered pointer; the last registration of a range frees its BO, mappings included) and logs a failure;
// Deregister() && reports it instead. Move-only; a move empties the source. Release() && gives up ownership and
// returns the GPU address, for the C shell, whose caller deregisters with hsaKmtDeregisterMemory. The Kfd must
// outlive it. Thread-compatible.
class [[nodiscard]] KfdRegistration {
 public:
  KfdRegistration() = default;  // empty, as a moved-from one
  KfdRegistration(KfdRegistration&& other) noexcept;
  KfdRegistration& operator=(KfdRegistration&& other) noexcept;
  KfdRegistration(const KfdRegistration&) = delete;
  KfdRegistration& operator=(const KfdRegistration&) = delete;
  ~KfdRegistration();

  bool empty() const { return kfd_ == nullptr; }
  // The registered host pointer.
  void* host() const { return host_; }
  // The address a GPU uses for host(): the registration's GPU VA plus host()'s offset in its page.
  DeviceAddress gpu_address() const { return gpu_address_; }

  // Gives up ownership: the registration stays until someone deregisters its pointer.
  [[nodiscard]] DeviceAddress Release() &&;
  // Drops the registration now: Kfd::DeregisterMemory's errors; kFailedPrecondition when the owner is empty
  // (moved from, released, deregistered).
  absl::Status Deregister() &&;

 private:
  friend class Kfd;
  KfdRegistration(Kfd* kfd, void* host, DeviceAddress gpu_address)
      : kfd_(kfd), host_(host), gpu_address_(gpu_address) {}

  Kfd* kfd_ = nullptr;  // Not owned; must outlive this. Null once empty.
  void* host_ = nullptr;
  DeviceAddress gpu_address_{0};
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_REGISTRATION_H_
