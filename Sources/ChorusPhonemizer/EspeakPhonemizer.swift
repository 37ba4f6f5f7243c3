import CChorusEspeak
import Foundation

/// Text to IPA through espeak-ng.
///
/// espeak-ng keeps global state and is not reentrant, so one instance serves the process
/// and every call holds its lock.
public final class EspeakPhonemizer: @unchecked Sendable {
    private let lock = NSLock()
    private var currentVoice: String?

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedInstance: EspeakPhonemizer?

    /// The process's phonemizer, starting espeak-ng on first use.
    public static func shared() throws -> EspeakPhonemizer {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let sharedInstance { return sharedInstance }
        let instance = try EspeakPhonemizer()
        sharedInstance = instance
        return instance
    }

    /// The loaded espeak-ng's version, e.g. "1.51" (Debian 12) or "1.52.0"; what it reads can change
    /// between versions, so tests compare with the reference made on the same one.
    public let version: String
    /// The espeak-ng-data folder it reads (chosen by ESPEAK_DATA_PATH, else the library's built-in path).
    public let dataPath: String

    private init() throws {
        // Only the text-to-phoneme translator is used, so only it is started: espeak_Initialize also starts
        // the audio output, and espeak-ng 1.51 then connects to PulseAudio (creating its runtime folder)
        // whatever the output mode, although Chorus never plays through espeak.
        espeak_ng_InitializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        let status = espeak_ng_Initialize(&context)
        defer { espeak_ng_ClearErrorContext(&context) }
        guard status == ENS_OK else {
            var message = [CChar](repeating: 0, count: 512)
            espeak_ng_GetStatusCodeMessage(status, &message, message.count)
            throw PhonemizerError.espeakUnavailable(reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var path: UnsafePointer<CChar>?
        version = espeak_Info(&path).map { String(cString: $0) } ?? "unknown"
        dataPath = path.map { String(cString: $0) } ?? "unknown"
    }

    /// How phonemes are written.
    public struct Options: Sendable, Equatable {
        /// Join the parts of diphthongs and affricates with U+200D (zero-width joiner), so a caller
        /// can map "a‍ɪ" to one symbol; without it they are plain adjacent letters.
        public var tiesMultiLetterPhonemes: Bool
        /// Ask espeak-ng for "_" between phonemes and drop them again, as the `phonemizer` package does
        /// when it has no tie (its espeak call differs from a plain IPA call in that mode bit only).
        public var separatesPhonemes: Bool

        public init(tiesMultiLetterPhonemes: Bool = false, separatesPhonemes: Bool = false) {
            self.tiesMultiLetterPhonemes = tiesMultiLetterPhonemes
            self.separatesPhonemes = separatesPhonemes
        }
    }

    /// The joiner placed between the letters of one phoneme when `tiesMultiLetterPhonemes` is set.
    public static let tie: Character = "\u{200D}"

    /// The clauses of `text` as IPA in espeak voice `voice` (e.g. "en-us"), each with its closing punctuation.
    public func phonemize(_ text: String, voice: String, options: Options = Options()) throws -> [PhonemeClause] {
        lock.lock()
        defer { lock.unlock() }
        if currentVoice != voice {
            guard espeak_SetVoiceByName(voice) == EE_OK
                    || Self.identifier(ofLanguage: voice).map({ espeak_SetVoiceByName($0) == EE_OK }) == true
            else { throw PhonemizerError.unknownVoice(voice) }
            currentVoice = voice
        }
        var mode = Int32(espeakPHONEMES_IPA)
        if options.tiesMultiLetterPhonemes {
            mode |= Int32(espeakPHONEMES_TIE) | Int32(0x200D << 8)
        } else if options.separatesPhonemes {
            mode |= Int32(UInt8(ascii: "_")) << 8
        }
        var bytes = Array(text.utf8CString)
        // espeak-ng reads a C string: a NUL inside the text would silently end it there, so it reads as a space.
        for index in bytes.indices.dropLast() where bytes[index] == 0 { bytes[index] = 0x20 }
        var clauses: [PhonemeClause] = []
        bytes.withUnsafeBufferPointer { buffer in
            let start = UnsafeRawPointer(buffer.baseAddress!)
            var cursor: UnsafeRawPointer? = start
            while let clauseStart = cursor {
                guard let phonemes = espeak_TextToPhonemes(&cursor, Int32(espeakCHARS_UTF8), mode) else { break }
                // espeak-ng 1.51 does not report the clause's type; recover it from the text it consumed.
                let end = cursor.map { $0 - start } ?? (buffer.count - 1)
                let consumed = String(decoding: buffer[(clauseStart - start)..<end].map { UInt8(bitPattern: $0) },
                                      as: UTF8.self)
                let clauseEnd = ClauseEnd(consumed: consumed, hasLookahead: cursor != nil)
                var ipa = String(cString: phonemes)
                if options.separatesPhonemes, !options.tiesMultiLetterPhonemes { ipa.removeAll { $0 == "_" } }
                ipa = Self.clean(ipa)
                if !ipa.isEmpty || clauseEnd.terminator != nil {
                    clauses.append(PhonemeClause(phonemes: ipa, terminator: clauseEnd.terminator,
                                                 punctuation: clauseEnd.punctuation, endsSentence: clauseEnd.endsSentence))
                }
            }
        }
        return clauses
    }

    /// The identifier (e.g. "gmw/en") of the first voice espeak-ng lists for a language code such as
    /// "en-gb", whose voice file is not named after it; phonemizer (and so misaki) selects voices this way.
    static func identifier(ofLanguage language: String) -> String? {
        guard let list = espeak_ListVoices(nil) else { return nil }
        var index = 0
        while let voice = list[index] {
            index += 1
            guard let languages = voice.pointee.languages, let identifier = voice.pointee.identifier else { continue }
            // Each entry: a priority byte, then a NUL-terminated code; a zero byte ends the list.
            var cursor = languages
            while cursor.pointee != 0 {
                let code = String(cString: cursor + 1)
                if code == language { return String(cString: identifier) }
                cursor += 1 + code.utf8.count + 1
            }
        }
        return nil
    }

    /// Removes espeak's language-switch markers such as "(en)" and collapses whitespace.
    static func clean(_ phonemes: String) -> String {
        var output = ""
        var insideMarker = false
        for character in phonemes {
            switch character {
            case "(": insideMarker = true
            case ")" where insideMarker: insideMarker = false
            case _ where insideMarker: continue
            case _ where character.isWhitespace:
                if !output.isEmpty, output.last != " " { output.append(" ") }
            default: output.append(character)
            }
        }
        while output.last == " " { output.removeLast() }
        return output
    }
}
