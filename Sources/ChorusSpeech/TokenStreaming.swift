/// One streamed utterance of a token-based engine: takes tokens as the generator draws them and returns
/// audio whenever the schedule says a chunk is ready, through any `SpeechTokenDecoder`.
///
/// `add` does both at once; `append` and `decodeReadyChunks` split them, so a caller that draws tokens on
/// one thread can take them cheaply as they come and hand only the decoding to the threads that run models.
public struct TokenStreaming<Decoder: SpeechTokenDecoder> {
    /// The decoder of this utterance.
    public private(set) var decoder: Decoder
    /// Every token added so far.
    public private(set) var tokens: [Int] = []
    /// When chunks are cut.
    public private(set) var schedule: TokenHopSchedule

    public init(decoder: Decoder, schedule: TokenHopSchedule) {
        self.decoder = decoder
        self.schedule = schedule
    }

    /// Adds one token; returns the audio of every chunk it completes (empty when none).
    public mutating func add(_ token: Int) throws -> [Float] {
        append(token)
        return try decodeReadyChunks()
    }

    /// Adds one token without decoding anything.
    public mutating func append(_ token: Int) {
        tokens.append(token)
    }

    /// Whether the tokens so far complete a chunk not yet decoded.
    public var hasReadyChunk: Bool { tokens.count >= schedule.tokensNeeded }

    /// The audio of every chunk the tokens so far complete (empty when none).
    public mutating func decodeReadyChunks() throws -> [Float] {
        var audio: [Float] = []
        while hasReadyChunk {
            let end = schedule.offset + schedule.nextHop + schedule.lookahead
            audio += try decoder.decode(Array(tokens.prefix(end)), decoded: schedule.offset, final: false)
            schedule.advance()
        }
        return audio
    }

    /// The audio of the remaining tokens.
    public mutating func finish() throws -> [Float] {
        try decoder.decode(tokens, decoded: schedule.offset, final: true)
    }
}

extension TokenStreaming: Sendable where Decoder: Sendable {}
