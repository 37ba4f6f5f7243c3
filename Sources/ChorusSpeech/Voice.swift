/// A voice an engine can speak with.
public struct Voice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How a voice presents; `unknown` when its maker did not say.
    public enum Gender: String, Sendable, Hashable, Codable {
        case female, male, unknown
    }

    /// The identifier callers pass to select it, unique within its engine (e.g. "jf_alpha").
    public var id: String
    /// The engine that owns it (e.g. "kokoro").
    public var engine: String
    /// The language or dialect it was made for, as a BCP 47 tag where one exists (e.g. "en-US", "ja", "yue").
    public var language: String
    public var gender: Gender
    /// Free text for people choosing a voice.
    public var summary: String
    /// The rate its audio comes at, in Hz, for an engine whose voices differ (Piper's); nil when the voice
    /// speaks at its engine's rate.
    public var sampleRate: Int?

    public init(id: String, engine: String, language: String, gender: Gender, summary: String = "", sampleRate: Int? = nil) {
        self.id = id
        self.engine = engine
        self.language = language
        self.gender = gender
        self.summary = summary
        self.sampleRate = sampleRate
    }

    public var description: String { "\(engine)/\(id) (\(language), \(gender.rawValue))" }
}
