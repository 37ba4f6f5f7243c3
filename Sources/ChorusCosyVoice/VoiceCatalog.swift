import ChorusModels
import ChorusSpeech
import Foundation

/// The voices in a folder: one sub-folder per voice holding the four `VoicePrompt` files, plus an
/// optional `voice.json` (`{"language": "yue", "gender": "female", "summary": "...", "instruction": "..."}`)
/// describing it. A voice with an instruction is spoken as upstream `inference_instruct2` does: the LLM
/// reads the instruction (such as upstream's "请用广东话表达。" for Cantonese) instead of the clip's
/// transcript and speech tokens, and the flow still takes the clip's timbre.
public enum VoiceCatalog {
    /// The description file beside a voice's prompt files.
    public static let detailsFile = "voice.json"

    /// One voice of a catalog.
    public struct Entry: Sendable {
        public var voice: Voice
        /// The voice's folder.
        public var folder: URL
        /// Length of its reference clip in seconds (from the prompt tokens, 25 per second).
        public var duration: Double
        /// What the LLM is told instead of the clip's transcript, if anything (see the type's summary).
        public var instruction: String?
    }

    /// What a voices folder holds: the voices that can be used, sorted by id, and those that cannot, with why.
    public struct Contents: Sendable {
        public var entries: [Entry] = []
        public var unusable: [UnusableVoice] = []
    }

    /// The voices in `folder`, sorted by id (see `VoiceStore.contents`): a folder missing a prompt file, or
    /// with a `voice.json` that does not parse, is listed in `unusable` with the reason.
    public static func contents(of folder: URL) -> Contents {
        let read = store(folder).contents(requiring: VoicePrompt.File.allCases.map(\.rawValue)) { name, url in
            try entry(named: name, at: url)
        }
        return Contents(entries: read.voices, unusable: read.unusable)
    }

    /// The store of `folder`'s voices.
    public static func store(_ folder: URL) -> VoiceStore { VoiceStore(folder: folder, engine: "cosyvoice") }

    /// `folder`'s voices as a running engine keeps them (`VoiceStore.Cache`): each folder read again only when it
    /// changes, so a voice another process removes or replaces is seen at the next look, as every cloning engine's is.
    static func cache(of folder: URL) -> VoiceStore.Cache<Entry> {
        VoiceStore.Cache(store: store(folder), requiring: VoicePrompt.File.allCases.map(\.rawValue)) { name, url in
            let read = try Self.entry(named: name, at: url)
            return StoredVoice(voice: read.voice, conditioning: read)
        }
    }

    /// The usable voices in `folder` (see `contents(of:)`).
    public static func entries(in folder: URL) -> [Entry] { contents(of: folder).entries }

    /// The prompt and instruction of the voice whose folder is `url`, read together and whole
    /// (`VoiceStore.readSteady`: never the files of an old voice and a new one); nil when it was removed.
    static func conditioning(at url: URL) throws -> (prompt: VoicePrompt, instruction: String?)? {
        try VoiceStore.readSteady(url) {
            (try VoicePrompt(contentsOf: url), try entry(named: url.lastPathComponent, at: url).instruction)
        }
    }

    /// The voice in `url`, read from its prompt files and `voice.json`.
    private static func entry(named name: String, at url: URL) throws -> Entry {
        var voice = Voice(id: name, engine: "cosyvoice", language: "zh", gender: .unknown)
        var instruction: String?
        if let data = FileManager.default.contents(atPath: url.appendingPathComponent(detailsFile).path) {
            let details: Details
            do {
                details = try JSONDecoder().decode(Details.self, from: data)
            } catch {
                throw VoiceStoreError.damaged("its \(detailsFile) is not valid JSON of a voice description")
            }
            voice.language = details.language ?? voice.language
            voice.gender = details.gender ?? voice.gender
            voice.summary = details.summary ?? voice.summary
            instruction = details.instruction
            if let text = instruction, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw VoiceStoreError.damaged("its \(detailsFile) has an empty instruction; remove it or say what to do")
            }
        }
        let tokenBytes = (try? FileManager.default.attributesOfItem(
            atPath: url.appendingPathComponent(VoicePrompt.File.promptTokens.rawValue).path)[.size] as? Int) ?? 0
        return Entry(voice: voice, folder: url, duration: Double(tokenBytes / 8) / 25, instruction: instruction)
    }

    /// Writes `prompt` as voice `id` into `folder`, with its description and, for a dialect or style voice,
    /// the `instruction` the LLM reads instead of the transcript (see `VoiceStore.write`: staged, and an
    /// installed voice is replaced only when `replacing`, in one step).
    @discardableResult
    public static func add(_ prompt: VoicePrompt, id: String, language: String, gender: Voice.Gender,
                           summary: String = "", instruction: String? = nil, to folder: URL,
                           replacing: Bool = false) throws -> URL {
        // The voice's own problems first; `write` then checks the id, once, before anything is written.
        let named = folder.appendingPathComponent(VoiceID.excerpt(of: id), isDirectory: true).path
        if let problem = prompt.valueProblem { throw CosyVoiceError.invalidVoice(folder: named, problem: problem) }
        if let instruction, instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw CosyVoiceError.invalidVoice(folder: named, problem: "the instruction is empty")
        }
        return try store(folder).write(id: id, replacing: replacing) { staging in
            try prompt.write(to: staging)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(Details(language: language, gender: gender, summary: summary, instruction: instruction))
                .write(to: staging.appendingPathComponent(detailsFile))
        }
    }

    private struct Details: Codable {
        var language: String?
        var gender: Voice.Gender?
        var summary: String?
        var instruction: String?
    }
}
