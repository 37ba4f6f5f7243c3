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

    /// The store of the voices in `voices`.
    public static func store(_ voices: URL) -> VoiceStore { VoiceStore(folder: voices, engine: "neutts") }

    /// Writes the voice as folder `id` in `voices` (see `VoiceStore.write`: staged, and an installed voice is
    /// replaced only when `replacing`, in one step).
    @discardableResult
    public func write(id: String, to voices: URL, replacing: Bool = false) throws -> URL {
        try Self.store(voices).write(id: id, replacing: replacing, writeFiles)
    }

    /// Writes the voice's two files into `folder`.
    public func writeFiles(to folder: URL) throws {
        try NPYFile(shape: [codes.count], values: codes.map(Float.init)).write(to: folder.appendingPathComponent(Self.codesFile))
        try Data(transcript.utf8).write(to: folder.appendingPathComponent(Self.transcriptFile))
    }

    /// The voices stored in `voices`, sorted by id, and those that cannot be used (a file missing, codes outside
    /// the codebook, an empty transcript), with why.
    public static func contents(of voices: URL, language: String) -> VoiceStore.Contents<Voice> {
        let read = store(voices).contents(requiring: [codesFile, transcriptFile]) { id, folder in
            try stored(id: id, folder: folder, language: language)
        }
        return VoiceStore.Contents(voices: read.voices.map(\.voice), unusable: read.unusable)
    }

    /// The voices stored in `voices` as `contents(of:language:)` lists them, kept between requests and read
    /// again only when a folder changes (see `VoiceStore.Cache`).
    public static func cache(of voices: URL, language: String) -> VoiceStore.Cache<NeuTTSVoice> {
        VoiceStore.Cache(store: store(voices), requiring: [codesFile, transcriptFile]) { id, folder in
            try stored(id: id, folder: folder, language: language)
        }
    }

    /// The voice in `folder`, called `id`.
    static func stored(id: String, folder: URL, language: String) throws -> StoredVoice<NeuTTSVoice> {
        StoredVoice(voice: Voice(id: id, engine: "neutts", language: language, gender: .unknown),
                    conditioning: try NeuTTSVoice(folder: folder))
    }
}
