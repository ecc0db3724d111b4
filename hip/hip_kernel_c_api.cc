// hip* C entry points for kernels: the registration ABI a HIP-Clang build calls before main (__hipRegister*), the
// launch configuration behind <<<>>>, launches (hipLaunchKernel, hipExtLaunchKernel, hipModuleLaunchKernel), modules,
// device symbols and function attributes. Shells over hip/modules.h, with CLR's argument checks and codes
// (hipamd's hip_platform.cpp and hip_module.cpp).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"
#include "hip/modules.h"
#include "hip/occupancy.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace hipmem::hip {
namespace {

StreamHandle Handle(hipStream_t stream) { return StreamHandle(reinterpret_cast<uint64_t>(stream)); }

// CLR's module launches (hip_module.cpp hipModuleLaunchKernel, hipModuleLaunchCooperativeKernel) check the stream
// before anything else, and a handle naming no live stream answers hipErrorContextIsDestroyed there, not the
// resource-handle code (400) a dead stream gets elsewhere. hipSuccess when the stream is usable, or when resolving
// it fails otherwise (the launch then reports that itself).
hipError_t DeadStreamOfModuleLaunch(Runtime& rt, hipStream_t stream) {
  absl::StatusOr<HipStream*> resolved = rt.streams().Resolve(Handle(stream), rt.current_device());
  if (!resolved.ok() && ToHipError(resolved.status()) == hipErrorInvalidHandle) return hipErrorContextIsDestroyed;
  return hipSuccess;
}

// One pushed launch configuration (clang's stub pushes before calling the kernel's stub, which pops it).
struct CallConfiguration {
  dim3 grid;
  dim3 block;
  size_t shared_memory;
  hipStream_t stream;
};

std::vector<CallConfiguration>& ThreadCallConfigurations() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

Module* AsModule(void** modules) { return reinterpret_cast<Module*>(modules); }

// hipLaunchKernel's grid: blocks x block size per dimension, in work-items.
LaunchRequest BlocksRequest(dim3 grid, dim3 block, size_t shared, hipStream_t stream, void** args) {
  LaunchRequest r;
  r.global[0] = uint64_t{grid.x} * block.x;
  r.global[1] = uint64_t{grid.y} * block.y;
  r.global[2] = uint64_t{grid.z} * block.z;
  r.local[0] = block.x;
  r.local[1] = block.y;
  r.local[2] = block.z;
  r.shared_bytes = shared;
  r.stream = Handle(stream);
  r.args.pointers = args;
  return r;
}

hipError_t LaunchByHostFunction(const void* host_function, dim3 grid, dim3 block, void** args, size_t shared,
                                hipStream_t stream) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (host_function == nullptr) return Return(hipErrorInvalidDeviceFunction);
  Function* function = ModuleTable::Get().FindFunction(host_function);
  if (function == nullptr) return Return(hipErrorInvalidDeviceFunction);
  return Return(LaunchKernel(rt, *function, BlocksRequest(grid, block, shared, stream, args)));
}

// The current device's program of `module`, recoded for the module API: no code object for the device is
// hipErrorNoBinaryForGpu, as CLR answers it there.
absl::StatusOr<const clr::Program*> CurrentProgram(Runtime& rt, Module& module) {
  absl::StatusOr<const clr::Device*> device = rt.context().GetDevice(rt.current_device());
  if (!device.ok()) return device.status();
  absl::StatusOr<const clr::Program*> program = module.ProgramFor(rt.context(), **device);
  if (absl::IsNotFound(program.status())) return FromHipError(hipErrorNoBinaryForGpu, program.status().message());
  return program;
}

// Where a registered device variable lives on the current device. hipErrorInvalidSymbol for a host address that
// names no registered variable.
absl::StatusOr<clr::Variable> SymbolOnCurrentDevice(Runtime& rt, const void* symbol) {
  DeviceVariable* variable = symbol == nullptr ? nullptr : ModuleTable::Get().FindVariable(symbol);
  if (variable == nullptr) return FromHipError(hipErrorInvalidSymbol, "not a registered device variable");
  absl::StatusOr<const clr::Program*> program = CurrentProgram(rt, *variable->module);
  if (!program.ok()) return program.status();
  std::optional<clr::Variable> found = (*program)->FindVariable(variable->name);
  if (!found.has_value()) {
    return FromHipError(hipErrorInvalidSymbol, absl::StrCat(variable->name, ": not in the device's code object"));
  }
  return *found;
}

// hipMemcpyTo/FromSymbol(Async): after the work queued on `stream` (the null stream for the synchronous forms,
// which waits for the device's blocking streams as hipMemcpy does), a synchronous copy through ROCr's copy path:
// the variable's image is ROCr's loader memory, which CLR's memory-object map does not list either.
hipError_t SymbolCopy(const void* symbol, size_t offset, size_t size, void* host_or_device, bool to_symbol,
                      hipStream_t stream) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<clr::Variable> variable = SymbolOnCurrentDevice(rt, symbol);
  if (!variable.ok()) return Return(variable.status());
  if (host_or_device == nullptr || offset > variable->size.raw() || size > variable->size.raw() - offset) {
    return Return(hipErrorInvalidValue);
  }
  if (size == 0) return Return(hipSuccess);
  absl::StatusOr<HipStream*> resolved = rt.streams().Resolve(Handle(stream), rt.current_device());
  if (!resolved.ok()) return Return(resolved.status());
  if (absl::Status s = rt.streams().Synchronize(**resolved); !s.ok()) return Return(DeviceFaultAsHip(s));
  const DeviceAddress device_side = variable->address + Bytes(offset);
  const DeviceAddress other = DeviceAddress::FromPointer(host_or_device);
  const absl::Status copied = to_symbol ? rt.context().copies().CopySync(device_side, other, Bytes(size))
                                        : rt.context().copies().CopySync(other, device_side, Bytes(size));
  return Return(DeviceFaultAsHip(copied));
}

void FillAttributes(hipFuncAttributes* attr, const clr::Kernel& kernel, const clr::DeviceInfo& info,
                    const FunctionSettings& settings) {
  *attr = hipFuncAttributes{};
  attr->binaryVersion = static_cast<int>(info.gfx_major * 10 + info.gfx_minor);
  attr->cacheModeCA = 0;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = kernel.private_segment_size;
  // The LDS left beside the static shared memory, unless hipFuncSetAttribute lowered the ceiling.
  attr->maxDynamicSharedSizeBytes = settings.max_dynamic_shared_bytes.value_or(
      static_cast<int>(info.local_mem_per_cu.raw() - kernel.group_segment_size));
  attr->maxThreadsPerBlock = static_cast<int>(std::min<uint32_t>(kernel.max_flat_workgroup_size,
                                                                 info.max_work_group_size));
  attr->numRegs = static_cast<int>(kernel.vgpr_count);
  attr->preferredShmemCarveout = 0;
  attr->ptxVersion = attr->binaryVersion;
  attr->sharedSizeBytes = kernel.group_segment_size;
}

absl::StatusOr<const clr::Kernel*> KernelOnCurrentDevice(Runtime& rt, const Function& function) {
  absl::StatusOr<const clr::Program*> program = CurrentProgram(rt, *function.module);
  if (!program.ok()) return FromHipError(hipErrorInvalidDeviceFunction, program.status().message());
  const clr::Kernel* kernel = (*program)->FindKernel(function.name);
  if (kernel == nullptr) return FromHipError(hipErrorInvalidDeviceFunction, function.name);
  return kernel;
}

// The kernel a host stub (<<<>>>'s function address) names on the current device: hipErrorInvalidDeviceFunction for
// an address that names no registered kernel, or a kernel without code for the device.
absl::StatusOr<const clr::Kernel*> RegisteredKernel(Runtime& rt, const void* host_function, Function** function) {
  Function* f = host_function == nullptr ? nullptr : ModuleTable::Get().FindFunction(host_function);
  if (f == nullptr) return FromHipError(hipErrorInvalidDeviceFunction, "not a registered kernel");
  if (function != nullptr) *function = f;
  return KernelOnCurrentDevice(rt, *f);
}

// The occupancy of a looked-up kernel on the current device (occupancy.h).
absl::StatusOr<Occupancy> OccupancyOnCurrentDevice(Runtime& rt, const absl::StatusOr<const clr::Kernel*>& kernel,
                                                   int block_size, size_t dynamic_shared, bool potential) {
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<const clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
  if (!info.ok()) return info.status();
  return ComputeOccupancy(**kernel, **info, block_size, dynamic_shared, potential);
}

// hip*OccupancyMaxActiveBlocksPerMultiprocessor once the kernel is known: its blocks per CU, written only on success.
hipError_t ActiveBlocks(Runtime& rt, const absl::StatusOr<const clr::Kernel*>& kernel, int* num_blocks, int block_size,
                        size_t dynamic_shared) {
  absl::StatusOr<Occupancy> o = OccupancyOnCurrentDevice(rt, kernel, block_size, dynamic_shared, false);
  if (!o.ok()) return Return(o.status());
  *num_blocks = o->blocks_per_cu;
  return Return(hipSuccess);
}

// hip*OccupancyMaxPotentialBlockSize once the kernel is known: the block size that fills a CU (up to `limit`) and the
// grid of such blocks that fills the device.
hipError_t PotentialBlockSize(Runtime& rt, const absl::StatusOr<const clr::Kernel*>& kernel, int* grid_size,
                              int* block_size, size_t dynamic_shared, int limit) {
  absl::StatusOr<Occupancy> o = OccupancyOnCurrentDevice(rt, kernel, limit, dynamic_shared, true);
  if (!o.ok()) return Return(o.status());
  *block_size = o->best_block_size;
  *grid_size = o->blocks_per_grid;
  return Return(hipSuccess);
}

bool ValidOccupancyFlags(unsigned int flags) {
  return flags == hipOccupancyDefault || flags == hipOccupancyDisableCachingOverride;
}

// A module kernel (hipFunction_t) on the current device.
absl::StatusOr<const clr::Kernel*> ModuleKernel(Runtime& rt, hipFunction_t f) {
  return KernelOnCurrentDevice(rt, *reinterpret_cast<Function*>(f));
}

hipError_t ModuleFromImage(hipModule_t* module, const void* image) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (module == nullptr || image == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<Module*> loaded = ModuleTable::Get().LoadData(image);
  if (!loaded.ok()) return Return(loaded.status());
  *module = reinterpret_cast<hipModule_t>(*loaded);
  return Return(hipSuccess);
}

// One grid of a multi-device launch, its list entry converted: its stream (null for an entry naming the null or legacy
// stream), its kernel, its geometry and arguments.
struct GridEntry {
  HipStream* stream = nullptr;
  hipStream_t handle = nullptr;
  Function* function = nullptr;
  dim3 grid;
  dim3 block;
  size_t shared = 0;
  void** args = nullptr;
};

// The launch of converted grids, as CLR's ihipModuleLaunchCooperativeKernelMultiDevice (both list forms end there),
// with its checks in its order: no grids or more than there are devices: hipErrorInvalidValue; flags beyond the two
// sync bits: hipErrorInvalidValue; per grid, a block of no work-items: hipErrorInvalidConfiguration, the null or legacy
// stream: hipErrorInvalidResourceHandle, a device already listed: hipErrorInvalidDevice; grid, block or shared memory
// differing between grids: hipErrorInvalidValue. Each stream is synchronised before the launches unless
// hipCooperativeLaunchMultiDeviceNoPreSync, and after them unless ...NoPostSync; the first failing launch stops the
// rest and is the answer. Each launch is the single-device launch (a cooperative one gets its own grid barrier).
// A cooperative launch's grids also form a multi_grid_group (hip_cooperative_groups.h), numbered as CLR numbers them:
// grid i is list entry i, with the work-items of the entries before it and of all of them; they share one zeroed
// barrier dword in fine-grained system memory, which every GPU maps. CLR keeps that dword per device for the
// process's life (Device::MGSync) and so lets two multi-device launches in flight at once share it; here each
// launch gets its own, owned by its dispatches together (KernelDispatch::hold) and freed once every grid's stream has
// seen its grid complete. Every grid is checked before any is queued (CLR queues each after checking it): a grid
// queued ahead of one that then fails a check would wait at its first multi_grid_group::sync() forever. A grid with
// no kernel (a null hipFunction_t): hipErrorInvalidResourceHandle, as hipModuleLaunchKernel answers it.
absl::Status LaunchGrids(Runtime& rt, const std::vector<GridEntry>& grids, unsigned int flags, bool cooperative) {
  const size_t count = grids.size();
  if (count == 0 || count > static_cast<size_t>(rt.device_count())) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat(count, " devices; there are ", rt.device_count()));
  }
  if (flags > (hipCooperativeLaunchMultiDeviceNoPreSync | hipCooperativeLaunchMultiDeviceNoPostSync)) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat("flags 0x", absl::Hex(flags)));
  }
  for (size_t i = 0; i < count; ++i) {
    const dim3& b = grids[i].block;
    if (uint64_t{b.x} * b.y * b.z == 0) {
      return FromHipError(hipErrorInvalidConfiguration, absl::StrCat("launch ", i, ": a block of no work-items"));
    }
    if (grids[i].stream == nullptr) {
      return FromHipError(hipErrorInvalidResourceHandle, absl::StrCat("launch ", i, ": the null stream"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (grids[j].stream->device() == grids[i].stream->device()) {
        return FromHipError(hipErrorInvalidDevice, absl::StrCat("launches ", j, " and ", i, " on one device"));
      }
    }
  }
  if ((flags & hipCooperativeLaunchMultiDeviceNoPreSync) == 0) {
    for (const GridEntry& g : grids) RETURN_IF_ERROR(rt.streams().Synchronize(*g.stream));
  }
  for (size_t i = 1; i < count; ++i) {
    const GridEntry& a = grids[i - 1];
    const GridEntry& b = grids[i];
    if (a.grid.x != b.grid.x || a.grid.y != b.grid.y || a.grid.z != b.grid.z || a.block.x != b.block.x ||
        a.block.y != b.block.y || a.block.z != b.block.z || a.shared != b.shared) {
      return FromHipError(hipErrorInvalidValue, absl::StrCat("launch ", i, ": another geometry than launch ", i - 1));
    }
  }
  std::vector<LaunchRequest> requests;
  std::shared_ptr<clr::MultiGridBarrier> barrier;
  for (const GridEntry& g : grids) {
    requests.push_back(BlocksRequest(g.grid, g.block, g.shared, g.handle, g.args));
    requests.back().cooperative = cooperative;
  }
  if (cooperative) {
    ASSIGN_OR_RETURN(const clr::Device* first, rt.context().GetDevice(grids[0].stream->device()));
    ASSIGN_OR_RETURN(barrier, clr::MultiGridBarrier::Create(rt.context(), *first));
    const uint64_t barrier_address = barrier->address();
    uint64_t total = 0;
    for (const LaunchRequest& r : requests) total += r.global[0] * r.global[1] * r.global[2];
    uint64_t before = 0;
    for (size_t i = 0; i < count; ++i) {
      LaunchRequest& r = requests[i];
      r.multi_grid = clr::MultiGridPlace{barrier_address, static_cast<uint32_t>(i), static_cast<uint32_t>(count),
                                         before, total};
      r.hold = barrier;
      before += r.global[0] * r.global[1] * r.global[2];
    }
  }
  // Each launch goes to its stream's device, which CLR's launch path wants current.
  const int caller_device = rt.current_device();
  std::vector<PreparedLaunch> prepared;
  absl::Status result = absl::OkStatus();
  for (size_t i = 0; i < count && result.ok(); ++i) {
    if (grids[i].function == nullptr) {
      result = FromHipError(hipErrorInvalidResourceHandle, absl::StrCat("launch ", i, ": no kernel"));
      break;
    }
    result = rt.SetDevice(grids[i].stream->device());
    if (!result.ok()) break;
    absl::StatusOr<PreparedLaunch> launch = PrepareLaunch(rt, *grids[i].function, requests[i]);
    if (launch.ok()) {
      prepared.push_back(*std::move(launch));
    } else {
      result = launch.status();
    }
  }
  for (size_t i = 0; i < prepared.size() && result.ok(); ++i) {
    result = QueueLaunch(rt, std::move(prepared[i]));
    // Checked, yet not queued (a fault since, a stalled stream): the grids queued before it would wait for it forever.
    if (!result.ok() && i > 0 && barrier != nullptr) barrier->Abandon();
  }
  RETURN_IF_ERROR(rt.SetDevice(caller_device));
  if ((flags & hipCooperativeLaunchMultiDeviceNoPostSync) == 0) {
    for (const GridEntry& g : grids) {
      absl::Status synced = rt.streams().Synchronize(*g.stream);
      if (result.ok()) result = synced;
    }
  }
  return result;
}

// hipLaunchCooperativeKernelMultiDevice (`cooperative`) and hipExtLaunchMultiKernelMultiDevice: their list converted
// with CLR's checks in CLR's order (ihipLaunchCooperativeKernelMultiDevice), then LaunchGrids: no list:
// hipErrorInvalidValue; more devices than there are (a negative count too: CLR compares it as unsigned):
// hipErrorInvalidDevice; per entry, an unknown stream: hipErrorInvalidValue, the null or legacy stream:
// hipErrorInvalidResourceHandle, a function with no kernel for the stream's device: hipErrorInvalidDeviceFunction, a
// function other than the previous entry's: hipErrorInvalidValue.
absl::Status LaunchOnDevices(Runtime& rt, hipLaunchParams* list, int count, unsigned int flags, bool cooperative) {
  if (list == nullptr) return FromHipError(hipErrorInvalidValue, "no launch list");
  if (count < 0 || count > rt.device_count()) {
    return FromHipError(hipErrorInvalidDevice, absl::StrCat(count, " devices; there are ", rt.device_count()));
  }
  std::vector<GridEntry> grids;
  for (int i = 0; i < count; ++i) {
    const hipLaunchParams& launch = list[i];
    if (launch.stream == nullptr || launch.stream == hipStreamLegacy) {
      return FromHipError(hipErrorInvalidResourceHandle, absl::StrCat("launch ", i, ": the null stream"));
    }
    absl::StatusOr<HipStream*> stream = rt.streams().Resolve(Handle(launch.stream), rt.current_device());
    if (!stream.ok()) return FromHipError(hipErrorInvalidValue, absl::StrCat("launch ", i, ": no such stream"));
    Function* function = launch.func == nullptr ? nullptr : ModuleTable::Get().FindFunction(launch.func);
    if (function == nullptr) {
      return FromHipError(hipErrorInvalidDeviceFunction, absl::StrCat("launch ", i, ": no such kernel"));
    }
    if (i > 0 && launch.func != list[i - 1].func) {
      return FromHipError(hipErrorInvalidValue, absl::StrCat("launch ", i, ": another kernel than launch ", i - 1));
    }
    grids.push_back(GridEntry{*stream, launch.stream, function, launch.gridDim, launch.blockDim, launch.sharedMem,
                              launch.args});
  }
  return LaunchGrids(rt, grids, flags, cooperative);
}

// hipModuleLaunchCooperativeKernelMultiDevice's list, as CLR converts it: no list: hipErrorInvalidValue; a stream CLR
// does not know (hip::isValid): hipErrorInvalidValue, checked for every entry before anything else; then LaunchGrids.
// CLR reads numDevices entries before it compares numDevices with the device count; here the count comes first (the
// same hipErrorInvalidValue), so that a count beyond the list is never read past. Each entry names its own kernel (a
// module's function, typically one loaded per device), and none has to match another's.
absl::Status LaunchModuleOnDevices(Runtime& rt, hipFunctionLaunchParams* list, unsigned int count,
                                   unsigned int flags) {
  if (list == nullptr) return FromHipError(hipErrorInvalidValue, "no launch list");
  if (count > static_cast<unsigned int>(rt.device_count())) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat(count, " devices; there are ", rt.device_count()));
  }
  std::vector<GridEntry> grids;
  for (unsigned int i = 0; i < count; ++i) {
    const hipFunctionLaunchParams& launch = list[i];
    GridEntry g;
    g.handle = launch.hStream;
    // The null and legacy streams are valid streams to CLR's first check; LaunchGrids refuses them.
    if (launch.hStream != nullptr && launch.hStream != hipStreamLegacy) {
      absl::StatusOr<HipStream*> stream = rt.streams().Resolve(Handle(launch.hStream), rt.current_device());
      if (!stream.ok()) return FromHipError(hipErrorInvalidValue, absl::StrCat("launch ", i, ": no such stream"));
      g.stream = *stream;
    }
    g.function = reinterpret_cast<Function*>(launch.function);
    g.grid = dim3(launch.gridDimX, launch.gridDimY, launch.gridDimZ);
    g.block = dim3(launch.blockDimX, launch.blockDimY, launch.blockDimZ);
    g.shared = launch.sharedMemBytes;
    g.args = launch.kernelParams;
    grids.push_back(g);
  }
  return LaunchGrids(rt, grids, flags, /*cooperative=*/true);
}

}  // namespace
}  // namespace hipmem::hip

using hipmem::hip::Return;

extern "C" {

// --- Registration (clang's generated constructor and destructor) ---------------------------------------------

// The module handle clang stores and passes to the other registration calls; null for a wrapper that is not
// clang's, as CLR answers (the registrations that follow are then ignored).
void** __hipRegisterFatBinary(const void* data) {
  absl::StatusOr<hipmem::hip::Module*> module = hipmem::hip::ModuleTable::Get().RegisterFatBinary(data);
  if (!module.ok()) return nullptr;
  return reinterpret_cast<void**>(*module);
}

void __hipUnregisterFatBinary(void** modules) {
  if (modules != nullptr) (void)hipmem::hip::ModuleTable::Get().Unload(hipmem::hip::AsModule(modules));
}

void __hipRegisterFunction(void** modules, const void* hostFunction, char* /*deviceFunction*/,
                           const char* deviceName, unsigned int /*threadLimit*/, void* /*tid*/, void* /*bid*/,
                           dim3* /*blockDim*/, dim3* /*gridDim*/, int* /*wSize*/) {
  if (modules == nullptr || hostFunction == nullptr || deviceName == nullptr) return;
  hipmem::hip::ModuleTable::Get().RegisterFunction(hipmem::hip::AsModule(modules), hostFunction, deviceName);
}

void __hipRegisterVar(void** modules, void* var, char* /*hostVar*/, char* deviceVar, int /*ext*/, size_t size,
                      int /*constant*/, int /*global*/) {
  if (modules == nullptr || var == nullptr || deviceVar == nullptr) return;
  hipmem::hip::ModuleTable::Get().RegisterVariable(hipmem::hip::AsModule(modules), var, deviceVar, size);
}

// A __managed__ variable (clang passes the module as void*): see ModuleTable::RegisterManagedVariable.
void __hipRegisterManagedVar(void* hipModule, void** pointer, void* init_value, const char* name, size_t size,
                             unsigned align) {
  if (hipModule == nullptr || pointer == nullptr || name == nullptr) return;
  hipmem::hip::ModuleTable::Get().RegisterManagedVariable(hipmem::hip::AsModule(reinterpret_cast<void**>(hipModule)),
                                                          pointer, init_value, name, size, align);
}

void __hipRegisterSurface(void** /*modules*/, void* /*var*/, char* /*hostVar*/, char* /*deviceVar*/, int /*type*/,
                          int /*ext*/) {}

void __hipRegisterTexture(void** /*modules*/, void* /*var*/, char* /*hostVar*/, char* /*deviceVar*/, int /*type*/,
                          int /*norm*/, int /*ext*/) {}

// --- Launch configuration (<<<>>>) -----------------------------------------------------------------------------

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream) {
  hipmem::hip::ThreadCallConfigurations().push_back({gridDim, blockDim, sharedMem, stream});
  return Return(hipSuccess);
}

hipError_t __hipPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, hipStream_t* stream) {
  std::vector<hipmem::hip::CallConfiguration>& stack = hipmem::hip::ThreadCallConfigurations();
  if (stack.empty()) return Return(hipErrorMissingConfiguration);
  const hipmem::hip::CallConfiguration top = stack.back();
  stack.pop_back();
  if (gridDim != nullptr) *gridDim = top.grid;
  if (blockDim != nullptr) *blockDim = top.block;
  if (sharedMem != nullptr) *sharedMem = top.shared_memory;
  if (stream != nullptr) *stream = top.stream;
  return Return(hipSuccess);
}

// --- Launches ------------------------------------------------------------------------------------------------

hipError_t hipLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks, void** args,
                           size_t sharedMemBytes, hipStream_t stream) {
  HIPMEM_API_SLICE(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream);
  return hipmem::hip::LaunchByHostFunction(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream);
}

// hipLaunchKernel between two events recorded on the stream (CLR binds them to the dispatch; here they mark the
// stream right before and after it). `flags` (hipExtAnyOrderLaunch) only relaxes ordering, which this runtime
// never needs to.
hipError_t hipExtLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks, void** args,
                              size_t sharedMemBytes, hipStream_t stream, hipEvent_t startEvent, hipEvent_t stopEvent,
                              int /*flags*/) {
  HIPMEM_API_SLICE(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream, startEvent, stopEvent);
  if (startEvent != nullptr) {
    if (hipError_t e = hipEventRecord(startEvent, stream); e != hipSuccess) return e;
  }
  if (hipError_t e = hipmem::hip::LaunchByHostFunction(function_address, numBlocks, dimBlocks, args, sharedMemBytes,
                                                       stream);
      e != hipSuccess) {
    return e;
  }
  if (stopEvent != nullptr) return hipEventRecord(stopEvent, stream);
  return Return(hipSuccess);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream, void** kernelParams, void** extra) {
  HIPMEM_INIT_OR_RETURN(rt, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, stream, kernelParams, extra);
  if (hipError_t dead = hipmem::hip::DeadStreamOfModuleLaunch(rt, stream); dead != hipSuccess) return Return(dead);
  // CLR's hipModuleLaunchKernel checks, in its order, all answering hipErrorInvalidValue.
  constexpr uint64_t kMaxGridX = INT32_MAX;
  constexpr uint64_t kMaxGridYZ = uint64_t{UINT16_MAX} + 1;
  if (gridDimX > kMaxGridX || gridDimY > kMaxGridYZ || gridDimZ > kMaxGridYZ) return Return(hipErrorInvalidValue);
  if (gridDimX == 0 || gridDimY == 0 || gridDimZ == 0 || blockDimX == 0 || blockDimY == 0 || blockDimZ == 0) {
    return Return(hipErrorInvalidValue);
  }
  absl::StatusOr<const hipmem::clr::Device*> device = rt.context().GetDevice(rt.current_device());
  if (!device.ok()) return Return(device.status());
  if (uint64_t{blockDimX} * blockDimY * blockDimZ > (*device)->info.max_work_group_size ||
      sharedMemBytes > (*device)->info.local_mem_per_cu.raw()) {
    return Return(hipErrorInvalidValue);
  }
  if (f == nullptr) return Return(hipErrorInvalidHandle);
  if (kernelParams != nullptr && extra != nullptr) return Return(hipErrorInvalidValue);
  hipmem::hip::LaunchRequest r = hipmem::hip::BlocksRequest(dim3(gridDimX, gridDimY, gridDimZ),
                                                            dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                                                            stream, kernelParams);
  if (extra != nullptr) {
    // {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}
    if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER || extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != HIP_LAUNCH_PARAM_END || extra[3] == nullptr) {
      return Return(hipErrorInvalidValue);
    }
    r.args.buffer = std::span<const uint8_t>(static_cast<const uint8_t*>(extra[1]),
                                             extra[1] == nullptr ? 0 : *static_cast<size_t*>(extra[3]));
  }
  auto* function = reinterpret_cast<hipmem::hip::Function*>(f);
  return Return(hipmem::hip::LaunchKernel(rt, *function, r));
}

// Every block resident at once, so that the kernel may synchronise its whole grid: checked against the occupancy of
// the kernel on the stream's device (modules.h's LaunchKernel). CLR's order and codes: a grid or block of no work-items,
// a grid beyond 2^32 work-items per dimension or a block beyond 1024: hipErrorInvalidConfiguration; more dynamic shared
// memory than the device's LDS: hipErrorCooperativeLaunchTooLarge.
hipError_t hipLaunchCooperativeKernel(const void* f, dim3 gridDim, dim3 blockDimX, void** kernelParams,
                                      unsigned int sharedMemBytes, hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream);
  if (f == nullptr) return Return(hipErrorInvalidDeviceFunction);
  hipmem::hip::Function* function = hipmem::hip::ModuleTable::Get().FindFunction(f);
  if (function == nullptr) return Return(hipErrorInvalidDeviceFunction);
  hipmem::hip::LaunchRequest r =
      hipmem::hip::BlocksRequest(gridDim, blockDimX, sharedMemBytes, stream, kernelParams);
  absl::StatusOr<const hipmem::clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
  if (!info.ok()) return Return(info.status());
  for (int d = 0; d < 3; ++d) {
    if (r.global[d] == 0 || r.local[d] == 0 || r.global[d] > UINT32_MAX) return Return(hipErrorInvalidConfiguration);
  }
  if (uint64_t{r.local[0]} * r.local[1] * r.local[2] > (*info)->max_work_group_size) {
    return Return(hipErrorInvalidConfiguration);
  }
  if (sharedMemBytes > (*info)->local_mem_per_cu.raw()) return Return(hipErrorCooperativeLaunchTooLarge);
  r.cooperative = true;
  return Return(hipmem::hip::LaunchKernel(rt, *function, r));
}

// The per-thread default stream's form (a -fgpu-default-stream=per-thread build calls it): the null or legacy stream
// means the calling thread's per-thread stream, as CLR's PER_THREAD_DEFAULT_STREAM; otherwise hipLaunchCooperativeKernel.
hipError_t hipLaunchCooperativeKernel_spt(const void* f, dim3 gridDim, dim3 blockDim, void** kernelParams,
                                          uint32_t sharedMemBytes, hipStream_t hStream) {
  if (hStream == nullptr || hStream == hipStreamLegacy) hStream = hipStreamPerThread;
  return hipLaunchCooperativeKernel(f, gridDim, blockDim, kernelParams, sharedMemBytes, hStream);
}

hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices,
                                                 unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, launchParamsList, numDevices, flags);
  return Return(hipmem::hip::LaunchOnDevices(rt, launchParamsList, numDevices, flags, /*cooperative=*/true));
}

hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, launchParamsList, numDevices, flags);
  return Return(hipmem::hip::LaunchOnDevices(rt, launchParamsList, numDevices, flags, /*cooperative=*/false));
}

hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                            unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes, hipStream_t stream,
                                            void** kernelParams) {
  HIPMEM_INIT_OR_RETURN(rt, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, stream, kernelParams);
  if (hipError_t dead = hipmem::hip::DeadStreamOfModuleLaunch(rt, stream); dead != hipSuccess) return Return(dead);
  // hipModuleLaunchKernel's checks, all hipErrorInvalidValue.
  absl::StatusOr<const hipmem::clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
  if (!info.ok()) return Return(info.status());
  if (gridDimX == 0 || gridDimY == 0 || gridDimZ == 0 || blockDimX == 0 || blockDimY == 0 || blockDimZ == 0 ||
      uint64_t{blockDimX} * blockDimY * blockDimZ > (*info)->max_work_group_size ||
      sharedMemBytes > (*info)->local_mem_per_cu.raw()) {
    return Return(hipErrorInvalidValue);
  }
  if (f == nullptr) return Return(hipErrorInvalidHandle);
  hipmem::hip::LaunchRequest r = hipmem::hip::BlocksRequest(dim3(gridDimX, gridDimY, gridDimZ),
                                                            dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                                                            stream, kernelParams);
  for (int d = 0; d < 3; ++d) {
    if (r.global[d] > UINT32_MAX) return Return(hipErrorInvalidValue);
  }
  r.cooperative = true;
  return Return(hipmem::hip::LaunchKernel(rt, *reinterpret_cast<hipmem::hip::Function*>(f), r));
}

// Grids of one cooperative launch on several devices, each entry with its own module function and stream
// (LaunchModuleOnDevices).
hipError_t hipModuleLaunchCooperativeKernelMultiDevice(hipFunctionLaunchParams* launchParamsList, unsigned int numDevices,
                                                       unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, launchParamsList, numDevices, flags);
  return Return(hipmem::hip::LaunchModuleOnDevices(rt, launchParamsList, numDevices, flags));
}

// --- Modules -----------------------------------------------------------------------------------------------------

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  HIPMEM_API_SLICE(module, image);
  return hipmem::hip::ModuleFromImage(module, image);
}

hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image, unsigned int /*numOptions*/,
                               hipJitOption* /*options*/, void** /*optionValues*/) {
  HIPMEM_API_SLICE(module, image);
  return hipmem::hip::ModuleFromImage(module, image);
}

hipError_t hipModuleLoad(hipModule_t* module, const char* fname) {
  HIPMEM_API_SLICE(module, fname);
  if (module == nullptr || fname == nullptr) return Return(hipErrorInvalidValue);
  std::ifstream file(fname, std::ios::binary);
  if (!file) return Return(hipErrorFileNotFound);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return Return(hipErrorInvalidImage);
  return hipmem::hip::ModuleFromImage(module, bytes.data());
}

hipError_t hipModuleUnload(hipModule_t module) {
  HIPMEM_INIT_OR_RETURN(rt, module);
  (void)rt;
  if (module == nullptr) return Return(hipErrorInvalidHandle);
  absl::Status s = hipmem::hip::ModuleTable::Get().Unload(reinterpret_cast<hipmem::hip::Module*>(module));
  return Return(s.ok() ? hipSuccess : hipErrorInvalidHandle);
}

// The kernel `kname` of `module`, checked against the module's code object for the current device (loaded now if
// it was not): hipErrorNotFound for a name it lacks.
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname) {
  HIPMEM_INIT_OR_RETURN(rt, function, module, kname);
  if (function == nullptr || kname == nullptr) return Return(hipErrorInvalidValue);
  auto* m = reinterpret_cast<hipmem::hip::Module*>(module);
  if (m == nullptr || !hipmem::hip::ModuleTable::Get().Holds(m)) return Return(hipErrorInvalidHandle);
  absl::StatusOr<const hipmem::clr::Program*> program = hipmem::hip::CurrentProgram(rt, *m);
  if (!program.ok()) return Return(program.status());
  if ((*program)->FindKernel(kname) == nullptr) return Return(hipErrorNotFound);
  *function = reinterpret_cast<hipFunction_t>(m->GetFunction(kname));
  return Return(hipSuccess);
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod, const char* name) {
  HIPMEM_INIT_OR_RETURN(rt, dptr, bytes, hmod, name);
  if (name == nullptr || (dptr == nullptr && bytes == nullptr)) return Return(hipErrorInvalidValue);
  auto* m = reinterpret_cast<hipmem::hip::Module*>(hmod);
  if (m == nullptr || !hipmem::hip::ModuleTable::Get().Holds(m)) return Return(hipErrorInvalidHandle);
  absl::StatusOr<const hipmem::clr::Program*> program = hipmem::hip::CurrentProgram(rt, *m);
  if (!program.ok()) return Return(program.status());
  std::optional<hipmem::clr::Variable> variable = (*program)->FindVariable(name);
  if (!variable.has_value()) return Return(hipErrorNotFound);
  if (dptr != nullptr) *dptr = variable->address.ToPointer();
  if (bytes != nullptr) *bytes = variable->size.raw();
  return Return(hipSuccess);
}

// --- Device symbols ----------------------------------------------------------------------------------------------

hipError_t hipGetSymbolAddress(void** devPtr, const void* symbol) {
  HIPMEM_INIT_OR_RETURN(rt, devPtr, symbol);
  if (devPtr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<hipmem::clr::Variable> variable = hipmem::hip::SymbolOnCurrentDevice(rt, symbol);
  if (!variable.ok()) return Return(variable.status());
  *devPtr = variable->address.ToPointer();
  return Return(hipSuccess);
}

hipError_t hipGetSymbolSize(size_t* size, const void* symbol) {
  HIPMEM_INIT_OR_RETURN(rt, size, symbol);
  if (size == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<hipmem::clr::Variable> variable = hipmem::hip::SymbolOnCurrentDevice(rt, symbol);
  if (!variable.ok()) return Return(variable.status());
  *size = variable->size.raw();
  return Return(hipSuccess);
}

hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t sizeBytes, size_t offset,
                             hipMemcpyKind /*kind*/) {
  HIPMEM_API_SLICE(symbol, src, sizeBytes, offset);
  return hipmem::hip::SymbolCopy(symbol, offset, sizeBytes, const_cast<void*>(src), true, nullptr);
}

hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t sizeBytes, size_t offset,
                                  hipMemcpyKind /*kind*/, hipStream_t stream) {
  HIPMEM_API_SLICE(symbol, src, sizeBytes, offset, stream);
  return hipmem::hip::SymbolCopy(symbol, offset, sizeBytes, const_cast<void*>(src), true, stream);
}

hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t sizeBytes, size_t offset,
                               hipMemcpyKind /*kind*/) {
  HIPMEM_API_SLICE(dst, symbol, sizeBytes, offset);
  return hipmem::hip::SymbolCopy(symbol, offset, sizeBytes, dst, false, nullptr);
}

hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t sizeBytes, size_t offset,
                                    hipMemcpyKind /*kind*/, hipStream_t stream) {
  HIPMEM_API_SLICE(dst, symbol, sizeBytes, offset, stream);
  return hipmem::hip::SymbolCopy(symbol, offset, sizeBytes, dst, false, stream);
}

// --- Function attributes -----------------------------------------------------------------------------------------

hipError_t hipFuncGetAttributes(struct hipFuncAttributes* attr, const void* func) {
  HIPMEM_INIT_OR_RETURN(rt, attr, func);
  if (attr == nullptr) return Return(hipErrorInvalidValue);
  hipmem::hip::Function* function = func == nullptr ? nullptr : hipmem::hip::ModuleTable::Get().FindFunction(func);
  if (function == nullptr) return Return(hipErrorInvalidDeviceFunction);
  absl::StatusOr<const hipmem::clr::Kernel*> kernel = hipmem::hip::KernelOnCurrentDevice(rt, *function);
  if (!kernel.ok()) return Return(kernel.status());
  absl::StatusOr<const hipmem::clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
  if (!info.ok()) return Return(info.status());
  hipmem::hip::FillAttributes(attr, **kernel, **info, function->module->GetSettings(function->name, rt.current_device()));
  return Return(hipSuccess);
}

hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc) {
  HIPMEM_INIT_OR_RETURN(rt, value, attrib, hfunc);
  if (value == nullptr || hfunc == nullptr) return Return(hipErrorInvalidValue);
  auto* function = reinterpret_cast<hipmem::hip::Function*>(hfunc);
  absl::StatusOr<const hipmem::clr::Kernel*> kernel = hipmem::hip::KernelOnCurrentDevice(rt, *function);
  if (!kernel.ok()) return Return(kernel.status());
  absl::StatusOr<const hipmem::clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
  if (!info.ok()) return Return(info.status());
  hipFuncAttributes attr;
  const hipmem::hip::FunctionSettings settings = function->module->GetSettings(function->name, rt.current_device());
  hipmem::hip::FillAttributes(&attr, **kernel, **info, settings);
  attr.preferredShmemCarveout = settings.shared_memory_carveout;
  switch (attrib) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = attr.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(attr.sharedSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = static_cast<int>(attr.constSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(attr.localSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = attr.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = attr.ptxVersion; break;
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = attr.binaryVersion; break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = attr.cacheModeCA; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = attr.maxDynamicSharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = attr.preferredShmemCarveout; break;
    default: return Return(hipErrorInvalidValue);
  }
  return Return(hipSuccess);
}

// CLR honours hipFuncAttributeMaxDynamicSharedMemorySize (hipFuncGetAttributes reports it back) and keeps the
// carveout for hipFuncGetAttribute; the cluster attributes are accepted and ignored, as CLR ignores them.
hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  HIPMEM_INIT_OR_RETURN(rt, func, attr, value);
  if (func == nullptr) return Return(hipErrorInvalidDeviceFunction);
  if (attr < 0 || attr > hipFuncAttributeMax) return Return(hipErrorInvalidValue);
  hipmem::hip::Function* function = nullptr;
  absl::StatusOr<const hipmem::clr::Kernel*> kernel = hipmem::hip::RegisteredKernel(rt, func, &function);
  if (!kernel.ok()) return Return(kernel.status());
  if (attr == hipFuncAttributeMaxDynamicSharedMemorySize) {
    absl::StatusOr<const hipmem::clr::DeviceInfo*> info = rt.GetDeviceInfo(rt.current_device());
    if (!info.ok()) return Return(info.status());
    const int64_t available = static_cast<int64_t>((*info)->local_mem_per_cu.raw()) - (*kernel)->group_segment_size;
    if (value < 0 || value > available) return Return(hipErrorInvalidValue);
    function->module->UpdateSettings(function->name, rt.current_device(),
                                     [value](hipmem::hip::FunctionSettings& s) { s.max_dynamic_shared_bytes = value; });
  } else if (attr == hipFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return Return(hipErrorInvalidValue);
    function->module->UpdateSettings(function->name, rt.current_device(),
                                     [value](hipmem::hip::FunctionSettings& s) { s.shared_memory_carveout = value; });
  }
  return Return(hipSuccess);
}

// A hint: the GPUs' L1 and LDS are not reconfigurable. Checked as CLR checks it.
hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t config) {
  HIPMEM_INIT_OR_RETURN(rt, func, config);
  if (func == nullptr) return Return(hipErrorInvalidDeviceFunction);
  if (config != hipFuncCachePreferNone && config != hipFuncCachePreferShared && config != hipFuncCachePreferL1 &&
      config != hipFuncCachePreferEqual) {
    return Return(hipErrorInvalidValue);
  }
  absl::StatusOr<const hipmem::clr::Kernel*> kernel = hipmem::hip::RegisteredKernel(rt, func, nullptr);
  return Return(kernel.status());
}

// A hint: LDS banks have one width. CLR checks the value and not the function (beyond null).
hipError_t hipFuncSetSharedMemConfig(const void* func, hipSharedMemConfig config) {
  HIPMEM_INIT_OR_RETURN(rt, func, config);
  (void)rt;
  if (func == nullptr) return Return(hipErrorInvalidDeviceFunction);
  if (config != hipSharedMemBankSizeDefault && config != hipSharedMemBankSizeFourByte &&
      config != hipSharedMemBankSizeEightByte) {
    return Return(hipErrorInvalidValue);
  }
  return Return(hipSuccess);
}

// --- Occupancy -----------------------------------------------------------------------------------------------------

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* f, int blockSize,
                                                        size_t dynSharedMemPerBlk) {
  HIPMEM_INIT_OR_RETURN(rt, numBlocks, f, blockSize, dynSharedMemPerBlk);
  if (numBlocks == nullptr) return Return(hipErrorInvalidValue);
  return hipmem::hip::ActiveBlocks(rt, hipmem::hip::RegisteredKernel(rt, f, nullptr), numBlocks, blockSize,
                                   dynSharedMemPerBlk);
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* f, int blockSize,
                                                                 size_t dynSharedMemPerBlk, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, numBlocks, f, blockSize, dynSharedMemPerBlk, flags);
  if (numBlocks == nullptr || !hipmem::hip::ValidOccupancyFlags(flags)) return Return(hipErrorInvalidValue);
  return hipmem::hip::ActiveBlocks(rt, hipmem::hip::RegisteredKernel(rt, f, nullptr), numBlocks, blockSize,
                                   dynSharedMemPerBlk);
}

hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, const void* f, size_t dynSharedMemPerBlk,
                                             int blockSizeLimit) {
  HIPMEM_INIT_OR_RETURN(rt, gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit);
  if (gridSize == nullptr || blockSize == nullptr) return Return(hipErrorInvalidValue);
  return hipmem::hip::PotentialBlockSize(rt, hipmem::hip::RegisteredKernel(rt, f, nullptr), gridSize, blockSize,
                                         dynSharedMemPerBlk, blockSizeLimit);
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, hipFunction_t f, int blockSize,
                                                              size_t dynSharedMemPerBlk) {
  HIPMEM_INIT_OR_RETURN(rt, numBlocks, f, blockSize, dynSharedMemPerBlk);
  if (numBlocks == nullptr || f == nullptr) return Return(hipErrorInvalidValue);
  return hipmem::hip::ActiveBlocks(rt, hipmem::hip::ModuleKernel(rt, f), numBlocks, blockSize, dynSharedMemPerBlk);
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, hipFunction_t f, int blockSize,
                                                                       size_t dynSharedMemPerBlk,
                                                                       unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, numBlocks, f, blockSize, dynSharedMemPerBlk, flags);
  if (numBlocks == nullptr || f == nullptr || !hipmem::hip::ValidOccupancyFlags(flags)) {
    return Return(hipErrorInvalidValue);
  }
  return hipmem::hip::ActiveBlocks(rt, hipmem::hip::ModuleKernel(rt, f), numBlocks, blockSize, dynSharedMemPerBlk);
}

hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, hipFunction_t f,
                                                   size_t dynSharedMemPerBlk, int blockSizeLimit) {
  HIPMEM_INIT_OR_RETURN(rt, gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit);
  if (gridSize == nullptr || blockSize == nullptr || f == nullptr) return Return(hipErrorInvalidValue);
  return hipmem::hip::PotentialBlockSize(rt, hipmem::hip::ModuleKernel(rt, f), gridSize, blockSize,
                                         dynSharedMemPerBlk, blockSizeLimit);
}

hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* gridSize, int* blockSize, hipFunction_t f,
                                                            size_t dynSharedMemPerBlk, int blockSizeLimit,
                                                            unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit, flags);
  if (gridSize == nullptr || blockSize == nullptr || f == nullptr || !hipmem::hip::ValidOccupancyFlags(flags)) {
    return Return(hipErrorInvalidValue);
  }
  return hipmem::hip::PotentialBlockSize(rt, hipmem::hip::ModuleKernel(rt, f), gridSize, blockSize,
                                         dynSharedMemPerBlk, blockSizeLimit);
}

// The name of a registered kernel (hipKernelNameRef), or null.
const char* hipKernelNameRef(const hipFunction_t f) {
  return f == nullptr ? nullptr : reinterpret_cast<hipmem::hip::Function*>(f)->name.c_str();
}

const char* hipKernelNameRefByPtr(const void* hostFunction, hipStream_t /*stream*/) {
  hipmem::hip::Function* function =
      hostFunction == nullptr ? nullptr : hipmem::hip::ModuleTable::Get().FindFunction(hostFunction);
  return function == nullptr ? nullptr : function->name.c_str();
}

}  // extern "C"
