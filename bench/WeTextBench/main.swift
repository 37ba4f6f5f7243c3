// wetext text normalisation in Chorus, single thread; bench/wetext_bench.py runs it beside the Python
// wetext (on kaldifst) with the same texts and reports the ratios.
//
//   WeTextBench GRAMMAR_FOLDER GOLDEN_JSON [REPEATS]
// GRAMMAR_FOLDER is $CHORUS_MODELS/wetext; GOLDEN_JSON is Tests/TextTestData/wetext/normalize.golden.json.
// Prints one JSON line: texts, outputs equal to the golden, best seconds over the repeats, and the
// seconds it took to load the four grammars.
import Foundation
import ChorusText

struct Golden: Decodable {
    struct Case: Decodable { var text: String; var normalized: String? }
    var cases: [Case]
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: WeTextBench GRAMMAR_FOLDER GOLDEN_JSON [REPEATS]\n".utf8))
    exit(2)
}
let loadStart = DispatchTime.now().uptimeNanoseconds
let normalizer = try WeTextNormalizer(folder: URL(fileURLWithPath: arguments[1]))
let loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9
// Only texts upstream can normalise: the ones where Python fails are left out on both sides.
let cases = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    .cases.filter { $0.normalized != nil }
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5

var best = Double.infinity
var equal = 0
for _ in 0..<repeats {
    let start = DispatchTime.now().uptimeNanoseconds
    var outputs: [String] = []
    outputs.reserveCapacity(cases.count)
    for item in cases { outputs.append(try normalizer.normalize(item.text)) }
    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    equal = zip(outputs, cases).filter { $0 == $1.normalized }.count
}
print(#"{"texts": \#(cases.count), "equal": \#(equal), "seconds": \#(best), "load_seconds": \#(loadSeconds)}"#)
