import Foundation
import ChorusSpeech
import ChorusText

/// The text front end: upstream's text normalisation and paragraph splitting, the prompt text upstream
/// expects, and the token ids of prompt and target.
///
/// CosyVoice 3 reads Qwen2 byte-level BPE ids with its added special tokens (`<|endofprompt|>` is
/// 151646); `loadTokenizer(from:)` builds that tokenizer from a model folder's vocab.json and merges.txt.
public struct Frontend: Sendable {
    /// Marks the end of the instruction part of the prompt text; upstream requires it.
    public static let endOfPrompt = "<|endofprompt|>"
    /// Upstream's default instruction, put before a voice's transcript when it has none.
    public static let defaultInstruction = "You are a helpful assistant."

    /// The tokenizer in use.
    public let tokenizer: any TextTokenizer
    /// upstream `text_normalize`, with wetext when it is given.
    public let normalizer: CosyVoiceTextNormalizer

    /// A front end reading with `tokenizer`; `wetext` normalises text first (nil skips that step, as
    /// upstream does when no normaliser is installed).
    public init(tokenizer: any TextTokenizer, wetext: WeTextNormalizer? = nil) {
        self.tokenizer = tokenizer
        self.normalizer = CosyVoiceTextNormalizer(wetext: wetext, tokenizer: tokenizer)
    }

    /// upstream `CosyVoice3Tokenizer`: the folder's Qwen2 tokenizer (with any `added_tokens_decoder` of
    /// its tokenizer_config.json) plus CosyVoice 3's special tokens, in upstream's order.
    public static func loadTokenizer(from folder: URL) throws -> any TextTokenizer {
        try BPETokenizer(folder: folder).addingSpecialTokens(BPETokenizer.cosyVoice3SpecialTokens)
    }

    /// The prompt text for a voice transcript: `You are a helpful assistant.<|endofprompt|>` + transcript,
    /// unless the transcript already carries `<|endofprompt|>`.
    public static func promptText(transcript: String) -> String {
        transcript.contains(endOfPrompt) ? transcript : defaultInstruction + endOfPrompt + transcript
    }

    /// The LLM prompt of upstream `inference_instruct2` (CosyVoice 3's README writes
    /// `You are a helpful assistant. 请用广东话表达。<|endofprompt|>`): the default instruction, a space,
    /// `instruction`, and `<|endofprompt|>`, unless `instruction` already carries `<|endofprompt|>`.
    public static func instructionPrompt(_ instruction: String) -> String {
        instruction.contains(endOfPrompt) ? instruction : defaultInstruction + " " + instruction + endOfPrompt
    }

    /// The text the LLM reads in upstream `inference_cross_lingual`: `You are a helpful assistant.<|endofprompt|>`
    /// before the text (as upstream's examples write it), unless the text already carries `<|endofprompt|>`.
    /// Upstream's markup rule then leaves it whole: not normalised, not split.
    public static func crossLingualText(_ text: String) -> String {
        text.contains(endOfPrompt) ? text : defaultInstruction + endOfPrompt + text
    }

    /// The text to speak, normalised and cut into the pieces synthesised one after another
    /// (upstream `text_normalize(text, split=True)`).
    public func pieces(of text: String) throws -> [String] {
        try normalizer.pieces(of: text)
    }

    /// Ids of the LLM's prompt text: the voice's `instruction` when it has one (and then the LLM hears
    /// no prompt speech), else its transcript after the default instruction.
    ///
    /// Upstream normalises a zero-shot prompt text with `split=False`; since it carries `<|endofprompt|>`,
    /// the markup rule leaves it unchanged, and so does `normalized(_:)` here. `inference_instruct2`
    /// does not normalise the instruction at all.
    ///
    /// Throws `SpeechError.voiceTextTooLong` past `maximumPromptTokens`: the LLM reads these ids on every
    /// request in the voice, so a clone is refused by the same rule before it is kept.
    public func promptTokens(transcript: String, instruction: String?) throws -> [Int] {
        try VoiceClip.checkStoredText(transcript, field: "transcript", limit: VoiceClip.maximumTranscriptCharacters)
        try VoiceClip.checkStoredText(instruction, field: "instruction", limit: VoiceClip.maximumInstructionCharacters)
        let ids = if let instruction {
            try tokenizer.encode(Self.instructionPrompt(instruction))
        } else {
            try tokenizer.encode(normalizer.normalized(Self.promptText(transcript: transcript)))
        }
        guard ids.count <= Self.maximumPromptTokens else {
            throw SpeechError.voiceTextTooLong(field: instruction == nil ? "transcript" : "instruction", count: ids.count,
                                               unit: "tokens", limit: Self.maximumPromptTokens)
        }
        return ids
    }

    /// The most ids a voice's prompt text (its transcript after the default instruction, or its instruction)
    /// makes: about what 30 s of speech, the longest clip, says in Chinese, three times what it says in English.
    public static let maximumPromptTokens = 500
}
