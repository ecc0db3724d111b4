#include "testing/kfd_sim/engines/gfx9/gws.h"

#include <algorithm>

namespace hipmem::kfd_sim::gfx9 {

void GwsBlock::Init(uint32_t resource, uint32_t value) {
  std::lock_guard<std::mutex> lock(mu_);
  Resource& r = resources_[Index(resource)];
  r.counter = value;
}

void GwsBlock::SemaV(uint32_t resource, uint32_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  Resource& r = resources_[Index(resource)];
  r.counter += count;
}

void GwsBlock::SemaReleaseAll(uint32_t resource) {
  std::lock_guard<std::mutex> lock(mu_);
  ++resources_[Index(resource)].released;
}

std::optional<GwsBlock::Wait> GwsBlock::SemaP(uint32_t resource) {
  std::lock_guard<std::mutex> lock(mu_);
  Resource& r = resources_[Index(resource)];
  if (r.counter > 0) {
    --r.counter;
    return std::nullopt;
  }
  return Wait{.kind = Wait::Kind::kSemaphore, .resource = Index(resource), .round = r.released};
}

std::optional<GwsBlock::Wait> GwsBlock::Barrier(uint32_t resource, uint32_t value) {
  std::lock_guard<std::mutex> lock(mu_);
  Resource& r = resources_[Index(resource)];
  // The round's size: waves minus 1, from its first arrival or from ds_gws_init (see the header). 64-bit: a value of
  // 0xffffffff must not wrap to a round of none.
  if (r.arrived == 0) r.round_size = std::max(value, r.counter);
  if (uint64_t{r.arrived} + 1 > r.round_size) {  // the last wave of the round: everyone goes on
    r.arrived = 0;
    ++r.round;
    return std::nullopt;
  }
  ++r.arrived;
  return Wait{.kind = Wait::Kind::kBarrier, .resource = Index(resource), .round = r.round};
}

bool GwsBlock::Ready(const Wait& wait) {
  std::lock_guard<std::mutex> lock(mu_);
  Resource& r = resources_[Index(wait.resource)];
  if (wait.kind == Wait::Kind::kBarrier) return r.round != wait.round;
  if (r.released != wait.round) return true;  // sema_release_all let every waiter go
  if (r.counter == 0) return false;
  --r.counter;
  return true;
}

uint32_t GwsBlock::counter(uint32_t resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_[Index(resource)].counter;
}

uint32_t GwsBlock::arrived(uint32_t resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  return resources_[Index(resource)].arrived;
}

}  // namespace hipmem::kfd_sim::gfx9
