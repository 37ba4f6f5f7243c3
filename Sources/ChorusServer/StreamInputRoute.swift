import ChorusModels
import ChorusSpeech
import ChorusStreaming
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import ChorusText

/// ElevenLabs' stream-input WebSocket, `/v1/text-to-speech/{voice}/stream-input?model_id=&output_format=pcm_{rate}`,
/// so a client written for that service speaks with a local engine while its text is still being written.
///
/// The client sends `{"text": " "}` first (with settings, ignored here), then `{"text": piece}` as text
/// arrives (`"flush": true` speaks what is pending), and `{"text": ""}` to end. Each complete sentence
/// is spoken as soon as it is complete and sent as `{"audio": base64 PCM, "isFinal": false}`; the end
/// is `{"isFinal": true}`; a problem is `{"message", "error"}` before the socket closes. With a key
/// configured, the upgrade needs it in `xi-api-key` (or `Authorization: Bearer`), or the first message
/// carries it as `xi_api_key`, as browsers cannot set headers.
///
/// The session ends, as ElevenLabs' does, after `inactivity_timeout` seconds (20 unless the client asks
/// for 1 to 180) in which the client sent nothing and the server had nothing left to speak, with
/// `{"message", "error": "input_timeout_exceeded"}`. There is no ping: a client that reads audio at
/// the pace it plays it (ElevenLabs' clients and Chorus's own do) reads a ping only after the audio
/// queued before it, and Hummingbird's 30 s ping dropped such a client once more than 30 s of audio
/// was queued.
struct StreamInputRoute: Sendable {
    let configuration: ServerConfiguration
    let engines: EngineCache
    let queue: AdmissionQueue

    static let path: RouterPath = "/v1/text-to-speech/:voice/stream-input"
    /// Bytes of the client's text that may wait to be spoken before its next message is read (about an
    /// hour of speech): past that, the client's writes wait in its socket, not in the server's memory. A
    /// client that sends more than this (and its socket buffers hold) before it reads any audio waits for
    /// ever, as the server's audio then waits for it: read while writing, as ElevenLabs' clients do.
    static let pendingTextLimit = 64 << 10
    /// The PCM rates ElevenLabs offers, which its clients ask for.
    static let rates = [16_000, 22_050, 24_000, 44_100]
    /// The largest message (and frame) a client may send, in bytes; past it the socket is closed with 1009.
    static let messageLimit = 1 << 20
    /// ElevenLabs' `inactivity_timeout`: its default and the longest a client may ask for, in seconds.
    static let inactivityTimeouts = (default: 20, longest: 180)

    /// Upgrades every request: the key is checked first thing in the session, where a refusal can say why
    /// (a refused upgrade is a bare 400).
    func shouldUpgrade(_ request: Request, context: ServerRequestContext) async throws -> RouterShouldUpgrade {
        .upgrade([:])
    }

    func session(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
                 _ context: WebSocketRouterContext<ServerRequestContext>) async throws {
        let request = context.request
        var messages = WebSocketClientMessages(inbound, limit: Self.messageLimit)
        do {
            // Nothing is resolved, queued or loaded before the key is checked: in `xi-api-key` (or
            // `Authorization`), or else in the first message, as browsers cannot set headers.
            let first = try await checkKey(request.headers, messages: &messages, outbound: outbound)
            let engine = try engines.resolve(model: request.uri.queryParameters.get("model_id"))
            let rate = try Self.rate(request.uri.queryParameters.get("output_format"))
            let timeout = try Self.inactivityTimeout(request.uri.queryParameters.get("inactivity_timeout"))
            let ticket = try queue.admit(engine.id)
            defer { ticket.release() }
            let (synthesizer, voice) = try await engines.loaded(engine, voice: context.requestContext.parameters.get("voice"))
            let pending = PendingText(limit: Self.pendingTextLimit)
            // The client's text as read, at most one message ahead of the segmenter ("" stands for a flush):
            // the socket is read on while the segmenter waits for room in `pending`, so a client that
            // leaves is seen at once, not when its queued text has been spoken.
            let incoming = PendingText(limit: 1)
            let activity = SessionActivity()
            let watchdog = Task {
                try await activity.waitForInactivity(timeout)
                let reply = #"{"message":"Have not received new text for \#(timeout.components.seconds) seconds. Closing the connection.","error":"input_timeout_exceeded"}"#
                try? await outbound.write(.text(reply))
                try? await outbound.close(.policyViolation, reason: "input_timeout_exceeded")
            }
            defer { watchdog.cancel() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // A failed engine takes no more text: the reading loop must not wait for room.
                    defer { pending.finish() }
                    while let sentence = await pending.next() {
                        defer { activity.spoken() }
                        // A stream whose reader is cancelled ends without an error: without this check a session
                        // whose client left would start, and at once end, a model call for every queued sentence.
                        try Task.checkCancellation()
                        var encoder = try AudioStreamEncoder(format: .pcm, engineRate: synthesizer.sampleRate, pcmRate: rate)
                        for try await chunk in synthesizer.stream(SynthesisRequest(text: sentence, voiceID: voice.id)) {
                            try await Self.send(try encoder.encode(chunk.samples), to: outbound)
                        }
                        try await Self.send(try encoder.finish(), to: outbound)
                    }
                    try await outbound.write(.text(#"{"audio":null,"isFinal":true,"normalizedAlignment":null}"#))
                }
                // A sentence counts as speech from the moment it is queued: the timeout never ends a session
                // whose last text has not been spoken yet, however late the speaking task gets to it.
                @Sendable func queue(_ sentence: String) async {
                    activity.queued()
                    await pending.put(sentence)
                }
                group.addTask {
                    // Cuts the client's text into sentences and queues them, waiting while enough text waits.
                    var segmenter = SentenceSegmenter()
                    while let text = await incoming.next() {
                        for sentence in text.isEmpty ? segmenter.finish() : segmenter.append(text) { await queue(sentence) }
                        activity.spoken()
                    }
                    for sentence in segmenter.finish() { await pending.put(sentence) }
                    pending.finish()
                }
                var ended = false
                var held = first
                while let fields = try await Self.next(&held, from: &messages) {
                    activity.heard()
                    let text = fields["text"] as? String ?? ""
                    if text.isEmpty {
                        // The client has said all it will: what remains is spoken, however long it takes to read.
                        watchdog.cancel()
                        ended = true
                        break
                    }
                    // A message is work from the moment it is read until the segmenter has queued its sentences:
                    // a starved segmenter task must not let the timeout end a session whose text waits in
                    // `incoming` (StreamInputInactivityTests saw 0 bytes spoken on a loaded machine).
                    activity.queued()
                    await incoming.put(text)
                    if fields["flush"] as? Bool == true {
                        activity.queued()
                        await incoming.put("")
                    }
                }
                guard ended else {
                    // The client left without ending: stop speaking to nobody, whatever model call is running.
                    group.cancelAll()
                    incoming.finish()
                    pending.finish()
                    return
                }
                incoming.finish()
                try await group.waitForAll()
            }
        } catch let mistake as WebSocketClientMistake {
            await Self.refuse(mistake, outbound)
        } catch let error where !(error is CancellationError) {
            await Self.refuse(APIError.from(speech: error), outbound)
        }
    }

    /// Tells the client which rule of the protocol it broke and closes the socket with that rule's code.
    static func refuse(_ mistake: WebSocketClientMistake, _ outbound: WebSocketOutboundWriter) async {
        try? await outbound.write(.text(mistake.reply))
        try? await outbound.close(mistake.closeCode, reason: nil)
    }

    /// Tells the client what went wrong, `{"message", "error"}`, and closes the socket.
    static func refuse(_ problem: APIError, _ outbound: WebSocketOutboundWriter) async {
        if let reply = try? JSONSerialization.data(withJSONObject: ["message": problem.message, "error": problem.code ?? problem.type]) {
            try? await outbound.write(.text(String(decoding: reply, as: UTF8.self)))
        }
        try? await outbound.close(.policyViolation, reason: nil)
    }

    /// Checks the key (when one is configured) and returns the first message when it had to be read for
    /// it. A client that sends no key within `idleTimeout` is closed.
    private func checkKey(_ headers: HTTPFields, messages: inout WebSocketClientMessages,
                          outbound: WebSocketOutboundWriter) async throws -> [String: Any]? {
        guard let key = configuration.apiKey else { return nil }
        if BearerKey.offered(in: headers) {
            guard key.matches(headers) else { throw APIError.unauthorized }
            return nil
        }
        let deadline = Task {
            try await Task.sleep(for: configuration.idleTimeout)
            await Self.refuse(.unauthorized, outbound)
        }
        defer { deadline.cancel() }
        var none: [String: Any]?
        guard let first = try await Self.next(&none, from: &messages),
              key.matches(authorization: "Bearer " + ((first["xi_api_key"] as? String) ?? "")) else {
            throw APIError.unauthorized
        }
        return first
    }

    /// The next text message's fields: `held` first (once), then what the client sends; nil at the end.
    private static func next(_ held: inout [String: Any]?,
                             from messages: inout WebSocketClientMessages) async throws -> [String: Any]? {
        if let fields = held {
            held = nil
            return fields
        }
        while let message = try await messages.next() {
            guard case .text(let json) = message else { continue }
            return try fields(json)
        }
        return nil
    }

    /// The rate `output_format` asks for: `pcm_{rate}` (24 kHz when absent).
    static func rate(_ format: String?) throws -> Int {
        guard let format else { return 24_000 }
        if format.hasPrefix("pcm_"), let rate = Int(format.dropFirst(4)), rates.contains(rate) { return rate }
        throw APIError.invalid("This server sends output_format \(rates.map { "pcm_\($0)" }.joined(separator: ", ")), not \(format).",
                               param: "output_format", code: "unsupported_format")
    }

    /// The session's `inactivity_timeout`: 20 s when absent, else whole seconds from 1 to 180.
    static func inactivityTimeout(_ value: String?) throws -> Duration {
        guard let value else { return .seconds(inactivityTimeouts.default) }
        guard let seconds = Int(value), (1...inactivityTimeouts.longest).contains(seconds) else {
            throw APIError.invalid("inactivity_timeout is whole seconds from 1 to \(inactivityTimeouts.longest), not \(value).",
                                   param: "inactivity_timeout")
        }
        return .seconds(seconds)
    }

    static func fields(_ json: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw APIError.invalid("A message is not a JSON object; send {\"text\": \"...\"}.")
        }
        return object
    }

    /// One audio message; nothing for no samples.
    static func send(_ pcm: Data, to outbound: WebSocketOutboundWriter) async throws {
        guard !pcm.isEmpty else { return }
        try await outbound.write(.text(#"{"audio":"\#(pcm.base64EncodedString())","isFinal":false,"normalizedAlignment":null}"#))
    }
}

/// When a stream-input session was last active: a message from the client, or the end of the speech of
/// the text it sent. While the server speaks, however slowly the client reads, the session is active.
final class SessionActivity: Sendable {
    private let state = Locked((speaking: 0, since: ContinuousClock.now))

    /// A message arrived.
    func heard() {
        state.withLock { $0.since = .now }
    }

    /// A sentence is waiting to be spoken or being spoken, or a message waits to be cut into sentences.
    func queued() {
        state.withLock { $0.speaking += 1 }
    }

    /// A queued sentence has been spoken (or failed), or a message has been cut and its sentences queued.
    func spoken() {
        state.withLock {
            $0.speaking -= 1
            $0.since = .now
        }
    }

    /// Returns once the session has been inactive for `timeout`; throws when cancelled.
    func waitForInactivity(_ timeout: Duration) async throws {
        while true {
            let (speaking, since) = state.withLock { ($0.speaking, $0.since) }
            let idle = ContinuousClock.now - since
            if speaking == 0, idle >= timeout { return }
            try await Task.sleep(for: speaking > 0 ? timeout : timeout - idle)
        }
    }
}
