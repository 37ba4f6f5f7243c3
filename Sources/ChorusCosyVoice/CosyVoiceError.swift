import ChorusSpeech
import Foundation

/// What can go wrong inside the CosyVoice engine, worded for the person who has to fix it.
public enum CosyVoiceError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A model's inputs or outputs are not what the community export declares.
    case unexpectedSignature(file: String, problem: String)
    /// The estimator has an attention-mask input that is not upstream's bool [2, 1, frames, frames].
    case unusableAttentionMask(file: String, problem: String)
    /// A voice folder is missing a file or holds one that cannot be read.
    case invalidVoice(folder: String, problem: String)
    /// A voice clip's transcript is empty.
    case emptyTranscript
    /// A voice made without a transcript was asked to speak zero-shot, which reads the transcript.
    case voiceWithoutTranscript(voice: String)
    /// A voice clip is shorter than voice extraction accepts.
    case clipTooShort(seconds: Double, minimum: Double)
    /// A voice clip is longer than the speech tokenizer reads.
    case clipTooLong(seconds: Double, maximum: Double)
    /// A voice clip holds a NaN or infinite sample.
    case clipNotFinite(index: Int)
    /// A voice clip holds no sound.
    case clipSilent(peak: Float)
    /// A model returned a tensor of an unexpected shape.
    case unexpectedOutput(model: String, name: String, shape: [Int], expected: String)
    /// `CHORUS_COSYVOICE_SPEECH_TOKENS` holds something other than a token count.
    case invalidSpeechTokens(value: String)

    public var description: String {
        switch self {
        case .unexpectedSignature(let file, let problem):
            return "\(file) does not look like the CosyVoice 3 export: \(problem). Re-download that file."
        case .unusableAttentionMask(let file, let problem):
            return "\(file) has an attention-mask input, but \(problem), where Chorus feeds upstream's mask as bool "
                + "[2, 1, frames, frames] (true where a frame may attend); export the estimator with that input, "
                + "or use the community export's estimator, which has none and attends fully."
        case .invalidVoice(let folder, let problem):
            return "The voice in \(folder) is unusable: \(problem). Rebuild it with `chorus voice add`."
        case .emptyTranscript:
            return "The transcript is empty; give the exact words the clip says (--text)."
        case .voiceWithoutTranscript(let voice):
            return "The voice '\(voice)' was added without a transcript, so it speaks only cross-lingually; "
                + "speak with --cross-lingual, or add the voice again with --text giving the clip's exact words."
        case .clipTooShort(let seconds, let minimum):
            return "The clip lasts \(String(format: "%.2f", seconds)) s, shorter than \(minimum) s; use 2 to 6 s of clear speech."
        case .clipTooLong(let seconds, let maximum):
            return "The clip lasts \(String(format: "%.1f", seconds)) s, longer than the \(maximum) s the speech tokenizer reads; "
                + "cut it to 2 to 6 s of clear speech."
        case .clipNotFinite(let index):
            return "Clip sample \(index) is not a finite number (NaN or infinity); the clip is corrupt, so decode or record it again."
        case .clipSilent(let peak):
            return "The clip is silent (peak \(peak)); record or pick a clip with speech in it."
        case .unexpectedOutput(let model, let name, let shape, let expected):
            return "\(model) returned '\(name)' with shape \(shape), expected \(expected)."
        case .invalidSpeechTokens(let value):
            return "\(CosyVoiceSynthesizer.Configuration.speechTokensVariable)='\(value)' is not a token count; "
                + "set it to a whole number from 1 to \(CosyVoiceSynthesizer.Configuration.speechTokenRange.upperBound), or unset it."
        }
    }
}

extension CosyVoiceError: CallerMistake {
    /// A clip or transcript that cannot make a voice, and a voice without transcript asked to speak zero-shot,
    /// are the caller's to fix.
    public var isCallersMistake: Bool {
        switch self {
        case .emptyTranscript, .voiceWithoutTranscript, .clipTooShort, .clipTooLong, .clipNotFinite, .clipSilent: true
        case .unexpectedSignature, .unusableAttentionMask, .invalidVoice, .unexpectedOutput, .invalidSpeechTokens: false
        }
    }
}
