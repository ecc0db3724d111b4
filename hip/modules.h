// Kernels and device variables of HIP programs: the fat binaries a HIP-Clang build registers before main, the
// modules hipModuleLoadData loads, and the launch of one of their kernels on a stream.
//
// Plays hipamd's PlatformState / StatCO (the registered fat binaries, host stub -> kernel, host shadow -> device
// variable), FatBinaryInfo (per device, the code object that fits, loaded lazily on first use: a program that never
// launches on a device never loads there) and ihipModuleLaunchKernel (launch validation with CLR's error codes, the
// kernarg segment, the dispatch on the stream's queue).
//
// Ownership: the ModuleTable owns every Module; a Module owns its Functions (what hipFunction_t points at) and its
// per-device programs (clr::Program, the loaded image). Thread-safe.
#ifndef HIPMEM_HIP_MODULES_H_
#define HIPMEM_HIP_MODULES_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "clr/context.h"
#include "clr/program.h"
#include "hip/streams.h"

namespace hipmem::hip {

class Runtime;
class Module;

// A kernel of a module, by its device name: what hipFunction_t points at and what a registered host stub names.
struct Function {
  Module* module;  // Not owned; owns this.
  std::string name;
};

// A device variable of a module (__device__, __constant__), as __hipRegisterVar recorded it.
struct DeviceVariable {
  Module* module;  // Not owned; owns this.
  std::string name;
  size_t size;
};

// What hipFuncSetAttribute set on a kernel for one device (CLR keeps it on that device's kernel).
struct FunctionSettings {
  std::optional<int> max_dynamic_shared_bytes;  // hipFuncAttributeMaxDynamicSharedMemorySize
  int shared_memory_carveout = 0;               // hipFuncAttributePreferredSharedMemoryCarveout
};

class Module {
 public:
  // A module over `code_objects`, which borrow from `owned` (hipModuleLoadData's copy) or from the program's image
  // (a registered fat binary, which lives as long as the program).
  Module(std::vector<std::span<const uint8_t>> code_objects, std::vector<uint8_t> owned)
      : owned_(std::move(owned)), code_objects_(std::move(code_objects)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The module's program on `device`, loaded on first use. The outcome is kept: a device no code object fits keeps
  // answering kNotFound. Errors: clr::Program::Load's.
  absl::StatusOr<const clr::Program*> ProgramFor(clr::Context& context, const clr::Device& device);
  // Whether some device of `context` has a code object of this module that fits it (loaded or not).
  bool FitsAnyDevice(clr::Context& context) const;
  // The function named `name`, made on first request (stable address).
  Function* GetFunction(std::string_view name);
  DeviceVariable* AddVariable(std::string_view name, size_t size);
  // The settings of kernel `name` on device `ordinal` (defaults until set), and their update.
  FunctionSettings GetSettings(std::string_view name, int ordinal);
  void UpdateSettings(std::string_view name, int ordinal, const std::function<void(FunctionSettings&)>& update);
  // The devices this module's code was loaded on.
  std::vector<int> LoadedDevices();
  // Frees every loaded program (their images in VRAM).
  void ReleasePrograms();

 private:
  const std::vector<uint8_t> owned_;
  const std::vector<std::span<const uint8_t>> code_objects_;
  LightMutex mu_;
  // Per device ordinal: unset until the first use there.
  std::vector<std::optional<absl::StatusOr<std::unique_ptr<clr::Program>>>> programs_ ABSL_GUARDED_BY(mu_);
  std::deque<Function> functions_ ABSL_GUARDED_BY(mu_);
  std::deque<DeviceVariable> variables_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::pair<std::string, int>, FunctionSettings> settings_ ABSL_GUARDED_BY(mu_);
};

// Every module of the process. Lives for the whole process (registrations run before main and after exit).
class ModuleTable {
 public:
  static ModuleTable& Get();

  // __hipRegisterFatBinary: the module of clang's fat binary wrapper. kInvalidArgument for a wrapper without
  // clang's magic and version, or a malformed bundle.
  absl::StatusOr<Module*> RegisterFatBinary(const void* wrapper);
  // hipModuleLoadData(Ex): a module over a copy of `image`, an AMDGPU ELF code object or an offload bundle.
  // kInvalidArgument (hipErrorInvalidImage) for anything else.
  absl::StatusOr<Module*> LoadData(const void* image);
  // __hipUnregisterFatBinary / hipModuleUnload: forgets the module, its functions and variables, and frees its
  // programs. kNotFound for a module the table does not hold.
  absl::Status Unload(Module* module);
  bool Holds(Module* module);

  // __hipRegisterFunction / __hipRegisterVar.
  void RegisterFunction(Module* module, const void* host_function, std::string_view name);
  void RegisterVariable(Module* module, const void* host_variable, std::string_view name, size_t size);
  // The kernel a host stub (or a kernel's host-side handle) stands for, or nullptr.
  Function* FindFunction(const void* host_function);
  // The device variable a host shadow stands for, or nullptr.
  DeviceVariable* FindVariable(const void* host_variable);

  // __hipRegisterManagedVar: a __managed__ variable of `module`. Clang's host code reaches it through `*pointer`,
  // its device code through the device variable `name`, a pointer too. Until a kernel of the module first launches,
  // *pointer is host memory holding `init` (nothing touches a GPU before main, as CLR defers it).
  void RegisterManagedVariable(Module* module, void** pointer, const void* init, std::string_view name, size_t size,
                               size_t align);
  // Before a launch of `module`'s code on `device`: gives each of its __managed__ variables managed memory
  // (hipMallocManaged, holding what the host wrote so far, and *pointer then names it), and points the variable's
  // device-side pointer in `program` at it. Errors: the allocation's or the copy's.
  absl::Status BindManagedVariables(Runtime& runtime, Module* module, const clr::Device& device,
                                    const clr::Program& program);

 private:
  // One __managed__ variable.
  struct ManagedVariable {
    Module* module;
    std::string name;
    void** host_pointer;
    size_t size;
    std::shared_ptr<uint8_t> staging;  // the value until managed memory is bound; then null
    void* managed = nullptr;
    std::vector<int> bound_devices = {};  // whose program's pointer names `managed`
  };

  ModuleTable() = default;
  LightMutex managed_mu_;  // taken before mu_, never after
  std::deque<ManagedVariable> managed_ ABSL_GUARDED_BY(managed_mu_);
  LightMutex mu_;
  std::vector<std::unique_ptr<Module>> modules_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const void*, Function*> functions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const void*, DeviceVariable*> variables_ ABSL_GUARDED_BY(mu_);
};

// One launch: the grid in work-items (a whole number of blocks) and the block, as CLR's LaunchParams carry them.
struct LaunchRequest {
  uint64_t global[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1};
  size_t shared_bytes = 0;
  StreamHandle stream = kNullStreamHandle;
  clr::ExplicitArgs args;
  // hipLaunchCooperativeKernel: every block must be resident at once (grid-wide synchronisation).
  bool cooperative = false;
  // hipLaunchCooperativeKernelMultiDevice: this grid's place among the launch's grids (multi_grid_group), and what
  // the dispatch keeps alive until it completes (the barrier the grids share).
  std::optional<clr::MultiGridPlace> multi_grid;
  std::shared_ptr<const void> hold;
};

// A launch checked and built, not yet queued: its stream, kernarg segment and dispatch packet's fields.
struct PreparedLaunch {
  HipStream* stream = nullptr;
  // A cooperative launch's: the device's cooperative stream, where the dispatch runs (StreamTable::Cooperative).
  std::shared_ptr<clr::Stream> cooperative;
  std::vector<uint8_t> kernargs;
  clr::KernelDispatch dispatch;  // its kernargs span set when queued
  std::optional<clr::PrintfBuffer> printf_buffer;
  std::string description;  // for the trace
};

// Launches `function` on its stream's device (ihipModuleLaunchKernel). Errors, as CLR's ihipLaunchKernel_validate
// answers them, in its order: a zero grid or block dimension, or a grid beyond 2^32 work-items per dimension:
// hipErrorInvalidConfiguration; sharedMemBytes (or, with the kernel's static LDS, the whole group segment) beyond the
// device's LDS: hipErrorInvalidValue; a block beyond the device's 1024 work-items: hipErrorInvalidConfiguration; no
// code object for the device or no such kernel in it: hipErrorInvalidDeviceFunction; a kernel with parameters and no
// arguments: hipErrorInvalidValue; a block beyond the kernel's __launch_bounds__: hipErrorLaunchFailure; for a
// cooperative launch, a device without cooperative queues: hipErrorLaunchFailure, and more blocks than the device
// holds at once (occupancy.h's blocks per grid for this block size and LDS): hipErrorCooperativeLaunchTooLarge. Then the
// stream's errors (hipErrorIllegalAddress, sticky, after a GPU memory fault on the device).
absl::Status LaunchKernel(Runtime& runtime, Function& function, const LaunchRequest& request);
// LaunchKernel's two halves: every check and the kernarg segment, queueing nothing (a multi-device launch checks all
// of its grids before it queues any, so that no grid waits at a multi-grid barrier for one that never comes), then the
// dispatch on the stream (the stream's errors).
absl::StatusOr<PreparedLaunch> PrepareLaunch(Runtime& runtime, Function& function, const LaunchRequest& request);
absl::Status QueueLaunch(Runtime& runtime, PreparedLaunch launch);

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_MODULES_H_
