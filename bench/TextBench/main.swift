// Encode throughput of Chorus's tokenizers, single thread; bench/text_bench.py runs it beside
// Hugging Face `tokenizers` on the same documents and reports the ratio.
//
//   TextBench TOKENIZER CORPUS [REPEATS]
// TOKENIZER is anything `chorus tokenize` takes; CORPUS is UTF-8 text whose documents are separated
// by U+001E. Prints one JSON line: bytes, tokens, best seconds over the repeats, MB/s, and the
// seconds it took to load the tokenizer.
import Foundation
import ChorusText

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: TextBench TOKENIZER CORPUS [REPEATS]\n".utf8))
    exit(2)
}
let loadStart = DispatchTime.now().uptimeNanoseconds
let tokenizer = try TokenizerLoader.load(URL(fileURLWithPath: arguments[1]))
let loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9
let corpus = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
let documents = corpus.split(separator: 0x1E, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let bytes = documents.reduce(0) { $0 + $1.utf8.count }

var best = Double.infinity
var tokens = 0
for _ in 0..<repeats {
    let start = DispatchTime.now().uptimeNanoseconds
    var count = 0
    for document in documents { count += try tokenizer.encode(document).count }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    best = min(best, seconds)
    tokens = count
}
print(#"{"bytes": \#(bytes), "tokens": \#(tokens), "seconds": \#(best), "mb_per_s": \#(Double(bytes) / best / 1e6), "load_seconds": \#(loadSeconds)}"#)
