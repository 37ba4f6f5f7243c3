import ChorusEngines
import ChorusModels
import ChorusSpeech
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /v1/audio/speech`: OpenAI's request shape, audio streamed back as the engine makes it.
///
/// Everything that can be refused is checked before the head is sent (body, format, model, queue,
/// voice, and the engine's first piece of audio), so a refusal carries its status; after that the
/// response is chunked audio, piece by piece. When the client goes away the synthesis task is
/// cancelled, which stops the engine's model call in progress.
struct SpeechRoute: Sendable {
    let configuration: ServerConfiguration
    let engines: EngineCache
    let queue: AdmissionQueue
    let metrics: ServerMetrics

    func respond(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (bytes, watchable) = try await RequestBodyReader.read(request, limit: configuration.maximumBodyBytes, within: configuration.bodyTimeout)
        let data = Data(buffer: bytes)
        let body = try SpeechRequestBody.decode(data)
        let text = try body.text(limit: configuration.maximumTextCharacters)
        let speed = try body.checkedSpeed()
        let format = try AudioResponseFormat.parse(body.responseFormat)
        let streamFormat = try body.checkedStreamFormat()
        let choice = try engines.choose(model: body.model, voice: body.voice, text: text)
        let engine = choice.engine
        guard engine.speeds.contains(speed) else {
            throw APIError.from(speech: SpeechError.invalidSpeed(speed, allowed: engine.speeds))
        }
        let options = try SpeechRequestBody.options(in: data, for: engine, served: engines.engines)
        let ticket = try queue.admit(engine.id)
        let (id, reason) = try await voiceID(body.voice, of: choice)
        let (synthesizer, voice) = try await engines.loaded(engine, language: Self.readingLanguage(choice), voice: id)
        let encoder = try AudioStreamEncoder(format: format, engineRate: synthesizer.sampleRate)
        let whole = body.stream == false
        let pieces = AudioPieces.start(synthesizer, SynthesisRequest(text: text, voiceID: voice.id, speed: speed, options: options),
                                       encoder: encoder, whole: whole, ticket: ticket, metrics: metrics)
        // The first piece decides the status: an engine that refuses the text still gets a JSON error.
        let first: Data?
        do {
            first = try await pieces.next()
        } catch {
            throw APIError.from(speech: error)
        }

        var headers: HTTPFields = [.connection: "close"]
        headers[HTTPField.Name("X-Chorus-Engine")!] = engine.id
        headers[HTTPField.Name("X-Chorus-Voice")!] = voice.id
        headers[HTTPField.Name("X-Chorus-Voice-Reason")!] = reason
        headers[HTTPField.Name("X-Sample-Rate")!] = String(encoder.outputRate)
        headers[.contentType] = streamFormat == .sse ? "text/event-stream" : format.contentType
        if streamFormat == .sse { headers[.cacheControl] = "no-cache" }
        if whole { headers[.contentLength] = String(first?.count ?? 0) }
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // Watches the client's side of the connection while the audio goes out: when it closes, the
            // write loop is cancelled, which ends `pieces` and cancels its synthesis task.
            try await RequestBodyReader.cancellingOnClientExit(request, watchable: watchable) {
                var next = first
                do {
                    while let data = next {
                        try await writer.write(ByteBuffer(data: streamFormat == .sse ? SSEEvent.delta(data) : data))
                        next = try await pieces.next()
                    }
                } catch let error where streamFormat == .sse && !(error is CancellationError) {
                    try await writer.write(ByteBuffer(data: SSEEvent.error(APIError.from(speech: error))))
                    return
                }
                if streamFormat == .sse { try await writer.write(ByteBuffer(data: SSEEvent.done)) }
            }
            try await writer.finish(nil)
        })
    }
}

extension SpeechRoute {
    /// The language an engine that selects one reads a text in when the text's language chose it (Kokoro
    /// reads Japanese with espeak-ng's Japanese); nil, its default, when the request named the engine.
    static func readingLanguage(_ choice: VoiceChoice) -> String? {
        choice.engine.capabilities.contains(.languageSelection) ? choice.espeakLanguage : nil
    }

    /// The voice a request asks for on the chosen engine, and why it speaks: one of OpenAI's names stands
    /// for an installed voice of the engine (`ServerConfiguration.openAIVoices`), taken among the voices
    /// that speak the text's language when the engine was chosen by it; no voice is the one chosen for
    /// the text (nil: the engine's default); any other id is taken as given.
    func voiceID(_ requested: String?, of choice: VoiceChoice) async throws -> (id: String?, reason: String) {
        guard let requested else {
            return (choice.voice?.id, choice.voice == nil ? choice.reason + "; its default voice" : choice.reason)
        }
        guard OpenAIVoiceMap.names.contains(where: { $0.name == requested.lowercased() }) else {
            return (requested, choice.voice == nil ? choice.reason + "; the voice the request names" : choice.reason)
        }
        let engine = choice.engine
        let voices = choice.voicesOfTheLanguage.isEmpty ? try await engines.loaded(engine).voices : choice.voicesOfTheLanguage
        guard let mapped = configuration.openAIVoices.voice(for: requested, engine: engine.id, voices: voices) else {
            return (requested, choice.reason + "; the voice the request names")
        }
        return (mapped.id, choice.reason + "; OpenAI's \(requested.lowercased()) is \(mapped.id) here (the OpenAI voice map)")
    }
}

/// The encoded audio of one request, made by a task of its own and read by the route: first by the
/// handler (the first piece), then by the response writer, one after the other, never at once. Sent whole,
/// it is one piece whose header states the real length.
final class AudioPieces: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator

    private init(_ stream: AsyncThrowingStream<Data, any Error>) {
        iterator = stream.makeAsyncIterator()
    }

    /// Starts synthesising `request`; the task ends, and gives the queue place back, when the audio is
    /// done, fails, or the pieces are dropped unread.
    static func start(_ synthesizer: any SpeechSynthesizer, _ request: SynthesisRequest,
                      encoder: AudioStreamEncoder, whole: Bool = false, ticket: AdmissionTicket,
                      metrics: ServerMetrics) -> AudioPieces {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let task = Task {
            defer { ticket.release() }
            var encoder = encoder
            let start = ContinuousClock.now
            var samples = 0
            var gathered = Data()
            func send(_ data: Data) {
                if whole { gathered.append(data) } else { continuation.yield(data) }
            }
            do {
                for try await chunk in synthesizer.stream(request) {
                    try Task.checkCancellation()
                    if samples == 0 { metrics.recordFirstAudio(engine: ticket.engine, seconds: seconds(since: start)) }
                    samples += chunk.samples.count
                    send(try encoder.encode(chunk.samples))
                }
                try Task.checkCancellation()
                send(try encoder.finish())
                if whole {
                    if let header = try encoder.completedHeader() {
                        gathered.replaceSubrange(header.offset..<header.offset + header.bytes.count, with: header.bytes)
                    }
                    continuation.yield(gathered)
                }
                continuation.finish()
                metrics.recordRealTimeFactor(engine: ticket.engine, synthesisSeconds: seconds(since: start),
                                             audioSeconds: Double(samples) / Double(synthesizer.sampleRate))
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return AudioPieces(stream)
    }

    func next() async throws -> Data? {
        try await iterator.next()
    }
}

/// Seconds from `start` until now.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// OpenAI's streamed speech events: `speech.audio.delta` with base64 audio, then `speech.audio.done`.
enum SSEEvent {
    static func delta(_ audio: Data) -> Data {
        Data("data: {\"type\":\"speech.audio.delta\",\"audio\":\"\(audio.base64EncodedString())\"}\n\n".utf8)
    }

    static let done = Data("data: {\"type\":\"speech.audio.done\"}\n\n".utf8)

    static func error(_ error: APIError) -> Data {
        var event = Data("data: {\"type\":\"error\",".utf8)
        event.append(error.body.dropFirst())  // the envelope without its opening brace
        event.append(contentsOf: "\n\n".utf8)
        return event
    }
}

extension APIError {
    /// An engine's refusal as the API shows it.
    static func from(speech error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as SpeechError:
            switch error {
            case .emptyText, .textTooLong, .overloadedCharacter, .nothingToSpeak:
                return .invalid(error.description, param: "input")
            case .textTooCostly:
                return APIError(.contentTooLarge, error.description, param: "input", code: "input_too_costly")
            case .unknownVoice, .clonedVoiceOfAnotherEngine:
                return .invalid(error.description, param: "voice", code: "voice_not_found")
            case .unusableVoice:
                return .invalid(error.description, param: "voice", code: "voice_unusable")
            case .invalidSpeed:
                return .invalid(error.description, param: "speed")
            case .noVoices:
                return APIError(.notFound, error.description, param: "model", code: "model_not_installed")
            case .invalidVoiceID:
                return .invalid(error.description, param: "id", code: "invalid_voice_id")
            case .voiceExists:
                return APIError(.conflict, error.description, param: "id", code: "voice_exists")
            case .unusableClip:
                return .invalid(error.description, param: "audio", code: "unusable_clip")
            case .voiceTextTooLong(let field, _, _, _):
                return .invalid(error.description, param: field, code: "voice_text_too_long")
            case .unknownOption(let name, _, _):
                return .invalid(error.description, param: name, code: "unknown_option")
            case .invalidOption(let name, _, _):
                return .invalid(error.description, param: name, code: "invalid_option")
            case .invalidModelFile, .missingModelOutput, .invalidSetting, .voicesFolderIsAFile, .voiceNotWritten:
                return .server(error)
            }
        case let error as ModelError:
            guard case .missingFile = error else { return .server(error) }
            return APIError(.notFound, error.description, param: "model", code: "model_not_installed")
        case let error as EngineError:
            return .invalid(error.description, param: "model")
        case let error as any CallerMistake where error.isCallersMistake:
            return .invalid("\(error)")
        default:
            return .from(error)
        }
    }
}
