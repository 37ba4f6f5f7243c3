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

    /// The voices in `folder`, sorted by id; hidden entries (voices being written) and plain files are
    /// not voices. One damaged voice never hides the others: a folder missing a prompt file, with a
    /// `voice.json` that does not parse, or whose name is an installed id in another Unicode form
    /// (composed and decomposed `é`, full-width letters; the first in sorted order wins) is listed in
    /// `unusable` with the reason.
    public static func contents(of folder: URL) -> Contents {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var contents = Contents()
        var seen: [String: String] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name, isDirectory: true)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            if let first = seen[collisionKey(name)] {
                contents.unusable.append(UnusableVoice(
                    id: name, problem: "its id is '\(first)' written in another Unicode form, and '\(first)' is installed; remove one of the two folders"))
                continue
            }
            seen[collisionKey(name)] = name
            do {
                contents.entries.append(try entry(named: name, at: url))
            } catch let problem as Problem {
                contents.unusable.append(UnusableVoice(id: name, problem: problem.text))
            } catch {
                contents.unusable.append(UnusableVoice(id: name, problem: "\(error)"))
            }
        }
        return contents
    }

    /// The usable voices in `folder` (see `contents(of:)`).
    public static func entries(in folder: URL) -> [Entry] { contents(of: folder).entries }

    /// Why one voice folder cannot be used.
    private struct Problem: Error { var text: String }

    /// The voice in `url`, read from its prompt files and `voice.json`.
    private static func entry(named name: String, at url: URL) throws -> Entry {
        let missing = VoicePrompt.File.allCases.map(\.rawValue).filter {
            !FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path)
        }
        guard missing.isEmpty else {
            throw Problem(text: "it is incomplete (\(missing.joined(separator: ", ")) missing)")
        }
        var voice = Voice(id: name, engine: "cosyvoice", language: "zh", gender: .unknown)
        var instruction: String?
        if let data = FileManager.default.contents(atPath: url.appendingPathComponent(detailsFile).path) {
            let details: Details
            do {
                details = try JSONDecoder().decode(Details.self, from: data)
            } catch {
                throw Problem(text: "its \(detailsFile) is not valid JSON of a voice description")
            }
            voice.language = details.language ?? voice.language
            voice.gender = details.gender ?? voice.gender
            voice.summary = details.summary ?? voice.summary
            instruction = details.instruction
            if let text = instruction, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw Problem(text: "its \(detailsFile) has an empty instruction; remove it or say what to do")
            }
        }
        let tokenBytes = (try? FileManager.default.attributesOfItem(
            atPath: url.appendingPathComponent(VoicePrompt.File.promptTokens.rawValue).path)[.size] as? Int) ?? 0
        return Entry(voice: voice, folder: url, duration: Double(tokenBytes / 8) / 25, instruction: instruction)
    }

    /// Writes `prompt` as voice `id` into `folder`, with its description and, for a dialect or style voice,
    /// the `instruction` the LLM reads instead of the transcript; refuses to replace a voice unless `replacing`.
    @discardableResult
    public static func add(_ prompt: VoicePrompt, id: String, language: String, gender: Voice.Gender,
                           summary: String = "", instruction: String? = nil, to folder: URL,
                           replacing: Bool = false) throws -> URL {
        let id = try checkedID(id, in: folder, replacing: replacing)
        let destination = folder.appendingPathComponent(id, isDirectory: true)
        if let problem = prompt.valueProblem { throw CosyVoiceError.invalidVoice(folder: destination.path, problem: problem) }
        if let instruction, instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw CosyVoiceError.invalidVoice(folder: destination.path, problem: "the instruction is empty")
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

    /// The longest id in UTF-8 bytes: the folder name and its staging name must fit a file name (255 bytes).
    public static let maximumIDBytes = 128

    /// `id` in Unicode's composed form (NFC), after checking that it can name a new voice in `folder`: letters,
    /// digits, `-` and `_` (not first), nothing invisible, at most `maximumIDBytes`, and no installed voice whose
    /// id differs from it only by Unicode form, width or compatibility characters (unless it is the same id and
    /// `replacing`). Called before any model work, so a bad id fails fast.
    public static func checkedID(_ id: String, in folder: URL, replacing: Bool = false) throws -> String {
        let normalized = id.precomposedStringWithCanonicalMapping
        func refuse(_ problem: String) -> CosyVoiceError { .invalidVoiceID(id: excerpt(of: id), problem: problem) }
        guard !normalized.isEmpty else { throw refuse("it is empty") }
        if let hidden = normalized.unicodeScalars.first(where: { $0.properties.isDefaultIgnorableCodePoint }) {
            throw refuse("it holds the invisible character U+\(String(hidden.value, radix: 16, uppercase: true))")
        }
        let allowed = normalized.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .decimalNumber, .letterNumber, .otherNumber: true
            default: scalar == "-" || scalar == "_"
            }
        }
        guard allowed, normalized.first!.isLetter || normalized.first!.isNumber else {
            throw refuse("it must be letters, digits, '-' or '_', starting with a letter or digit")
        }
        guard normalized.utf8.count <= maximumIDBytes else {
            throw refuse("it is \(normalized.utf8.count) bytes of UTF-8, over the limit of \(maximumIDBytes) "
                         + "(\(maximumIDBytes) Latin letters or \(maximumIDBytes / 3) Chinese characters)")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw CosyVoiceError.voicesFolderIsAFile(path: folder.path)
        }
        let key = collisionKey(normalized)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !name.hasPrefix(".") && collisionKey(name) == key {
            if name.unicodeScalars.elementsEqual(normalized.unicodeScalars) {
                if replacing { continue }
                throw CosyVoiceError.voiceExists(id: normalized, folder: folder.appendingPathComponent(name).path)
            }
            throw refuse("the installed voice '\(excerpt(of: name))' differs from it only in Unicode form or width; "
                         + "pick a clearly different id")
        }
        return normalized
    }

    /// What makes two ids the same voice: compatibility composition (NFKC) folds composed and decomposed
    /// letters, full- and half-width forms and ligatures together.
    static func collisionKey(_ id: String) -> String {
        String(id.precomposedStringWithCompatibilityMapping.unicodeScalars.filter {
            !$0.properties.isDefaultIgnorableCodePoint
        }.map(Character.init))
    }

    /// At most 40 characters of `text`, control and invisible characters shown as U+XXXX, for messages.
    static func excerpt(of text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(40) {
            let visible = !scalar.properties.isDefaultIgnorableCodePoint && scalar.properties.generalCategory != .control
            shown += visible ? String(scalar) : "U+\(String(scalar.value, radix: 16, uppercase: true))"
        }
        return text.unicodeScalars.count > 40 ? shown + "..." : shown
    }

    private struct Details: Codable {
        var language: String?
        var gender: Voice.Gender?
        var summary: String?
        var instruction: String?
    }
}
