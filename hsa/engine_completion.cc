#include "hsa/engine_completion.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/units.h"

namespace hipmem::hsa {

absl::Status WaitForEngine(const thunk::Event& done, const thunk::Event& faults, absl::string_view what,
                           absl::Duration timeout) {
  const thunk::Event* waited[] = {&done, &faults};
  absl::StatusOr<thunk::WaitResult> result = thunk::Event::WaitMultiple(waited, thunk::WaitMode::kAny, timeout);
  if (!result.ok()) return result.status();
  if (result->memory_faults.size() > 1 && result->memory_faults[1].has_value()) {
    const thunk::MemoryAccessFault& fault = *result->memory_faults[1];
    return absl::DataLossError(absl::StrCat("memory access fault by GPU node ", fault.node.raw(), " on address ",
                                            AddressText(fault.address), " during ", what));
  }
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
