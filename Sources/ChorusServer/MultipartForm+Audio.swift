import ChorusAudio
import ChorusAudioCodecs
import Foundation

extension MultipartForm {
    /// The file part `name` (else `alternative`) as mono samples at its own rate: WAV of any format, FLAC or
    /// MP3, recognised by its first bytes (`AudioFileReader`), its header judged against `limits` before a
    /// sample is decoded and its decoding stopped at their bound. A 400 naming the field and the limit when
    /// it is missing, unreadable or outside them; `what` is the file as messages call it.
    func audioFile(_ name: String, or alternative: String? = nil, what: String,
                   limits: AudioInputLimits) throws -> (samples: [Float], sampleRate: Int) {
        guard let file = part(name) ?? alternative.flatMap(part) else {
            throw APIError.invalid("Attach \(what) as the form's '\(name)' file (WAV, FLAC or MP3).", param: name)
        }
        do {
            return try AudioFileReader.decodeMono(file.data, path: file.filename ?? name, limits: limits)
        } catch {
            throw APIError.invalid("\(what.prefix(1).uppercased() + what.dropFirst()) cannot be read: \(error)", param: name)
        }
    }
}
