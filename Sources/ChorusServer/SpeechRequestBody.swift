import ChorusEngines
import ChorusSpeech
import Foundation

/// `POST /v1/audio/speech`'s JSON, in OpenAI's field names, checked before any engine is touched.
struct SpeechRequestBody: Decodable, Sendable {
    var model: String?
    var input: String?
    var voice: String?
    var speed: Double?
    var responseFormat: String?
    var streamFormat: String?
    /// Kokoro-FastAPI's field: false sends the audio whole, its header stating the real length (WAV's sizes,
    /// FLAC's total samples and MD5), with a Content-Length; true or absent streams it as it is made.
    var stream: Bool?

    enum CodingKeys: String, CodingKey {
        case model, input, voice, speed, stream
        case responseFormat = "response_format"
        case streamFormat = "stream_format"
    }

    /// The engine's own options a request gives (see `SpeechOption`): each top-level field named as an option of
    /// a served engine, and OpenAI's `instructions` as the `instruction` option. A field naming an option the
    /// chosen engine lacks is a 400 naming the engines that take it; other unknown fields are ignored, as before.
    static func options(in data: Data, for engine: Engine, served: [Engine]) throws -> [String: SpeechOptionValue] {
        let fields = (try? JSONDecoder().decode([String: OptionField].self, from: data)) ?? [:]
        let named = Set(served.flatMap { $0.options.map(\.name) } + engine.options.map(\.name))
        var options: [String: SpeechOptionValue] = [:]
        for (field, given) in fields.sorted(by: { $0.key < $1.key }) {
            let name = field == "instructions" ? "instruction" : field
            guard named.contains(name) || field == "instructions", let value = given.value else { continue }
            if field == "instructions", value.text?.allSatisfy(\.isWhitespace) == true { continue }
            guard engine.options.contains(where: { $0.name == name }) else {
                let taking = served.filter { $0.options.contains { $0.name == name } }.map(\.id)
                throw APIError.invalid("The \(engine.id) engine takes no \(field == "instructions" ? "instructions" : "option '\(field)'")"
                                       + (taking.isEmpty ? "." : "; engines that do: \(taking.joined(separator: ", ")) (name one as the model)."),
                                       param: field, code: "unknown_option")
            }
            options[name] = value
        }
        do {
            return try engine.checkedOptions(options)
        } catch {
            throw APIError.from(speech: error)
        }
    }

    /// A JSON value an option may be given as: true or false, a number, or a string.
    struct OptionField: Decodable {
        var value: SpeechOptionValue?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                value = .flag(flag)
            } else if let number = try? container.decode(Double.self) {
                value = .number(number)
            } else if let text = try? container.decode(String.self) {
                value = .text(text)
            } else {
                value = nil
            }
        }
    }

    /// How the audio travels: as the body itself, or as server-sent events carrying base64 pieces.
    enum StreamFormat: String, Sendable {
        case audio, sse
    }

    /// Model names OpenAI clients send by default; they mean the server's first engine.
    static let openAIModelNames: Set<String> = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts"]

    static func decode(_ data: Data) throws -> SpeechRequestBody {
        do {
            return try JSONDecoder().decode(SpeechRequestBody.self, from: data)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.first?.stringValue ?? "body"
            throw APIError.invalid("The field '\(field)' has the wrong type; see OpenAI's speech request shape.", param: field)
        } catch {
            throw APIError.invalid("The body is not a JSON object; send {\"model\", \"input\", \"voice\", ...}.")
        }
    }

    /// The text to speak: present, not blank, no longer than `limit` characters, and something an engine can say.
    func text(limit: Int) throws -> String {
        guard let input, !input.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.invalid("The input is empty; give some words to speak.", param: "input")
        }
        // Code points, as OpenAI counts (Python's len): a character count would let "a" with thousands
        // of combining marks pass as one.
        let length = input.unicodeScalars.count
        guard length <= limit else {
            throw APIError.invalid(
                "The input has \(length) characters, more than the \(limit) this server takes in one request; split it.",
                param: "input", code: "input_too_long")
        }
        // The checks every engine makes (nothing speakable, a character of too many code points), made here too
        // so such text is refused before an engine is queued or loaded.
        do {
            try SynthesisRequest(text: input).checkTextAndSpeed()
        } catch {
            throw APIError.from(speech: error)
        }
        return input
    }

    /// The speaking rate: 1 when absent; engines speak 0.5 to 2 (OpenAI's wider 0.25-4 is refused, not clamped).
    func checkedSpeed() throws -> Float {
        guard let speed else { return 1 }
        let speeds = SynthesisRequest.speeds
        guard speed.isFinite, (Double(speeds.lowerBound)...Double(speeds.upperBound)).contains(speed) else {
            throw APIError.invalid("Speed \(speed) is out of range; this server speaks from \(SynthesisRequest.describe(speeds.lowerBound)) "
                                   + "to \(SynthesisRequest.describe(speeds.upperBound)).", param: "speed")
        }
        return Float(speed)
    }

    func checkedStreamFormat() throws -> StreamFormat {
        guard let streamFormat else { return .audio }
        guard let format = StreamFormat(rawValue: streamFormat.lowercased()) else {
            throw APIError.invalid("Unknown stream_format '\(streamFormat)'; use audio or sse.", param: "stream_format")
        }
        if format == .sse, stream == false {
            throw APIError.invalid("stream_format sse sends the audio as it is made, and stream is false; leave one out.", param: "stream")
        }
        return format
    }
}
