import ChorusAudio
import ChorusRecognition
@testable import ChorusServer
import ChorusStreaming
import ChorusTesting
import ChorusVAD
import Foundation
import HummingbirdTesting
import Testing

/// `/v1/audio/transcriptions` segment times from the real Silero VAD: the stretches upstream's silero-vad
/// finds in the VAD tests' clip (their golden, `speech_pauses.json`), each handed to the recogniser on its
/// own and at the upload's own rate, whatever its rate and channel count.
@Suite struct TranscriptionSegmentsTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChorusVADTests/Resources")
    static let vadInstalled = FileManager.default.fileExists(atPath: SileroVAD.defaultModelPath)

    struct Golden: Decodable {
        struct Clip: Decodable {
            var file: String
            var segments: [[Int]]
        }
        var clips: [String: Clip]
    }

    struct Verbose: Decodable {
        struct Segment: Decodable {
            var start: Double
            var end: Double
            var text: String
        }
        var duration: Double
        var segments: [Segment]
    }

    /// The upload: the 16 kHz clip as it is, or resampled and made stereo (the right channel at half level).
    static func upload(rate: Int, channels: Int) throws -> (wav: Data, golden: Golden.Clip, seconds: Double) {
        let golden = try #require(try JSONDecoder().decode(
            Golden.self, from: Data(contentsOf: resources.appendingPathComponent("speech_pauses.json"))).clips["espeak-16000"])
        let clip = try WAVFile.readMono(contentsOf: resources.appendingPathComponent(golden.file))
        let samples = rate == clip.sampleRate ? clip.samples : try Resampler.resample(clip.samples, from: clip.sampleRate, to: rate)
        let interleaved = channels == 1 ? samples : samples.flatMap { [$0, $0 * 0.5] }
        return (try WAVWriter.encode(interleaved, sampleRate: rate, channels: channels), golden, Double(clip.samples.count) / 16_000)
    }

    @Test(.enabled(if: vadInstalled, "Silero VAD is not installed (chorus models pull silero-vad)"),
          arguments: [(16_000, 1, 1), (44_100, 2, 2)])
    func segmentsAreTheVADsStretchesHeardOneByOne(rate: Int, channels: Int, windows: Int) async throws {
        let (wav, golden, seconds) = try Self.upload(rate: rate, channels: channels)
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [served(FakeSynthesizer())],
                                  transcriber: { SegmentingTranscriber(vad: try SileroVAD()) { samples, rate in "\(samples.count) at \(rate)" } })
        // One 512-sample window at 16 kHz, as the VAD's own tests allow against upstream; two when the
        // upload was resampled to 44.1 kHz and back, which moves the probabilities a little.
        let tolerance = Double(windows * 512) / 16_000
        try await server.makeApplication().test(.router) { client in
            let (headers, body) = form([("response_format", "verbose_json")], files: [("file", "talk.wav", wav)])
            let response = try await client.execute(uri: "/v1/audio/transcriptions", method: .post, headers: headers, body: body)
            #expect(response.status == .ok)
            let verbose = try JSONDecoder().decode(Verbose.self, from: Data(buffer: response.body))
            #expect(abs(verbose.duration - seconds) < 0.001)
            #expect(verbose.segments.count == golden.segments.count, "\(verbose.segments)")
            for (segment, expected) in zip(verbose.segments, golden.segments) {
                #expect(abs(segment.start - Double(expected[0]) / 16_000) <= tolerance, "\(segment) vs upstream \(expected)")
                #expect(abs(segment.end - Double(expected[1]) / 16_000) <= tolerance, "\(segment) vs upstream \(expected)")
                // The recogniser heard exactly this stretch, at the upload's rate.
                let heard = try #require(Int(segment.text.split(separator: " ").first ?? ""))
                #expect(segment.text.hasSuffix(" at \(rate)"))
                #expect(abs(Double(heard) - (segment.end - segment.start) * Double(rate)) <= Double(rate) / 500, "\(segment)")
            }

            let (srtHeaders, srtBody) = form([("response_format", "srt")], files: [("file", "talk.wav", wav)])
            let srt = String(buffer: try await client.execute(uri: "/v1/audio/transcriptions", method: .post,
                                                              headers: srtHeaders, body: srtBody).body)
            let cues = srt.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(cues.count == verbose.segments.count)
            if let first = verbose.segments.first {
                #expect(cues.first?.hasPrefix("1\n\(TranscriptionRoute.timestamp(first.start, separator: ",")) --> ") == true, "\(srt)")
            }
        }
    }

    @Test func withoutAVADTheWholeClipIsOneSegmentAndSilenceIsNone() async throws {
        let transcriber = SegmentingTranscriber(vad: nil) { samples, _ in samples.contains { $0 != 0 } ? "words" : "" }
        let spoken = try await transcriber.transcribe([Float](repeating: 0.1, count: 8_000), sampleRate: 16_000)
        #expect(spoken == Transcript(text: "words", segments: [.init(start: 0, end: 0.5, text: "words")], duration: 0.5))
        let silent = try await transcriber.transcribe([Float](repeating: 0, count: 8_000), sampleRate: 16_000)
        #expect(silent == Transcript(text: "", segments: [], duration: 0.5))
    }
}
