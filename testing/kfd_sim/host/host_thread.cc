#include "testing/kfd_sim/host/host_thread.h"

#include <cstring>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/host/fault_hook.h"

namespace hipmem::kfd_sim {

absl::StatusOr<std::thread> StartHostThread(std::function<void()> body) {
  if (const int fault = InjectedFault(KernelEntry::kThreadStart); fault != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("thread start failed (injected): ", std::strerror(fault)));
  }
  try {
    return std::thread(std::move(body));
  } catch (const std::system_error& e) {
    return absl::ResourceExhaustedError(absl::StrCat("thread start failed: ", e.what()));
  }
}

}  // namespace hipmem::kfd_sim
