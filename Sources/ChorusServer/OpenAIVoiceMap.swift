import ChorusSpeech
import Foundation

/// OpenAI's voice names (`alloy`, `ash`, ... `verse`) and the installed voice each stands for on each
/// engine, so that a request written for OpenAI, which must name one of them, is spoken here.
///
/// A name maps to the first voice of its list for the engine that is installed; with none installed,
/// to the engine's installed voices of the name's gender (OpenAI's descriptions), taken in turn so
/// that two names of one gender get two voices where there are two, else to the engine's default
/// voice. A voice the engine itself calls by the name (an installed `alloy`) is used as it is. The
/// response's `X-Chorus-Voice` says which voice spoke. `chorus serve --openai-voices FILE` replaces
/// lists with a JSON object of the same shape as `standard`, `{"kokoro": {"alloy": ["af_heart"]}}`
/// (a single id may be given as a string); engines and names it leaves out keep the standard lists.
public struct OpenAIVoiceMap: Sendable, Equatable {
    /// OpenAI's voice names, each with the gender it is described with.
    public static let names: [(name: String, gender: Voice.Gender)] = [
        ("alloy", .female), ("ash", .male), ("ballad", .male), ("coral", .female), ("echo", .male),
        ("fable", .male), ("nova", .female), ("onyx", .male), ("sage", .female), ("shimmer", .female),
        ("verse", .male),
    ]

    /// Engine id, then OpenAI name, then the voices to try in order.
    public var lists: [String: [String: [String]]]

    public init(lists: [String: [String: [String]]]) {
        self.lists = lists
    }

    /// Kokoro's own voices named after OpenAI's (`af_alloy`, `am_echo`, `bm_fable`, `af_nova`,
    /// `am_onyx`) and near ones for the rest; Piper's English voices by gender. With the Japanese voice
    /// pack `scripts/setup.sh` installs, Kokoro's names fall back to its voices by gender.
    public static let standard = OpenAIVoiceMap(lists: [
        "kokoro": [
            "alloy": ["af_alloy"], "ash": ["am_adam"], "ballad": ["bm_george"], "coral": ["af_heart"],
            "echo": ["am_echo"], "fable": ["bm_fable"], "nova": ["af_nova"], "onyx": ["am_onyx"],
            "sage": ["af_sarah"], "shimmer": ["af_bella"], "verse": ["am_puck"],
        ],
        "piper": [
            "alloy": ["en_US-amy-medium"], "ash": ["en_US-joe-medium"], "ballad": ["en_GB-alan-medium"],
            "coral": ["en_US-lessac-medium"], "echo": ["en_US-ryan-medium"], "fable": ["en_GB-alan-medium"],
            "nova": ["en_US-amy-medium"], "onyx": ["en_US-joe-medium"], "sage": ["en_US-lessac-medium"],
            "shimmer": ["en_US-kristin-medium"], "verse": ["en_US-ryan-medium"],
        ],
    ])

    /// The standard lists with those of the JSON file at `url` in their place.
    public init(overriding base: OpenAIVoiceMap = .standard, contentsOf url: URL) throws {
        let problem = { (what: String) in
            OpenAIVoiceMapError(path: url.path, problem: what)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw problem("it cannot be read (\(error.localizedDescription))")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw problem("it is not a JSON object of engines")
        }
        var lists = base.lists
        for (engine, names) in object {
            guard let names = names as? [String: Any] else { throw problem("\"\(engine)\" is not an object of voice names") }
            for (name, choice) in names {
                guard Self.names.contains(where: { $0.name == name }) else {
                    throw problem("\"\(name)\" is not one of OpenAI's voices (\(Self.names.map(\.name).joined(separator: ", ")))")
                }
                if let one = choice as? String {
                    lists[engine, default: [:]][name] = [one]
                } else if let several = choice as? [String], !several.isEmpty {
                    lists[engine, default: [:]][name] = several
                } else {
                    throw problem("\"\(engine)\".\"\(name)\" is neither a voice id nor a list of them")
                }
            }
        }
        self.lists = lists
    }

    /// The voice OpenAI's `name` stands for among an engine's installed `voices` (the default first);
    /// nil when `name` is not an OpenAI name or the engine calls a voice of its own by it.
    public func voice(for name: String, engine: String, voices: [Voice]) -> Voice? {
        let name = name.lowercased()
        guard let index = Self.names.firstIndex(where: { $0.name == name }),
              !voices.contains(where: { $0.id == name }), let fallback = voices.first else { return nil }
        for id in lists[engine]?[name] ?? [] {
            if let voice = voices.first(where: { $0.id == id }) { return voice }
        }
        let gender = Self.names[index].gender
        let sameGender = voices.filter { $0.gender == gender }
        guard !sameGender.isEmpty else { return fallback }
        let turn = Self.names[..<index].filter { $0.gender == gender }.count
        return sameGender[turn % sameGender.count]
    }
}

/// A voice map file that cannot be used, naming the file and what is wrong with it.
public struct OpenAIVoiceMapError: Error, CustomStringConvertible {
    public var path: String
    public var problem: String

    public var description: String {
        "The OpenAI voice map \(path) cannot be used: \(problem). Give a JSON object such as {\"kokoro\": {\"alloy\": [\"af_heart\"]}}."
    }
}
