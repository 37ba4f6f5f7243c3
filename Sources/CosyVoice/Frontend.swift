/// Turns text into the token ids the LLM reads.
///
/// CosyVoice 3 reads Qwen2 byte-level BPE ids with its added special tokens (`<|endofprompt|>` is
/// 151646). Any tokenizer with that vocabulary can serve; the engine asks only for `encode`.
public protocol TextTokenizing: Sendable {
    /// The ids of `text`, special tokens matched whole.
    func encode(_ text: String) throws -> [Int]
}

/// The text front end: the prompt text upstream expects, and the ids of prompt and target.
public struct Frontend: Sendable {
    /// Marks the end of the instruction part of the prompt text; upstream requires it.
    public static let endOfPrompt = "<|endofprompt|>"
    /// Upstream's default instruction, put before a voice's transcript when it has none.
    public static let defaultInstruction = "You are a helpful assistant."

    let tokenizer: any TextTokenizing

    public init(tokenizer: any TextTokenizing) {
        self.tokenizer = tokenizer
    }

    /// The prompt text for a voice transcript: `You are a helpful assistant.<|endofprompt|>` + transcript,
    /// unless the transcript already carries `<|endofprompt|>`.
    public static func promptText(transcript: String) -> String {
        transcript.contains(endOfPrompt) ? transcript : defaultInstruction + endOfPrompt + transcript
    }

    /// Ids of the prompt text (instruction and transcript) and of the text to speak.
    public func tokens(transcript: String, text: String) throws -> (prompt: [Int], text: [Int]) {
        (try tokenizer.encode(Self.promptText(transcript: transcript)), try tokenizer.encode(text))
    }
}
