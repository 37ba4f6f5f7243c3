import CChorusONNX

/// Attaches accelerators to session options; callers check the library has them first.
enum ExecutionProviders {
    static func append(_ provider: SessionOptions.ExecutionProvider, to options: OpaquePointer, runtime: OnnxRuntime) throws {
        let api = runtime.api
        switch provider {
        case .coreML:
            try runtime.check(api.SessionOptionsAppendExecutionProvider(options, "CoreML", nil, nil, 0))
        case .cuda:
            var cudaOptions: OpaquePointer?
            try runtime.check(api.CreateCUDAProviderOptions(&cudaOptions))
            defer { api.ReleaseCUDAProviderOptions(cudaOptions) }
            try runtime.check(api.SessionOptionsAppendExecutionProvider_CUDA_V2(options, cudaOptions!))
        }
    }
}
