import ChorusONNX

/// An autoregressive model as the decode loop drives it: one prefill over the prompt, then one step
/// per drawn token, each returning the logits of the next draw and keeping its KV cache in `cache`.
public protocol AutoregressiveModel {
    /// Runs the prompt; returns the logits the first token is drawn from (one row, float32 or float16).
    mutating func prefill(cache: KVCache) throws -> Tensor
    /// Feeds the drawn `token`; returns the logits of the next draw.
    mutating func step(_ token: Int, cache: KVCache) throws -> Tensor
}

/// The prefill/decode loop shared by the token-generating engines: draws with a `TokenSampler` until a
/// stop token or `maximumLength` tokens, calling `onToken` with each kept token as it is drawn.
public enum DecodeLoop {
    /// Generates tokens from `model`; returns them without the stop token. Cancellation of the inference
    /// job it runs in is checked after each token.
    public static func run<Model: AutoregressiveModel>(
        _ model: inout Model, sampler: inout TokenSampler, cache: KVCache, maximumLength: Int,
        isStop: (Int) -> Bool, onToken: (Int) throws -> Void = { _ in }
    ) throws -> [Int] {
        var tokens: [Int] = []
        tokens.reserveCapacity(maximumLength)
        guard maximumLength > 0 else { return tokens }
        var converted: [Float] = []
        var logits = try model.prefill(cache: cache)
        for step in 0..<maximumLength {
            let token = try withMutableFloats(logits, scratch: &converted) { try sampler.next($0) }
            if isStop(token) { break }
            tokens.append(token)
            try onToken(token)
            if step == maximumLength - 1 { break }
            try InferenceExecutor.checkCancellation()
            logits = try model.step(token, cache: cache)
        }
        return tokens
    }

    /// `body` over the tensor's elements as mutable Float: in place for float32, through `scratch` otherwise.
    static func withMutableFloats<R>(_ tensor: Tensor, scratch: inout [Float],
                                     _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        if tensor.elementType == .float32 {
            return try tensor.withUnsafeMutableBufferPointer(of: Float.self, body)
        }
        scratch = try tensor.floats()
        return try scratch.withUnsafeMutableBufferPointer { try body($0) }
    }
}
