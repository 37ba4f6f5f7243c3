import ChorusAudio
@testable import ChorusCLI
import ChorusCloud
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CloudProviderChoiceTests {
    @Test func theFlagBeatsTheSDKVariableWhichBeatsTheService() throws {
        let environment = ["OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"]
        let fromVariable = try #require(
            try CloudProviderChoice.openai.provider(voice: "nova", model: "tts-1", speed: 1.5, baseURL: nil, environment: environment)
                as? OpenAISpeechProvider)
        #expect(fromVariable.configuration.baseURL == "http://127.0.0.1:9/v1")
        #expect(fromVariable.configuration.voice == "nova")
        #expect(fromVariable.configuration.model == "tts-1")
        #expect(fromVariable.configuration.speed == 1.5)
        let fromFlag = try #require(
            try CloudProviderChoice.openai.provider(voice: nil, model: nil, speed: 1, baseURL: "http://[::1]:8/v1", environment: environment)
                as? OpenAISpeechProvider)
        #expect(fromFlag.configuration.baseURL == "http://[::1]:8/v1")
        let service = try #require(
            try CloudProviderChoice.openai.provider(voice: nil, model: nil, speed: 1, baseURL: nil, environment: ["OPENAI_API_KEY": "k"])
                as? OpenAISpeechProvider)
        #expect(service.configuration.baseURL == "https://api.openai.com/v1")
    }

    @Test func elevenLabsTakesItsRootFromTheSDKVariableAsAWebSocketURL() throws {
        let provider = try #require(try CloudProviderChoice.elevenlabs.provider(
            voice: "voice-1", model: "eleven_multilingual_v2", speed: 1, baseURL: nil,
            environment: ["ELEVENLABS_API_KEY": "k", "ELEVENLABS_BASE_URL": "https://eu.example.test"]) as? ElevenLabsProvider)
        #expect(provider.configuration.endpoint == "wss://eu.example.test")
        #expect(provider.configuration.modelID == "eleven_multilingual_v2")
        #expect(provider.configuration.voiceID == "voice-1")
    }

    @Test func aMissingKeyNamesItsVariable() {
        #expect(throws: CloudProviderError.missingAPIKey(variable: "ELEVENLABS_API_KEY")) {
            _ = try CloudProviderChoice.elevenlabs.provider(voice: "v", model: nil, speed: 1, baseURL: nil, environment: [:])
        }
    }
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "needs the chorus binary"))
struct CloudProviderCommandTests {
    @Test func aMissingKeyIsOneSentenceNamingTheVariable() async throws {
        let result = try await ChorusProcess.running(["speak", "--stream", "--provider", "openai", "Hello.", "-o", "-"],
                                                     environment: ["OPENAI_API_KEY": ""])
        #expect(result.status != 0)
        #expect(result.standardError.contains("No API key: set the environment variable OPENAI_API_KEY."), "\(result.standardError)")
    }

    @Test func elevenLabsWithoutAVoiceSaysWhatToAdd() async throws {
        let result = try await ChorusProcess.running(["speak", "--provider", "elevenlabs", "Hello.", "-o", "-"],
                                                     environment: ["ELEVENLABS_API_KEY": "k"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("add --voice ID"), "\(result.standardError)")
    }

    /// The command against a local OpenAI-compatible server found through OPENAI_BASE_URL: the file holds
    /// exactly the server's samples, one request per sentence, with the voice, model and key given.
    @Test func speaksThroughAnOpenAICompatibleServer() async throws {
        let seen = LockedRequests()
        let router = Router()
        router.post("/v1/audio/speech") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let fields = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] ?? [:]
            seen.add(fields.mapValues { "\($0)" }.merging(["authorization": request.headers[.authorization] ?? ""]) { $1 })
            let pcm = samples(for: fields["input"] as? String ?? "").withUnsafeBytes { Data($0) }
            return Response(status: .ok, headers: [.contentType: "audio/pcm"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: pcm)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        // `.ahc`, not `.live`: `.live` also connects an unused client at once, with a 5 s timeout a loaded machine can exceed.
        try await app.test(.ahc(.http)) { client in
            let folder = try temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let output = folder.appendingPathComponent("cloud.wav")
            let result = try await ChorusProcess.running(
                ["speak", "--provider", "openai", "--voice", "coral", "--model", "tts-test", "--sample-format", "float32",
                 "First sentence. Second one.", "-o", output.path],
                environment: ["OPENAI_API_KEY": "local-key", "OPENAI_BASE_URL": "http://127.0.0.1:\(client.port!)/v1"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!result.standardError.contains("local-key"))
            let file = try WAVFile.readMono(contentsOf: output)
            #expect(file.sampleRate == 24_000)
            let expected = (samples(for: "First sentence.") + samples(for: "Second one.")).map { Float($0) / 32768 }
            #expect(file.samples == expected)
            let requests = seen.all
            #expect(requests.map { $0["input"] } == ["First sentence.", "Second one."])
            #expect(requests.allSatisfy { $0["voice"] == "coral" && $0["model"] == "tts-test" && $0["response_format"] == "pcm" })
            #expect(requests.allSatisfy { $0["authorization"] == "Bearer local-key" })
        }
    }

    /// The fake server's voice: 120 samples per UTF-8 byte, a function of the text.
    private func samples(for text: String) -> [Int16] {
        (0..<(120 * text.utf8.count)).map { Int16(truncatingIfNeeded: $0 &* 53 &+ text.utf8.count) }
    }
}

private final class LockedRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [[String: String]] = []
    func add(_ request: [String: String]) { lock.withLock { requests.append(request) } }
    var all: [[String: String]] { lock.withLock { requests } }
}
