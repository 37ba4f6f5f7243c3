import ChorusAudio
import ChorusRecognition
import Foundation
import Hummingbird

/// `POST /v1/audio/transcriptions`: OpenAI's multipart upload (`file`, any WAV rate and channel count;
/// `model` is accepted and ignored, there being one recogniser) answered as `response_format` json,
/// text, verbose_json, srt or vtt.
///
/// An upload holds a place in the admission queue under `queueName` while it is read, decoded and transcribed,
/// as speech does under its engine's name, so a burst of uploads is refused with 429 rather than decoded at once.
struct TranscriptionRoute: Sendable {
    let configuration: ServerConfiguration
    let transcriber: TranscriberCache
    let queue: AdmissionQueue

    /// The admission queue's name for transcriptions.
    static let queueName = "transcription"

    enum Format: String, CaseIterable {
        case json, text, verboseJSON = "verbose_json", srt, vtt
    }

    func respond(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let ticket = try queue.admit(Self.queueName)
        defer { ticket.release() }
        let (bytes, watchable) = try await RequestBodyReader.read(request, limit: configuration.maximumUploadBytes, within: configuration.bodyTimeout)
        let form = try MultipartForm(contentType: request.headers[.contentType], body: Data(buffer: bytes),
                                     maximumParts: configuration.maximumFormParts)
        let formatName = form.text("response_format") ?? "json"
        guard let format = Format(rawValue: formatName) else {
            throw APIError.invalid("Unknown response_format '\(formatName)'; use \(Format.allCases.map(\.rawValue).joined(separator: ", ")).",
                                   param: "response_format")
        }
        let audio = try form.audioFile("file", what: "the audio", limits: .file)
        let recogniser = try await transcriber.loaded()
        var transcript: Transcript?
        try await RequestBodyReader.cancellingOnClientExit(request, watchable: watchable) {
            transcript = try await recogniser.transcribe(audio.samples, sampleRate: audio.sampleRate)
        }
        guard let transcript else { throw CancellationError() }
        return try Self.render(transcript, as: format)
    }

    static func render(_ transcript: Transcript, as format: Format) throws -> Response {
        switch format {
        case .json:
            struct Body: Encodable { var text: String }
            return try json(Body(text: transcript.text))
        case .verboseJSON:
            struct Segment: Encodable { var id: Int; var start: Double; var end: Double; var text: String }
            struct Body: Encodable {
                var task = "transcribe"
                var duration: Double
                var text: String
                var segments: [Segment]
            }
            let segments = transcript.segments.enumerated().map {
                Segment(id: $0.offset, start: rounded($0.element.start), end: rounded($0.element.end), text: $0.element.text)
            }
            return try json(Body(duration: rounded(transcript.duration), text: transcript.text, segments: segments))
        case .text:
            return plain(transcript.text + "\n", type: "text/plain; charset=utf-8")
        case .srt:
            let cues = transcript.segments.enumerated().map { index, segment in
                "\(index + 1)\n\(timestamp(segment.start, separator: ",")) --> \(timestamp(segment.end, separator: ","))\n\(segment.text)\n"
            }
            return plain(cues.joined(separator: "\n"), type: "application/x-subrip; charset=utf-8")
        case .vtt:
            let cues = transcript.segments.map { segment in
                "\(timestamp(segment.start, separator: ".")) --> \(timestamp(segment.end, separator: "."))\n\(segment.text)\n"
            }
            return plain((["WEBVTT\n"] + cues).joined(separator: "\n"), type: "text/vtt; charset=utf-8")
        }
    }

    /// `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT).
    static func timestamp(_ seconds: Double, separator: String) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        let (hours, rest) = milliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        let (minutes, rest2) = rest.quotientAndRemainder(dividingBy: 60_000)
        let (secs, millis) = rest2.quotientAndRemainder(dividingBy: 1000)
        return String(format: "%02d:%02d:%02d%@%03d", hours, minutes, secs, separator, millis)
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    private static func plain(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The recogniser, loaded once on first use (a failed load is tried again by the next request).
actor TranscriberCache {
    private let load: @Sendable () async throws -> any SpeechTranscriber
    private var loaded: (any SpeechTranscriber)?

    init(_ load: @escaping @Sendable () async throws -> any SpeechTranscriber) {
        self.load = load
    }

    func loaded() async throws -> any SpeechTranscriber {
        if let loaded { return loaded }
        do {
            let transcriber = try await load()
            loaded = transcriber
            return transcriber
        } catch {
            throw APIError.from(speech: error)
        }
    }
}
