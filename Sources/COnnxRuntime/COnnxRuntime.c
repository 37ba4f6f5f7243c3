// Compile-time checks that each declared slot sits where the runtime puts it.
#include "COnnxRuntime.h"

#define CHORUS_SLOT(member, index) \
  _Static_assert(offsetof(OrtApi, member) == (index) * sizeof(void *), #member " must be slot " #index)

CHORUS_SLOT(CreateStatus, 0);
CHORUS_SLOT(GetErrorCode, 1);
CHORUS_SLOT(GetErrorMessage, 2);
CHORUS_SLOT(CreateEnv, 3);
CHORUS_SLOT(CreateSession, 7);
CHORUS_SLOT(Run, 9);
CHORUS_SLOT(CreateSessionOptions, 10);
CHORUS_SLOT(EnableCpuMemArena, 18);
CHORUS_SLOT(DisableCpuMemArena, 19);
CHORUS_SLOT(SetSessionLogSeverityLevel, 22);
CHORUS_SLOT(SetSessionGraphOptimizationLevel, 23);
CHORUS_SLOT(SetIntraOpNumThreads, 24);
CHORUS_SLOT(SetInterOpNumThreads, 25);
CHORUS_SLOT(SessionGetInputCount, 30);
CHORUS_SLOT(SessionGetOutputCount, 31);
CHORUS_SLOT(SessionGetInputTypeInfo, 33);
CHORUS_SLOT(SessionGetOutputTypeInfo, 34);
CHORUS_SLOT(SessionGetInputName, 36);
CHORUS_SLOT(SessionGetOutputName, 37);
CHORUS_SLOT(CreateTensorAsOrtValue, 48);
CHORUS_SLOT(CreateTensorWithDataAsOrtValue, 49);
CHORUS_SLOT(IsTensor, 50);
CHORUS_SLOT(GetTensorMutableData, 51);
CHORUS_SLOT(CastTypeInfoToTensorInfo, 55);
CHORUS_SLOT(GetOnnxTypeFromTypeInfo, 56);
CHORUS_SLOT(GetTensorElementType, 60);
CHORUS_SLOT(GetDimensionsCount, 61);
CHORUS_SLOT(GetDimensions, 62);
CHORUS_SLOT(GetSymbolicDimensions, 63);
CHORUS_SLOT(GetTensorShapeElementCount, 64);
CHORUS_SLOT(GetTensorTypeAndShape, 65);
CHORUS_SLOT(GetValueType, 67);
CHORUS_SLOT(CreateCpuMemoryInfo, 69);
CHORUS_SLOT(AllocatorFree, 76);
CHORUS_SLOT(GetAllocatorWithDefaultOptions, 78);
CHORUS_SLOT(ReleaseEnv, 92);
CHORUS_SLOT(ReleaseStatus, 93);
CHORUS_SLOT(ReleaseMemoryInfo, 94);
CHORUS_SLOT(ReleaseSession, 95);
CHORUS_SLOT(ReleaseValue, 96);
CHORUS_SLOT(ReleaseRunOptions, 97);
CHORUS_SLOT(ReleaseTypeInfo, 98);
CHORUS_SLOT(ReleaseTensorTypeAndShapeInfo, 99);
CHORUS_SLOT(ReleaseSessionOptions, 100);
CHORUS_SLOT(GetAvailableProviders, 125);
CHORUS_SLOT(ReleaseAvailableProviders, 126);
CHORUS_SLOT(AddSessionConfigEntry, 130);
CHORUS_SLOT(SessionOptionsAppendExecutionProvider_CUDA_V2, 204);
CHORUS_SLOT(CreateCUDAProviderOptions, 205);
CHORUS_SLOT(ReleaseCUDAProviderOptions, 208);
CHORUS_SLOT(SessionOptionsAppendExecutionProvider, 216);
