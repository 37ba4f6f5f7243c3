/// Errors any engine can raise about a request, worded for the user.
public enum SpeechError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The text has nothing to say once whitespace is removed.
    case emptyText
    /// The text is longer than the engine accepts in one request.
    case textTooLong(characters: Int, limit: Int)
    /// One character of the text is built of more code points than any written language uses (a letter
    /// under hundreds of combining marks), which would cost a front end that works per code point dearly.
    case overloadedCharacter(scalars: Int, limit: Int)
    /// The engine's front end makes far more of the text than its length (`units` of `unit`, phonemes or
    /// tokens, where at most `limit` are allowed for its `characters`): see `SynthesisRequest.checkCost`.
    case textTooCostly(characters: Int, units: Int, unit: String, limit: Int)
    case unknownVoice(String, engine: String, available: [String])
    /// The voice is installed but damaged or incomplete.
    case unusableVoice(String, engine: String, problem: String)
    case noVoices(engine: String)
    /// A speed outside what the engine speaks (`allowed`: one value for an engine that speaks at one pace).
    case invalidSpeed(Float, allowed: ClosedRange<Float>)
    /// A request names a voice cloned by another engine (or, for an engine that cannot clone, any cloned voice).
    case clonedVoiceOfAnotherEngine(voice: String, madeBy: String, engine: String)
    /// A model's companion file (config, vocabulary, voices) is unreadable or malformed.
    case invalidModelFile(path: String, reason: String)
    /// A model lacks the output the engine reads its audio from: it is another model or another export.
    case missingModelOutput(path: String, output: String, outputs: [String], remedy: String)
    /// The text produced no sound the engine can speak (for example only symbols it has no phonemes for).
    case nothingToSpeak(String)
    /// A setting (an environment variable) has a value the engine cannot use.
    case invalidSetting(name: String, value: String, expected: String)
    /// A voice id that breaks `VoiceID`'s rule; `problem` says how.
    case invalidVoiceID(String, problem: String)
    /// A new voice's id is taken.
    case voiceExists(String, engine: String)
    /// The engine's voices folder is a file.
    case voicesFolderIsAFile(path: String)
    /// A voice could not be put in place or removed.
    case voiceNotWritten(String, folder: String, reason: String)
    /// A clip a voice is made from cannot be used (not finite, silent, too short or too long); `problem` says which.
    case unusableClip(problem: String)
    /// A text a voice would keep (its `field`: "transcript", "instruction") is longer than the engine keeps:
    /// `count` `unit` (characters or tokens) where `limit` are allowed.
    case voiceTextTooLong(field: String, count: Int, unit: String, limit: Int)
    /// A request gives an option the engine does not take (`known`: those it takes).
    case unknownOption(name: String, engine: String, known: [String])
    /// A request gives an option a value it does not take.
    case invalidOption(name: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .emptyText:
            return "The text is empty; give some words to speak."
        case .textTooLong(let characters, let limit):
            return "The text has \(characters) characters, more than the \(limit) allowed in one request; split it or stream it."
        case .overloadedCharacter(let scalars, let limit):
            return "The text has a character made of \(scalars) code points (combining marks), more than the \(limit) any language needs; remove the marks."
        case .textTooCostly(let characters, let units, let unit, let limit):
            return "The text's \(characters) characters make \(units) \(unit), more than the \(limit) allowed for that length (\(SynthesisRequest.maximumCostPerCharacter) a character, counting at least \(SynthesisRequest.costFloorCharacters), and \(SynthesisRequest.costAllowance) more); write out what is read letter by letter or by name, or send it in a language the engine speaks."
        case .unknownVoice(let id, let engine, let available):
            return "Unknown voice '\(VoiceID.excerpt(of: id))' for \(engine). Available: \(available.joined(separator: ", "))."
        case .unusableVoice(let id, let engine, let problem):
            return "The \(engine) voice '\(id)' cannot be used: \(problem); add it again with `chorus voice add` or remove its folder."
        case .noVoices(let engine):
            return "The \(engine) engine has no voices installed."
        case .clonedVoiceOfAnotherEngine(let voice, let madeBy, let engine):
            return "Voice '\(voice)' was cloned by \(madeBy) and cannot speak with \(engine); clone it with \(engine) or pick one of its voices."
        case .invalidSpeed(let speed, let allowed) where allowed.lowerBound == allowed.upperBound:
            return "Speed \(SynthesisRequest.describe(speed)) is not available: this engine speaks at \(SynthesisRequest.describe(allowed.lowerBound)) only; leave the speed out."
        case .invalidSpeed(let speed, let allowed):
            return "Speed \(SynthesisRequest.describe(speed)) is out of range; use a value from \(SynthesisRequest.describe(allowed.lowerBound)) to \(SynthesisRequest.describe(allowed.upperBound))."
        case .invalidModelFile(let path, let reason):
            return "Model file \(path) is invalid: \(reason)."
        case .missingModelOutput(let path, let output, let outputs, let remedy):
            return "Model file \(path) has no output named \"\(output)\" (its outputs: \(outputs.joined(separator: ", "))). \(remedy)"
        case .nothingToSpeak(let text):
            return "Nothing speakable in \"\(Self.shown(text.prefix(60)))\"."
        case .invalidSetting(let name, let value, let expected):
            return "\(name) is '\(value)'; set it to \(expected), or unset it for the default."
        case .invalidVoiceID(let id, let problem):
            return "The voice id '\(id)' cannot be used: \(problem)."
        case .voiceExists(let id, let engine):
            return "The \(engine) engine already has a voice '\(id)'; pick another id, or replace it (add --replace, or send replace=true)."
        case .voicesFolderIsAFile(let path):
            return "\(path) should be the folder of voices but is a file; move it away."
        case .voiceNotWritten(let id, let folder, let reason):
            return "The voice '\(id)' could not be written in \(folder): \(reason); check the folder's permissions and free space."
        case .unusableClip(let problem):
            return "The clip cannot make a voice: \(problem)."
        case .voiceTextTooLong(let field, let count, let unit, let limit):
            return "The voice's \(field) is \(count) \(unit), over the \(limit) a voice keeps; give a shorter one."
        case .unknownOption(let name, let engine, let known):
            return "The \(engine) engine takes no option '\(Self.shown(name.prefix(40)))'; "
                + (known.isEmpty ? "it takes none." : "it takes \(known.joined(separator: ", ")).")
        case .invalidOption(let name, let value, let expected):
            return "The option \(name) is '\(Self.shown(value.prefix(40)))'; give \(expected)."
        }
    }

    /// `text` with control and invisible characters written as U+XXXX, so a message about them shows what was
    /// sent instead of moving the cursor or showing nothing.
    static func shown(_ text: Substring) -> String {
        text.unicodeScalars.map { scalar in
            scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .control
                ? "U+\(String(scalar.value, radix: 16, uppercase: true))" : String(scalar)
        }.joined()
    }
}
