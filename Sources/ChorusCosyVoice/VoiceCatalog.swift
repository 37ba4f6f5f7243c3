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

    /// The voices in `folder`, sorted by id; hidden entries (voices being written) and sub-folders
    /// missing a prompt file are not voices and are skipped.
    public static func entries(in folder: URL) throws -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            let url = folder.appendingPathComponent(name, isDirectory: true)
            let complete = VoicePrompt.File.allCases.allSatisfy {
                FileManager.default.fileExists(atPath: url.appendingPathComponent($0.rawValue).path)
            }
            guard complete else { return nil }
            var voice = Voice(id: name, engine: "cosyvoice", language: "zh", gender: .unknown)
            var instruction: String?
            if let data = FileManager.default.contents(atPath: url.appendingPathComponent(detailsFile).path) {
                let details: Details
                do {
                    details = try JSONDecoder().decode(Details.self, from: data)
                } catch {
                    throw CosyVoiceError.invalidVoice(folder: url.path, problem: "\(detailsFile) is not valid: \(error)")
                }
                voice.language = details.language ?? voice.language
                voice.gender = details.gender ?? voice.gender
                voice.summary = details.summary ?? voice.summary
                instruction = details.instruction
                if let text = instruction, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    throw CosyVoiceError.invalidVoice(folder: url.path,
                                                      problem: "\(detailsFile) has an empty instruction; remove it or say what to do")
                }
            }
            let tokenBytes = (try? FileManager.default.attributesOfItem(
                atPath: url.appendingPathComponent(VoicePrompt.File.promptTokens.rawValue).path)[.size] as? Int) ?? 0
            return Entry(voice: voice, folder: url, duration: Double(tokenBytes / 8) / 25, instruction: instruction)
        }
    }

    /// Writes `prompt` as voice `id` into `folder`, with its description and, for a dialect or style voice,
    /// the `instruction` the LLM reads instead of the transcript; refuses to replace a voice unless `replacing`.
    @discardableResult
    public static func add(_ prompt: VoicePrompt, id: String, language: String, gender: Voice.Gender,
                           summary: String = "", instruction: String? = nil, to folder: URL,
                           replacing: Bool = false) throws -> URL {
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), !id.hasPrefix("-") else {
            throw CosyVoiceError.invalidVoice(folder: folder.appendingPathComponent(id).path,
                                              problem: "the id '\(id)' must be letters, digits, '-' or '_'")
        }
        let destination = folder.appendingPathComponent(id, isDirectory: true)
        if let instruction, instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw CosyVoiceError.invalidVoice(folder: destination.path, problem: "the instruction is empty")
        }
        if FileManager.default.fileExists(atPath: destination.path), !replacing {
            throw CosyVoiceError.invalidVoice(folder: destination.path,
                                              problem: "a voice with this id exists; pick another id or replace it")
        }
        // The files are written into a hidden staging folder that is renamed into place once
        // complete, so an interrupted add never leaves a voice that looks finished.
        try StagedFolder.make(at: destination) { staging in
            try prompt.write(to: staging)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(Details(language: language, gender: gender, summary: summary, instruction: instruction))
                .write(to: staging.appendingPathComponent(detailsFile))
        }
        return destination
    }

    private struct Details: Codable {
        var language: String?
        var gender: Voice.Gender?
        var summary: String?
        var instruction: String?
    }
}
