import ChorusAudio
import ChorusAudioCodecs
@testable import ChorusServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `"stream": false` sends the audio whole with a header that states its real length; streamed audio keeps
/// the open-ended header a stream must send.
@Suite struct WholeResponseTests {
    private func speak(_ fields: [String: Any], rate: Int = 24_000) async throws -> TestResponse {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil),
                                  engines: [served(ToneSynthesizer(sampleRate: rate))])
        var fields = fields
        fields.merge(["model": "tone", "input": "A tone."]) { given, _ in given }
        let body = jsonBody(fields)
        return try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON, body: body)
        }
    }

    private static func uint32(_ data: Data, at offset: Int) -> UInt32 {
        data[offset..<offset + 4].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    @Test func aWAVSentWholeStatesItsLengthAndContentLength() async throws {
        let response = try await speak(["response_format": "wav", "stream": false], rate: 22_050)
        #expect(response.status == .ok)
        let body = Data(buffer: response.body)
        #expect(response.headers[.contentLength] == String(body.count))
        let frames = Int(1.5 * 22_050)
        #expect(Self.uint32(body, at: 40) == UInt32(2 * frames))
        #expect(Self.uint32(body, at: 4) == UInt32(body.count - 8))
        #expect(try WAVFile.decode(body).frameCount == frames)
    }

    @Test func aStreamedWAVKeepsTheOpenSize() async throws {
        for fields: [String: Any] in [["response_format": "wav"], ["response_format": "wav", "stream": true]] {
            let body = Data(buffer: try await speak(fields).body)
            #expect(Self.uint32(body, at: 40) == UInt32.max)
        }
    }

    @Test func aFLACSentWholeStatesItsTotalSamples() async throws {
        let response = try await speak(["response_format": "flac", "stream": false])
        #expect(response.status == .ok)
        let body = Data(buffer: response.body)
        let info = body[(FLACStreamEncoder.streamInfoOffset + 10)..<(FLACStreamEncoder.streamInfoOffset + 18)]
        let packed = info.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(packed & 0xF_FFFF_FFFF == UInt64(1.5 * 24_000))
        #expect(try AudioFileReader.decodeMono(body).samples.count == 36_000)
    }

    @Test func sseCannotBeSentWhole() async throws {
        let response = try await speak(["stream_format": "sse", "stream": false])
        #expect(response.status == .badRequest)
        let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
        #expect(error.error.param == "stream")
    }

    @Test func opusAndAACAreServedStreamed() async throws {
        let opus = try await speak(["response_format": "opus"])
        #expect(opus.status == .ok)
        #expect(opus.headers[.contentType] == "audio/ogg")
        #expect(opus.headers[HTTPField.Name("X-Sample-Rate")!] == "48000")
        #expect(Data(buffer: opus.body).prefix(4) == Data("OggS".utf8))
        let aac = try await speak(["response_format": "aac"], rate: 22_050)
        #expect(aac.status == .ok)
        #expect(aac.headers[.contentType] == "audio/aac")
        #expect(aac.headers[HTTPField.Name("X-Sample-Rate")!] == "22050")
        #expect(Array(Data(buffer: aac.body).prefix(2)) == [0xFF, 0xF1])
    }
}
