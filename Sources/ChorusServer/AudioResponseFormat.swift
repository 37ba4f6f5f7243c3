import ChorusAudioCodecs
import Foundation

/// The `response_format` values this server streams: ChorusAudioCodecs' encodings under OpenAI's name.
public typealias AudioResponseFormat = AudioEncoding

/// The routes' name for the codecs' encoder, so they need no import of their own.
typealias AudioStreamEncoder = ChorusAudioCodecs.AudioStreamEncoder

extension AudioEncoding {
    /// OpenAI's rate for `pcm`, which clients assume.
    public static let pcmSampleRate = 24_000

    /// The format `name` asks for (wav when nil), or a 400 naming the served ones.
    static func parse(_ name: String?) throws -> AudioResponseFormat {
        guard let name else { return .wav }
        if let format = AudioResponseFormat(rawValue: name.lowercased()) { return format }
        let names = allCases.map(\.rawValue)
        let served = names.dropLast().joined(separator: ", ") + " or " + names.last!
        throw APIError.invalid("Unknown response_format '\(name)'; use \(served).", param: "response_format")
    }

    var contentType: String { mediaType }
}

extension ChorusAudioCodecs.AudioStreamEncoder {
    /// The encoder for a response: `pcm` at OpenAI's 24 kHz unless `pcmRate` says otherwise.
    init(format: AudioResponseFormat, engineRate: Int, pcmRate: Int = AudioResponseFormat.pcmSampleRate) throws {
        try self.init(encoding: format, sampleRate: engineRate, pcmRate: pcmRate)
    }
}
