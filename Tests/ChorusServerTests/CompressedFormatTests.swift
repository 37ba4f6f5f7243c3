import ChorusAudioCodecs
@testable import ChorusServer
import ChorusSpeech
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A 440 Hz tone, said in two pieces, so a lossy codec's output can be compared with what went in.
struct ToneSynthesizer: SpeechSynthesizer {
    let engineName = "tone"
    let sampleRate: Int
    var voices: [Voice] { [Voice(id: "a440", engine: "tone", language: "en", gender: .unknown)] }

    func samples(seconds: Double) -> [Float] {
        (0..<Int(seconds * Double(sampleRate))).map { Float(sin(2 * Double.pi * 440 * Double($0) / Double(sampleRate))) * 0.5 }
    }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        let all = samples(seconds: 1.5), rate = sampleRate
        return AsyncThrowingStream { continuation in
            continuation.yield(AudioChunk(samples: Array(all[..<(all.count / 3)]), sampleRate: rate))
            continuation.yield(AudioChunk(samples: Array(all[(all.count / 3)...]), sampleRate: rate))
            continuation.finish()
        }
    }
}

@Suite struct CompressedFormatTests {
    private func speak(_ format: String, rate: Int = 24_000) async throws -> TestResponse {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil),
                                  engines: [served(ToneSynthesizer(sampleRate: rate))])
        return try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                     body: jsonBody(["model": "tone", "input": "A tone.", "response_format": format]))
        }
    }

    @Test(arguments: [24_000, 22_050])
    func flacIsLosslessAtTheEnginesRate(rate: Int) async throws {
        let response = try await speak("flac", rate: rate)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "audio/flac")
        #expect(response.headers[HTTPField.Name("X-Sample-Rate")!] == String(rate))
        let body = Data(buffer: response.body)
        #expect(body.prefix(4) == Data("fLaC".utf8))
        let decoded = try AudioFileReader.decodeMono(body)
        #expect(decoded.sampleRate == rate)
        let expected = ToneSynthesizer(sampleRate: rate).samples(seconds: 1.5).map { Int16(($0 * 32_767).rounded()) }
        #expect(decoded.samples.map { Int16(($0 * 32_768).rounded()) } == expected)
    }

    @Test(arguments: [24_000, 22_050])
    func mp3IsFramesFromTheFirstByteThatDecodeToTheTone(rate: Int) async throws {
        let response = try await speak("mp3", rate: rate)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "audio/mpeg")
        let body = Data(buffer: response.body)
        // A frame sync at once: no ID3 or Xing header that a stream could not fill in.
        let sync = body.count > 2 ? (UInt16(body[0]) << 8 | UInt16(body[1])) & 0xFFE0 : 0
        #expect(sync == 0xFFE0)
        // 64 kbit/s for 1.5 s, give or take a frame.
        let expectedBytes = 64_000.0 / 8 * 1.5
        #expect(abs(Double(body.count) - expectedBytes) < 1_500, "\(body.count) bytes")
        let decoded = try AudioFileReader.decodeMono(body)
        #expect(decoded.sampleRate == rate)
        let tone = ToneSynthesizer(sampleRate: rate).samples(seconds: 1.5)
        // LAME delays and pads by less than a few frames of 576 samples.
        let decodedCount = decoded.samples.count
        #expect(decodedCount >= tone.count && decodedCount <= tone.count + 4 * 1_152, "\(decodedCount)")
        // At the best alignment the decoded audio is the tone (correlation near 1).
        let window = tone[4_000..<6_048]
        var best = 0.0
        for lag in 0..<2_400 {
            var dot = 0.0, energyA = 0.0, energyB = 0.0
            for (index, value) in window.enumerated() {
                let other = Double(decoded.samples[4_000 + index + lag])
                dot += Double(value) * other
                energyA += Double(value) * Double(value)
                energyB += other * other
            }
            best = max(best, dot / (energyA * energyB).squareRoot())
        }
        #expect(best > 0.98, "best correlation \(best)")
    }
}
