import ChorusDSP
import Foundation

/// A voice as the speech encoder leaves it: T3's conditioning and S3Gen's reference, stored as four `.npy`
/// files named after the export's outputs, so a clip is encoded once.
public struct VoiceConditioning: Sendable, Equatable {
    /// T3's conditioning embeddings (`audio_features`): `conditioningLength` rows of `width` (the speaker
    /// projection, then the prompt's speech embeddings, upstream's `T3CondEnc`).
    public var audioFeatures: [Float]
    public var conditioningLength: Int
    public var width: Int
    /// S3Gen's prompt tokens (`audio_tokens`), S3 ids below 6561.
    public var audioTokens: [Int]
    /// The CAMPPlus x-vector (`speaker_embeddings`), 192 values.
    public var speakerEmbeddings: [Float]
    /// The prompt mel (`speaker_features`): `promptFrames` frames of 80 bins.
    public var speakerFeatures: [Float]
    public var promptFrames: Int

    /// The four file names, as the export names its outputs.
    public static let files = ["audio_features", "audio_tokens", "speaker_embeddings", "speaker_features"]
    /// Mel bins of `speaker_features`.
    public static let melBins = 80

    public init(audioFeatures: [Float], conditioningLength: Int, width: Int, audioTokens: [Int],
                speakerEmbeddings: [Float], speakerFeatures: [Float], promptFrames: Int) {
        self.audioFeatures = audioFeatures
        self.conditioningLength = conditioningLength
        self.width = width
        self.audioTokens = audioTokens
        self.speakerEmbeddings = speakerEmbeddings
        self.speakerFeatures = speakerFeatures
        self.promptFrames = promptFrames
    }

    /// Reads a voice folder, checking each file's shape.
    public init(folder: URL) throws {
        func read(_ name: String) throws -> NPYFile {
            let url = folder.appendingPathComponent(name + ".npy")
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw ChatterboxError.invalidVoice(path: folder.path, reason: "has no \(name).npy")
            }
            do { return try NPYFile.read(contentsOf: url) } catch {
                throw ChatterboxError.invalidVoice(path: folder.path, reason: "has an unreadable \(name).npy (\(error))")
            }
        }
        let features = try read("audio_features"), tokens = try read("audio_tokens")
        let speaker = try read("speaker_embeddings"), mel = try read("speaker_features")
        guard features.shape.count == 3, features.shape[0] == 1, features.shape[1] > 0, features.shape[2] > 0 else {
            throw ChatterboxError.invalidVoice(path: folder.path, reason: "has audio_features of shape \(features.shape), not [1, L, width]")
        }
        guard tokens.shape.count == 2, tokens.shape[0] == 1,
              tokens.values.allSatisfy({ $0 >= 0 && $0 < Float(EmbeddingIDs.firstSpecialSpeechID) && $0.rounded() == $0 })
        else {
            throw ChatterboxError.invalidVoice(path: folder.path, reason: "has audio_tokens that are not [1, N] S3 ids below 6561")
        }
        guard speaker.values.count == 192 else {
            throw ChatterboxError.invalidVoice(path: folder.path, reason: "has speaker_embeddings of shape \(speaker.shape), not [1, 192]")
        }
        guard mel.shape.count == 3, mel.shape[0] == 1, mel.shape[2] == Self.melBins else {
            throw ChatterboxError.invalidVoice(path: folder.path, reason: "has speaker_features of shape \(mel.shape), not [1, M, 80]")
        }
        self.init(audioFeatures: features.values, conditioningLength: features.shape[1], width: features.shape[2],
                  audioTokens: tokens.values.map { Int($0) }, speakerEmbeddings: speaker.values,
                  speakerFeatures: mel.values, promptFrames: mel.shape[1])
    }

    /// Writes the four files into `folder` (made if absent).
    public func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try NPYFile(shape: [1, conditioningLength, width], values: audioFeatures)
            .write(to: folder.appendingPathComponent("audio_features.npy"))
        try NPYFile(shape: [1, audioTokens.count], values: audioTokens.map(Float.init))
            .write(to: folder.appendingPathComponent("audio_tokens.npy"))
        try NPYFile(shape: [1, speakerEmbeddings.count], values: speakerEmbeddings)
            .write(to: folder.appendingPathComponent("speaker_embeddings.npy"))
        try NPYFile(shape: [1, promptFrames, Self.melBins], values: speakerFeatures)
            .write(to: folder.appendingPathComponent("speaker_features.npy"))
    }
}
