import ChorusDSP
import Foundation
import ChorusRecognition

/// The generated models and clip, and the Python reference's results on them;
/// see scripts/testdata/make_fastconformer_testdata.py.
enum ToneSentence {
    struct Golden: Decodable {
        var samples: Int
        var frames: Int
        var bucket: Int
        var frame_tokens: [Int]
        var token_ids: [Int]
        var text: String
        var spoken: String
        var tones: [String: Double]
        var timing: [String: Double]
        var story: [String]
        var story_ids: [Int]
        var story_text: String
        var pronunciation_frame_symbols: [Int]
        var pronunciation_ids: [Int]
        var pronunciation: String
    }

    static let resources = Bundle.module.url(forResource: "Resources/tone_sentence", withExtension: "json")!
        .deletingLastPathComponent()
    static let modelFolder = resources.appendingPathComponent("fastconformer")

    static func golden() throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(contentsOf: resources.appendingPathComponent("tone_sentence.json")))
    }

    /// NeMo features of the clip as onnx-asr's nemo80.onnx computes them: [80, frames].
    static func features() throws -> AcousticFeatures {
        let file = try NPYFile.read(contentsOf: resources.appendingPathComponent("tone_sentence_features.npy"))
        return AcousticFeatures(channels: file.shape[0], frames: file.shape[1], values: file.values)
    }
}
