import ChorusAudio
@testable import ChorusCLI
import ChorusFiles
import ChorusGoogle
import ChorusModels
import ChorusStreaming
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf
import SwiftProtobuf
import Testing

@Suite struct GoogleProviderChoiceTests {
    @Test func theFlagBeatsTheVariableWhichBeatsGoogle() throws {
        let environment = ["GOOGLE_API_KEY": "k", "GOOGLE_TTS_ENDPOINT": "http://127.0.0.1:9"]
        let fromVariable = try #require(try CloudProviderChoice.google.provider(
            voice: "de-DE-Chirp3-HD-Kore", model: nil, speed: 1.5, baseURL: nil, environment: environment) as? GoogleSpeechProvider)
        #expect(fromVariable.configuration.endpoint == "http://127.0.0.1:9")
        #expect(fromVariable.configuration.voiceName == "de-DE-Chirp3-HD-Kore")
        #expect(fromVariable.configuration.languageCode == "de-DE")
        #expect(fromVariable.configuration.speakingRate == 1.5)
        let fromFlag = try #require(try CloudProviderChoice.google.provider(
            voice: nil, model: nil, speed: 1, baseURL: "http://127.0.0.1:8", environment: environment) as? GoogleSpeechProvider)
        #expect(fromFlag.configuration.endpoint == "http://127.0.0.1:8")
        #expect(fromFlag.configuration.voiceName == CloudProviderChoice.googleVoice)
        let google = try #require(try CloudProviderChoice.google.provider(
            voice: nil, model: nil, speed: 1, baseURL: nil, environment: ["GOOGLE_OAUTH_ACCESS_TOKEN": "t"]) as? GoogleSpeechProvider)
        #expect(google.configuration.endpoint == "https://texttospeech.googleapis.com")
    }

    @Test func missingCredentialsNameBothVariables() {
        #expect(throws: GoogleSpeechError.missingCredentials(variables: ["GOOGLE_API_KEY", "GOOGLE_OAUTH_ACCESS_TOKEN"])) {
            _ = try CloudProviderChoice.google.provider(voice: nil, model: nil, speed: 1, baseURL: nil, environment: [:])
        }
    }

    @Test func aModelOrAnOutOfRangeSpeedIsRefused() {
        #expect(throws: (any Error).self) {
            _ = try CloudProviderChoice.google.provider(voice: nil, model: "m", speed: 1, baseURL: nil, environment: ["GOOGLE_API_KEY": "k"])
        }
        #expect(throws: (any Error).self) {
            _ = try CloudProviderChoice.google.provider(voice: nil, model: nil, speed: 3, baseURL: nil, environment: ["GOOGLE_API_KEY": "k"])
        }
    }
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "needs the chorus binary"))
struct GoogleProviderCommandTests {
    @Test func missingCredentialsAreOneSentenceNamingTheVariables() async throws {
        let result = try await ChorusProcess.running(["speak", "--provider", "google", "Hello.", "-o", "-"],
                                                     environment: ["GOOGLE_API_KEY": "", "GOOGLE_OAUTH_ACCESS_TOKEN": ""])
        #expect(result.status != 0)
        #expect(result.standardError.contains("No Google credentials: set GOOGLE_API_KEY or GOOGLE_OAUTH_ACCESS_TOKEN"),
                "\(result.standardError)")
    }

    /// The command against a local StreamingSynthesize server found through GOOGLE_TTS_ENDPOINT: the
    /// file holds exactly the server's samples, and the server saw the voice, rate and key given.
    @Test func speaksThroughALocalGoogleServer() async throws {
        let service = EchoingTextToSpeech()
        let server = GRPCServer(
            transport: HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
            services: [service])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.serve() }
            var failure: (any Error)?
            do {
                try await Self.speak(through: server, service)
            } catch {
                failure = error
            }
            // Stopped gracefully, cancelled only after 10 s: cancelling a server that has accepted a connection it
            // is not yet serving traps the process (apple/swift-nio#3481), as ChorusGoogleTests' fake did.
            server.beginGracefulShutdown()
            group.addTask { try await Task.sleep(for: .seconds(10)) }
            _ = try? await group.next()
            group.cancelAll()
            if let failure { throw failure }
        }
    }

    private static func speak(through server: GRPCServer<HTTP2ServerTransport.Posix>, _ service: EchoingTextToSpeech) async throws {
        let port = try #require(try await server.listeningAddress?.ipv4?.port)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("google.wav")
        let result = try await ChorusProcess.running(
            ["speak", "--provider", "google", "--voice", "en-GB-Chirp3-HD-Puck", "--sample-format", "float32",
             "First sentence. Second one.", "-o", output.path],
            environment: ["GOOGLE_API_KEY": "local-key", "GOOGLE_OAUTH_ACCESS_TOKEN": "",
                          "GOOGLE_TTS_ENDPOINT": "http://127.0.0.1:\(port)"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("local-key"))
        let file = try WAVFile.readMono(contentsOf: output)
        #expect(file.sampleRate == 24_000)
        let seen = service.seen
        #expect(seen.inputs.joined().trimmingCharacters(in: .whitespaces) == "First sentence. Second one.")
        #expect(file.samples == seen.inputs.flatMap(EchoingTextToSpeech.samples(for:)).map { Float($0) / 32768 })
        #expect(seen.keys == ["local-key"])
        #expect(seen.voice == "en-GB-Chirp3-HD-Puck")
        #expect(seen.language == "en-GB")
        #expect(seen.rate == 24_000)
    }
}

/// A StreamingSynthesize server whose voice is a function of the text: 120 samples per UTF-8 byte.
private final class EchoingTextToSpeech: Google_Cloud_Texttospeech_V1_TextToSpeech.StreamingServiceProtocol, Sendable {
    struct Seen: Sendable {
        var keys: [String] = []
        var voice = ""
        var language = ""
        var rate: Int32 = 0
        var inputs: [String] = []
    }

    private let state = Locked(Seen())
    var seen: Seen { state.withLock { $0 } }

    static func samples(for text: String) -> [Int16] {
        (0..<(120 * text.utf8.count)).map { Int16(truncatingIfNeeded: $0 &* 53 &+ text.utf8.count) }
    }

    func streamingSynthesize(
        request: StreamingServerRequest<Google_Cloud_Texttospeech_V1_StreamingSynthesizeRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Cloud_Texttospeech_V1_StreamingSynthesizeResponse> {
        let keys = request.metadata[stringValues: "x-goog-api-key"].map { String($0) }
        state.withLock { $0.keys = keys }
        return StreamingServerResponse { writer in
            for try await message in request.messages {
                switch message.streamingRequest {
                case .streamingConfig(let config):
                    self.state.withLock {
                        $0.voice = config.voice.name
                        $0.language = config.voice.languageCode
                        $0.rate = config.streamingAudioConfig.sampleRateHertz
                    }
                case .input(let input):
                    self.state.withLock { $0.inputs.append(input.text) }
                    let pcm = Self.samples(for: input.text).withUnsafeBytes { Data($0) }
                    try await writer.write(.with { $0.audioContent = pcm })
                case nil:
                    throw RPCError(code: .invalidArgument, message: "an empty request")
                }
            }
            return [:]
        }
    }
}
