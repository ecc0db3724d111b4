#include "testing/sanitizer_runtime.h"

#include <link.h>

#include <string>

#include "absl/strings/match.h"

namespace hipmem::testing {

std::string LoadedSanitizerRuntime() {
  std::string runtime;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name != nullptr &&
            (absl::StrContains(info->dlpi_name, "/libasan.so") || absl::StrContains(info->dlpi_name, "/libtsan.so"))) {
          *static_cast<std::string*>(out) = info->dlpi_name;
        }
        return 0;
      },
      &runtime);
  return runtime;
}

bool UnderThreadSanitizer() { return absl::StrContains(LoadedSanitizerRuntime(), "/libtsan.so"); }

}  // namespace hipmem::testing
