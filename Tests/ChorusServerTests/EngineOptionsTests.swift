@testable import ChorusServer
import ChorusEngines
import ChorusSpeech
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 40, item 2: an engine's options (`Engine.options`) reach every surface from that one list: `/v1/models`
/// lists each with its type and limits (the playground's controls are made from it), a speech request's field of
/// its name is read as it, and an engine without it refuses it naming those that take it. The command line's
/// `--set` is checked by ChorusCLITests' EngineOptionTests on the same list.
@Suite struct EngineOptionsTests {
    /// A value `option` takes.
    static func sample(_ option: SpeechOption) -> SpeechOptionValue {
        switch option.kind {
        case .number(let range): .number((range.lowerBound + range.upperBound) / 2)
        case .integer(let range): .number(Double(range.lowerBound))
        case .text: .text("请用广东话表达。")
        case .flag: .flag(true)
        }
    }

    static func json(_ value: SpeechOptionValue) -> Any {
        switch value {
        case .number(let number): number
        case .text(let text): text
        case .flag(let flag): flag
        }
    }

    @Test func everyDeclaredOptionIsListedAndReadFromASpeechRequest() async throws {
        let engines = Engine.registered
        #expect(engines.contains { !$0.options.isEmpty }, "no engine declares an option: nothing here is tested")
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil), engines: engines)
        try await server.makeApplication().test(.router) { client in
            let list = try JSONSerialization.jsonObject(with: Data(buffer: try await client.execute(uri: "/v1/models", method: .get).body))
            let models = (list as? [String: Any])?["data"] as? [[String: Any]] ?? []
            for engine in engines {
                let model = models.first { $0["id"] as? String == engine.id }
                let listed = model?["options"] as? [[String: Any]] ?? []
                #expect(listed.map { $0["name"] as? String } == engine.options.map(\.name), "\(engine.id)")
                let speed = model?["speed"] as? [String: Double]
                #expect(speed?["minimum"] == Double(engine.speeds.lowerBound) && speed?["maximum"] == Double(engine.speeds.upperBound))
                for option in engine.options {
                    let value = Self.sample(option)
                    let body = try JSONSerialization.data(withJSONObject: [option.name: Self.json(value), "input": "Hi."])
                    let read = try SpeechRequestBody.options(in: body, for: engine, served: engines)
                    #expect(read == [option.name: value], "\(engine.id).\(option.name)")
                    for other in engines where !other.options.contains(where: { $0.name == option.name }) {
                        let error = try #require(throws: APIError.self) { try SpeechRequestBody.options(in: body, for: other, served: engines) }
                        #expect(error.message.contains("engines that do: \(engine.id)"), "\(error.message)")
                    }
                }
            }
        }
    }

    /// A Piper voice (the tests' stand-in) spoken over HTTP with its options; a speaker it does not have, a value
    /// out of range and OpenAI's `instructions` (which Piper does not take) are 400s naming the field.
    @Test func piperSpeaksWithItsOptionsAndRefusesWhatItDoesNotTake() async throws {
        let standIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("EngineTests/Models/piper_stand_in.onnx")
        let server = SpeechServer(configuration: ServerConfiguration(port: 0, historyFolder: nil),
                                  engines: [Engine.piper.using(model: standIn), Engine.cosyvoice])
        try await server.makeApplication().test(.router) { client in
            func speak(_ fields: [String: Any]) async throws -> TestResponse {
                try await client.execute(uri: "/v1/audio/speech", method: .post, headers: speechJSON,
                                         body: jsonBody((["model": "piper", "input": "Hello there. Goodbye.", "response_format": "wav"]
                                                         as [String: Any]).merging(fields) { _, given in given }))
            }
            let plain = try await speak([:])
            #expect(plain.status == .ok, "\(String(buffer: plain.body))")
            let varied = try await speak(["noise_scale": 0, "noise_w": "0.3", "speaker": 0])
            #expect(varied.status == .ok, "\(String(buffer: varied.body))")
            let paused = try await speak(["sentence_silence": 1.5])
            #expect(paused.status == .ok, "\(String(buffer: paused.body))")
            // A second and a half between the two sentences, where the default puts 0.2 s (16-bit samples at the
            // engine's rate, behind the same WAV header).
            let rate = Int(paused.headers[HTTPField.Name("X-Sample-Rate")!] ?? "") ?? 0
            #expect(rate > 0 && paused.body.readableBytes - plain.body.readableBytes == Int(1.3 * Double(rate)) * 2)
            for (fields, param) in [(["speaker": 3], "speaker"), (["noise_scale": 7], "noise_scale"),
                                    (["instructions": "Speak softly."], "instructions"), (["instruction": "Speak softly."], "instruction")]
                as [([String: Any], String)] {
                let refused = try await speak(fields)
                #expect(refused.status == .badRequest, "\(fields)")
                #expect(try ErrorBody(refused.body).error.param == param, "\(String(buffer: refused.body))")
            }
        }
    }
}
