import ChorusGeneration
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
        /// Tokens the first streamed chunk's flow reads, lookahead included (the chunk-mask case).
        var firstChunkTokens: Int?
        /// [80, frames] of that chunk's mel (the chunk-mask case).
        var firstChunkMelShape: [Int]?
        /// The least margin every draw keeps (relative, as LogitPerturbation perturbs the logits).
        var threshold: Double
        /// Each draw's margin: the least relative change of that step's logits that could change it.
        var margins: [Double]
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

    /// The zero-shot case streamed with the estimator that takes upstream's attention mask (estimator-chunk-mask/).
    static func chunkMaskCase() throws -> Case {
        try JSONDecoder().decode(Case.self, from: Data(contentsOf: golden.appendingPathComponent("chunk-mask.json")))
    }

    /// A temporary copy of the model folder with `replacements` (file name to file) in place of its files;
    /// removed by the caller.
    static func modelFolder(replacing replacements: [String: URL]) throws -> URL {
        let folder = try temporaryFolder()
        for name in try FileManager.default.contentsOfDirectory(atPath: models.path) {
            try FileManager.default.copyItem(at: replacements[name] ?? models.appendingPathComponent(name),
                                             to: folder.appendingPathComponent(name))
        }
        return folder
    }

    /// A temporary copy of the model folder with the files of `variant` (a folder beside it) in place of
    /// those of the same name; removed by the caller.
    static func modelFolder(variant: String) throws -> URL {
        let source = root.appendingPathComponent(variant, isDirectory: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path)
        return try modelFolder(replacing: Dictionary(uniqueKeysWithValues: names.map { ($0, source.appendingPathComponent($0)) }))
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

extension LanguageModel {
    /// The tokens drawn for `request` with every logit moved by a relative 1e-2, and how many of them equal
    /// `golden`'s before the first difference: that a test's perturbation reaches the draws at all.
    func drawsFarPerturbed(_ request: Request, against golden: [Int]) throws -> (tokens: [Int], sameUntil: Int) {
        let tokens = try LogitPerturbation.$active.withValue(LogitPerturbation(size: 1e-2)) {
            try generate(request, onToken: { _ in })
        }
        return (tokens, zip(tokens, golden).prefix { $0 == $1 }.count)
    }
}
