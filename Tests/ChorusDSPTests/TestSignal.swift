import Foundation
import Testing
@testable import ChorusDSP

/// The integer-only test signal of scripts/testdata/make_dsp_goldens.py, sample for sample.
func testSignal(count: Int, rate: Int) -> [Float] {
    var out = [Float](repeating: 0, count: count)
    var state = 12_345
    var phases = [0, 0, 0]
    let wrap = 1 << 32
    for n in 0..<count {
        let increments = [
            (220 * wrap) / rate + n * (((wrap / rate) * 3000) / count),
            (1375 * wrap) / rate,
            (3125 * wrap) / rate,
        ]
        var value = 0
        for k in 0..<3 {
            phases[k] = (phases[k] + increments[k]) % wrap
            let triangle = abs((phases[k] >> 16) - 32768) - 16384
            value += triangle >> k
        }
        state = (state * 1_103_515_245 + 12_345) % (1 << 31)
        let noise = ((state >> 16) % 2001) - 1000
        let envelope = 64 + abs((n * 4 * 128 / rate) % 256 - 128)
        var sample = ((value * envelope) >> 9) + noise
        if n >= rate / 5 && n < rate / 5 + rate / 20 { sample = 0 }
        out[n] = Float(max(-32768, min(32767, sample))) / 32768
    }
    return out
}

/// A golden file: rows of [frame index, features...] for some frames.
struct Golden {
    let frames: [Int]
    let rows: [[Float]]

    init(_ name: String) throws {
        let url = try #require(Bundle.module.url(forResource: "Golden/\(name)", withExtension: "npy"))
        let file = try NPYFile.read(contentsOf: url)
        frames = file.rows.map { Int($0[0]) }
        rows = file.rows.map { Array($0.dropFirst()) }
    }

    /// The largest |difference| between `features` and the golden rows, over `columns` (all by default).
    func maxError(_ features: Matrix, columns: Range<Int>? = nil) -> Float {
        var worst: Float = 0
        for (frame, row) in zip(frames, rows) {
            precondition(frame < features.rows, "golden frame \(frame) beyond \(features.rows) frames")
            for column in columns ?? 0..<row.count {
                worst = max(worst, abs(features[frame, column] - row[column]))
            }
        }
        return worst
    }
}

@Suite struct TestSignalTests {
    @Test func matchesThePythonGenerator() throws {
        let url = try #require(Bundle.module.url(forResource: "Golden/signal_checksum", withExtension: "npy"))
        let sums = try NPYFile.read(contentsOf: url).values
        let x16 = testSignal(count: 16_000, rate: 16_000)
        let x24 = testSignal(count: 24_000, rate: 24_000)
        #expect(abs(Float(x16.reduce(0.0) { $0 + Double($1) }) - sums[0]) < 1e-3)
        #expect(abs(Float(x16.reduce(0.0) { $0 + Double(abs($1)) }) - sums[1]) < 1e-2)
        #expect(abs(Float(x24.reduce(0.0) { $0 + Double(abs($1)) }) - sums[3]) < 1e-2)
    }
}
