import Foundation
import ChorusSpeech

/// A Piper voice's `.onnx.json`: sample rate, espeak voice, inference scales and the phoneme-to-id map.
public struct PiperVoiceConfig: Sendable {
    public var sampleRate: Int
    /// The espeak-ng voice whose IPA the model was trained on, e.g. "en-us".
    public var espeakVoice: String
    public var noiseScale: Float
    public var lengthScale: Float
    public var noiseW: Float
    /// Each phoneme (one Unicode scalar) to its ids.
    public var phonemeIDs: [Unicode.Scalar: [Int64]]
    /// The dataset name (the voice's name), e.g. "joe".
    public var dataset: String
    /// Language code such as "en_US".
    public var languageCode: String
    /// How many speakers the voice was trained on (`num_speakers`); above 1 the model takes a speaker id.
    public var speakerCount: Int

    /// Reads and checks a config file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SpeechError.invalidModelFile(path: url.path, reason: "cannot be read")
        }
        try self.init(data: data, path: url.path)
    }

    init(data: Data, path: String) throws {
        func invalid(_ reason: String) -> SpeechError { .invalidModelFile(path: path, reason: reason) }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw invalid("not a JSON object")
        }
        guard let audio = root["audio"] as? [String: Any], let rate = audio["sample_rate"] as? Int, rate > 0 else {
            throw invalid("audio.sample_rate is missing")
        }
        guard let espeak = root["espeak"] as? [String: Any], let voice = espeak["voice"] as? String, !voice.isEmpty else {
            throw invalid("espeak.voice is missing")
        }
        guard let map = root["phoneme_id_map"] as? [String: Any], !map.isEmpty else {
            throw invalid("phoneme_id_map is missing")
        }
        var ids: [Unicode.Scalar: [Int64]] = [:]
        for (phoneme, value) in map {
            guard phoneme.unicodeScalars.count == 1, let scalar = phoneme.unicodeScalars.first,
                  let list = value as? [Int], !list.isEmpty
            else { throw invalid("phoneme_id_map entry '\(phoneme)' is not one character mapped to ids") }
            ids[scalar] = list.map(Int64.init)
        }
        for required in ["^", "$", "_"] where ids[Unicode.Scalar(required)!] == nil {
            throw invalid("phoneme_id_map lacks '\(required)'")
        }
        let inference = root["inference"] as? [String: Any] ?? [:]
        sampleRate = rate
        espeakVoice = voice
        noiseScale = (inference["noise_scale"] as? NSNumber)?.floatValue ?? 0.667
        lengthScale = (inference["length_scale"] as? NSNumber)?.floatValue ?? 1
        noiseW = (inference["noise_w"] as? NSNumber)?.floatValue ?? 0.8
        phonemeIDs = ids
        dataset = root["dataset"] as? String ?? "piper"
        languageCode = (root["language"] as? [String: Any])?["code"] as? String ?? voice
        speakerCount = max(1, root["num_speakers"] as? Int ?? 1)
    }
}
