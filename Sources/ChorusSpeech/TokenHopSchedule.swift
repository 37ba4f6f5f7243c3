/// When streaming turns speech tokens into audio (upstream CosyVoice2Model.tts with stream=True): the
/// first chunk waits for `firstHop` tokens plus padding that rounds the prompt up to a multiple of
/// `firstHop`, every chunk also waits for the decoder's lookahead tokens, and the hop grows by `growth`
/// after each chunk up to `maximumHop`.
public struct TokenHopSchedule: Sendable, Equatable {
    /// Tokens in the first hop, before the prompt padding.
    public let firstHop: Int
    /// The largest hop.
    public let maximumHop: Int
    /// Hop growth per chunk (upstream `stream_scale_factor`).
    public let growth: Int
    /// Tokens past a chunk the decoder reads.
    public let lookahead: Int

    /// Generated tokens already turned into audio.
    public private(set) var offset = 0
    private var hop: Int
    private let promptPadding: Int

    /// A schedule for a voice with `promptTokens` prompt speech tokens.
    public init(firstHop: Int, maximumHop: Int, growth: Int, lookahead: Int, promptTokens: Int = 0) {
        precondition(firstHop > 0 && maximumHop >= firstHop && growth >= 1, "hops grow from a positive first hop")
        self.firstHop = firstHop
        self.maximumHop = maximumHop
        self.growth = growth
        self.lookahead = lookahead
        hop = firstHop
        let rounded = (promptTokens + firstHop - 1) / firstHop * firstHop
        promptPadding = rounded - promptTokens
    }

    /// Tokens the next chunk turns into audio.
    public var nextHop: Int { offset == 0 ? hop + promptPadding : hop }
    /// Generated tokens that must exist before the next chunk: its hop plus the lookahead.
    public var tokensNeeded: Int { offset + nextHop + lookahead }

    /// Marks the next chunk as made.
    public mutating func advance() {
        offset += nextHop
        hop = min(maximumHop, hop * growth)
    }
}
