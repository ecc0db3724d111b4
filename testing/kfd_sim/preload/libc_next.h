// The C library's own entry points behind the ones libhipmem_kfd.so interposes, found with dlsym(RTLD_NEXT) on
// first use. The preload's own code calls these when it must reach the host itself (the host's /proc/modules, a
// placeholder descriptor), so it never re-enters its interposers.
#ifndef HIPMEM_TESTING_KFD_SIM_PRELOAD_LIBC_NEXT_H_
#define HIPMEM_TESTING_KFD_SIM_PRELOAD_LIBC_NEXT_H_

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

namespace hipmem::kfd_preload {

struct LibcNext {
  int (*openat)(int, const char*, int, ...);
  int (*close)(int);
  int (*dup)(int);
  int (*dup2)(int, int);
  int (*dup3)(int, int, int);
  int (*fcntl)(int, int, ...);
  int (*ioctl)(int, unsigned long, ...);
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  int (*fstatat)(int, const char*, struct stat*, int);
  int (*fstat)(int, struct stat*);
  int (*faccessat)(int, const char*, int, int);
  FILE* (*fopen)(const char*, const char*);
  DIR* (*opendir)(const char*);
  int (*statx)(int, const char*, int, unsigned int, struct statx*);
};

// Never null members: a libc without one of them aborts the process at first use with a message.
const LibcNext& Next();

}  // namespace hipmem::kfd_preload

#endif  // HIPMEM_TESTING_KFD_SIM_PRELOAD_LIBC_NEXT_H_
