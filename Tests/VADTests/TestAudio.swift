import Foundation

/// The generated clip and the Python package's results on it; see scripts/testdata/make_vad_testdata.py.
struct SpeechPausesClip {
    struct Rate: Decodable {
        var file: String
        var samples: Int
        var truth: [[Int]]
        var segments: [[Int]]
        var probabilities: [Double]
    }

    private struct Golden: Decodable { var rates: [String: Rate] }

    let rate: Rate
    let sampleRate: Int
    let audio: [Float]

    init(sampleRate: Int) throws {
        let folder = Bundle.module.url(forResource: "Resources/speech_pauses", withExtension: "json")!
            .deletingLastPathComponent()
        let golden = try JSONDecoder().decode(
            Golden.self, from: Data(contentsOf: folder.appendingPathComponent("speech_pauses.json")))
        rate = golden.rates[String(sampleRate)]!
        self.sampleRate = sampleRate
        audio = try Self.pcm16(Data(contentsOf: folder.appendingPathComponent(rate.file)))
    }

    /// The samples of a mono 16-bit PCM WAV, scaled as the Python generator scales them (x / 32768).
    // Only for this committed clip, until the Audio module's WAV reader lands; it walks the chunks to `data`.
    private static func pcm16(_ data: Data) throws -> [Float] {
        let bytes = [UInt8](data)
        func uint32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = uint32(offset + 4)
            if bytes[offset..<offset + 4].elementsEqual("data".utf8) {
                return stride(from: offset + 8, to: offset + 8 + size - 1, by: 2).map {
                    Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32768
                }
            }
            offset += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
