#include "hip/last_error.h"

namespace hipmem::hip {

hipError_t& ThreadLastError() {
  thread_local hipError_t last_error = hipSuccess;
  return last_error;
}

}  // namespace hipmem::hip
