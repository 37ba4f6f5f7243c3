/// One timed run of a token engine's bench (ChatterboxBench, NeuTTSBench), in seconds, as its Python driver
/// reads it: the tokens drawn (wall time, and inside the runtime's run calls), their decoding, the whole
/// synthesis, and the streamed one with its first chunk.
public struct TokenEngineRun: Encodable {
    public var generate = 0.0, generateInRun = 0.0, decode = 0.0, whole = 0.0, firstChunk = 0.0, streamed = 0.0

    public init() {}
}
