/// A setting an engine takes beyond the text, voice, language and speed (Piper's noise scale, CosyVoice's
/// instruction). Engines declare theirs (`Engine.options`), so every surface offers the same ones from that one
/// list: the command line (`--set NAME=VALUE`), a speech request's field of that name, `/v1/models` and the
/// playground's controls.
public struct SpeechOption: Sendable, Hashable {
    /// What values it takes.
    public enum Kind: Sendable, Hashable {
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
        /// Text of at most this many characters, not blank.
        case text(maximumCharacters: Int)
        /// On or off.
        case flag

        /// Whether its values are text, as given.
        var takesText: Bool {
            if case .text = self { true } else { false }
        }
    }

    /// Its name, lower case with underscores: the request field and the name `--set` takes.
    public let name: String
    public let kind: Kind
    /// What it does and its default, in a sentence.
    public let summary: String

    public init(_ name: String, _ kind: Kind, summary: String) {
        self.name = name
        self.kind = kind
        self.summary = summary
    }

    /// `value` if this option takes it, text given for a number or a flag ("0.5", "true": a command line, a form,
    /// a JSON string) read as one (`parsed`); `SpeechError.invalidOption` saying what it takes otherwise.
    public func checked(_ value: SpeechOptionValue) throws -> SpeechOptionValue {
        if case .text(let text) = value, !kind.takesText { return try parsed(text) }
        switch (kind, value) {
        case (.number(let range), .number(let number)) where number.isFinite && range.contains(number):
            return value
        case (.integer(let range), .number(let number))
            where number.isFinite && number.rounded() == number && Double(range.lowerBound)...Double(range.upperBound) ~= number:
            return value
        case (.text(let limit), .text(let text)) where !text.allSatisfy(\.isWhitespace) && text.count <= limit:
            return value
        case (.flag, .flag):
            return value
        default:
            throw SpeechError.invalidOption(name: name, value: value.description, expected: expected)
        }
    }

    /// `text` (from a command line or a form field) read as this option's kind, then checked.
    public func parsed(_ text: String) throws -> SpeechOptionValue {
        switch kind {
        case .number, .integer:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw SpeechError.invalidOption(name: name, value: text, expected: expected)
            }
            return try checked(.number(number))
        case .text:
            return try checked(.text(text))
        case .flag:
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes", "on": return .flag(true)
            case "false", "0", "no", "off": return .flag(false)
            default: throw SpeechError.invalidOption(name: name, value: text, expected: expected)
            }
        }
    }

    /// What it takes, in words ("a number from 0 to 2").
    public var expected: String {
        switch kind {
        case .number(let range): "a number from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))"
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .text(let limit): "text of 1 to \(limit) characters"
        case .flag: "true or false"
        }
    }

    static func shown(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

/// A value given for a `SpeechOption`.
public enum SpeechOptionValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case text(String)
    case flag(Bool)

    public var number: Double? {
        if case .number(let number) = self { number } else { nil }
    }

    public var text: String? {
        if case .text(let text) = self { text } else { nil }
    }

    public var flag: Bool? {
        if case .flag(let flag) = self { flag } else { nil }
    }

    public var description: String {
        switch self {
        case .number(let number): SpeechOption.shown(number)
        case .text(let text): text.count > 40 ? String(text.prefix(40)) + "…" : text
        case .flag(let flag): String(flag)
        }
    }
}

extension Array where Element == SpeechOption {
    /// `given` checked against these options: each name one of them (`SpeechError.unknownOption` naming
    /// `engine` and the ones it takes otherwise), each value one it takes.
    public func checked(_ given: [String: SpeechOptionValue], engine: String) throws -> [String: SpeechOptionValue] {
        var checked: [String: SpeechOptionValue] = [:]
        for (name, value) in given.sorted(by: { $0.key < $1.key }) {
            guard let option = first(where: { $0.name == name }) else {
                throw SpeechError.unknownOption(name: name, engine: engine, known: map(\.name))
            }
            checked[name] = try option.checked(value)
        }
        return checked
    }
}

extension SpeechSynthesizer {
    /// This synthesizer with `options` in every request it is given, for a caller that hands the synthesizer to
    /// code making its own requests (a streaming provider); a request's own value of an option wins.
    public func speaking(with options: [String: SpeechOptionValue]) -> any SpeechSynthesizer {
        options.isEmpty ? self : OptionedSynthesizer(base: self, options: options)
    }
}

/// A synthesizer whose requests carry options (see `speaking(with:)`).
struct OptionedSynthesizer: SpeechSynthesizer {
    let base: any SpeechSynthesizer
    let options: [String: SpeechOptionValue]

    var engineName: String { base.engineName }
    var sampleRate: Int { base.sampleRate }
    var voices: [Voice] { base.voices }
    var unusableVoices: [UnusableVoice] { base.unusableVoices }
    var piecesInFlight: Int { base.piecesInFlight }
    var diagnostics: String? { base.diagnostics }
    /// The pause between requests is the one between sentences, which an engine that makes one takes as its
    /// `sentence_silence` option (Piper's).
    var sentenceSilence: Double { options["sentence_silence"]?.number ?? base.sentenceSilence }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, Error> {
        var request = request
        request.options.merge(options) { own, _ in own }
        return base.stream(request)
    }
}
