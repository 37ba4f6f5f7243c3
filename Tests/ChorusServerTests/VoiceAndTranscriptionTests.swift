import ChorusFiles
import ChorusModels
import ChorusAudio
import ChorusEngines
import ChorusRecognition
@testable import ChorusServer
import ChorusSpeech
import ChorusStreaming
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A cloning engine with no model: a clone's summary records the clip it was made from.
final class FakeCloner: VoiceCloning {
    let engineName = "cloner"
    let sampleRate = 24_000
    let cloningNeedsTranscript = true
    let acceptedClipDuration = 1.0...10.0
    private let installed = Locked([Voice(id: "base", engine: "cloner", language: "en", gender: .unknown)])
    var voices: [Voice] { installed.withLock { $0 } }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        AsyncThrowingStream { $0.finish() }
    }

    func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        let voice = Voice(id: id, engine: engineName, language: language ?? "und", gender: .unknown,
                          summary: "\(clip.samples.count) samples at \(clip.sampleRate) Hz: \(clip.transcript ?? "")")
        return ClonedVoice(voice: voice, conditioning: clip.samples.count)
    }

    func register(_ voice: ClonedVoice, replacing: Bool) async throws {
        installed.withLock { $0.append(voice.voice) }
    }

    func removeVoice(id: String) async throws {
        installed.withLock { $0.removeAll { $0.id == id } }
    }
}

struct FakeTranscriber: SpeechTranscriber {
    func transcribe(_ samples: [Float], sampleRate: Int) async throws -> Transcript {
        let duration = Double(samples.count) / Double(sampleRate)
        return Transcript(text: "Hello there. Goodbye.", segments: [
            .init(start: 0.25, end: 1.5, text: "Hello there."),
            .init(start: 61.0, end: 3_725.0125, text: "Goodbye."),
        ], duration: duration)
    }
}

/// A multipart/form-data body and its Content-Type.
func form(_ fields: [(name: String, value: String)], files: [(name: String, filename: String, data: Data)] = []) -> (HTTPFields, ByteBuffer) {
    let boundary = "chorus-test-boundary"
    var body = Data()
    for field in fields {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\"\r\n\r\n\(field.value)\r\n".utf8))
    }
    for file in files {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: audio/wav\r\n\r\n".utf8))
        body.append(file.data)
        body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return ([.contentType: "multipart/form-data; boundary=\(boundary)"], ByteBuffer(data: body))
}

/// A stereo WAV of `seconds` at `rate`.
func stereoClip(seconds: Double, rate: Int) throws -> Data {
    let frames = Int(seconds * Double(rate))
    let samples = (0..<frames * 2).map { Float(sin(Double($0) * 0.01)) * 0.5 }
    return try WAVWriter.encode(samples, sampleRate: rate, channels: 2)
}

@Suite struct VoiceAndTranscriptionTests {
    private func server() -> SpeechServer {
        let cloner = FakeCloner()
        return SpeechServer(configuration: ServerConfiguration(port: 0), engines: [
            served(FakeSynthesizer()),
            testEngine("cloner", name: "Cloner", sampleRate: 24_000,
                       cloning: Engine.Cloning(needsTranscript: true, clipSeconds: cloner.acceptedClipDuration)) { cloner },
        ], transcriber: { FakeTranscriber() })
    }

    @Test func aClipUploadClonesAndInstallsAVoiceThatDeleteRemoves() async throws {
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form([("id", "mine"), ("transcript", "What the clip says."), ("language", "en")],
                                       files: [("audio", "clip.wav", try stereoClip(seconds: 2, rate: 44_100))])
            let created = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(created.status == .created)
            let voice = try JSONDecoder().decode(Voice.self, from: Data(buffer: created.body))
            #expect(voice == Voice(id: "mine", engine: "cloner", language: "en", gender: .unknown,
                                   summary: "88200 samples at 44100 Hz: What the clip says."))

            let listed = try await client.execute(uri: "/v1/audio/voices?engine=cloner", method: .get)
            #expect(String(buffer: listed.body).contains(#""id":"mine""#))

            let again = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(again.status == .conflict)

            let deleted = try await client.execute(uri: "/v1/audio/voices/mine?engine=cloner", method: .delete)
            #expect(deleted.status == .noContent)
            let gone = try await client.execute(uri: "/v1/audio/voices/mine?engine=cloner", method: .delete)
            #expect(gone.status == .notFound)
        }
    }

    @Test(arguments: [
        ([("id", "x y"), ("transcript", "t")], 2.0, "id"),
        ([("id", "-x"), ("transcript", "t")], 2.0, "id"),
        ([("transcript", "t")], 2.0, "id"),
        ([("id", "ok")], 2.0, "transcript"),
        ([("id", "ok"), ("transcript", "t")], 0.5, "audio"),
        ([("id", "ok"), ("transcript", "t"), ("engine", "fake")], 2.0, "engine"),
        ([("id", "ok"), ("transcript", "t"), ("instruction", "Speak softly.")], 2.0, "instruction"),
    ] as [([(String, String)], Double, String)])
    func badClonesAreRefusedNamingTheField(fields: [(String, String)], seconds: Double, param: String) async throws {
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form(fields.map { (name: $0.0, value: $0.1) },
                                       files: [("audio", "clip.wav", try stereoClip(seconds: seconds, rate: 16_000))])
            let response = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest)
            #expect(try ErrorBody(response.body).error.param == param)
        }
    }

    @Test func aCloneThatIsNotMultipartOrNotAWAVIsA400() async throws {
        try await server().makeApplication().test(.router) { client in
            let json = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: speechJSON, body: jsonBody(["id": "x"]))
            #expect(json.status == .badRequest)
            #expect(try ErrorBody(json.body).error.code == "not_multipart")
            let (headers, body) = form([("id", "x"), ("transcript", "t")], files: [("audio", "clip.mp3", Data("ID3 not a wav".utf8))])
            let notWAV = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(try ErrorBody(notWAV.body).error.param == "audio")
        }
    }

    @Test(arguments: [
        ("json", "application/json", #"{"text":"Hello there. Goodbye."}"#),
        ("text", "text/plain; charset=utf-8", "Hello there. Goodbye.\n"),
        ("srt", "application/x-subrip; charset=utf-8",
         "1\n00:00:00,250 --> 00:00:01,500\nHello there.\n\n2\n00:01:01,000 --> 01:02:05,013\nGoodbye.\n"),
        ("vtt", "text/vtt; charset=utf-8",
         "WEBVTT\n\n00:00:00.250 --> 00:00:01.500\nHello there.\n\n00:01:01.000 --> 01:02:05.013\nGoodbye.\n"),
        ("verbose_json", "application/json",
         #"{"duration":2,"segments":[{"end":1.5,"id":0,"start":0.25,"text":"Hello there."},{"end":3725.013,"id":1,"start":61,"text":"Goodbye."}],"task":"transcribe","text":"Hello there. Goodbye."}"#),
    ])
    func transcriptionsInEveryFormat(format: String, type: String, expected: String) async throws {
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form([("model", "whisper-1"), ("response_format", format)],
                                       files: [("file", "talk.wav", try stereoClip(seconds: 2, rate: 8_000))])
            let response = try await client.execute(uri: "/v1/audio/transcriptions", method: .post, headers: headers, body: body)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == type)
            #expect(String(buffer: response.body) == expected)
        }
    }

    @Test func transcriptionWithoutARecogniserSaysHowToGetOne() async throws {
        let server = SpeechServer(configuration: ServerConfiguration(port: 0), engines: [served(FakeSynthesizer())],
                                  transcriber: { try FastConformerTranscriber(folder: URL(fileURLWithPath: "/nonexistent/fastconformer")) })
        try await server.makeApplication().test(.router) { client in
            let (headers, body) = form([], files: [("file", "talk.wav", try stereoClip(seconds: 1, rate: 16_000))])
            let response = try await client.execute(uri: "/v1/audio/transcriptions", method: .post, headers: headers, body: body)
            #expect(response.status == .notFound)
            let error = try ErrorBody(response.body)
            #expect(error.error.code == "model_not_installed")
            #expect(error.error.message.contains("/nonexistent/fastconformer"))
        }
    }

    @Test func multipartParametersAndMalformedBodies() throws {
        #expect(MultipartForm.parameter("boundary", in: "multipart/form-data; boundary=\"a b\"") == "a b")
        #expect(MultipartForm.parameter("name", in: "form-data; name=file; filename=\"x.wav\"") == "file")
        #expect(throws: APIError.self) {
            _ = try MultipartForm(contentType: "multipart/form-data; boundary=zz", body: Data("--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated".utf8), maximumParts: 16)
        }
    }
}
