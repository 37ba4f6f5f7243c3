import ChorusAudio
import Foundation

/// The generated clip and the Python package's results on it; see scripts/testdata/make_vad_testdata.py.
struct SpeechPausesClip {
    struct Rate: Decodable {
        var file: String
        var sample_rate: Int
        var samples: Int
        var truth: [[Int]]
        var segments: [[Int]]
        var probabilities: [Double]
    }

    private struct Golden: Decodable { var clips: [String: Rate] }

    let rate: Rate
    let sampleRate: Int
    let audio: [Float]

    /// The espeak-ng clip at `sampleRate` (16000 or 8000).
    init(sampleRate: Int) throws {
        try self.init(named: "espeak-\(sampleRate)")
    }

    /// A clip by speaker and rate: espeak-16000, espeak-8000, piper-16000, kokoro-16000.
    init(named name: String) throws {
        let folder = Bundle.module.url(forResource: "Resources/speech_pauses", withExtension: "json")!
            .deletingLastPathComponent()
        let golden = try JSONDecoder().decode(
            Golden.self, from: Data(contentsOf: folder.appendingPathComponent("speech_pauses.json")))
        rate = golden.clips[name]!
        sampleRate = rate.sample_rate
        let wav = try WAVFile.readMono(contentsOf: folder.appendingPathComponent(rate.file))
        precondition(wav.sampleRate == sampleRate)
        audio = wav.samples
    }
}
