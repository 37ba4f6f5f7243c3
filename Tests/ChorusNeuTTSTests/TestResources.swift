import ChorusONNX
import ChorusText
import Foundation
@testable import ChorusNeuTTS

/// The generated test data next to this file; see scripts/testdata/neutts/make_testdata.py.
enum TestResources {
    static var root: URL { Bundle.module.url(forResource: "Resources", withExtension: nil)! }
    static var model: URL { root.appendingPathComponent("model", isDirectory: true) }
    static var golden: URL { root.appendingPathComponent("golden", isDirectory: true) }

    /// One case of upstream's functions on the generated models.
    struct Case: Decodable {
        var refText: String
        var text: String
        var seed: UInt64
        var refPhones: String
        var textPhones: String
        var promptIds: [Int]
        var generatedIds: [Int]
        var codes: [Int]
        var audioSamples: Int
        var chunkSamples: [Int]
    }

    static func goldenCase(_ name: String) throws -> Case {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Case.self, from: Data(contentsOf: golden.appendingPathComponent("\(name).json")))
    }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: golden.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    static func ints(_ name: String) throws -> [Int] {
        let data = try Data(contentsOf: golden.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Int(Int32(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))) }
        }
    }

    /// Phoneme goldens: each language's sentences with upstream's phonemes, for one espeak-ng version.
    struct Phonemes: Decodable {
        var espeak: String
        var languages: [String: [[String]]]
    }

    /// The phoneme goldens made with the espeak-ng release `version` ("1.52.0.1", "1.51") is, if any.
    static func phonemes(forEspeak version: String) throws -> Phonemes? {
        let release = version.split(separator: ".").prefix(2).joined(separator: ".")
        let files = try FileManager.default.contentsOfDirectory(atPath: golden.path).filter { $0.hasPrefix("phonemes-") }
        guard let file = files.first(where: { $0.dropFirst("phonemes-".count).hasPrefix(release + ".") || $0 == "phonemes-\(release).json" }) else {
            return nil
        }
        return try JSONDecoder().decode(Phonemes.self, from: Data(contentsOf: golden.appendingPathComponent(file)))
    }

    static func promptBuilder() throws -> PromptBuilder {
        let url = model.appendingPathComponent("tokenizer.json")
        return try PromptBuilder(tokenizer: BPETokenizer(tokenizerJSON: url), source: url.path)
    }

    static func session(_ name: String) throws -> InferenceSession {
        try InferenceSession(modelPath: model.appendingPathComponent(name).path)
    }

    static func maximumDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }
}
