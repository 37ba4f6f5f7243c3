import Foundation
@testable import ChorusCosyVoice

/// The generated test data next to this file; see scripts/testdata/cosyvoice/.
enum TestResources {
    static var root: URL { Bundle.module.url(forResource: "Resources", withExtension: nil)! }
    static var models: URL { root.appendingPathComponent("model", isDirectory: true) }
    static var voice: URL { root.appendingPathComponent("voice", isDirectory: true) }
    static var golden: URL { root.appendingPathComponent("golden", isDirectory: true) }

    /// The fixed input and the reference outputs written by reference.py.
    struct Case: Decodable {
        var promptTextTokens: [Int]
        var textTokens: [Int]
        var samplingSeed: UInt64
        var noiseSeed: UInt64
        var sampledTokens: [Int]
        var tokens: [Int]
        var melShape: [Int]
        var audioSamples: Int
        /// Streamed chunk sizes (the instruct case; the zero-shot case keeps them in stream.json).
        var chunkSamples: [Int]?
    }

    static func goldenCase() throws -> Case {
        try JSONDecoder().decode(Case.self, from: Data(contentsOf: golden.appendingPathComponent("case.json")))
    }

    /// The instruct2 case (an instruction as the LLM prompt, no prompt speech), with its streamed chunk sizes.
    static func instructCase() throws -> Case {
        try JSONDecoder().decode(Case.self, from: Data(contentsOf: golden.appendingPathComponent("instruct.json")))
    }

    /// The cross-lingual case (no prompt text, no prompt speech in the LLM), with its streamed chunk sizes.
    static func crossLingualCase() throws -> Case {
        try JSONDecoder().decode(Case.self, from: Data(contentsOf: golden.appendingPathComponent("crosslingual.json")))
    }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Data(contentsOf: golden.appendingPathComponent(name))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// A fresh temporary folder, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cosyvoice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Largest absolute difference between two equally long arrays.
func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}
