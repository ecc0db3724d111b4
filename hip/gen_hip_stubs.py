"""Writes hip/hip_unsupported.cc: a hipErrorNotSupported definition for every function that
<hip/hip_runtime_api.h> declares and no other hipmem source defines. Run from the repository root:
python3 hip/gen_hip_stubs.py"""
import re
import subprocess

HEADER = "hip/include/hip/hip_runtime_api.h"
PT_HEADER = "hip/include/hip/amd_detail/amd_hip_runtime_pt_api.h"
# Defined in hip_c_api.cc and hip_host_only.cc. When a stub is replaced by an implementation, add
# its name here (or just delete the stub; the generator is not part of the build).
SKIP = {
    # hip_c_api.cc
    "hipMalloc", "hipHostMalloc", "hipFree", "hipHostFree", "hipMemcpy", "hipMemGetInfo",
    "hipPointerGetAttributes", "hipGetDeviceCount", "hipSetDevice", "hipGetDevice",
    "hipGetLastError", "hipPeekAtLastError", "hipGetErrorName", "hipGetErrorString",
    # hip_stream_c_api.cc
    "hipStreamCreate", "hipStreamCreateWithFlags", "hipStreamCreateWithPriority",
    "hipDeviceGetStreamPriorityRange", "hipStreamDestroy", "hipStreamSynchronize",
    "hipStreamQuery", "hipStreamWaitEvent", "hipStreamGetFlags", "hipStreamGetPriority",
    "hipStreamGetDevice", "hipLaunchHostFunc", "hipStreamAddCallback", "hipDeviceSynchronize",
    "hipEventCreateWithFlags", "hipEventCreate", "hipEventDestroy", "hipEventRecord",
    "hipEventSynchronize", "hipEventQuery", "hipEventElapsedTime", "hipMemcpyAsync",
    "hipMemcpyWithStream", "hipMemcpyHtoD", "hipMemcpyDtoH", "hipMemcpyDtoD",
    "hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync", "hipMemcpyDtoDAsync", "hipMemset",
    "hipMemsetAsync", "hipMemsetD8", "hipMemsetD8Async", "hipMemsetD16", "hipMemsetD16Async",
    "hipMemsetD32", "hipMemsetD32Async", "hipHostRegister", "hipHostUnregister",
    "hipHostGetDevicePointer", "hipHostGetFlags",
    # hip_managed_c_api.cc
    "hipMallocManaged", "hipMemAdvise", "hipMemAdvise_v2", "hipMemPrefetchAsync", "hipMemPrefetchAsync_v2",
    "hipMemRangeGetAttribute", "hipMemRangeGetAttributes", "hipStreamAttachMemAsync",
    # hip_mempool_c_api.cc
    "hipMallocAsync", "hipFreeAsync", "hipMallocFromPoolAsync", "hipDeviceGetDefaultMemPool",
    "hipDeviceGetMemPool", "hipDeviceSetMemPool", "hipMemPoolCreate", "hipMemPoolDestroy",
    "hipMemPoolTrimTo", "hipMemPoolSetAttribute", "hipMemPoolGetAttribute", "hipMemPoolSetAccess",
    "hipMemPoolGetAccess", "hipMemPoolExportToShareableHandle", "hipMemPoolImportFromShareableHandle",
    "hipMemPoolExportPointer", "hipMemPoolImportPointer",
    # hip_device_c_api.cc
    "hipInit", "hipDeviceGet", "hipGetDevicePropertiesR0600", "hipDeviceGetAttribute",
    "hipDeviceGetName", "hipDeviceGetPCIBusId", "hipDeviceGetByPCIBusId", "hipDeviceGetUuid",
    "hipDeviceTotalMem", "hipDeviceComputeCapability", "hipChooseDeviceR0600", "hipGetDeviceFlags",
    "hipSetDeviceFlags", "hipDeviceReset", "hipDeviceCanAccessPeer", "hipDeviceEnablePeerAccess",
    "hipDeviceDisablePeerAccess", "hipExtGetLinkTypeAndHopCount", "hipInitDevice",
    "hipDeviceGetCacheConfig", "hipDeviceSetCacheConfig", "hipDeviceGetSharedMemConfig",
    "hipDeviceSetSharedMemConfig", "hipDeviceGetP2PAttribute",
    # hip_host_only.cc
    "__hipPushCallConfiguration", "__hipPopCallConfiguration", "hipApiName", "hipKernelNameRef",
    "hipKernelNameRefByPtr", "hipGetStreamDeviceId", "__hipGetPCH", "hipExtGetLastError",
    "hipDrvGetErrorName", "hipDrvGetErrorString", "hipRuntimeGetVersion", "hipDriverGetVersion",
    "hipMemcpy_spt",
    # hip_pitched_c_api.cc
    "hipMallocPitch", "hipMemAllocPitch", "hipMalloc3D", "hipMemcpy2D", "hipMemcpy2DAsync",
    "hipMemcpyParam2D", "hipMemcpyParam2DAsync", "hipMemcpy3D", "hipMemcpy3DAsync", "hipDrvMemcpy3D",
    "hipDrvMemcpy3DAsync", "hipMemset2D", "hipMemset2DAsync", "hipMemset3D", "hipMemset3DAsync",
    # hip_memory_c_api.cc
    "hipExtMallocWithFlags", "hipMallocHost", "hipMemAllocHost", "hipHostAlloc", "hipPointerGetAttribute",
    "hipDrvPointerGetAttributes", "hipPointerSetAttribute", "hipMemGetAddressRange", "hipMemGetHandleForAddressRange", "hipMemPtrGetInfo",
    "hipMemcpyPeer", "hipMemcpyPeerAsync", "hipSetValidDevices", "hipDeviceGetLimit", "hipDeviceSetLimit",
}

REASONS = {
    "Initialisation and version": "LUIDs name Windows (WDDM) adapters; hipmem runs on Linux",
    "Devices": "not yet: issue #9 (valid-device lists, limits, memory pools, RDMA flush); textures: no image support",
    "Inter-process sharing": "IPC: hipmem serves one process on a simulated KFD",
    "Execution control": "modules/kernels: hipmem runs no user ISA",
    "Errors": "not yet: issue #9",
    "Streams": "not yet: issue #9 (streams)",
    "Stream memory operations": "not yet: issue #9 (streams); graph nodes: graphs are not supported",
    "Events": "not yet: issue #9 (events)",
    "Memory: pointers": "not yet: issue #9",
    "External resources": "interop: no external memory or semaphores without a graphics driver",
    "Memory: allocation": "not yet: issue #9",
    "Managed memory": "not yet: issue #9 (managed memory needs SVM in the simulated KFD)",
    "Stream-ordered allocator and memory pools": "not yet: issue #9 (memory pools)",
    "Memory: host allocations and registration": "not yet: issue #9",
    "Memory: copies": "not yet: issue #9 (copies beyond hipMemcpy); symbols: no device code",
    "Memory: fills": "not yet: issue #9 (fills)",
    "Memory: queries": "not yet: issue #9",
    "Arrays": "textures/arrays: no image support in hipmem",
    "Memory: 2D, 3D and array copies": "not yet: issue #9 (pitched copies); arrays: no image support",
    "Peer access": "not yet: issue #9 (peer copies)",
    "Execution contexts (green contexts)": "contexts: CU partitioning is not modelled",
    "Contexts (deprecated on AMD)": "contexts: deprecated on AMD; not yet: issue #9",
    "Modules, libraries and kernels": "modules/kernels: hipmem runs no user ISA",
    "Kernel launch": "modules/kernels: hipmem runs no user ISA",
    "Occupancy": "modules/kernels: hipmem runs no user ISA",
    "Profiler (deprecated)": "profiler: deprecated upstream, which also returns hipErrorNotSupported",
    "Triple-chevron launch ABI": "modules/kernels: hipmem runs no user ISA",
    "Textures": "textures/arrays: no image support in hipmem",
    "Texture references (deprecated)": "textures/arrays: no image support in hipmem",
    "Callback and activity names": "tracing: hipmem has no API tracer",
    "Graphs": "graphs: not supported",
    "Virtual memory management": "VMM: not yet: issue #9",
    "Graphics interoperability": "interop: no graphics driver",
    "Surfaces": "textures/arrays: no image support in hipmem",
    "Runtime logging": "not yet: issue #9 (hipmem logs through base/trace)",
    "Per-thread default stream": "not yet: issue #9 (streams)",
}

text = open(HEADER).read()
text = text[: text.index("/* --- C++ overloads")] + open(PT_HEADER).read()
text = re.sub(r"#ifdef __cplusplus\nhipError_t hipEventRecord\(.*?\n#else\n", "", text)
section = None
groups = {}
order = []
decl_re = re.compile(r"^(hipError_t|const char\*|int|void) ((?:__)?hip\w+)\((.*?)\);", re.S | re.M)
pos = 0
lines = text.split("\n")
buf = "\n".join(lines)
for m in re.finditer(r"^/\* --- (.*?) -+ \*/$|" + decl_re.pattern, buf, re.S | re.M):
    if m.group(1):
        section = m.group(1)
        continue
    ret, name, params = m.group(2), m.group(3), m.group(4)
    if name in SKIP or name == "hip_init":
        continue
    params = re.sub(r"\s*__dparm\([^()]*(\([^()]*\))?[^()]*\)", "", params)
    params = " ".join(params.split())
    if params in ("", "void"):
        unnamed = "void"
    else:
        parts = [p.strip() for p in params.split(",")]
        unnamed = ", ".join(re.sub(r"(\w+)$", r"/*\1*/", p) for p in parts)
    if section not in groups:
        groups[section] = []
        order.append(section)
    groups[section].append((ret, name, unnamed))

out = []
out.append("""// hipErrorNotSupported for every hip* entry point that <hip/hip_runtime_api.h> declares and hipmem does
// not implement yet, so HIP host code links against //hip:hipmem and fails cleanly at run time.
// Each stub records its result as the thread's last error, as every hip_c_api.cc shell does.
// Generated once by hip/gen_hip_stubs.py from the header; to implement a function, delete its
// stub here and define it in its own source (the surface test catches a function left in neither).
#define HIP_ABI_IMPL 1  // define the deprecated entry points without deprecation warnings

#include <cstddef>
#include <cstdint>

#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"

#define HIPMEM_UNSUPPORTED return hipmem::hip::RecordLastError(hipErrorNotSupported)

extern "C" {
""")
total = 0
for sec in order:
    out.append(f"// --- {sec}: {REASONS[sec]}\n")
    for ret, name, unnamed in groups[sec]:
        total += 1
        if ret == "hipError_t":
            out.append(f"hipError_t {name}({unnamed}) {{ HIPMEM_UNSUPPORTED; }}")
        else:
            raise SystemExit(f"hand-write {name}: returns {ret}")
    out.append("")
out.append("}  // extern \"C\"\n")
src = "\n".join(out)
open("hip/hip_unsupported.cc", "w").write(src)
subprocess.run(["clang-format", "--style={BasedOnStyle: Google, ColumnLimit: 100}", "-i",
                "hip/hip_unsupported.cc"], check=True)
print(f"{total} stubs in {len(order)} groups")
