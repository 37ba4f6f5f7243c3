import Foundation
import Testing
import ChorusDSP
import ChorusONNX
@testable import ChorusGeneration

/// A model with one cache tensor [1, 2, positions, 3] whose logits favour the token after the last one.
struct CountingModel: AutoregressiveModel {
    let vocabulary = 8
    var positions = 4
    var steps: [Int] = []

    func logits(favouring token: Int) throws -> Tensor {
        try Tensor(shape: [1, vocabulary], of: Float.self) { row in
            row.update(repeating: 0)
            row[token % vocabulary] = 10
        }
    }

    func cacheTensor(_ cache: KVCache) throws -> Tensor {
        let target = try cache.targets(length: positions)[0]
        let tensor = try target ?? Tensor(shape: [1, 2, positions, 3], of: Float.self) { $0.update(repeating: 0) }
        // Mark the newest position, so a test can see the cache was written where the loop said.
        try tensor.withUnsafeMutableBufferPointer(of: Float.self) { $0[positions - 1] = Float(positions) }
        return tensor
    }

    mutating func prefill(cache: KVCache) throws -> Tensor {
        try cache.update([cacheTensor(cache)], model: "counting.onnx")
        return try logits(favouring: 1)
    }

    mutating func step(_ token: Int, cache: KVCache) throws -> Tensor {
        steps.append(token)
        positions += 1
        try cache.update([cacheTensor(cache)], model: "counting.onnx")
        return try logits(favouring: token + 1)
    }
}

@Suite struct DecodeLoopTests {
    @Test func drawsUntilAStopTokenAndFeedsEachTokenBack() throws {
        var model = CountingModel()
        var sampler = TokenSampler([GreedyDraw()], vocabularySize: 8, random: SeededRandom(seed: 0))
        let pool = KVCachePool()
        var seen: [Int] = []
        let tokens = try DecodeLoop.run(&model, sampler: &sampler, cache: KVCache(pool: pool, tensorCount: 1, longest: 20),
                                        maximumLength: 20, isStop: { $0 == 5 }, onToken: { seen.append($0) })
        #expect(tokens == [1, 2, 3, 4])
        #expect(seen == tokens)
        #expect(model.steps == [1, 2, 3, 4])
        // The first decode step showed the layout: the third axis grows.
        #expect(pool.layouts?.first?.axis == 2)
        #expect(pool.layouts?.first?.shape == [1, 2, 5, 3])
    }

    @Test func stopsAtTheMaximumLength() throws {
        var model = CountingModel()
        var sampler = TokenSampler([GreedyDraw()], vocabularySize: 8, random: SeededRandom(seed: 0))
        let tokens = try DecodeLoop.run(&model, sampler: &sampler, cache: KVCache(pool: KVCachePool(), tensorCount: 1, longest: 8),
                                        maximumLength: 3, isStop: { _ in false })
        #expect(tokens == [1, 2, 3])
        #expect(model.steps == [1, 2])
    }

    @Test func cacheAlternatesBetweenTwoKeptBuffers() throws {
        let pool = KVCachePool()
        let cache = try KVCache(pool: pool, tensorCount: 1, longest: 10)
        #expect(try cache.targets(length: 4).map { $0 == nil } == [true])
        let first = try Tensor(shape: [1, 2, 4, 3], of: Float.self) { $0.update(repeating: 0) }
        try cache.update([first], model: "m.onnx")
        let grown = try Tensor(shape: [1, 2, 5, 3], of: Float.self) { $0.update(repeating: 1) }
        try cache.update([grown], model: "m.onnx")
        let a = try #require(try cache.targets(length: 6)[0])
        let b = try #require(try cache.targets(length: 7)[0])
        let c = try #require(try cache.targets(length: 8)[0])
        #expect(a.shape == [1, 2, 6, 3] && b.shape == [1, 2, 7, 3])
        func address(_ tensor: Tensor) throws -> Int {
            try tensor.withUnsafeBufferPointer(of: Float.self) { Int(bitPattern: $0.baseAddress) }
        }
        #expect(try address(a) != address(b))
        #expect(try address(a) == address(c))
        // A later utterance knows the layout and writes even its prefill into a kept buffer.
        let next = try KVCache(pool: pool, tensorCount: 1, longest: 10)
        #expect(try next.targets(length: 4)[0]?.shape == [1, 2, 4, 3])
    }

    @Test func aCacheThatDoesNotGrowByOneIsNamed() throws {
        let cache = try KVCache(pool: KVCachePool(), tensorCount: 1, longest: 10)
        try cache.update([Tensor(shape: [1, 4], of: Float.self) { $0.update(repeating: 0) }], model: "m.onnx")
        #expect(throws: KVCacheError.notGrownByOne(model: "m.onnx", before: [1, 4], after: [1, 6])) {
            try cache.update([Tensor(shape: [1, 6], of: Float.self) { $0.update(repeating: 0) }], model: "m.onnx")
        }
        #expect(throws: KVCacheError.changedTensorCount(model: "m.onnx", before: 1, after: 0)) {
            try cache.update([], model: "m.onnx")
        }
    }
}
