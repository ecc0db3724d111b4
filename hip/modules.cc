#include "hip/modules.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hip/fat_binary.h"
#include "hip/hip_error.h"
#include "hip/managed.h"
#include "hip/occupancy.h"
#include "hip/runtime.h"

namespace hipmem::hip {
namespace {

constexpr uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

// The bytes an ELF64 image spans: through its section header table, which LLVM's linker writes last (and through
// its program headers, should a writer put them last).
size_t ElfSize(const uint8_t* image) {
  uint64_t phoff = 0, shoff = 0;
  uint16_t phentsize = 0, phnum = 0, shentsize = 0, shnum = 0;
  std::memcpy(&phoff, image + 0x20, 8);
  std::memcpy(&shoff, image + 0x28, 8);
  std::memcpy(&phentsize, image + 0x36, 2);
  std::memcpy(&phnum, image + 0x38, 2);
  std::memcpy(&shentsize, image + 0x3a, 2);
  std::memcpy(&shnum, image + 0x3c, 2);
  return std::max<uint64_t>({64, phoff + uint64_t{phentsize} * phnum, shoff + uint64_t{shentsize} * shnum});
}

}  // namespace

absl::StatusOr<const clr::Program*> Module::ProgramFor(clr::Context& context, const clr::Device& device) {
  LightLock lock(&mu_);
  if (programs_.size() <= static_cast<size_t>(device.ordinal)) programs_.resize(device.ordinal + 1);
  std::optional<absl::StatusOr<std::unique_ptr<clr::Program>>>& slot = programs_[device.ordinal];
  // Loaded under the module's lock: two threads launching the module's first kernel load it once.
  if (!slot.has_value()) slot = clr::Program::Load(context, device, code_objects_);
  if (!slot->ok()) return slot->status();
  return slot->value().get();
}

bool Module::FitsAnyDevice(clr::Context& context) const {
  for (const clr::Device& device : context.devices()) {
    if (clr::Program::AnyFits(context, device, code_objects_)) return true;
  }
  return false;
}

Function* Module::GetFunction(std::string_view name) {
  LightLock lock(&mu_);
  for (Function& f : functions_) {
    if (f.name == name) return &f;
  }
  functions_.push_back(Function{this, std::string(name)});
  return &functions_.back();
}

DeviceVariable* Module::AddVariable(std::string_view name, size_t size) {
  LightLock lock(&mu_);
  variables_.push_back(DeviceVariable{this, std::string(name), size});
  return &variables_.back();
}

FunctionSettings Module::GetSettings(std::string_view name, int ordinal) {
  LightLock lock(&mu_);
  auto it = settings_.find(std::make_pair(std::string(name), ordinal));
  return it == settings_.end() ? FunctionSettings() : it->second;
}

void Module::UpdateSettings(std::string_view name, int ordinal,
                            const std::function<void(FunctionSettings&)>& update) {
  LightLock lock(&mu_);
  update(settings_[std::make_pair(std::string(name), ordinal)]);
}

std::vector<int> Module::LoadedDevices() {
  LightLock lock(&mu_);
  std::vector<int> devices;
  for (size_t d = 0; d < programs_.size(); ++d) {
    if (programs_[d].has_value() && programs_[d]->ok()) devices.push_back(static_cast<int>(d));
  }
  return devices;
}

void Module::ReleasePrograms() {
  LightLock lock(&mu_);
  programs_.clear();
}

ModuleTable& ModuleTable::Get() {
  // Never destroyed: clang's generated destructors unregister fat binaries after static destructors ran.
  static ModuleTable* const table = new ModuleTable();
  return *table;
}

absl::StatusOr<Module*> ModuleTable::RegisterFatBinary(const void* wrapper) {
  if (wrapper == nullptr) return absl::InvalidArgumentError("__hipRegisterFatBinary: null wrapper");
  FatBinaryWrapper w;
  std::memcpy(&w, wrapper, sizeof(w));
  if (w.magic != kHipFatBinaryMagic || w.version != 1) {
    return absl::InvalidArgumentError(absl::StrCat("__hipRegisterFatBinary: wrapper magic 0x", absl::Hex(w.magic),
                                                   " version ", w.version, " (clang's is 0x48495046, 1)"));
  }
  ASSIGN_OR_RETURN(std::vector<BundleEntry> entries, ParseOffloadBundle(w.binary, std::nullopt));
  auto module = std::make_unique<Module>(HipCodeObjects(entries), std::vector<uint8_t>());
  Module* raw = module.get();
  LightLock lock(&mu_);
  modules_.push_back(std::move(module));
  return raw;
}

absl::StatusOr<Module*> ModuleTable::LoadData(const void* image) {
  if (image == nullptr) return FromHipError(hipErrorInvalidValue, "hipModuleLoadData: null image");
  const auto* bytes = static_cast<const uint8_t*>(image);
  std::vector<uint8_t> owned;
  std::vector<std::span<const uint8_t>> objects;
  if (std::memcmp(bytes, kElfMagic, sizeof(kElfMagic)) == 0) {
    owned.assign(bytes, bytes + ElfSize(bytes));
    objects.emplace_back(owned.data(), owned.size());
  } else if (IsOffloadBundle(image)) {
    ASSIGN_OR_RETURN(std::vector<BundleEntry> entries, ParseOffloadBundle(image, std::nullopt));
    size_t size = 0;
    for (const BundleEntry& e : entries) size = std::max<size_t>(size, e.bytes.data() + e.bytes.size() - bytes);
    owned.assign(bytes, bytes + size);
    ASSIGN_OR_RETURN(entries, ParseOffloadBundle(owned.data(), owned.size()));
    objects = HipCodeObjects(entries);
  } else {
    return FromHipError(hipErrorInvalidImage, "hipModuleLoadData: neither an ELF code object nor an offload bundle");
  }
  auto module = std::make_unique<Module>(std::move(objects), std::move(owned));
  Module* raw = module.get();
  LightLock lock(&mu_);
  modules_.push_back(std::move(module));
  return raw;
}

bool ModuleTable::Holds(Module* module) {
  LightLock lock(&mu_);
  return std::any_of(modules_.begin(), modules_.end(), [&](const auto& m) { return m.get() == module; });
}

absl::Status ModuleTable::Unload(Module* module) {
  std::unique_ptr<Module> gone;
  {
    // Its __managed__ variables keep their memory (the host may still hold their addresses), not their registration.
    LightLock managed_lock(&managed_mu_);
    std::erase_if(managed_, [&](const ManagedVariable& v) { return v.module == module; });
  }
  {
    LightLock lock(&mu_);
    auto it = std::find_if(modules_.begin(), modules_.end(), [&](const auto& m) { return m.get() == module; });
    if (it == modules_.end()) return absl::NotFoundError("module not loaded");
    gone = std::move(*it);
    modules_.erase(it);
    absl::erase_if(functions_, [&](const auto& entry) { return entry.second->module == module; });
    absl::erase_if(variables_, [&](const auto& entry) { return entry.second->module == module; });
  }
  // Its code may still run: the devices it was loaded on finish their work before the images go.
  const std::vector<int> devices = gone->LoadedDevices();
  if (!devices.empty()) {
    absl::StatusOr<Runtime*> runtime = Runtime::Get();
    if (runtime.ok()) {
      for (int d : devices) (void)(*runtime)->streams().SynchronizeDevice(d);
    }
  }
  gone->ReleasePrograms();
  return absl::OkStatus();
}

void ModuleTable::RegisterFunction(Module* module, const void* host_function, std::string_view name) {
  Function* function = module->GetFunction(name);
  LightLock lock(&mu_);
  functions_[host_function] = function;
}

void ModuleTable::RegisterVariable(Module* module, const void* host_variable, std::string_view name, size_t size) {
  DeviceVariable* variable = module->AddVariable(name, size);
  LightLock lock(&mu_);
  variables_[host_variable] = variable;
}

Function* ModuleTable::FindFunction(const void* host_function) {
  LightLock lock(&mu_);
  auto it = functions_.find(host_function);
  return it == functions_.end() ? nullptr : it->second;
}

DeviceVariable* ModuleTable::FindVariable(const void* host_variable) {
  LightLock lock(&mu_);
  auto it = variables_.find(host_variable);
  return it == variables_.end() ? nullptr : it->second;
}

void ModuleTable::RegisterManagedVariable(Module* module, void** pointer, const void* init, std::string_view name,
                                          size_t size, size_t align) {
  const size_t alignment = std::max<size_t>(align, alignof(std::max_align_t));
  std::shared_ptr<uint8_t> staging(static_cast<uint8_t*>(::operator new(std::max<size_t>(size, 1),
                                                                          std::align_val_t(alignment))),
                                   [alignment](uint8_t* p) { ::operator delete(p, std::align_val_t(alignment)); });
  if (init != nullptr) std::memcpy(staging.get(), init, size);
  *pointer = staging.get();
  LightLock lock(&managed_mu_);
  managed_.push_back(ManagedVariable{.module = module,
                                     .name = std::string(name),
                                     .host_pointer = pointer,
                                     .size = size,
                                     .staging = std::move(staging)});
}

absl::Status ModuleTable::BindManagedVariables(Runtime& runtime, Module* module, const clr::Device& device,
                                               const clr::Program& program) {
  LightLock lock(&managed_mu_);
  for (ManagedVariable& v : managed_) {
    if (v.module != module) continue;
    if (v.managed == nullptr) {
      // hipMallocManaged: one allocation, reachable from the host and every GPU, holding what the host wrote so far.
      ASSIGN_OR_RETURN(v.managed, MallocManaged(runtime, std::max<size_t>(v.size, 1), /*hipMemAttachGlobal=*/1));
      std::memcpy(v.managed, v.staging.get(), v.size);
      *v.host_pointer = v.managed;
      v.staging.reset();
    }
    if (std::find(v.bound_devices.begin(), v.bound_devices.end(), device.ordinal) != v.bound_devices.end()) continue;
    std::optional<clr::Variable> pointer = program.FindVariable(v.name);
    if (!pointer.has_value() || pointer->size < Bytes(sizeof(void*))) {
      return FromHipError(hipErrorInvalidSymbol, absl::StrCat(v.name, ": the __managed__ variable's device-side "
                                                              "pointer is not in the code object for ",
                                                              program.isa_name()));
    }
    const void* target = v.managed;
    RETURN_IF_ERROR(runtime.context().copies().CopySync(pointer->address, DeviceAddress::FromPointer(&target),
                                                        Bytes(sizeof(target))));
    v.bound_devices.push_back(device.ordinal);
  }
  return absl::OkStatus();
}

absl::Status LaunchKernel(Runtime& runtime, Function& function, const LaunchRequest& r) {
  ASSIGN_OR_RETURN(PreparedLaunch launch, PrepareLaunch(runtime, function, r));
  return QueueLaunch(runtime, std::move(launch));
}

absl::StatusOr<PreparedLaunch> PrepareLaunch(Runtime& runtime, Function& function, const LaunchRequest& r) {
  auto context = [&] {
    return absl::StrCat("launch of ", function.name, " (", r.global[0], "x", r.global[1], "x", r.global[2],
                        " work-items in blocks of ", r.local[0], "x", r.local[1], "x", r.local[2], ", ",
                        r.shared_bytes, " B dynamic shared)");
  };
  ASSIGN_OR_RETURN(HipStream * stream, runtime.streams().Resolve(r.stream, runtime.current_device()));
  // The stream's own failures (a halted queue, a GPU memory fault: hipErrorIllegalAddress) come last, through
  // DeviceFaultAsHip; the launch checks before them keep their codes (hipErrorLaunchFailure among them).
  // CLR launches only on a stream of the current device.
  if (stream->device() != runtime.current_device()) {
    return FromHipError(hipErrorInvalidHandle, absl::StrCat(context(), ": the stream belongs to device ",
                                                            stream->device(), ", not the current device"));
  }
  ASSIGN_OR_RETURN(const clr::Device* device, runtime.context().GetDevice(stream->device()));
  const clr::DeviceInfo& info = device->info;
  for (int d = 0; d < 3; ++d) {
    if (r.global[d] == 0 || r.local[d] == 0 || r.global[d] > UINT32_MAX) {
      return FromHipError(hipErrorInvalidConfiguration, absl::StrCat(context(), ": empty or oversized dimension"));
    }
  }
  if (r.shared_bytes > info.local_mem_per_cu.raw()) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat(context(), ": more shared memory than the device's ",
                                                           info.local_mem_per_cu.raw(), " B"));
  }
  const uint64_t block = uint64_t{r.local[0]} * r.local[1] * r.local[2];
  if (block > info.max_work_group_size) {
    return FromHipError(hipErrorInvalidConfiguration,
                        absl::StrCat(context(), ": blocks of at most ", info.max_work_group_size, " work-items"));
  }
  absl::StatusOr<const clr::Program*> program = function.module->ProgramFor(runtime.context(), *device);
  if (!program.ok()) {
    // Current CLR (ihipLaunchKernel, 2025-26) passes the fat binary's own error on: with no code object for any of
    // the process's devices the fat binary fails to digest (hipErrorInvalidImage); with one for another device but
    // none for this one, this device has no program to build (hipErrorInvalidKernelFile).
    hipError_t code = hipErrorInvalidDeviceFunction;
    if (absl::IsNotFound(program.status())) {
      code = function.module->FitsAnyDevice(runtime.context()) ? hipErrorInvalidKernelFile : hipErrorInvalidImage;
    }
    return FromHipError(code, absl::StrCat(context(), ": ", program.status().message()));
  }
  const clr::Kernel* kernel = (*program)->FindKernel(function.name);
  if (kernel == nullptr) {
    return FromHipError(hipErrorInvalidDeviceFunction,
                        absl::StrCat(context(), ": no such kernel in the code object for ", (*program)->isa_name()));
  }
  if (!kernel->explicit_args.empty() && r.args.pointers == nullptr && r.args.buffer.empty()) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat(context(), ": the kernel's arguments are missing"));
  }
  if (block > kernel->max_flat_workgroup_size) {
    return FromHipError(hipErrorLaunchFailure, absl::StrCat(context(), ": larger than the kernel's launch bounds (",
                                                            kernel->max_flat_workgroup_size, ")"));
  }
  if (r.cooperative) {
    if (!info.cooperative_groups) {
      return FromHipError(hipErrorLaunchFailure, absl::StrCat(context(), ": the device has no cooperative queues"));
    }
    ASSIGN_OR_RETURN(const Occupancy occupancy,
                     ComputeOccupancy(*kernel, info, static_cast<int>(block), r.shared_bytes, /*potential=*/true));
    const uint64_t blocks = r.global[0] * r.global[1] * r.global[2] / block;
    if (blocks > static_cast<uint64_t>(occupancy.blocks_per_grid)) {
      return FromHipError(hipErrorCooperativeLaunchTooLarge,
                          absl::StrCat(context(), ": ", blocks, " blocks; the device holds ", occupancy.blocks_per_grid,
                                       " of them at once"));
    }
  }
  if (kernel->group_segment_size + r.shared_bytes > info.local_mem_per_cu.raw()) {
    return FromHipError(hipErrorInvalidValue, absl::StrCat(context(), ": with the kernel's ",
                                                           kernel->group_segment_size, " B of static shared memory, "
                                                           "more than the device's ",
                                                           info.local_mem_per_cu.raw(), " B"));
  }
  RETURN_IF_ERROR(ModuleTable::Get().BindManagedVariables(runtime, function.module, *device, **program));
  clr::LaunchGeometry geometry;
  clr::KernelDispatch dispatch;
  for (int d = 0; d < 3; ++d) {
    geometry.grid[d] = dispatch.grid[d] = static_cast<uint32_t>(r.global[d]);
    geometry.workgroup[d] = dispatch.workgroup[d] = static_cast<uint16_t>(r.local[d]);
  }
  geometry.dynamic_group_bytes = static_cast<uint32_t>(r.shared_bytes);
  // A cooperative launch runs on the device's cooperative queue, as CLR's does; not getting one is CLR's failed
  // launch ("Runtime failed to acquire a cooperative queue!", CL_INVALID_OPERATION).
  std::shared_ptr<clr::Stream> cooperative;
  if (r.cooperative) {
    absl::StatusOr<std::shared_ptr<clr::Stream>> made = runtime.streams().Cooperative(stream->device());
    if (!made.ok()) {
      return FromHipError(hipErrorLaunchFailure,
                          absl::StrCat(context(), ": no cooperative queue: ", made.status().message()));
    }
    cooperative = *std::move(made);
  }
  geometry.queue_address = cooperative != nullptr ? cooperative->queue_address() : stream->queue().queue_address();
  geometry.cooperative = r.cooperative;
  geometry.multi_grid = r.multi_grid;
  // A kernel that reaches device printf gets a buffer for its records, which the stream prints after it.
  std::optional<clr::PrintfBuffer> printf_buffer;
  if (kernel->prints) {
    ASSIGN_OR_RETURN(clr::PrintfBuffer buffer, stream->queue().TakePrintfBuffer());
    geometry.printf_buffer = buffer.address().raw();
    buffer.set_formats(kernel->printf_formats);
    printf_buffer.emplace(std::move(buffer));
  }
  PreparedLaunch launch;
  ASSIGN_OR_RETURN(launch.kernargs, clr::BuildKernargs(*kernel, r.args, geometry));
  if (r.cooperative) dispatch.grid_sync_arg = clr::GridSyncArgOffset(*kernel);
  dispatch.kernel_object = kernel->kernel_object;
  dispatch.group_segment_size = kernel->group_segment_size + static_cast<uint32_t>(r.shared_bytes);
  dispatch.private_segment_size = kernel->private_segment_size;
  dispatch.hold = r.hold;
  // The stream's sticky failure (a device fault, a halted queue), which the dispatch would answer: known before the
  // launch is queued, so that a multi-device launch queues none of its grids on seeing it.
  RETURN_IF_ERROR(DeviceFaultAsHip(stream->queue().Error()));
  launch.stream = stream;
  launch.cooperative = std::move(cooperative);
  launch.dispatch = dispatch;
  launch.printf_buffer = std::move(printf_buffer);
  if (TraceEnabled()) launch.description = context();
  return launch;
}

absl::Status QueueLaunch(Runtime& runtime, PreparedLaunch launch) {
  launch.dispatch.kernargs = launch.kernargs;
  RETURN_IF_ERROR(DeviceFaultAsHip(runtime.streams().BeforeCommand(*launch.stream)));
  if (TraceEnabled()) Trace(Layer::kHip, launch.description);
  if (launch.cooperative != nullptr) {
    return DeviceFaultAsHip(launch.stream->queue().DispatchCooperative(*launch.cooperative, launch.dispatch,
                                                                       std::move(launch.printf_buffer)));
  }
  return DeviceFaultAsHip(launch.stream->queue().DispatchKernel(launch.dispatch, std::move(launch.printf_buffer)));
}

}  // namespace hipmem::hip
