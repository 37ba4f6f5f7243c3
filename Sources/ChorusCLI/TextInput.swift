import ArgumentParser
import ChorusText
import Foundation

/// Where `speak` takes its text from: the argument, `--file`, or standard input.
struct TextInput: ParsableArguments {
    @Argument(help: "The text to speak. Use - (or leave it out with --file or piped input) to read standard input.")
    var text: String?

    @Option(name: .long, help: "Read the text from this UTF-8 file.")
    var file: String?

    /// The most text one `speak` call takes (about two hours of speech); longer text should be split.
    static let maxCharacters = 100_000
    /// The most bytes read for it: room for `maxCharacters` of any script with accents, never more, so an
    /// endless input (`< /dev/zero`) fails at the limit instead of filling memory.
    static let maxBytes = 16 * maxCharacters
    static let tooLarge = "The text is over \(BoundedInput.megabytes(maxBytes)); one call takes at most \(maxCharacters) "
        + "characters. Split it into several parts."

    /// The text, checked: valid UTF-8, not empty, not over the limit.
    func read() throws -> String {
        let raw: String
        switch (text, file) {
        case (.some, .some):
            throw ValidationError("Give the text either as an argument or with --file, not both.")
        case (_, .some(let path)):
            raw = try Self.decode(Self.readFile(path), source: path)
        case (.some(let argument), nil) where argument != "-":
            raw = try Self.decode(Data(argument.utf8), source: "the argument")
        default:
            if text == nil, isatty(STDIN_FILENO) != 0 {
                throw ValidationError("No text given. Pass it as an argument, with --file, or on standard input.")
            }
            raw = try Self.decode(BoundedInput.standardInput(limit: Self.maxBytes, tooLarge: Self.tooLarge),
                                  source: "standard input")
        }
        guard raw.contains(where: { !$0.isWhitespace }) else {
            throw ValidationError("The text is empty; give some words to speak.")
        }
        guard raw.count <= Self.maxCharacters else {
            throw ValidationError("The text has \(raw.count) characters; one call takes at most \(Self.maxCharacters). Split it into several files.")
        }
        return raw
    }

    /// The bytes of the text file at `path`, read up to `maxBytes`.
    static func readFile(_ path: String) throws -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ValidationError("Cannot read text file \(path): there is no such file.")
        }
        if isFolder.boolValue {
            throw ValidationError("Cannot read text file \(path): it is a folder; give a UTF-8 text file.")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ValidationError("Cannot read text file \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        do {
            guard let data = try BoundedInput.read(descriptor, limit: maxBytes) else { throw ValidationError(tooLarge) }
            return data
        } catch let error as POSIXError {
            throw ValidationError("Cannot read text file \(path): \(String(cString: strerror(error.code.rawValue))).")
        }
    }

    /// Strict UTF-8 decoding that names the first bad byte rather than substituting it.
    /// A NUL byte is refused with its offset, as in every mode: it would end the text early in a C library.
    static func decode(_ data: Data, source: String) throws -> String {
        if let text = String(validating: data, as: UTF8.self) {
            if let nul = data.firstIndex(of: 0) { throw nulByte(source: source, offset: nul - data.startIndex) }
            return text
        }
        throw invalidUTF8(source: source, offset: UTF8Validation.validPrefixLength([UInt8](data)))
    }

    static func nulByte(source: String, offset: Int) -> ValidationError {
        ValidationError("The text from \(source) holds a NUL byte at offset \(offset); remove it, text cannot contain NUL characters.")
    }

    static func invalidUTF8(source: String, offset: Int) -> ValidationError {
        ValidationError("The text from \(source) is not valid UTF-8 (first bad byte near offset \(offset)).")
    }
}
