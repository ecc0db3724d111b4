// hsa_code_object_reader_* and hsa_executable_* entry points: thin shells over hsa/executable.h, plus the
// handle table that plays ROCr's AmdHsaCodeLoader (readers, executables and their symbols by opaque handle).
//
// Error codes follow ROCr's hsa.cpp and loader/executable.cpp: NOT_INITIALIZED before hsa_init; INVALID_ARGUMENT
// for null pointers, size 0 and bad enum values; INVALID_CODE_OBJECT_READER / INVALID_EXECUTABLE /
// INVALID_EXECUTABLE_SYMBOL for handles that are not (or no longer) live; INVALID_SYMBOL_NAME when a lookup finds
// nothing; the loader's own codes (executable.h) for loads.
//
// The table outlives hsa_shut_down on purpose (a leaked singleton: at process exit the runtime may be gone). It
// remembers the runtime its executables were loaded into; once hsa_init made another one, the old executables'
// memory went with the old runtime, so they are dropped without freeing anything. TODO(#22): a hook in
// c_abi.cc's ReleaseSharedRuntime would free them before the runtime instead.
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/light_mutex.h"
#include "base/units.h"
#include "hsa/c_abi.h"
#include "hsa/copy.h"
#include "hsa/executable.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"

namespace hipmem::hsa {
namespace {

// Handle tags keep one kind of handle from being taken for another.
constexpr uint64_t kReaderTag = 0x5244'0000'0000'0000ull;      // "RD"
constexpr uint64_t kExecutableTag = 0x4558'0000'0000'0000ull;  // "EX"
constexpr uint64_t kSymbolTag = 0x5359'0000'0000'0000ull;      // "SY"

struct SymbolRef {
  uint64_t executable;
  size_t index;
};

class LoaderTable {
 public:
  static LoaderTable& Get() {
    static LoaderTable* table = new LoaderTable();  // never destroyed: see the file comment
    return *table;
  }

  LightMutex mu;
  Runtime* runtime ABSL_GUARDED_BY(mu) = nullptr;
  uint64_t next ABSL_GUARDED_BY(mu) = 1;
  absl::btree_map<uint64_t, CodeObjectReader> readers ABSL_GUARDED_BY(mu);
  absl::btree_map<uint64_t, Executable> executables ABSL_GUARDED_BY(mu);
  // Symbol handles by executable and index, stable for the executable's life.
  absl::btree_map<uint64_t, SymbolRef> symbols ABSL_GUARDED_BY(mu);

  // Forgets whatever belongs to a runtime other than `current` (its memory is already gone).
  void Adopt(Runtime* current) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (runtime == current) return;
    for (auto& [id, exe] : executables) exe.Abandon();
    executables.clear();
    symbols.clear();
    readers.clear();
    runtime = current;
  }

  uint64_t SymbolHandle(uint64_t executable, size_t index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (const auto& [handle, ref] : symbols) {
      if (ref.executable == executable && ref.index == index) return handle;
    }
    const uint64_t handle = kSymbolTag | next++;
    symbols[handle] = SymbolRef{executable, index};
    return handle;
  }

 private:
  LoaderTable() = default;
};

// Binds `table` locked and adopted to the shared runtime `runtime`, or returns NOT_INITIALIZED.
#define LOADER_OR_RETURN(runtime, table)            \
  HSA_RUNTIME_OR_RETURN(runtime);                   \
  LoaderTable& table = LoaderTable::Get();          \
  ::hipmem::LightLock table##_lock(&table.mu);            \
  table.Adopt(&runtime)

Executable* FindExecutable(LoaderTable& t, hsa_executable_t h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t.mu) {
  auto it = t.executables.find(h.handle);
  return it == t.executables.end() ? nullptr : &it->second;
}

const ExecutableSymbol* FindSymbol(LoaderTable& t, hsa_executable_symbol_t h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(t.mu) {
  auto it = t.symbols.find(h.handle);
  if (it == t.symbols.end()) return nullptr;
  auto exe = t.executables.find(it->second.executable);
  if (exe == t.executables.end() || it->second.index >= exe->second.symbols().size()) return nullptr;
  return &exe->second.symbols()[it->second.index];
}

template <typename T>
hsa_status_t Put(void* value, const T& v) {
  std::memcpy(value, &v, sizeof(T));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t WriteSymbolInfo(const ExecutableSymbol& s, uint32_t attribute, void* value) {
  const bool kernel = s.kind == SymbolKind::kKernel;
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: return Put(value, static_cast<hsa_symbol_kind_t>(s.kind));
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: return Put(value, static_cast<uint32_t>(s.name.size()));
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME: std::memcpy(value, s.name.data(), s.name.size()); return HSA_STATUS_SUCCESS;
    // Code object v3+ symbols have no module: ROCr answers 0 and writes nothing.
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH: return Put(value, uint32_t{0});
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME: return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
      return Put(value, hsa_agent_t{s.agent.has_value() ? s.agent->raw() : 0});
    case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE: return Put(value, HSA_SYMBOL_LINKAGE_PROGRAM);
    case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: return Put(value, s.is_definition);
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: return Put(value, s.address);
    default: break;
  }
  if (kernel) {
    switch (attribute) {
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: return Put(value, s.kernarg_segment_size);
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
        return Put(value, s.kernarg_segment_alignment);
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: return Put(value, s.group_segment_size);
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: return Put(value, s.private_segment_size);
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: return Put(value, s.dynamic_callstack);
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION: return Put(value, uint32_t{0});
      default: break;
    }
  } else {
    switch (attribute) {
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
        return Put(value, s.variable_program_allocation ? HSA_VARIABLE_ALLOCATION_PROGRAM
                                                        : HSA_VARIABLE_ALLOCATION_AGENT);
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
        return Put(value, s.variable_readonly_segment ? HSA_VARIABLE_SEGMENT_READONLY : HSA_VARIABLE_SEGMENT_GLOBAL);
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT: return Put(value, s.variable_alignment);
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE: return Put(value, s.variable_size);
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST: return Put(value, s.variable_is_const);
      default: break;
    }
  }
  // ROCr's SymbolImpl::GetInfo answers false for an attribute the symbol's kind lacks: INVALID_ARGUMENT.
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

using SymbolCallback = hsa_status_t (*)(hsa_executable_t, hsa_executable_symbol_t, void*);
using AgentSymbolCallback = hsa_status_t (*)(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*);

// Calls back for each symbol matching `want` without holding the table's lock (a callback may query symbols).
template <typename Call>
hsa_status_t IterateSymbols(hsa_executable_t executable, bool (*want)(const ExecutableSymbol&, uint64_t),
                            uint64_t agent, Call call) {
  std::vector<uint64_t> handles;
  {
    LOADER_OR_RETURN(rt, t);
    Executable* exe = FindExecutable(t, executable);
    if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    for (size_t i = 0; i < exe->symbols().size(); ++i) {
      if (want(exe->symbols()[i], agent)) handles.push_back(t.SymbolHandle(executable.handle, i));
    }
  }
  for (uint64_t h : handles) {
    const hsa_status_t status = call(hsa_executable_symbol_t{h});
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

// hsa_executable_iterate_symbols and _iterate_program_symbols: the symbols `want` picks, to `callback`.
hsa_status_t IterateExecutableSymbols(hsa_executable_t executable, bool (*want)(const ExecutableSymbol&, uint64_t),
                                      SymbolCallback callback, void* data) {
  if (callback == nullptr) {
    HSA_RUNTIME_OR_RETURN(rt);
    (void)rt;
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return IterateSymbols(executable, want, 0,
                        [&](hsa_executable_symbol_t s) { return callback(executable, s, data); });
}

hsa_status_t CreateReader(absl::StatusOr<CodeObjectReader> reader, hsa_code_object_reader_t* out) {
  if (!reader.ok()) return ToHsaStatus(reader.status());
  LOADER_OR_RETURN(rt, t);
  const uint64_t handle = kReaderTag | t.next++;
  t.readers.emplace(handle, std::move(*reader));
  out->handle = handle;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Load(hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t reader,
                  hsa_loaded_code_object_t* loaded) {
  LOADER_OR_RETURN(rt, t);
  Executable* exe = FindExecutable(t, executable);
  if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  auto r = t.readers.find(reader.handle);
  if (r == t.readers.end()) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (!rt.GetAgent(AgentId(agent.handle)).ok()) return HSA_STATUS_ERROR_INVALID_AGENT;
  absl::StatusOr<Copies*> copies = SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  // Through the runtime's copy path (hsa_memory_copy's), which reaches VRAM the CPU cannot map as well.
  const AgentMemoryWriter write = [&](DeviceAddress dst, std::span<const uint8_t> bytes) {
    return (*copies)->CopySync(dst, DeviceAddress::FromPointer(bytes.data()), Bytes(bytes.size()));
  };
  const hsa_status_t status = ToHsaStatus(exe->LoadAgentCodeObject(rt, AgentId(agent.handle), r->second, write));
  if (status == HSA_STATUS_SUCCESS && loaded != nullptr) loaded->handle = kReaderTag ^ kExecutableTag ^ t.next++;
  return status;
}

hsa_status_t Define(hsa_executable_t executable, std::optional<hsa_agent_t> agent, const char* name, void* address,
                    bool readonly) {
  LOADER_OR_RETURN(rt, t);
  if (name == nullptr || address == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Executable* exe = FindExecutable(t, executable);
  if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::optional<AgentId> id;
  if (agent.has_value()) {
    if (!rt.GetAgent(AgentId(agent->handle)).ok()) return HSA_STATUS_ERROR_INVALID_AGENT;
    id = AgentId(agent->handle);
  }
  return ToHsaStatus(exe->DefineExternalVariable(name, id, reinterpret_cast<uint64_t>(address), readonly));
}

}  // namespace
}  // namespace hipmem::hsa

using hipmem::hsa::AgentId;
using hipmem::hsa::Executable;
using hipmem::hsa::ExecutableSymbol;
using hipmem::hsa::LoaderTable;
using hipmem::hsa::ToHsaStatus;

extern "C" {

hsa_status_t HSA_API hsa_code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                               hsa_code_object_reader_t* code_object_reader) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (code_object == nullptr || size == 0 || code_object_reader == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::CreateReader(
      hipmem::hsa::CodeObjectReader::FromBytes({static_cast<const uint8_t*>(code_object), size}), code_object_reader);
}

hsa_status_t HSA_API hsa_code_object_reader_create_from_file(hsa_file_t file,
                                                             hsa_code_object_reader_t* code_object_reader) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (code_object_reader == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::CreateReader(hipmem::hsa::CodeObjectReader::FromFile(file), code_object_reader);
}

hsa_status_t HSA_API hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  LOADER_OR_RETURN(rt, t);
  return t.readers.erase(code_object_reader.handle) == 1 ? HSA_STATUS_SUCCESS
                                                          : HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
}

hsa_status_t HSA_API hsa_executable_create_alt(hsa_profile_t profile,
                                               hsa_default_float_rounding_mode_t default_float_rounding_mode,
                                               const char*, hsa_executable_t* executable) {
  LOADER_OR_RETURN(rt, t);
  if (executable == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<Executable> exe = Executable::Create(profile, default_float_rounding_mode);
  if (!exe.ok()) return ToHsaStatus(exe.status());
  const uint64_t handle = hipmem::hsa::kExecutableTag | t.next++;
  t.executables.emplace(handle, std::move(*exe));
  executable->handle = handle;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_create(hsa_profile_t profile,
                                                          hsa_executable_state_t executable_state,
                                                          const char* options, hsa_executable_t* executable) {
  // ROCr checks the state is a valid value and creates the executable unfrozen with the default rounding mode.
  if (executable_state != HSA_EXECUTABLE_STATE_FROZEN && executable_state != HSA_EXECUTABLE_STATE_UNFROZEN) {
    HSA_RUNTIME_OR_RETURN(rt);
    (void)rt;
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, options, executable);
}

hsa_status_t HSA_API hsa_executable_destroy(hsa_executable_t executable) {
  // The executable (and its GPU memory) goes after the lock is dropped, in case freeing calls back.
  std::optional<Executable> doomed;
  {
    LOADER_OR_RETURN(rt, t);
    auto it = t.executables.find(executable.handle);
    if (it == t.executables.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    doomed.emplace(std::move(it->second));
    t.executables.erase(it);
    absl::erase_if(t.symbols, [&](const auto& entry) { return entry.second.executable == executable.handle; });
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                           hsa_code_object_reader_t code_object_reader,
                                                           const char*, hsa_loaded_code_object_t* loaded_code_object) {
  return hipmem::hsa::Load(executable, agent, code_object_reader, loaded_code_object);
}

// ROCr loads a program code object with a null agent, which an AMDGPU code object (always agent code, placed
// in one agent's memory) cannot be: there is no agent to check its ISA against or allocate from.
hsa_status_t HSA_API hsa_executable_load_program_code_object(hsa_executable_t executable,
                                                             hsa_code_object_reader_t code_object_reader,
                                                             const char*, hsa_loaded_code_object_t*) {
  LOADER_OR_RETURN(rt, t);
  if (hipmem::hsa::FindExecutable(t, executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (t.readers.find(code_object_reader.handle) == t.readers.end()) {
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  }
  return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
}

hsa_status_t HSA_API hsa_executable_freeze(hsa_executable_t executable, const char*) {
  LOADER_OR_RETURN(rt, t);
  Executable* exe = hipmem::hsa::FindExecutable(t, executable);
  if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  return ToHsaStatus(exe->Freeze());
}

hsa_status_t HSA_API hsa_executable_get_info(hsa_executable_t executable, hsa_executable_info_t attribute,
                                             void* value) {
  LOADER_OR_RETURN(rt, t);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Executable* exe = hipmem::hsa::FindExecutable(t, executable);
  if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  switch (attribute) {
    case HSA_EXECUTABLE_INFO_PROFILE: return hipmem::hsa::Put(value, static_cast<hsa_profile_t>(exe->profile()));
    case HSA_EXECUTABLE_INFO_STATE:
      return hipmem::hsa::Put(value, static_cast<hsa_executable_state_t>(exe->state()));
    case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      return hipmem::hsa::Put(value, static_cast<hsa_default_float_rounding_mode_t>(exe->rounding_mode()));
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

hsa_status_t HSA_API hsa_executable_global_variable_define(hsa_executable_t executable, const char* variable_name,
                                                           void* address) {
  return hipmem::hsa::Define(executable, std::nullopt, variable_name, address, false);
}

hsa_status_t HSA_API hsa_executable_agent_global_variable_define(hsa_executable_t executable, hsa_agent_t agent,
                                                                 const char* variable_name, void* address) {
  return hipmem::hsa::Define(executable, agent, variable_name, address, false);
}

hsa_status_t HSA_API hsa_executable_readonly_variable_define(hsa_executable_t executable, hsa_agent_t agent,
                                                             const char* variable_name, void* address) {
  return hipmem::hsa::Define(executable, agent, variable_name, address, true);
}

// Loading relocates everything or fails as a whole, so a live executable is always valid: result 0.
hsa_status_t HSA_API hsa_executable_validate(hsa_executable_t executable, uint32_t* result) {
  LOADER_OR_RETURN(rt, t);
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hipmem::hsa::FindExecutable(t, executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  *result = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_executable_validate_alt(hsa_executable_t executable, const char*, uint32_t* result) {
  return hsa_executable_validate(executable, result);
}

hsa_status_t HSA_API hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char* symbol_name,
                                                       const hsa_agent_t* agent, hsa_executable_symbol_t* symbol) {
  LOADER_OR_RETURN(rt, t);
  if (symbol_name == nullptr || symbol == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Executable* exe = hipmem::hsa::FindExecutable(t, executable);
  if (exe == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::optional<AgentId> id;
  if (agent != nullptr) {
    if (!rt.GetAgent(AgentId(agent->handle)).ok()) return HSA_STATUS_ERROR_INVALID_AGENT;
    id = AgentId(agent->handle);
  }
  std::optional<size_t> index = exe->FindSymbol(symbol_name, id);
  if (!index.has_value()) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  symbol->handle = t.SymbolHandle(executable.handle, *index);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_get_symbol(hsa_executable_t executable, const char* module_name,
                                                              const char* symbol_name, hsa_agent_t agent, int32_t,
                                                              hsa_executable_symbol_t* symbol) {
  // v3+ symbols have no module; ROCr prefixes a non-empty module name ("module::name"), which then finds none.
  if (module_name != nullptr && module_name[0] != '\0' && symbol_name != nullptr) {
    const std::string mangled = std::string(module_name) + "::" + symbol_name;
    return hsa_executable_get_symbol_by_name(executable, mangled.c_str(), &agent, symbol);
  }
  return hsa_executable_get_symbol_by_name(executable, symbol_name, &agent, symbol);
}

hsa_status_t HSA_API hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                    hsa_executable_symbol_info_t attribute, void* value) {
  LOADER_OR_RETURN(rt, t);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const ExecutableSymbol* s = hipmem::hsa::FindSymbol(t, executable_symbol);
  if (s == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  return hipmem::hsa::WriteSymbolInfo(*s, attribute, value);
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_iterate_symbols(hsa_executable_t executable,
                                                                   hipmem::hsa::SymbolCallback callback, void* data) {
  return hipmem::hsa::IterateExecutableSymbols(
      executable, [](const ExecutableSymbol&, uint64_t) { return true; }, callback, data);
}

hsa_status_t HSA_API hsa_executable_iterate_agent_symbols(hsa_executable_t executable, hsa_agent_t agent,
                                                          hipmem::hsa::AgentSymbolCallback callback, void* data) {
  {
    HSA_RUNTIME_OR_RETURN(rt);
    if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!rt.GetAgent(AgentId(agent.handle)).ok()) return HSA_STATUS_ERROR_INVALID_AGENT;
  }
  return hipmem::hsa::IterateSymbols(
      executable,
      [](const ExecutableSymbol& s, uint64_t a) { return s.agent.has_value() && s.agent->raw() == a; },
      agent.handle, [&](hsa_executable_symbol_t s) { return callback(executable, agent, s, data); });
}

hsa_status_t HSA_API hsa_executable_iterate_program_symbols(hsa_executable_t executable,
                                                            hipmem::hsa::SymbolCallback callback, void* data) {
  return hipmem::hsa::IterateExecutableSymbols(
      executable, [](const ExecutableSymbol& s, uint64_t) { return !s.agent.has_value(); }, callback, data);
}

}  // extern "C"
