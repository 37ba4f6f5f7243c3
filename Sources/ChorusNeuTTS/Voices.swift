import ChorusDSP
import ChorusSpeech
import Foundation

/// A NeuTTS voice: its reference codes (NeuCodec, 50 a second) and what the reference says, as upstream's
/// `infer(text, ref_codes, ref_text)` takes them. Stored as a folder `voices/<id>/` with `codes.npy` and
/// `transcript.txt`.
public struct NeuTTSVoice: Sendable, Equatable {
    public static let codesFile = "codes.npy"
    public static let transcriptFile = "transcript.txt"

    public var codes: [Int]
    public var transcript: String

    /// A voice; throws when a code is outside NeuCodec's codebook or the transcript is empty.
    public init(codes: [Int], transcript: String) throws {
        guard !codes.isEmpty else { throw NeuTTSError.invalidVoice("A NeuTTS voice needs reference codes; give the codes of a 3-15 s clip.") }
        if let bad = codes.first(where: { !(0..<PromptBuilder.codebookSize).contains($0) }) { throw NeuTTSError.codeOutOfRange(bad) }
        guard !transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw NeuTTSError.invalidVoice("A NeuTTS voice needs the transcript of its reference; pass --text with what the clip says.")
        }
        self.codes = codes
        self.transcript = transcript
    }

    /// Reference codes from a .npy file of integers (or whole floats), any shape ([F], [1, F], [1, 1, F]).
    public static func codes(npy url: URL) throws -> [Int] {
        let file = try NPYFile.read(contentsOf: url)
        return try file.values.map { value in
            guard value == value.rounded(), (0..<Float(PromptBuilder.codebookSize)).contains(value) else {
                throw NeuTTSError.invalidVoice("\(url.path) holds \(value), not a NeuCodec code (a whole number 0-65535); give the codes the codec made.")
            }
            return Int(value)
        }
    }

    /// The voice stored in `folder`.
    public init(folder: URL) throws {
        let codes = try Self.codes(npy: folder.appendingPathComponent(Self.codesFile))
        guard let transcript = try? String(contentsOf: folder.appendingPathComponent(Self.transcriptFile), encoding: .utf8) else {
            throw NeuTTSError.invalidVoice("The voice \(folder.path) has no readable \(Self.transcriptFile); add the voice again.")
        }
        try self.init(codes: codes, transcript: transcript)
    }

    /// Writes the voice as folder `id` in `voices`, beside and renamed into place; throws when the id is taken
    /// (unless `replacing`) or is not a plain name.
    @discardableResult
    public func write(id: String, to voices: URL, replacing: Bool = false) throws -> URL {
        try Self.checkWritable(id: id, in: voices, replacing: replacing)
        let target = voices.appendingPathComponent(id, isDirectory: true)
        let manager = FileManager.default
        try manager.createDirectory(at: voices, withIntermediateDirectories: true)
        let staging = voices.appendingPathComponent(".\(id)-\(UUID().uuidString)", isDirectory: true)
        try manager.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            try NPYFile(shape: [codes.count], values: codes.map(Float.init)).write(to: staging.appendingPathComponent(Self.codesFile))
            try Data(transcript.utf8).write(to: staging.appendingPathComponent(Self.transcriptFile))
            if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
            try manager.moveItem(at: staging, to: target)
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
        return target
    }

    /// Throws when `id` is not a plain name or names a voice already in `voices` (unless `replacing`): what
    /// `write` checks, for callers that want to refuse before encoding a clip.
    public static func checkWritable(id: String, in voices: URL, replacing: Bool) throws {
        guard isPlainID(id) else {
            throw NeuTTSError.invalidVoice("The voice id '\(id)' is not usable; use letters, digits, - and _ (at most 64).")
        }
        if FileManager.default.fileExists(atPath: voices.appendingPathComponent(id, isDirectory: true).path), !replacing {
            throw NeuTTSError.invalidVoice("There is already a voice '\(id)' in \(voices.path); pick another id or add --replace.")
        }
    }

    static func isPlainID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }

    /// The voices stored in `voices`, sorted by id; folders without both files are skipped.
    public static func installed(in voices: URL, language: String) -> [Voice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: voices.path)) ?? []
        return names.sorted().filter { name in
            !name.hasPrefix(".") && [codesFile, transcriptFile].allSatisfy {
                FileManager.default.fileExists(atPath: voices.appendingPathComponent(name).appendingPathComponent($0).path)
            }
        }.map { Voice(id: $0, engine: "neutts", language: language, gender: .unknown) }
    }
}
