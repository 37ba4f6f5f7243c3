import Foundation
import Testing
@testable import ChorusONNX

@Suite struct ModelGraphEditTests {
    /// float32_affine computes t = 2x, then y = t + 1.
    static let capT = ModelGraphEdit(capping: "t", by: "cap", rank: 2)

    @Test func theCappedValueReachesEveryNodeThatReadItAndInfinityLeavesItAsItWas() throws {
        let session = try InferenceSession(modelPath: modelPath("float32_affine"), options: SessionOptions(graphEdit: Self.capT))
        #expect(session.inputs.map(\.name) == ["x", "cap"])
        #expect(session.inputs.last?.shape == [.symbolic("cap_0"), .symbolic("cap_1")])
        let x = try Tensor([1, 2, 3, -4] as [Float], shape: [1, 4])
        let capped = try session.run(["x": x, "cap": Tensor([.infinity, 3, 0, .infinity] as [Float], shape: [1, 4])])
        #expect(try capped["y"]?.array(of: Float.self) == [3, 4, 1, -7])
        let uncapped = try session.run(["x": x, "cap": Tensor([Float.infinity], shape: [1, 1])])
        let plain = try InferenceSession(modelPath: modelPath("float32_affine")).run(["x": x])
        #expect(try uncapped["y"]?.array(of: Float.self) == plain["y"]?.array(of: Float.self))
    }

    @Test func everythingElseInTheModelIsCopiedThrough() throws {
        let model = Array(try Data(contentsOf: URL(fileURLWithPath: modelPath("float32_affine"))))
        let edited = try Self.capT.applied(to: model, modelPath: "float32_affine.onnx")
        // The two initialisers' values and the names of every original node's inputs are still there.
        for kept in ["two", "one", "x", "y", "Mul", "Add"] {
            #expect(edited.firstRange(of: Array(kept.utf8)) != nil, "\(kept) is missing")
        }
        #expect(edited.firstRange(of: Array("t/uncapped".utf8)) != nil)
        #expect(edited.count > model.count)
    }

    @Test func aModelWithoutTheValueOrWithTheInputTakenIsRefusedNamingBoth() throws {
        let model = Array(try Data(contentsOf: URL(fileURLWithPath: modelPath("float32_affine"))))
        #expect(throws: OnnxRuntimeError.graphEdit(model: "m.onnx", value: "durations", reason: "0 nodes give it, where one should")) {
            try ModelGraphEdit(capping: "durations", by: "cap", rank: 2).applied(to: model, modelPath: "m.onnx")
        }
        #expect(throws: OnnxRuntimeError.graphEdit(model: "m.onnx", value: "t", reason: "the graph already has an input named x")) {
            try ModelGraphEdit(capping: "t", by: "x", rank: 2).applied(to: model, modelPath: "m.onnx")
        }
        // Not a protobuf at all, and a model cut short.
        #expect(throws: OnnxRuntimeError.self) { try Self.capT.applied(to: Array("not a model".utf8), modelPath: "m.onnx") }
        #expect(throws: OnnxRuntimeError.self) { try Self.capT.applied(to: Array(model.dropLast(9)), modelPath: "m.onnx") }
        let error = OnnxRuntimeError.graphEdit(model: "m.onnx", value: "t", reason: "0 nodes give it, where one should")
        #expect(error.description.contains("m.onnx") && error.description.contains("'t'"))
    }

    @Test func anOptimisedCacheKeepsTheEditedGraphApartAndLoadsItWithoutEditingAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-edit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = OptimizedModelCache(folder: folder)
        let options = SessionOptions(graphEdit: Self.capT)
        #expect(try cache.entry(forModel: modelPath("float32_affine"), options: options, runtimeVersion: "1.32.0")
                != cache.entry(forModel: modelPath("float32_affine"), options: SessionOptions(), runtimeVersion: "1.32.0"))
        let feeds = ["x": try Tensor([1, 2, 3, -4] as [Float], shape: [1, 4]),
                     "cap": try Tensor([.infinity, 3, 0, .infinity] as [Float], shape: [1, 4])]
        for _ in 0..<2 {
            let session = try cache.session(modelPath: modelPath("float32_affine"), options: options)
            #expect(session.inputs.map(\.name) == ["x", "cap"])
            #expect(try session.run(feeds)["y"]?.array(of: Float.self) == [3, 4, 1, -7])
        }
        let second = try cache.session(modelPath: modelPath("float32_affine"), options: options)
        #expect(second.file != modelPath("float32_affine"), "the second load reads the cache's entry")
    }
}
