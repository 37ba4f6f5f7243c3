// Chorus's own declarations of the part of the ONNX Runtime C API it calls.
//
// No PyPI wheel ships onnxruntime_c_api.h, so these are written from the public
// API description. The runtime library exports only OrtGetApiBase; every other
// function is a slot in the OrtApi table. Slots are only ever appended, so this
// table stops at the last slot Chorus uses and names the others `unusedN`.
// CChorusONNX.c checks every named slot's offset at compile time.
#ifndef CHORUS_CONNXRUNTIME_H
#define CHORUS_CONNXRUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OrtEnv OrtEnv;
typedef struct OrtStatus OrtStatus;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtSession OrtSession;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtTypeInfo OrtTypeInfo;
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtAllocator OrtAllocator;
typedef struct OrtCUDAProviderOptionsV2 OrtCUDAProviderOptionsV2;

typedef OrtStatus *_Nullable OrtStatusPtr;

typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 = 14,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 = 15,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16
} ONNXTensorElementDataType;

typedef enum ONNXType {
  ONNX_TYPE_UNKNOWN = 0,
  ONNX_TYPE_TENSOR = 1,
  ONNX_TYPE_SEQUENCE = 2,
  ONNX_TYPE_MAP = 3,
  ONNX_TYPE_OPAQUE = 4,
  ONNX_TYPE_SPARSETENSOR = 5,
  ONNX_TYPE_OPTIONAL = 6
} ONNXType;

typedef enum OrtLoggingLevel {
  ORT_LOGGING_LEVEL_VERBOSE = 0,
  ORT_LOGGING_LEVEL_INFO = 1,
  ORT_LOGGING_LEVEL_WARNING = 2,
  ORT_LOGGING_LEVEL_ERROR = 3,
  ORT_LOGGING_LEVEL_FATAL = 4
} OrtLoggingLevel;

typedef enum OrtErrorCode {
  ORT_OK = 0,
  ORT_FAIL = 1,
  ORT_INVALID_ARGUMENT = 2,
  ORT_NO_SUCHFILE = 3,
  ORT_NO_MODEL = 4,
  ORT_ENGINE_ERROR = 5,
  ORT_RUNTIME_EXCEPTION = 6,
  ORT_INVALID_PROTOBUF = 7,
  ORT_MODEL_LOADED = 8,
  ORT_NOT_IMPLEMENTED = 9,
  ORT_INVALID_GRAPH = 10,
  ORT_EP_FAIL = 11
} OrtErrorCode;

typedef enum GraphOptimizationLevel {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_ALL = 99
} GraphOptimizationLevel;

typedef enum OrtAllocatorType {
  OrtInvalidAllocator = -1,
  OrtDeviceAllocator = 0,
  OrtArenaAllocator = 1
} OrtAllocatorType;

typedef enum OrtMemType {
  OrtMemTypeCPUInput = -2,
  OrtMemTypeCPUOutput = -1,
  OrtMemTypeDefault = 0
} OrtMemType;

typedef const void *_Nullable OrtUnusedSlot;

typedef struct OrtApi {
  OrtStatus *_Nullable (*_Nonnull CreateStatus)(OrtErrorCode code, const char *_Nonnull msg);             // 0
  OrtErrorCode (*_Nonnull GetErrorCode)(const OrtStatus *_Nonnull status);                                 // 1
  const char *_Nonnull (*_Nonnull GetErrorMessage)(const OrtStatus *_Nonnull status);                      // 2
  OrtStatusPtr (*_Nonnull CreateEnv)(OrtLoggingLevel level, const char *_Nonnull logid,
                                     OrtEnv *_Nullable *_Nonnull out);                                      // 3
  OrtUnusedSlot unused4, unused5;
  OrtStatusPtr (*_Nonnull DisableTelemetryEvents)(const OrtEnv *_Nonnull env);                            // 6
  OrtStatusPtr (*_Nonnull CreateSession)(const OrtEnv *_Nonnull env, const char *_Nonnull model_path,
                                         const OrtSessionOptions *_Nonnull options,
                                         OrtSession *_Nullable *_Nonnull out);                              // 7
  OrtStatusPtr (*_Nonnull CreateSessionFromArray)(const OrtEnv *_Nonnull env, const void *_Nonnull model_data,
                                                  size_t model_data_length, const OrtSessionOptions *_Nonnull options,
                                                  OrtSession *_Nullable *_Nonnull out);                     // 8
  OrtStatusPtr (*_Nonnull Run)(OrtSession *_Nonnull session, const OrtRunOptions *_Nullable run_options,
                               const char *_Nonnull const *_Nonnull input_names,
                               const OrtValue *_Nullable const *_Nonnull inputs, size_t input_len,
                               const char *_Nonnull const *_Nonnull output_names, size_t output_names_len,
                               OrtValue *_Nullable *_Nonnull outputs);                                      // 9
  OrtStatusPtr (*_Nonnull CreateSessionOptions)(OrtSessionOptions *_Nullable *_Nonnull options);           // 10
  OrtStatusPtr (*_Nonnull SetOptimizedModelFilePath)(OrtSessionOptions *_Nonnull options,
                                                     const char *_Nonnull optimized_model_filepath);        // 11
  OrtUnusedSlot unused12, unused13, unused14, unused15;
  OrtStatusPtr (*_Nonnull EnableMemPattern)(OrtSessionOptions *_Nonnull options);                          // 16
  OrtStatusPtr (*_Nonnull DisableMemPattern)(OrtSessionOptions *_Nonnull options);                         // 17
  OrtStatusPtr (*_Nonnull EnableCpuMemArena)(OrtSessionOptions *_Nonnull options);                         // 18
  OrtStatusPtr (*_Nonnull DisableCpuMemArena)(OrtSessionOptions *_Nonnull options);                        // 19
  OrtUnusedSlot unused20, unused21;
  OrtStatusPtr (*_Nonnull SetSessionLogSeverityLevel)(OrtSessionOptions *_Nonnull options, int level);     // 22
  OrtStatusPtr (*_Nonnull SetSessionGraphOptimizationLevel)(OrtSessionOptions *_Nonnull options,
                                                            GraphOptimizationLevel level);                  // 23
  OrtStatusPtr (*_Nonnull SetIntraOpNumThreads)(OrtSessionOptions *_Nonnull options, int threads);         // 24
  OrtStatusPtr (*_Nonnull SetInterOpNumThreads)(OrtSessionOptions *_Nonnull options, int threads);         // 25
  OrtUnusedSlot unused26, unused27, unused28, unused29;
  OrtStatusPtr (*_Nonnull SessionGetInputCount)(const OrtSession *_Nonnull session, size_t *_Nonnull out); // 30
  OrtStatusPtr (*_Nonnull SessionGetOutputCount)(const OrtSession *_Nonnull session, size_t *_Nonnull out);// 31
  OrtUnusedSlot unused32;
  OrtStatusPtr (*_Nonnull SessionGetInputTypeInfo)(const OrtSession *_Nonnull session, size_t index,
                                                   OrtTypeInfo *_Nullable *_Nonnull out);                   // 33
  OrtStatusPtr (*_Nonnull SessionGetOutputTypeInfo)(const OrtSession *_Nonnull session, size_t index,
                                                    OrtTypeInfo *_Nullable *_Nonnull out);                  // 34
  OrtUnusedSlot unused35;
  OrtStatusPtr (*_Nonnull SessionGetInputName)(const OrtSession *_Nonnull session, size_t index,
                                               OrtAllocator *_Nonnull allocator,
                                               char *_Nullable *_Nonnull out);                              // 36
  OrtStatusPtr (*_Nonnull SessionGetOutputName)(const OrtSession *_Nonnull session, size_t index,
                                                OrtAllocator *_Nonnull allocator,
                                                char *_Nullable *_Nonnull out);                             // 37
  OrtUnusedSlot unused38;
  OrtStatusPtr (*_Nonnull CreateRunOptions)(OrtRunOptions *_Nullable *_Nonnull out);                      // 39
  OrtUnusedSlot unused40, unused41, unused42, unused43, unused44, unused45;
  OrtStatusPtr (*_Nonnull RunOptionsSetTerminate)(OrtRunOptions *_Nonnull options);                        // 46
  OrtUnusedSlot unused47;
  OrtStatusPtr (*_Nonnull CreateTensorAsOrtValue)(OrtAllocator *_Nonnull allocator,
                                                  const int64_t *_Nullable shape, size_t shape_len,
                                                  ONNXTensorElementDataType type,
                                                  OrtValue *_Nullable *_Nonnull out);                       // 48
  OrtStatusPtr (*_Nonnull CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *_Nonnull info,
                                                          void *_Nullable p_data, size_t p_data_len,
                                                          const int64_t *_Nullable shape, size_t shape_len,
                                                          ONNXTensorElementDataType type,
                                                          OrtValue *_Nullable *_Nonnull out);               // 49
  OrtStatusPtr (*_Nonnull IsTensor)(const OrtValue *_Nonnull value, int *_Nonnull out);                    // 50
  OrtStatusPtr (*_Nonnull GetTensorMutableData)(OrtValue *_Nonnull value, void *_Nullable *_Nonnull out);  // 51
  OrtUnusedSlot unused52, unused53, unused54;
  OrtStatusPtr (*_Nonnull CastTypeInfoToTensorInfo)(const OrtTypeInfo *_Nonnull type_info,
                                                    const OrtTensorTypeAndShapeInfo *_Nullable *_Nonnull out); // 55
  OrtStatusPtr (*_Nonnull GetOnnxTypeFromTypeInfo)(const OrtTypeInfo *_Nonnull type_info,
                                                   ONNXType *_Nonnull out);                                 // 56
  OrtUnusedSlot unused57, unused58, unused59;
  OrtStatusPtr (*_Nonnull GetTensorElementType)(const OrtTensorTypeAndShapeInfo *_Nonnull info,
                                                ONNXTensorElementDataType *_Nonnull out);                   // 60
  OrtStatusPtr (*_Nonnull GetDimensionsCount)(const OrtTensorTypeAndShapeInfo *_Nonnull info,
                                              size_t *_Nonnull out);                                        // 61
  OrtStatusPtr (*_Nonnull GetDimensions)(const OrtTensorTypeAndShapeInfo *_Nonnull info,
                                         int64_t *_Nonnull dim_values, size_t dim_values_length);          // 62
  OrtStatusPtr (*_Nonnull GetSymbolicDimensions)(const OrtTensorTypeAndShapeInfo *_Nonnull info,
                                                 const char *_Nullable *_Nonnull dim_params,
                                                 size_t dim_params_length);                                 // 63
  OrtStatusPtr (*_Nonnull GetTensorShapeElementCount)(const OrtTensorTypeAndShapeInfo *_Nonnull info,
                                                      size_t *_Nonnull out);                                // 64
  OrtStatusPtr (*_Nonnull GetTensorTypeAndShape)(const OrtValue *_Nonnull value,
                                                 OrtTensorTypeAndShapeInfo *_Nullable *_Nonnull out);       // 65
  OrtUnusedSlot unused66;
  OrtStatusPtr (*_Nonnull GetValueType)(const OrtValue *_Nonnull value, ONNXType *_Nonnull out);           // 67
  OrtUnusedSlot unused68;
  OrtStatusPtr (*_Nonnull CreateCpuMemoryInfo)(OrtAllocatorType type, OrtMemType mem_type,
                                               OrtMemoryInfo *_Nullable *_Nonnull out);                     // 69
  OrtUnusedSlot unused70, unused71, unused72, unused73, unused74, unused75;
  OrtStatusPtr (*_Nonnull AllocatorFree)(OrtAllocator *_Nonnull allocator, void *_Nullable p);             // 76
  OrtUnusedSlot unused77;
  OrtStatusPtr (*_Nonnull GetAllocatorWithDefaultOptions)(OrtAllocator *_Nullable *_Nonnull out);          // 78
  OrtUnusedSlot unused79, unused80, unused81, unused82, unused83, unused84, unused85, unused86, unused87,
      unused88, unused89, unused90, unused91;
  void (*_Nonnull ReleaseEnv)(OrtEnv *_Nullable input);                                                   // 92
  void (*_Nonnull ReleaseStatus)(OrtStatus *_Nullable input);                                             // 93
  void (*_Nonnull ReleaseMemoryInfo)(OrtMemoryInfo *_Nullable input);                                     // 94
  void (*_Nonnull ReleaseSession)(OrtSession *_Nullable input);                                           // 95
  void (*_Nonnull ReleaseValue)(OrtValue *_Nullable input);                                               // 96
  void (*_Nonnull ReleaseRunOptions)(OrtRunOptions *_Nullable input);                                     // 97
  void (*_Nonnull ReleaseTypeInfo)(OrtTypeInfo *_Nullable input);                                         // 98
  void (*_Nonnull ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *_Nullable input);             // 99
  void (*_Nonnull ReleaseSessionOptions)(OrtSessionOptions *_Nullable input);                             // 100
  OrtUnusedSlot unused101, unused102, unused103, unused104, unused105, unused106, unused107, unused108,
      unused109, unused110, unused111, unused112, unused113, unused114, unused115, unused116, unused117,
      unused118, unused119, unused120, unused121, unused122, unused123, unused124;
  OrtStatusPtr (*_Nonnull GetAvailableProviders)(char *_Nullable *_Nullable *_Nonnull out_ptr,
                                                 int *_Nonnull provider_length);                            // 125
  OrtStatusPtr (*_Nonnull ReleaseAvailableProviders)(char *_Nullable *_Nullable ptr, int providers_length);// 126
  OrtUnusedSlot unused127, unused128, unused129;
  OrtStatusPtr (*_Nonnull AddSessionConfigEntry)(OrtSessionOptions *_Nonnull options,
                                                 const char *_Nonnull config_key,
                                                 const char *_Nonnull config_value);                        // 130
  OrtUnusedSlot unused131, unused132, unused133, unused134, unused135, unused136, unused137, unused138, unused139, unused140,
      unused141, unused142, unused143, unused144, unused145, unused146, unused147, unused148, unused149, unused150,
      unused151, unused152, unused153, unused154, unused155, unused156, unused157, unused158, unused159, unused160,
      unused161, unused162, unused163, unused164;
  OrtStatusPtr (*_Nonnull AddRunConfigEntry)(OrtRunOptions *_Nonnull options, const char *_Nonnull config_key,
                                             const char *_Nonnull config_value);                           // 165
  OrtUnusedSlot unused166, unused167, unused168, unused169, unused170,
      unused171, unused172, unused173, unused174, unused175, unused176, unused177, unused178, unused179, unused180,
      unused181, unused182, unused183, unused184, unused185, unused186, unused187, unused188, unused189, unused190,
      unused191, unused192, unused193, unused194, unused195, unused196, unused197, unused198, unused199, unused200,
      unused201, unused202, unused203;
  OrtStatusPtr (*_Nonnull SessionOptionsAppendExecutionProvider_CUDA_V2)(
      OrtSessionOptions *_Nonnull options, const OrtCUDAProviderOptionsV2 *_Nonnull cuda_options);        // 204
  OrtStatusPtr (*_Nonnull CreateCUDAProviderOptions)(OrtCUDAProviderOptionsV2 *_Nullable *_Nonnull out);   // 205
  OrtUnusedSlot unused206, unused207;
  void (*_Nonnull ReleaseCUDAProviderOptions)(OrtCUDAProviderOptionsV2 *_Nullable input);                 // 208
  OrtUnusedSlot unused209, unused210, unused211, unused212, unused213, unused214, unused215;
  OrtStatusPtr (*_Nonnull SessionOptionsAppendExecutionProvider)(
      OrtSessionOptions *_Nonnull options, const char *_Nonnull provider_name,
      const char *_Nonnull const *_Nullable provider_options_keys,
      const char *_Nonnull const *_Nullable provider_options_values, size_t num_keys);                    // 216
} OrtApi;

// The API version whose slots the table above covers: the generic provider
// append (slot 216) arrived in version 12 (runtime 1.12); Chorus needs 1.19+ anyway.
#define CHORUS_ORT_API_VERSION 12

typedef struct OrtApiBase {
  const OrtApi *_Nullable (*_Nonnull GetApi)(uint32_t version);
  const char *_Nonnull (*_Nonnull GetVersionString)(void);
} OrtApiBase;

typedef const OrtApiBase *_Nullable (*OrtGetApiBaseFunction)(void);

#ifdef __cplusplus
}
#endif

#endif
