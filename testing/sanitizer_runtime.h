// For tests that run uninstrumented programs (/bin/sh, Debian's rocminfo, programs built outside Bazel) on our
// libraries: under --config=asan those libraries are instrumented, and the sanitizer's runtime must then be the
// first library of the program (LD_PRELOAD), or ASan aborts it with "ASan runtime does not come first".
#ifndef HIPMEM_TESTING_SANITIZER_RUNTIME_H_
#define HIPMEM_TESTING_SANITIZER_RUNTIME_H_

#include <string>

namespace hipmem::testing {

// The path of the AddressSanitizer runtime loaded in this process (libasan.so), or empty when there is none (an
// uninstrumented build).
std::string LoadedSanitizerRuntime();

}  // namespace hipmem::testing

#endif  // HIPMEM_TESTING_SANITIZER_RUNTIME_H_
