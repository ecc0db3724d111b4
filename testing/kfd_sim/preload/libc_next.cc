// The C library's entry points behind the interposers (libc_next.h).
#include "testing/kfd_sim/preload/libc_next.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace hipmem::kfd_preload {

namespace {

template <typename F>
F Resolve(const char* name) {
  void* sym = dlsym(RTLD_NEXT, name);
  if (sym == nullptr) {
    std::fprintf(stderr, "libhipmem_kfd: the C library has no %s\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(sym);
}

}  // namespace

const LibcNext& Next() {
  static const LibcNext next = {
      .openat = Resolve<int (*)(int, const char*, int, ...)>("openat"),
      .close = Resolve<int (*)(int)>("close"),
      .dup = Resolve<int (*)(int)>("dup"),
      .dup2 = Resolve<int (*)(int, int)>("dup2"),
      .dup3 = Resolve<int (*)(int, int, int)>("dup3"),
      .fcntl = Resolve<int (*)(int, int, ...)>("fcntl"),
      .ioctl = Resolve<int (*)(int, unsigned long, ...)>("ioctl"),
      .mmap = Resolve<void* (*)(void*, size_t, int, int, int, off_t)>("mmap"),
      .fstatat = Resolve<int (*)(int, const char*, struct stat*, int)>("fstatat"),
      .fstat = Resolve<int (*)(int, struct stat*)>("fstat"),
      .faccessat = Resolve<int (*)(int, const char*, int, int)>("faccessat"),
      .fopen = Resolve<FILE* (*)(const char*, const char*)>("fopen"),
      .opendir = Resolve<DIR* (*)(const char*)>("opendir"),
      .statx = Resolve<int (*)(int, const char*, int, unsigned int, struct statx*)>("statx"),
  };
  return next;
}

}  // namespace hipmem::kfd_preload
