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

    /// The text, checked: valid UTF-8, not empty, not over the limit.
    func read() throws -> String {
        let raw: String
        switch (text, file) {
        case (.some, .some):
            throw ValidationError("Give the text either as an argument or with --file, not both.")
        case (_, .some(let path)):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("Cannot read text file \(path): no such file or not readable.")
            }
            raw = try Self.decode(data, source: path)
        case (.some(let argument), nil) where argument != "-":
            raw = argument
        default:
            if text == nil, isatty(STDIN_FILENO) != 0 {
                throw ValidationError("No text given. Pass it as an argument, with --file, or on standard input.")
            }
            raw = try Self.decode(FileHandle.standardInput.readDataToEndOfFile(), source: "standard input")
        }
        guard raw.contains(where: { !$0.isWhitespace }) else {
            throw ValidationError("The text is empty; give some words to speak.")
        }
        guard raw.count <= Self.maxCharacters else {
            throw ValidationError("The text has \(raw.count) characters; one call takes at most \(Self.maxCharacters). Split it into several files.")
        }
        return raw
    }

    /// Strict UTF-8 decoding that names the first bad byte rather than substituting it.
    static func decode(_ data: Data, source: String) throws -> String {
        if let text = String(validating: data, as: UTF8.self) { return text }
        throw invalidUTF8(source: source, offset: UTF8Validation.validPrefixLength([UInt8](data)))
    }

    static func invalidUTF8(source: String, offset: Int) -> ValidationError {
        ValidationError("The text from \(source) is not valid UTF-8 (first bad byte near offset \(offset)).")
    }
}
