import Audio
import Foundation

/// The generated clip and the Python package's results on it; see scripts/testdata/make_vad_testdata.py.
struct SpeechPausesClip {
    struct Rate: Decodable {
        var file: String
        var samples: Int
        var truth: [[Int]]
        var segments: [[Int]]
        var probabilities: [Double]
    }

    private struct Golden: Decodable { var rates: [String: Rate] }

    let rate: Rate
    let sampleRate: Int
    let audio: [Float]

    init(sampleRate: Int) throws {
        let folder = Bundle.module.url(forResource: "Resources/speech_pauses", withExtension: "json")!
            .deletingLastPathComponent()
        let golden = try JSONDecoder().decode(
            Golden.self, from: Data(contentsOf: folder.appendingPathComponent("speech_pauses.json")))
        rate = golden.rates[String(sampleRate)]!
        self.sampleRate = sampleRate
        let wav = try WAVFile.readMono(contentsOf: folder.appendingPathComponent(rate.file))
        precondition(wav.sampleRate == sampleRate)
        audio = wav.samples
    }
}
