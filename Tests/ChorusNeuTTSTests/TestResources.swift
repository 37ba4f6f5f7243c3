import ChorusGeneration
import ChorusONNX
import ChorusPhonemizer
import ChorusText
import Foundation
import Testing
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
        /// Each draw's margin (scripts/testdata/draw_margins.py): the least change of the step's logits, as a share
        /// of their largest magnitude, that could change the draw; one per generated id.
        var margins: [Double]?
        /// The least margin of each kind the generator kept.
        var thresholds: [String: Double]?
        /// The packages (and espeak-ng) that made the case.
        var versions: [String: String]?
    }

    /// The least margin a golden's draw keeps: make_testdata.py's THRESHOLDS, 1e-5 of the step's largest |logit|
    /// for every kind, above the 3.7e-6 (short case) and 9.3e-6 (long case, 2048 tokens of context) it measured
    /// between PyTorch and ONNX Runtime at 1 and 2 threads.
    static let leastMargin = 1e-5

    /// The largest change of a step's logits, over its largest |logit|, make_testdata.py's measure_bound found per
    /// case between PyTorch and ONNX Runtime at 1 and 2 threads (torch 2.13.0, onnxruntime 1.32.0, this repository's
    /// machine): attention over 2048 places moves the long case's logits more.
    static let measuredBound = ["short": 3.7e-6, "long": 9.3e-6]

    /// The least margin each case's draws keep, measured on Chorus's logits: 1e-5, or three times the case's
    /// measured bound where that is more (the generator's SAFETY), so the long case keeps 2.8e-5.
    static func threshold(_ name: String) -> Double {
        max(leastMargin, 3 * (measuredBound[name] ?? leastMargin))
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

    /// The phoneme goldens made with espeak-ng `version` exactly ("1.52.0.1" as the neutts wheel bundles,
    /// "1.52.0" as espeakng-loader does, "1.51" as Debian 12 has), if any: the releases phonemize differently.
    static func phonemes(forEspeak version: String) throws -> Phonemes? {
        let url = golden.appendingPathComponent("phonemes-\(version).json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(Phonemes.self, from: Data(contentsOf: url))
    }

    /// The espeak-ng release this process loaded ("" when it cannot start, which the tests then report).
    static var loadedEspeak: String { (try? EspeakPhonemizer.shared().version) ?? "" }
    /// The release the goldens' prompts and audio were made with: the neutts wheel's, which `make test` loads
    /// for this target (scripts/setup.sh --espeak-1.52; LD_LIBRARY_PATH and ESPEAK_DATA_PATH).
    static let goldenEspeak = "1.52.0.1"
    /// Why a comparison with the goldens' espeak-ng cannot run in this process, for the test's skip line.
    static let needsGoldenEspeak = Comment(rawValue: "needs espeak-ng 1.52.0.1 (the neutts wheel's): `make test` loads "
        + "it; by hand, scripts/setup.sh --espeak-1.52 and the LD_LIBRARY_PATH and ESPEAK_DATA_PATH it prints")

    static func promptBuilder() throws -> PromptBuilder {
        let url = model.appendingPathComponent("tokenizer.json")
        return try PromptBuilder(tokenizer: BPETokenizer(tokenizerJSON: url), source: url.path)
    }

    static func session(_ name: String, threads: Int? = nil) throws -> InferenceSession {
        try InferenceSession(modelPath: model.appendingPathComponent(name).path, options: SessionOptions(intraOpThreads: threads))
    }

    static func maximumDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }
}
