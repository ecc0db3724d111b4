#include "hip/hip_error.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_adapter.h"

namespace hipmem::hip {
namespace {

using Code = absl::StatusCode;

struct Row {
  hipError_t c_code;
  Code code;
  const char* name;
  const char* description;
};

// FromHipError uses the first row of a hipError_t; ToHipError uses the first row of a canonical
// code. A code listed again further down only adds a reverse mapping.
constexpr Row kRows[] = {
    {hipSuccess, Code::kOk, "hipSuccess", "no error"},

    {hipErrorInvalidValue, Code::kInvalidArgument, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorInvalidDevice, Code::kInvalidArgument, "hipErrorInvalidDevice",
     "invalid device ordinal"},
    {hipErrorInvalidDevicePointer, Code::kInvalidArgument, "hipErrorInvalidDevicePointer",
     "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, Code::kInvalidArgument, "hipErrorInvalidMemcpyDirection",
     "invalid copy direction"},
    {hipErrorInvalidHandle, Code::kInvalidArgument, "hipErrorInvalidHandle",
     "invalid stream, event or other handle"},
    {hipErrorInvalidConfiguration, Code::kInvalidArgument, "hipErrorInvalidConfiguration",
     "invalid launch configuration"},
    {hipErrorInvalidPitchValue, Code::kInvalidArgument, "hipErrorInvalidPitchValue",
     "invalid pitch"},
    {hipErrorInvalidSymbol, Code::kInvalidArgument, "hipErrorInvalidSymbol", "invalid symbol"},
    {hipErrorInvalidDeviceFunction, Code::kInvalidArgument, "hipErrorInvalidDeviceFunction",
     "invalid device function"},
    {hipErrorInvalidImage, Code::kInvalidArgument, "hipErrorInvalidImage",
     "invalid code object image"},
    {hipErrorInvalidContext, Code::kInvalidArgument, "hipErrorInvalidContext", "invalid context"},
    {hipErrorInvalidKernelFile, Code::kInvalidArgument, "hipErrorInvalidKernelFile",
     "invalid kernel file"},
    {hipErrorInvalidGraphicsContext, Code::kInvalidArgument, "hipErrorInvalidGraphicsContext",
     "invalid graphics context"},
    {hipErrorInvalidSource, Code::kInvalidArgument, "hipErrorInvalidSource",
     "invalid kernel source"},
    {hipErrorCooperativeLaunchTooLarge, Code::kInvalidArgument, "hipErrorCooperativeLaunchTooLarge",
     "too many blocks for a cooperative launch"},
    {hipErrorInvalidChannelDescriptor, Code::kInvalidArgument, "hipErrorInvalidChannelDescriptor",
     "invalid channel descriptor"},
    {hipErrorInvalidTexture, Code::kInvalidArgument, "hipErrorInvalidTexture", "invalid texture"},
    {hipErrorInvalidResourceType, Code::kInvalidArgument, "hipErrorInvalidResourceType",
     "invalid resource type"},
    {hipErrorInvalidResourceConfiguration, Code::kInvalidArgument,
     "hipErrorInvalidResourceConfiguration", "invalid resource configuration"},
    {hipErrorInvalidClusterSize, Code::kInvalidArgument, "hipErrorInvalidClusterSize",
     "invalid cluster size"},

    {hipErrorOutOfMemory, Code::kResourceExhausted, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorLaunchOutOfResources, Code::kResourceExhausted, "hipErrorLaunchOutOfResources",
     "not enough resources to launch the kernel"},

    {hipErrorNotInitialized, Code::kFailedPrecondition, "hipErrorNotInitialized",
     "runtime not initialized"},
    {hipErrorDeinitialized, Code::kFailedPrecondition, "hipErrorDeinitialized",
     "runtime already shut down"},
    {hipErrorNoDevice, Code::kFailedPrecondition, "hipErrorNoDevice", "no GPU available"},
    {hipErrorContextIsDestroyed, Code::kFailedPrecondition, "hipErrorContextIsDestroyed",
     "context or stream already destroyed"},
    {hipErrorIllegalState, Code::kFailedPrecondition, "hipErrorIllegalState",
     "operation not allowed in the current state"},
    {hipErrorInsufficientDriver, Code::kFailedPrecondition, "hipErrorInsufficientDriver",
     "kernel driver too old"},
    {hipErrorProfilerDisabled, Code::kFailedPrecondition, "hipErrorProfilerDisabled",
     "profiler disabled"},
    {hipErrorProfilerNotInitialized, Code::kFailedPrecondition, "hipErrorProfilerNotInitialized",
     "profiler not initialized"},
    {hipErrorProfilerAlreadyStarted, Code::kFailedPrecondition, "hipErrorProfilerAlreadyStarted",
     "profiler already running"},
    {hipErrorProfilerAlreadyStopped, Code::kFailedPrecondition, "hipErrorProfilerAlreadyStopped",
     "profiler already stopped"},
    {hipErrorMissingConfiguration, Code::kFailedPrecondition, "hipErrorMissingConfiguration",
     "launch not configured"},
    {hipErrorContextAlreadyCurrent, Code::kFailedPrecondition, "hipErrorContextAlreadyCurrent",
     "context already current"},
    {hipErrorContextAlreadyInUse, Code::kFailedPrecondition, "hipErrorContextAlreadyInUse",
     "context in use by another thread"},
    {hipErrorArrayIsMapped, Code::kFailedPrecondition, "hipErrorArrayIsMapped", "array is mapped"},
    {hipErrorNotMapped, Code::kFailedPrecondition, "hipErrorNotMapped", "resource not mapped"},
    {hipErrorNotMappedAsArray, Code::kFailedPrecondition, "hipErrorNotMappedAsArray",
     "resource not mapped as an array"},
    {hipErrorNotMappedAsPointer, Code::kFailedPrecondition, "hipErrorNotMappedAsPointer",
     "resource not mapped as a pointer"},
    {hipErrorPeerAccessNotEnabled, Code::kFailedPrecondition, "hipErrorPeerAccessNotEnabled",
     "peer access not enabled"},
    {hipErrorSetOnActiveProcess, Code::kFailedPrecondition, "hipErrorSetOnActiveProcess",
     "setting cannot change once the device is active"},
    {hipErrorStreamCaptureUnsupported, Code::kFailedPrecondition,
     "hipErrorStreamCaptureUnsupported", "operation not allowed while the stream captures"},
    {hipErrorStreamCaptureInvalidated, Code::kFailedPrecondition,
     "hipErrorStreamCaptureInvalidated", "stream capture invalidated by an earlier error"},
    {hipErrorStreamCaptureMerge, Code::kFailedPrecondition, "hipErrorStreamCaptureMerge",
     "operation would merge two captures"},
    {hipErrorStreamCaptureUnmatched, Code::kFailedPrecondition, "hipErrorStreamCaptureUnmatched",
     "capture was not begun on this stream"},
    {hipErrorStreamCaptureUnjoined, Code::kFailedPrecondition, "hipErrorStreamCaptureUnjoined",
     "capture forked without joining back"},
    {hipErrorStreamCaptureIsolation, Code::kFailedPrecondition, "hipErrorStreamCaptureIsolation",
     "dependency would cross the capture boundary"},
    {hipErrorStreamCaptureImplicit, Code::kFailedPrecondition, "hipErrorStreamCaptureImplicit",
     "implicit dependency on a capturing stream"},
    {hipErrorCapturedEvent, Code::kFailedPrecondition, "hipErrorCapturedEvent",
     "event was recorded in a capturing stream"},
    {hipErrorStreamCaptureWrongThread, Code::kFailedPrecondition,
     "hipErrorStreamCaptureWrongThread", "capture ended on another thread"},
    {hipErrorGraphExecUpdateFailure, Code::kFailedPrecondition, "hipErrorGraphExecUpdateFailure",
     "graph update not allowed"},

    {hipErrorHostMemoryAlreadyRegistered, Code::kAlreadyExists,
     "hipErrorHostMemoryAlreadyRegistered", "host memory already registered"},
    {hipErrorAlreadyMapped, Code::kAlreadyExists, "hipErrorAlreadyMapped",
     "resource already mapped"},
    {hipErrorAlreadyAcquired, Code::kAlreadyExists, "hipErrorAlreadyAcquired",
     "resource already acquired"},
    {hipErrorPeerAccessAlreadyEnabled, Code::kAlreadyExists, "hipErrorPeerAccessAlreadyEnabled",
     "peer access already enabled"},

    {hipErrorNotFound, Code::kNotFound, "hipErrorNotFound", "not found"},
    {hipErrorHostMemoryNotRegistered, Code::kNotFound, "hipErrorHostMemoryNotRegistered",
     "host memory not registered"},
    {hipErrorFileNotFound, Code::kNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, Code::kNotFound, "hipErrorSharedObjectSymbolNotFound",
     "shared object symbol not found"},
    {hipErrorNoBinaryForGpu, Code::kNotFound, "hipErrorNoBinaryForGpu",
     "no code object for this GPU"},

    {hipErrorNotSupported, Code::kUnimplemented, "hipErrorNotSupported", "not supported"},
    {hipErrorPeerAccessUnsupported, Code::kUnimplemented, "hipErrorPeerAccessUnsupported",
     "peer access not supported between these devices"},
    {hipErrorUnsupportedLimit, Code::kUnimplemented, "hipErrorUnsupportedLimit",
     "limit not supported"},

    {hipErrorNotReady, Code::kUnavailable, "hipErrorNotReady", "work not finished yet"},

    {hipErrorLaunchTimeOut, Code::kDeadlineExceeded, "hipErrorLaunchTimeOut",
     "kernel ran too long"},

    {hipErrorLaunchFailure, Code::kAborted, "hipErrorLaunchFailure", "kernel failed on the GPU"},
    {hipErrorIllegalAddress, Code::kAborted, "hipErrorIllegalAddress",
     "GPU accessed an illegal address"},
    {hipErrorAssert, Code::kAborted, "hipErrorAssert", "device-side assert failed"},
    {hipErrorPriorLaunchFailure, Code::kAborted, "hipErrorPriorLaunchFailure",
     "an earlier launch failed"},

    {hipErrorECCNotCorrectable, Code::kDataLoss, "hipErrorECCNotCorrectable",
     "uncorrectable ECC error"},

    {hipErrorUnknown, Code::kUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorMapFailed, Code::kUnknown, "hipErrorMapFailed", "mapping failed"},
    {hipErrorUnmapFailed, Code::kUnknown, "hipErrorUnmapFailed", "unmapping failed"},
    {hipErrorSharedObjectInitFailed, Code::kUnknown, "hipErrorSharedObjectInitFailed",
     "shared object initialization failed"},
    {hipErrorOperatingSystem, Code::kUnknown, "hipErrorOperatingSystem",
     "operating system call failed"},
    {hipErrorRuntimeMemory, Code::kUnknown, "hipErrorRuntimeMemory",
     "HSA runtime memory call failed"},
    {hipErrorRuntimeOther, Code::kUnknown, "hipErrorRuntimeOther", "HSA runtime call failed"},
    {hipErrorTbd, Code::kUnknown, "hipErrorTbd", "reserved error code"},
    {hipErrorStreamDetached, Code::kFailedPrecondition, "hipErrorStreamDetached",
     "stream is detached"},

    // Reverse-only: CLR rejects ranges past the end of an allocation as an invalid value.
    {hipErrorInvalidValue, Code::kOutOfRange, "hipErrorInvalidValue", "invalid argument"},
};

std::string NameInMessage(hipError_t code, const Row* row) {
  return row != nullptr ? std::string(row->name)
                        : absl::StrCat("hipError_t(", static_cast<uint32_t>(code), ")");
}

constexpr StatusAdapter<Row> kAdapter{
    .payload_url = kHipErrorPayloadUrl,
    .success = hipSuccess,
    // Canonical codes with no row above.
    .fallback = hipErrorUnknown,
    .rows = kRows,
    .name = &NameInMessage,
};
static_assert(kAdapter.Consistent());

}  // namespace

absl::Status FromHipError(hipError_t code, absl::string_view context) {
  return kAdapter.From(code, context);
}

hipError_t ToHipError(const absl::Status& status) { return kAdapter.To(status); }

absl::Status WithHipError(absl::Status status, hipError_t code) {
  return kAdapter.Tag(std::move(status), code);
}

const char* HipErrorName(hipError_t code) {
  const Row* row = kAdapter.Find(code);
  return row != nullptr ? row->name : "hipErrorUnknown";
}

const char* HipErrorString(hipError_t code) {
  const Row* row = kAdapter.Find(code);
  return row != nullptr ? row->description : "unknown error";
}

absl::Status InvalidDeviceError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, hipErrorInvalidDevice);
}
absl::Status InvalidDevicePointerError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, hipErrorInvalidDevicePointer);
}
absl::Status InvalidMemcpyDirectionError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, hipErrorInvalidMemcpyDirection);
}
absl::Status InvalidHandleError(absl::string_view message) {
  return kAdapter.Make(Code::kInvalidArgument, message, hipErrorInvalidHandle);
}
absl::Status NoDeviceError(absl::string_view message) {
  return kAdapter.Make(Code::kFailedPrecondition, message, hipErrorNoDevice);
}
absl::Status ContextIsDestroyedError(absl::string_view message) {
  return kAdapter.Make(Code::kFailedPrecondition, message, hipErrorContextIsDestroyed);
}
absl::Status HostMemoryAlreadyRegisteredError(absl::string_view message) {
  return kAdapter.Make(Code::kAlreadyExists, message, hipErrorHostMemoryAlreadyRegistered);
}
absl::Status HostMemoryNotRegisteredError(absl::string_view message) {
  return kAdapter.Make(Code::kNotFound, message, hipErrorHostMemoryNotRegistered);
}

}  // namespace hipmem::hip
