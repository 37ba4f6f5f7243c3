// Structure-aware mutation fuzzing of every Chorus parser that reads untrusted files: WAV, .npy, CosyVoice
// voice folders, byte-level BPE folders (vocab.json + merges.txt), tokenizer.json, SentencePiece .model and
// OpenFst files. Each input is a seed with 1-4 mutations, some aimed at the format's header fields (sizes,
// counts, rates, shapes) with absurd values; every input must parse or throw, never crash, and memory stays
// bounded (run it under `prlimit`, see bench/fuzz.sh). Prints one line per target: inputs, parsed, refused,
// peak RSS.
//
//     FuzzBench <wav|npy|voice|bpe|tokenizer-json|sentencepiece|fst|all> [inputs] [seed]
import ChorusAudio
import ChorusCosyVoice
import ChorusDSP
import ChorusText
import Foundation

/// Little-endian byte building for seeds.
struct Bytes {
    var data: [UInt8] = []
    mutating func u16(_ v: Int) { data += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    mutating func u32(_ v: UInt32) { data += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    mutating func u64(_ v: UInt64) { data += (0..<8).map { UInt8((v >> (8 * UInt64($0))) & 0xFF) } }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func text(_ s: String) { data += Array(s.utf8) }
}

/// Values that break parsers that trust headers: zero, one, sign and width boundaries.
let interesting32: [UInt32] = [0, 1, 2, 7, 16, 40, 255, 4096, 65_535, 768_001, 0x7FFF_FFFF, 0x8000_0000,
                               4_000_000_000, 0xFFFF_FFFE, 0xFFFF_FFFF]
let interesting64: [UInt64] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x1_0000_0000, 0x7FFF_FFFF_FFFF_FFFF,
                               0x8000_0000_0000_0000, UInt64.max]
/// Text that breaks parsers of JSON and line formats.
let interestingText = ["99999999999999999999", "-1", "1e308", "NaN", "\"", "\\", "{", "}", "[", "]", ",", ":", " ",
                       "\n", "\u{0}", "\u{FEFF}", "\u{FF}", "null", "true", "(999999999999, 999999999999)", "é", "\r\n"]

func mutate(_ bytes: inout [UInt8], fields: [Int], random: inout SeededRandom) {
    func offset(width: Int) -> Int? {
        guard bytes.count >= width else { return nil }
        // Half the time a known header field, else anywhere.
        if !fields.isEmpty, Bool.random(using: &random) {
            let field = fields.randomElement(using: &random)!
            if field + width <= bytes.count { return field }
        }
        return Int.random(in: 0...(bytes.count - width), using: &random)
    }
    switch Int.random(in: 0..<8, using: &random) {
    case 0:
        if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
    case 1:
        if let at = offset(width: 4) {
            let value = interesting32.randomElement(using: &random)!
            for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        }
    case 2:
        if let at = offset(width: 8) {
            let value = interesting64.randomElement(using: &random)!
            for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
        }
    case 3:
        if let at = offset(width: 2) {
            let value = [0, 1, 3, 0xFFFE, 0xFFFF, 0x7FFF].randomElement(using: &random)!
            bytes[at] = UInt8(value & 0xFF)
            bytes[at + 1] = UInt8(value >> 8)
        }
    case 4:
        bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
    case 5:
        let at = Int.random(in: 0...bytes.count, using: &random)
        bytes.insert(contentsOf: Array(interestingText.randomElement(using: &random)!.utf8), at: at)
    case 6:
        guard !bytes.isEmpty else { return }
        let start = Int.random(in: 0..<bytes.count, using: &random)
        let end = min(bytes.count, start + Int.random(in: 1...64, using: &random))
        bytes.insert(contentsOf: bytes[start..<end], at: Int.random(in: 0...bytes.count, using: &random))
    default:
        guard !bytes.isEmpty else { return }
        let start = Int.random(in: 0..<bytes.count, using: &random)
        bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...32, using: &random)))
    }
}

/// One parser: seeds, the offsets of their header fields, and the parse of one input.
struct Target {
    var name: String
    var seeds: [[[UInt8]]]  // per seed, its files (most targets have one)
    var fields: [Int]
    var parse: ([[UInt8]]) throws -> Void
}

let scratch = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("chorus-fuzz-\(getpid())", isDirectory: true)

func write(_ files: [[UInt8]], names: [String], folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (bytes, name) in zip(files, names) { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
}

func wavSeeds() -> [[[UInt8]]] {
    [(1, 16, 1, 16_000), (1, 24, 2, 44_100), (3, 32, 1, 24_000), (1, 8, 3, 8_000), (3, 64, 2, 48_000)].map { tag, bits, channels, rate in
        var b = Bytes()
        let payload = channels * bits / 8 * 50
        b.text("RIFF"); b.u32(UInt32(36 + payload)); b.text("WAVE")
        b.text("fmt "); b.u32(16); b.u16(tag); b.u16(channels); b.u32(UInt32(rate))
        b.u32(UInt32(rate * channels * bits / 8)); b.u16(channels * bits / 8); b.u16(bits)
        b.text("data"); b.u32(UInt32(payload))
        b.data += (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        return [b.data]
    }
}

func npySeeds() -> [[[UInt8]]] {
    [("<f4", "(3, 4)", 48), ("<i8", "(5,)", 40), ("<f8", "(2, 2, 2)", 64)].map { descr, shape, bytes in
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shape), }"
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var b = Bytes()
        b.data = [0x93] + Array("NUMPY".utf8) + [1, 0]
        b.u16(header.utf8.count)
        b.text(header)
        b.data += (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        return [b.data]
    }
}

func voiceSeed() -> [[UInt8]] {
    var embedding = Bytes(), tokens = Bytes(), mel = Bytes()
    for k in 0..<192 { embedding.f32(Float(k % 17) / 10 - 0.8) }
    for k in 0..<20 { tokens.u64(UInt64(k * 311 % 6561)) }
    mel.u32(40)
    for k in 0..<(40 * 80) { mel.f32(-Float(k % 110) / 10) }
    return [embedding.data, tokens.data, mel.data, Array("希望你以后能够做的比我还好呦。".utf8)]
}

func fstSeed() -> [UInt8] {
    var b = Bytes()
    b.u32(UInt32(bitPattern: WeightedFSTMagic.fst))
    for s in ["vector", "standard"] { b.u32(UInt32(s.utf8.count)); b.text(s) }
    b.u32(2); b.u32(0); b.u64(0); b.u64(0); b.u64(3); b.u64(3)
    for state in 0..<3 {
        b.f32(state == 2 ? 0 : .infinity)
        let arcs = state == 2 ? 0 : (state == 0 ? 2 : 1)
        b.u64(UInt64(arcs))
        for arc in 0..<arcs { b.u32(UInt32(97 + arc)); b.u32(UInt32(98 + arc)); b.f32(0.5); b.u32(UInt32(state + 1)) }
    }
    return b.data
}

enum WeightedFSTMagic { static let fst: Int32 = 2_125_659_606 }

func targets(testData: URL) throws -> [Target] {
    let sentencePiece = try [UInt8](Data(contentsOf: testData.appendingPathComponent("sentencepiece/botchan_unigram_identity_600.model")))
    let tokenizerJSON = try ["gpt2.tokenizer.json", "qwen2.tokenizer.json"].map {
        [try [UInt8](Data(contentsOf: testData.appendingPathComponent($0)))]
    }
    let vocabulary = #"{"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "Ġ": 5, "Ġa": 6, "é": 7}"#
    let merges = "#version: 0.2\na b\nab c\nĠ a\n"
    return [
        Target(name: "wav", seeds: wavSeeds(), fields: [4, 16, 20, 22, 24, 28, 32, 34, 40]) { files in
            _ = try WAVFile.decode(Data(files[0]))
        },
        Target(name: "npy", seeds: npySeeds(), fields: [6, 8, 30, 50, 60]) { files in
            _ = try NPYFile.decode(Data(files[0]))
        },
        Target(name: "voice", seeds: [voiceSeed()], fields: [0, 4, 8, 760]) { files in
            let folder = scratch.appendingPathComponent("voice")
            try write(files, names: VoicePrompt.File.allCases.map(\.rawValue), folder: folder)
            _ = try VoicePrompt(contentsOf: folder)
        },
        Target(name: "bpe", seeds: [[Array(vocabulary.utf8), Array(merges.utf8)]], fields: []) { files in
            let folder = scratch.appendingPathComponent("bpe")
            try write(files, names: ["vocab.json", "merges.txt"], folder: folder)
            let tokenizer = try BPETokenizer(folder: folder)
            _ = try? tokenizer.encode("abc abcab é")
        },
        Target(name: "tokenizer-json", seeds: tokenizerJSON, fields: []) { files in
            let file = scratch.appendingPathComponent("tokenizer.json")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data(files[0]).write(to: file)
            let tokenizer = try BPETokenizer(tokenizerJSON: file)
            _ = try? tokenizer.encode("Hello world, 123!")
        },
        Target(name: "sentencepiece", seeds: [[sentencePiece]], fields: [0, 1, 2, 3, 4, 8, 16]) { files in
            let model = try SentencePieceModel(serialized: files[0])
            let tokenizer = try SentencePieceTokenizer(model: model)
            _ = try? tokenizer.encode("I am a cat.")
        },
        Target(name: "fst", seeds: [[fstSeed()]], fields: [0, 4, 14, 18, 30, 34, 38, 46, 54, 62]) { files in
            _ = try WeightedFST(data: Data(files[0]), name: "fuzz.fst")
        },
    ]
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

let arguments = CommandLine.arguments
let wanted = arguments.count > 1 ? arguments[1] : "all"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
let testData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tests/TextTestData")
defer { try? FileManager.default.removeItem(at: scratch) }
for target in try targets(testData: testData) where wanted == "all" || wanted == target.name {
    var random = SeededRandom(seed: seed)
    var parsed = 0
    var refused = 0
    let started = Date()
    for _ in 0..<count {
        var files = target.seeds.randomElement(using: &random)!
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let which = Int.random(in: 0..<files.count, using: &random)
            mutate(&files[which], fields: target.fields, random: &random)
        }
        do {
            try target.parse(files)
            parsed += 1
        } catch {
            refused += 1
        }
    }
    print(String(format: "%@: %d inputs, %d parsed, %d refused, no crash; peak RSS %.1f MB; %.1f s",
                 target.name, count, parsed, refused, peakRSSMegabytes(), Date().timeIntervalSince(started)))
    fflush(nil)
}
