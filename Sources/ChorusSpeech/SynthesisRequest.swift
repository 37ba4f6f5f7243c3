/// What to say and how: the text, the voice, its language, and the speaking rate.
public struct SynthesisRequest: Sendable, Hashable {
    /// What should come soonest when the engine has a choice.
    public enum Priority: Sendable, Hashable {
        /// The first audio: speech heard as it is made (a stream, a response sent as it is made). An
        /// engine that runs pieces side by side runs the first alone, with all its threads.
        case firstAudio
        /// The whole text: audio kept until it is all made (a file). Pieces run side by side from the first.
        case wholeText
    }

    public var text: String
    /// An installed voice's id or a voice made in memory (`ClonedVoice`); `nil` picks the engine's default voice.
    public var voice: VoiceReference?
    /// The language of `text` as a BCP 47 tag ("en-US", "zh", "yue"), when the caller knows it; `nil`
    /// leaves it to the engine (the voice's language, or what the engine detects).
    public var language: String?
    /// Speaking rate, 1 being the voice's natural pace; engines accept 0.5 to 2.
    public var speed: Float
    /// What should come soonest; the first audio unless the caller keeps the audio until it is all made.
    public var priority: Priority
    /// The engine's own options (`SpeechOption`), by name, checked against what it declares; an engine reads
    /// those it declares and no other.
    public var options: [String: SpeechOptionValue]

    public init(text: String, voice: VoiceReference? = nil, language: String? = nil, speed: Float = 1,
                priority: Priority = .firstAudio, options: [String: SpeechOptionValue] = [:]) {
        self.text = text
        self.voice = voice
        self.language = language
        self.speed = speed
        self.priority = priority
        self.options = options
    }

    /// A request for the installed voice `voiceID` (the default voice when `nil`).
    public init(text: String, voiceID: String?, language: String? = nil, speed: Float = 1, priority: Priority = .firstAudio,
                options: [String: SpeechOptionValue] = [:]) {
        self.init(text: text, voice: voiceID.map(VoiceReference.installed), language: language, speed: speed, priority: priority,
                  options: options)
    }

    /// The speaking rates engines with a rate control accept.
    public static let speeds: ClosedRange<Float> = 0.5...2

    /// The checks every engine makes before any work: `SpeechError.emptyText` for text that is only
    /// whitespace, `SpeechError.overloadedCharacter` for a character built of more than
    /// `maximumScalarsPerCharacter` code points, `SpeechError.nothingToSpeak` for text with no letter,
    /// digit or symbol (only punctuation, control or format characters), `SpeechError.invalidSpeed` for
    /// a speed outside `speeds` (`1...1` for an engine that speaks at one pace).
    ///
    /// A limit on characters counts "a" with a thousand combining marks as one, while a front end that
    /// works per code point (CosyVoice's tokenizer) sees a thousand and one: such text cost 94 s and
    /// 1.1 GB in one request, so it is refused here, where every engine looks first.
    public func checkTextAndSpeed(speeds: ClosedRange<Float> = SynthesisRequest.speeds) throws {
        guard text.contains(where: { !$0.isWhitespace }) else { throw SpeechError.emptyText }
        if let heaviest = text.max(by: { $0.unicodeScalars.count < $1.unicodeScalars.count }),
           heaviest.unicodeScalars.count > Self.maximumScalarsPerCharacter {
            throw SpeechError.overloadedCharacter(scalars: heaviest.unicodeScalars.count, limit: Self.maximumScalarsPerCharacter)
        }
        guard text.unicodeScalars.contains(where: Self.isSpeakable) else { throw SpeechError.nothingToSpeak(text) }
        guard speeds.contains(speed) else { throw SpeechError.invalidSpeed(speed, allowed: speeds) }
    }

    /// Refuses, with `SpeechError.textTooCostly`, text whose front end made `units` of `unit` (phonemes, or
    /// model tokens) where more than `maximumCostPerCharacter` per character of the text (counted as at least
    /// `costFloorCharacters`) and `costAllowance` more: called by every engine once it knows the count and
    /// before any model runs, so no request costs far more than a long text of prose may. The floor lets a
    /// short text of a dear script through: espeak-ng's Japanese reads each kanji by name, 12-18 phonemes a
    /// character (a 24-character sentence made 441), and Kokoro speaks Japanese by default. On espeak-ng 1.52 (en-us; ja), prose makes 1.0 phonemes a character (3.8
    /// with ja), numbers and dates 3.8 (5.1), runs of digits 6.7 (6.3), spelled letters 2.5 (2.6); Hebrew
    /// letters, read one by one by name, 9.7 (16), and so did a 580-byte Hebrew text keep Kokoro speaking for
    /// 150 s; tokenizers make at most one token a byte, at most four a character once a character's code
    /// points are bounded (`maximumScalarsPerCharacter`) and it is not a stack of combining marks.
    public func checkCost(units: Int, unit: String) throws {
        let characters = text.count
        let limit = max(characters, Self.costFloorCharacters) * Self.maximumCostPerCharacter + Self.costAllowance
        guard units <= limit else {
            throw SpeechError.textTooCostly(characters: characters, units: units, unit: unit, limit: limit)
        }
    }

    /// The most phonemes or tokens a character of text may cost on average (see `checkCost`).
    public static let maximumCostPerCharacter = 8
    /// The fewest characters a text's cost allowance counts (see `checkCost`).
    public static let costFloorCharacters = 1_000
    /// Phonemes or tokens allowed over `maximumCostPerCharacter` a character, so that a short text with an
    /// emoji or a number read out in full is never refused.
    public static let costAllowance = 64

    /// The most code points one character may have: written languages stack a few marks on a letter,
    /// and the longest emoji sequences have 10.
    public static let maximumScalarsPerCharacter = 32

    /// Whether a code point is something an engine can say: a letter, a digit or a symbol. Punctuation,
    /// spaces, control and format characters alone make no speech.
    static func isSpeakable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }

    /// A speed as people write it: `2`, `0.5`, `1.25` (no `2.0`).
    public static func describe(_ speed: Float) -> String {
        speed.isFinite && speed == speed.rounded() && abs(speed) < 1e6 ? String(Int(speed)) : "\(speed)"
    }
}

/// Which voice a request speaks with.
public enum VoiceReference: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A voice the engine lists in `voices`, by its id.
    case installed(String)
    /// A voice made from a clip in memory by a `VoiceCloning` engine, used without being stored.
    case cloned(ClonedVoice)

    public init(stringLiteral id: String) { self = .installed(id) }

    /// The installed voice's id, or the cloned voice's.
    public var id: String {
        switch self {
        case .installed(let id): id
        case .cloned(let voice): voice.voice.id
        }
    }

    public var description: String { id }
}

/// A piece of synthesised audio, mono Float32 in [-1, 1].
public struct AudioChunk: Sendable, Equatable {
    public var samples: [Float]
    public var sampleRate: Int
    /// The part of the request's text this audio speaks, when the engine knows it.
    public var text: String?

    public init(samples: [Float], sampleRate: Int, text: String? = nil) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.text = text
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }
}
