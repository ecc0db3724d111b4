#include "thunk/kfd_registration.h"

#include <utility>

#include "base/log.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

KfdRegistration::KfdRegistration(KfdRegistration&& other) noexcept
    : kfd_(std::exchange(other.kfd_, nullptr)), host_(other.host_), gpu_address_(other.gpu_address_) {}

KfdRegistration& KfdRegistration::operator=(KfdRegistration&& other) noexcept {
  if (this != &other) {
    KfdRegistration old(std::move(*this));  // deregisters what this held when it goes
    kfd_ = std::exchange(other.kfd_, nullptr);
    host_ = other.host_;
    gpu_address_ = other.gpu_address_;
  }
  return *this;
}

KfdRegistration::~KfdRegistration() {
  if (kfd_ == nullptr) return;
  if (absl::Status s = kfd_->DeregisterMemory(host_); !s.ok()) {
    HIPMEM_LOG(kError, "deregistering host memory: ", s.message());
  }
}

DeviceAddress KfdRegistration::Release() && {
  kfd_ = nullptr;
  return gpu_address_;
}

absl::Status KfdRegistration::Deregister() && {
  Kfd* kfd = std::exchange(kfd_, nullptr);
  if (kfd == nullptr) return absl::FailedPreconditionError("KfdRegistration::Deregister: nothing owned");
  return kfd->DeregisterMemory(host_);
}

}  // namespace hipmem::thunk
