import ArgumentParser
import Foundation
import ChorusCosyVoice
import ChorusText

/// `chorus tokenize`: text to token ids, or ids back to text, with a model's own tokenizer.
struct TokenizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenize",
        abstract: "Turn text into token ids, or ids back into text (--decode).",
        discussion: """
            The tokenizer is a folder with vocab.json and merges.txt (CosyVoice's Qwen2 files; a \
            tokenizer_config.json beside them is honoured), a Hugging Face tokenizer.json (byte-level BPE), \
            or a SentencePiece .model file. Results match Hugging Face tokenizers and sentencepiece exactly.
            """
    )

    @Option(help: "A folder with vocab.json + merges.txt, a tokenizer.json, or a SentencePiece .model.")
    var tokenizer: String

    @Flag(help: "Read token ids (separated by spaces or commas) and print their text.")
    var decode = false

    @Flag(name: .customLong("cosyvoice3"), help: "Add CosyVoice 3's special tokens (<|endofprompt|>, [breath], phonemes, ...) to a BPE tokenizer.")
    var cosyVoice3 = false

    @Flag(help: "Print one token per line: its id and its spelling in the vocabulary.")
    var pieces = false

    @Flag(help: "With --decode, leave special tokens out of the text.")
    var skipSpecialTokens = false

    @Argument(help: "The text, or the ids with --decode. Use - or leave it out to read standard input.")
    var text: String?

    func run() throws {
        var loaded = try TokenizerLoader.load(URL(fileURLWithPath: tokenizer))
        if cosyVoice3 {
            guard let bpe = loaded as? BPETokenizer else {
                throw ValidationError("--cosyvoice3 adds tokens to a byte-level BPE tokenizer; \(tokenizer) is not one.")
            }
            loaded = bpe.addingSpecialTokens(BPETokenizer.cosyVoice3SpecialTokens)
        }
        let input = try readInput()
        if decode {
            let ids = try input.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { field in
                guard let id = Int(field) else { throw ValidationError("\(String(field).debugDescription) is not a token id.") }
                return id
            }
            print(try loaded.decode(ids, skipsSpecialTokens: skipSpecialTokens))
            return
        }
        let ids = try loaded.encode(input)
        if pieces {
            for id in ids { print("\(id)\t\(loaded.token(of: id) ?? "")") }
        } else {
            print(ids.map(String.init).joined(separator: " "))
        }
    }

    private func readInput() throws -> String {
        if let text, text != "-" { return text }
        if text == nil, isatty(STDIN_FILENO) != 0 {
            throw ValidationError("No text given. Pass it as an argument or on standard input.")
        }
        var input = try TextInput.decode(BoundedInput.standardInput(limit: TextInput.maxBytes, tooLarge: TextInput.tooLarge),
                                         source: "standard input")
        // A shell's here-string or echo ends with one newline that is not part of the text.
        // (Compared by scalar: text ending in "\r" plus that newline is one "\r\n" Character.)
        if input.unicodeScalars.last == "\n" { input.unicodeScalars.removeLast() }
        return input
    }
}
