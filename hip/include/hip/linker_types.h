/* JIT linker and library option types, rewritten for hipmem. Names and values are upstream's. */
#ifndef HIP_INCLUDE_HIP_LINKER_TYPES_H
#define HIP_INCLUDE_HIP_LINKER_TYPES_H

typedef enum hipJitOption {
  hipJitOptionMaxRegisters = 0,
  hipJitOptionThreadsPerBlock,
  hipJitOptionWallTime,
  hipJitOptionInfoLogBuffer,
  hipJitOptionInfoLogBufferSizeBytes,
  hipJitOptionErrorLogBuffer,
  hipJitOptionErrorLogBufferSizeBytes,
  hipJitOptionOptimizationLevel,
  hipJitOptionTargetFromContext,
  hipJitOptionTarget,
  hipJitOptionFallbackStrategy,
  hipJitOptionGenerateDebugInfo,
  hipJitOptionLogVerbose,
  hipJitOptionGenerateLineInfo,
  hipJitOptionCacheMode,
  hipJitOptionSm3xOpt,
  hipJitOptionFastCompile,
  hipJitOptionGlobalSymbolNames,
  hipJitOptionGlobalSymbolAddresses,
  hipJitOptionGlobalSymbolCount,
  hipJitOptionLto,
  hipJitOptionFtz,
  hipJitOptionPrecDiv,
  hipJitOptionPrecSqrt,
  hipJitOptionFma,
  hipJitOptionPositionIndependentCode,
  hipJitOptionMinCTAPerSM,
  hipJitOptionMaxThreadsPerBlock,
  hipJitOptionOverrideDirectiveValues,
  hipJitOptionNumOptions,
  hipJitOptionIRtoISAOptExt = 10000, /* HIP only */
  hipJitOptionIRtoISAOptCountExt
} hipJitOption;

typedef enum hipJitInputType {
  hipJitInputCubin = 0,
  hipJitInputPtx,
  hipJitInputFatBinary,
  hipJitInputObject,
  hipJitInputLibrary,
  hipJitInputNvvm,
  hipJitNumLegacyInputTypes,
  hipJitInputLLVMBitcode = 100, /* HIP only from here */
  hipJitInputLLVMBundledBitcode = 101,
  hipJitInputLLVMArchivesOfBundledBitcode = 102,
  hipJitInputSpirv = 103,
  hipJitNumInputTypes = 10
} hipJitInputType;

typedef enum hipJitCacheMode {
  hipJitCacheOptionNone = 0,
  hipJitCacheOptionCG,
  hipJitCacheOptionCA
} hipJitCacheMode;

typedef enum hipJitFallback { hipJitPreferPTX = 0, hipJitPreferBinary } hipJitFallback;

typedef enum hipLibraryOption_e {
  hipLibraryHostUniversalFunctionAndDataTable = 0,
  hipLibraryBinaryIsPreserved = 1
} hipLibraryOption;

#endif /* HIP_INCLUDE_HIP_LINKER_TYPES_H */
