import ChorusAudio
import ChorusEngines
@testable import ChorusServer
import ChorusSpeech
import ChorusTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A cloner whose voice "taken" is listed but already gone when removed: what the losing DELETE of two meets.
final class RacedCloner: VoiceCloning {
    let engineName = "cloner"
    let sampleRate = 24_000
    let cloningNeedsTranscript = true
    let acceptedClipDuration = 1.0...10.0
    var voices: [Voice] { [Voice(id: "taken", engine: "cloner", language: "en", gender: .unknown)] }

    func stream(_ request: SynthesisRequest) -> AsyncThrowingStream<AudioChunk, any Error> {
        AsyncThrowingStream { $0.finish() }
    }

    func cloneVoice(from clip: VoiceClip, id: String, language: String?) async throws -> ClonedVoice {
        ClonedVoice(voice: Voice(id: id, engine: engineName, language: "en", gender: .unknown), conditioning: 0)
    }

    func register(_ voice: ClonedVoice, replacing: Bool) async throws {}

    func removeVoice(id: String) async throws {
        throw SpeechError.unknownVoice(id, engine: engineName, available: [])
    }
}

/// Issue 41, items 1, 3 and 5 at the server: uploads judged by their headers and their texts before they are
/// decoded or kept, counted in the admission queue, and client mistakes answered 4xx.
@Suite struct HostileUploadTests {
    private func server(queueLimit: Int = 8, cloner: any VoiceCloning = FakeCloner()) -> SpeechServer {
        SpeechServer(configuration: ServerConfiguration(port: 0, queueLimit: queueLimit), engines: [
            served(FakeSynthesizer()),
            testEngine("cloner", name: "Cloner", sampleRate: 24_000,
                       cloning: Engine.Cloning(needsTranscript: true, clipSeconds: 1.0...10.0)) { cloner },
        ], transcriber: { FakeTranscriber() })
    }

    /// main transcribed 768 kHz FLAC (here four frames; the probe's ten minutes took 2 GB) and answered 200.
    @Test func aTranscriptionAtARateNoRouteTakesIsA400NamingTheLimit() async throws {
        let flac = CraftedAudio.constantFLAC(sampleRate: 768_000, declaredFrames: 768_000 * 600, frameCount: 4)
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form([], files: [("file", "talk.flac", flac)])
            let response = try await client.execute(uri: "/v1/audio/transcriptions", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest)
            let error = try ErrorBody(response.body).error
            #expect(error.param == "file")
            #expect(error.message.contains("talk.flac is at 768000 Hz; Chorus reads audio at 8000-192000 Hz"), "\(error.message)")
        }
    }

    /// A clip is judged by the engine's longest clip from its header: main decoded this FLAC's two frames
    /// (2.7 s, though it states 30 s) and made a voice of it, 201.
    @Test func aClipStatingALengthOverTheEnginesLimitIsRefusedFromItsHeader() async throws {
        let flac = CraftedAudio.constantFLAC(sampleRate: 48_000, declaredFrames: 48_000 * 30, frameCount: 2)
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form([("id", "x"), ("transcript", "Words.")], files: [("audio", "clip.flac", flac)])
            let response = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest)
            let error = try ErrorBody(response.body).error
            #expect(error.param == "audio")
            #expect(error.message.contains("clip.flac holds 30 s of audio; Chorus reads at most 10 s"), "\(error.message)")
        }
    }

    /// Uploads hold a place in the admission queue as speech does: with the engine's (or the recogniser's)
    /// one place taken, an upload is a 429, not decoded beside it (main took both).
    @Test func uploadsWaitInTheAdmissionQueue() async throws {
        let server = self.server(queueLimit: 1)
        let cloning = try server.queue.admit("cloner")
        let transcribing = try server.queue.admit(TranscriptionRoute.queueName)
        try await server.makeApplication().test(.router) { client in
            let (headers, body) = form([("id", "x"), ("transcript", "Words.")],
                                       files: [("audio", "clip.wav", try stereoClip(seconds: 2, rate: 16_000))])
            let clone = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(clone.status == .tooManyRequests)
            let (fileHeaders, fileBody) = form([], files: [("file", "talk.wav", try stereoClip(seconds: 1, rate: 16_000))])
            let transcription = try await client.execute(uri: "/v1/audio/transcriptions", method: .post,
                                                         headers: fileHeaders, body: fileBody)
            #expect(transcription.status == .tooManyRequests)
            cloning.release()
            transcribing.release()
            let again = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(again.status == .created)
        }
    }

    /// Item 3: a transcript is bounded in code points at upload (main kept 1 MB, and every request in the voice
    /// paid for it).
    @Test func aTranscriptOverTheLimitIsA400() async throws {
        let long = String(repeating: "word ", count: VoiceClip.maximumTranscriptCharacters / 5 + 1)
        try await server().makeApplication().test(.router) { client in
            let (headers, body) = form([("id", "x"), ("transcript", long)],
                                       files: [("audio", "clip.wav", try stereoClip(seconds: 2, rate: 16_000))])
            let response = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest)
            let error = try ErrorBody(response.body).error
            #expect(error.param == "transcript" && error.code == "voice_text_too_long")
            // 401 words of 5 characters, the last space trimmed.
            #expect(error.message == "The voice's transcript is 2004 characters, over the 2000 a voice keeps; give a shorter one.")
        }
    }

    /// Item 5: the losing DELETE of two is told the voice is not there, 404 (main answered 400).
    @Test func theLosingDeleteOfARaceIsA404() async throws {
        try await server(cloner: RacedCloner()).makeApplication().test(.router) { client in
            let response = try await client.execute(uri: "/v1/audio/voices/taken?engine=cloner", method: .delete)
            #expect(response.status == .notFound)
            #expect(try ErrorBody(response.body).error.code == "voice_not_found")
        }
    }

    /// Item 5: a constant (DC) clip makes CosyVoice's encoders an all-zero speaker embedding. main answered 500 with
    /// the server's voices folder in the message; it is the clip's fault, a 400 naming no path. The other two
    /// engines make a voice of it, as they did.
    @Test(arguments: ["cosyvoice", "neutts", "chatterbox"])
    func aConstantClipIsNeverA500(_ id: String) async throws {
        let (engine, folder) = try CloningEnginesTests.engine(try Engine.named(id))
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [engine])
        let constant = try WAVWriter.encode([Float](repeating: 0.5, count: 16_000 * (id == "chatterbox" ? 6 : 3)), sampleRate: 16_000)
        try await server.makeApplication().test(.router) { client in
            let (headers, body) = form([("engine", id), ("id", "dc"), ("transcript", "Hello there, this is my voice.")],
                                       files: [("audio", "dc.wav", constant)])
            let response = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            let text = String(buffer: response.body)
            #expect(response.status.code < 500, "\(text)")
            #expect(!text.contains(folder.path) && !text.contains("/voices/"), "\(text)")
            if id == "cosyvoice" {
                #expect(response.status == .badRequest)
                #expect(try ErrorBody(response.body).error.code == "unusable_clip")
            }
        }
    }

    /// Item 3: a voice is checked at upload for what speaking in it checks. A long transcript (under the code-point
    /// limit) passes CosyVoice's prompt bound, and with 25 s of codes overflows NeuTTS's context: main kept both
    /// voices (201), and every request in them then paid for the transcript or failed.
    @Test(arguments: ["cosyvoice", "neutts"])
    func aTranscriptNoRequestCouldSpeakIsRefusedAtUpload(_ id: String) async throws {
        let (engine, folder) = try CloningEnginesTests.engine(try Engine.named(id))
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: [engine])
        let transcript = String(repeating: "Hello there, this is my voice. ", count: 64)  // 1,983 characters
        try await server.makeApplication().test(.router) { client in
            let (headers, body) = form([("engine", id), ("id", "wordy"), ("transcript", transcript)],
                                       files: [("audio", "clip.wav", try CloningEnginesTests.clip(seconds: id == "neutts" ? 25 : 3))])
            let response = try await client.execute(uri: "/v1/audio/voices", method: .post, headers: headers, body: body)
            #expect(response.status == .badRequest, "\(String(buffer: response.body))")
            #expect(try engine.installedVoices().allSatisfy { $0.id != "wordy" })
        }
    }

    /// No 500 names where the server keeps its files: each absolute path is cut to its last component.
    @Test func serverErrorsNameNoServerPath() {
        #expect(APIError.withoutPaths("The voice in /srv/chorus/models/cosyvoice/voices/eve is unusable: x.bin is missing")
                == "The voice in …/eve is unusable: x.bin is missing")
        #expect(APIError.withoutPaths("a/b and /one stay") == "a/b and /one stay")
    }
}
