/* A plain C program that uses /dev/kfd, the render nodes and the KFD sysfs tree the way libhsakmt and libdrm do,
 * through the C library only, so that run under libhipmem_kfd.so it checks the file semantics the preload promises:
 * device numbers, access, dup/dup3/F_DUPFD_CLOEXEC, close-on-exec, one KFD process per OS process, ACQUIRE_VM with a
 * render node's descriptor, a buffer mapped through the render node, fork (the child's inherited /dev/kfd answers
 * EBADF/EINVAL, a fresh open works), exec (the preload follows), /proc/modules and /sys/module/amdgpu, and libdrm's
 * amdgpu_device_initialize, marketing name, heap and firmware queries.
 *
 * usage: kfd_probe GPU_COUNT    prints "ok <check>" lines and "<key> <value>" facts; exits 0, or 1 after
 *                               "FAIL <check>: <detail>"
 *        kfd_probe --exec-check (what the exec'd image checks)
 */
#define _GNU_SOURCE /* dup3 */
#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <linux/kfd_ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define KFD_MAJOR 235 /* the preload's /dev/kfd major (simulated_host.h) */
#define DRM_MAJOR 226
#define TOPOLOGY "/sys/devices/virtual/kfd/kfd/topology"
#define CLASS_TOPOLOGY "/sys/class/kfd/kfd/topology"

static void Fail(const char* check, const char* fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void Fail(const char* check, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL %s: ", check);
  vprintf(fmt, ap);
  printf(" (errno %d %s)\n", errno, strerror(errno));
  va_end(ap);
  fflush(stdout);
  exit(1);
}

static void Ok(const char* check) { printf("ok %s\n", check); }

static void ExpectCharDevice(const struct stat* st, unsigned maj, unsigned min, const char* check) {
  if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != maj || minor(st->st_rdev) != min) {
    Fail(check, "mode 0%o rdev %u:%u, expected a character device %u:%u", st->st_mode, major(st->st_rdev),
         minor(st->st_rdev), maj, min);
  }
}

static int KfdVersion(int fd, struct kfd_ioctl_get_version_args* v) {
  memset(v, 0, sizeof(*v));
  return ioctl(fd, AMDKFD_IOC_GET_VERSION, v);
}

static unsigned long ReadNumber(const char* path, const char* check) {
  FILE* f = fopen(path, "r");
  if (f == NULL) Fail(check, "fopen(%s)", path);
  unsigned long value = 0;
  if (fscanf(f, "%lu", &value) != 1) Fail(check, "no number in %s", path);
  fclose(f);
  return value;
}

/* The minor of GPU node `node` from its sysfs properties (drm_render_minor). */
static unsigned RenderMinor(int node) {
  char path[256];
  snprintf(path, sizeof(path), TOPOLOGY "/nodes/%d/properties", node);
  FILE* f = fopen(path, "r");
  if (f == NULL) Fail("sysfs", "fopen(%s)", path);
  char key[128];
  unsigned long long value;
  unsigned minor_number = 0;
  while (fscanf(f, "%127s %llu", key, &value) == 2) {
    if (strcmp(key, "drm_render_minor") == 0) minor_number = (unsigned)value;
  }
  fclose(f);
  if (minor_number == 0) Fail("sysfs", "%s has no drm_render_minor", path);
  return minor_number;
}

static int ExecCheck(void) {
  struct stat st;
  if (stat("/dev/kfd", &st) != 0) Fail("exec: preload followed", "stat(/dev/kfd)");
  ExpectCharDevice(&st, KFD_MAJOR, 0, "exec: preload followed");
  int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  struct kfd_ioctl_get_version_args v;
  if (fd < 0 || KfdVersion(fd, &v) != 0) Fail("exec: preload followed", "GET_VERSION in the exec'd image");
  close(fd);
  Ok("exec: the exec'd image sees the simulated KFD");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--exec-check") == 0) return ExecCheck();
  if (argc != 2) {
    fprintf(stderr, "usage: kfd_probe GPU_COUNT | --exec-check\n");
    return 2;
  }
  const int gpu_count = atoi(argv[1]);
  setvbuf(stdout, NULL, _IOLBF, 0);

  /* ---- paths ---- */
  struct stat st;
  if (stat("/dev/kfd", &st) != 0) Fail("stat /dev/kfd", "stat");
  ExpectCharDevice(&st, KFD_MAJOR, 0, "stat /dev/kfd");
  if (lstat("/dev/kfd", &st) != 0) Fail("lstat /dev/kfd", "lstat");
  ExpectCharDevice(&st, KFD_MAJOR, 0, "lstat /dev/kfd");
  if (access("/dev/kfd", R_OK | W_OK) != 0) Fail("access /dev/kfd", "R_OK|W_OK refused");
  if (access("/dev/kfd", X_OK) == 0 || errno != EACCES) Fail("access /dev/kfd", "X_OK not refused with EACCES");
  Ok("/dev/kfd is a character device, readable and writable");

  /* The topology: CPU node + one node per GPU, under both names. */
  int nodes = 0;
  DIR* dir = opendir(TOPOLOGY "/nodes");
  if (dir == NULL) Fail("sysfs", "opendir(%s)", TOPOLOGY "/nodes");
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') ++nodes;
  }
  closedir(dir);
  if (nodes != gpu_count + 1) Fail("sysfs", "%d nodes, expected %d", nodes, gpu_count + 1);
  const unsigned long gpu_id = ReadNumber(CLASS_TOPOLOGY "/nodes/1/gpu_id", "sysfs");
  if (gpu_id == 0 || gpu_id != ReadNumber(TOPOLOGY "/nodes/1/gpu_id", "sysfs")) Fail("sysfs", "gpu_id %lu", gpu_id);
  Ok("the KFD topology lists the CPU and every GPU, under /sys/devices/virtual and /sys/class");

  unsigned minors[16];
  for (int g = 0; g < gpu_count && g < 16; ++g) {
    minors[g] = RenderMinor(g + 1);
    char path[64];
    snprintf(path, sizeof(path), "/dev/dri/renderD%u", minors[g]);
    if (stat(path, &st) != 0) Fail("stat render node", "stat(%s)", path);
    ExpectCharDevice(&st, DRM_MAJOR, minors[g], "stat render node");
    char drm_dir[96];
    snprintf(drm_dir, sizeof(drm_dir), "/sys/dev/char/%d:%u/device/drm", DRM_MAJOR, minors[g]);
    if (stat(drm_dir, &st) != 0 || !S_ISDIR(st.st_mode)) Fail("stat render node", "%s is not a directory", drm_dir);
  }
  {
    char path[64];
    snprintf(path, sizeof(path), "/dev/dri/renderD%u", minors[gpu_count - 1] + 1);
    if (stat(path, &st) == 0 || errno != ENOENT) Fail("stat render node", "%s exists", path);
    if (open(path, O_RDWR) >= 0 || errno != ENOENT) Fail("stat render node", "%s opens", path);
  }
  Ok("each GPU has its render node (226:minor, with its sysfs drm directory), no other render node exists");

  /* ---- descriptors ---- */
  int kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  if (kfd < 0) Fail("open /dev/kfd", "open");
  if (fstat(kfd, &st) != 0) Fail("fstat /dev/kfd", "fstat");
  ExpectCharDevice(&st, KFD_MAJOR, 0, "fstat /dev/kfd");
  if ((fcntl(kfd, F_GETFD) & FD_CLOEXEC) == 0) Fail("O_CLOEXEC", "FD_CLOEXEC not set");
  struct kfd_ioctl_get_version_args version;
  if (KfdVersion(kfd, &version) != 0 || version.major_version != 1) Fail("GET_VERSION", "major %u", version.major_version);
  printf("kfd_version %u.%u\n", version.major_version, version.minor_version);

  const int d1 = dup(kfd);
  const int d2 = fcntl(kfd, F_DUPFD_CLOEXEC, 100);
  const int d3 = dup3(kfd, 200, O_CLOEXEC);
  if (d1 < 0 || d2 < 100 || d3 != 200) Fail("dup", "dup %d, F_DUPFD_CLOEXEC %d, dup3 %d", d1, d2, d3);
  if ((fcntl(d1, F_GETFD) & FD_CLOEXEC) != 0 || (fcntl(d2, F_GETFD) & FD_CLOEXEC) == 0) {
    Fail("dup", "close-on-exec flags of the copies");
  }
  struct kfd_ioctl_get_version_args v;
  if (KfdVersion(d1, &v) != 0 || KfdVersion(d2, &v) != 0 || KfdVersion(d3, &v) != 0) Fail("dup", "ioctl on a copy");
  if (fstat(d2, &st) != 0) Fail("dup", "fstat of a copy");
  ExpectCharDevice(&st, KFD_MAJOR, 0, "dup");
  /* dup2 onto a copy replaces it with what the source is: here a plain file. */
  const int plain = open("/dev/null", O_RDONLY);
  if (dup2(plain, d3) != d3) Fail("dup2", "dup2 onto a /dev/kfd copy");
  if (KfdVersion(d3, &v) == 0 || errno != ENOTTY) Fail("dup2", "the replaced descriptor still reaches the KFD");
  close(plain);
  close(d3);
  close(d1);
  if (KfdVersion(d1, &v) == 0 || errno != EBADF) Fail("close", "a closed copy still answers");
  Ok("dup, dup3, F_DUPFD_CLOEXEC and dup2 behave as for any file; closing a copy leaves the others working");

  /* ---- one KFD process: ACQUIRE_VM through a render node, a VRAM buffer mapped through it ---- */
  char render_path[64];
  snprintf(render_path, sizeof(render_path), "/dev/dri/renderD%u", minors[0]);
  const int drm = open(render_path, O_RDWR | O_CLOEXEC);
  if (drm < 0) Fail("open render node", "open(%s)", render_path);
  if (fstat(drm, &st) != 0) Fail("fstat render node", "fstat");
  ExpectCharDevice(&st, DRM_MAJOR, minors[0], "fstat render node");
  struct kfd_ioctl_acquire_vm_args acquire = {.drm_fd = (uint32_t)drm, .gpu_id = (uint32_t)gpu_id};
  if (ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &acquire) != 0) Fail("ACQUIRE_VM", "with the render node's descriptor");
  struct kfd_process_device_apertures apertures[16];
  struct kfd_ioctl_get_process_apertures_new_args ap = {
      .kfd_process_device_apertures_ptr = (uintptr_t)apertures, .num_of_nodes = 16};
  if (ioctl(kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &ap) != 0 || ap.num_of_nodes == 0) {
    Fail("apertures", "GET_PROCESS_APERTURES_NEW");
  }
  const uint64_t size = 64 * 1024;
  struct kfd_ioctl_alloc_memory_of_gpu_args alloc = {
      .va_addr = (apertures[0].gpuvm_base + 0xfff) & ~(uint64_t)0xfff,
      .size = size,
      .gpu_id = (uint32_t)gpu_id,
      .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC,
  };
  if (ioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &alloc) != 0) Fail("ALLOC", "VRAM buffer");
  uint32_t* cpu = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, drm, (off_t)alloc.mmap_offset);
  if (cpu == MAP_FAILED) Fail("render mmap", "mmap of the buffer through the render node");
  uint32_t* again = mmap(NULL, size, PROT_READ, MAP_SHARED, drm, (off_t)alloc.mmap_offset);
  if (again == MAP_FAILED) Fail("render mmap", "second mapping");
  for (uint32_t i = 0; i < size / 4; ++i) cpu[i] = i * 2654435761u;
  for (uint32_t i = 0; i < size / 4; ++i) {
    if (again[i] != i * 2654435761u) Fail("render mmap", "the two mappings disagree at word %u", i);
  }
  munmap(again, size);
  Ok("ACQUIRE_VM takes the render node's descriptor; a VRAM buffer maps through it, two mappings share its pages");

  /* A second open of /dev/kfd is the same KFD process (kfd_create_process): it frees the first one's buffer. */
  const int kfd2 = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  struct kfd_ioctl_free_memory_of_gpu_args free_args = {.handle = alloc.handle};
  if (kfd2 < 0 || ioctl(kfd2, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free_args) != 0) {
    Fail("one KFD process", "freeing through a second open of /dev/kfd");
  }
  munmap(cpu, size);
  close(kfd2);
  Ok("every open of /dev/kfd in a process is the same KFD process");

  /* ---- fork ---- */
  const pid_t child = fork();
  if (child == 0) {
    struct kfd_ioctl_get_version_args cv;
    if (KfdVersion(kfd, &cv) == 0 || errno != EBADF) Fail("fork", "the child's inherited /dev/kfd answered ioctl");
    void* p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, kfd, (off_t)((uint64_t)gpu_id << 46 | 3ULL << 62));
    if (p != MAP_FAILED || errno != EINVAL) Fail("fork", "the child's inherited /dev/kfd mapped");
    const int own = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    if (own < 0 || KfdVersion(own, &cv) != 0) Fail("fork", "the child's own /dev/kfd");
    close(own);
    close(kfd); /* drops only the child's reference */
    _exit(0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Fail("fork", "child status 0x%x", status);
  }
  if (KfdVersion(kfd, &v) != 0) Fail("fork", "the parent's /dev/kfd after the child closed its copy");
  Ok("fork: the child's inherited /dev/kfd answers EBADF (ioctl) and EINVAL (mmap), its own open works");

  /* ---- exec ---- */
  const pid_t execd = fork();
  if (execd == 0) {
    execl("/proc/self/exe", argv[0], "--exec-check", (char*)NULL);
    _exit(127);
  }
  if (execd < 0 || waitpid(execd, &status, 0) != execd || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Fail("exec", "exec'd child status 0x%x", status);
  }

  /* ---- the amdgpu module ---- */
  FILE* modules = fopen("/proc/modules", "r");
  if (modules == NULL) Fail("/proc/modules", "fopen");
  char line[512];
  int listed = 0;
  while (fgets(line, sizeof(line), modules) != NULL) listed |= strncmp(line, "amdgpu ", 7) == 0;
  fclose(modules);
  if (!listed) Fail("/proc/modules", "no amdgpu line");
  FILE* initstate = fopen("/sys/module/amdgpu/initstate", "r");
  if (initstate == NULL || fgets(line, sizeof(line), initstate) == NULL || strcmp(line, "live\n") != 0) {
    Fail("/sys/module/amdgpu", "initstate");
  }
  fclose(initstate);
  Ok("the amdgpu module is loaded (/proc/modules, /sys/module/amdgpu)");

  /* ---- libdrm on every render node ---- */
  for (int g = 0; g < gpu_count; ++g) {
    snprintf(render_path, sizeof(render_path), "/dev/dri/renderD%u", minors[g]);
    const int fd = open(render_path, O_RDWR | O_CLOEXEC);
    uint32_t drm_major = 0, drm_minor = 0;
    amdgpu_device_handle dev;
    if (fd < 0 || amdgpu_device_initialize(fd, &drm_major, &drm_minor, &dev) != 0) {
      Fail("libdrm", "amdgpu_device_initialize(%s)", render_path);
    }
    const char* name = amdgpu_get_marketing_name(dev);
    struct amdgpu_heap_info vram;
    uint32_t mec = 0, feature = 0;
    struct drm_amdgpu_info_device info;
    if (amdgpu_query_heap_info(dev, AMDGPU_GEM_DOMAIN_VRAM, 0, &vram) != 0 ||
        amdgpu_query_firmware_version(dev, AMDGPU_INFO_FW_GFX_MEC, 0, 0, &mec, &feature) != 0 ||
        amdgpu_query_info(dev, AMDGPU_INFO_DEV_INFO, sizeof(info), &info) != 0) {
      Fail("libdrm", "amdgpu_query_* on %s", render_path);
    }
    printf("gpu %d drm %u.%u device_id 0x%x vram_heap %llu mec_fw %u cus %u marketing %s\n", g, drm_major,
           drm_minor, info.device_id, (unsigned long long)vram.heap_size, mec, info.cu_active_number,
           name != NULL ? name : "(none)");
    amdgpu_device_deinitialize(dev);
    close(fd);
  }
  Ok("libdrm initialises every render node and answers its queries");

  close(drm);
  close(d2);
  close(kfd);
  return 0;
}
