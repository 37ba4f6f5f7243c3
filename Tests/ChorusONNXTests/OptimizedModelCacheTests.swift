import Foundation
import Testing
@testable import ChorusONNX

/// A folder of its own for one test, removed when the test is done.
private final class Scratch {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-optimized-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A copy of a test model here, so its time and size can be changed.
    func model(_ name: String) throws -> String {
        let copy = folder.appendingPathComponent("\(name).onnx")
        try FileManager.default.copyItem(atPath: modelPath(name), toPath: copy.path)
        return copy.path
    }

    var cache: OptimizedModelCache { OptimizedModelCache(folder: folder.appendingPathComponent("cache")) }

    /// The files in the cache folder.
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: cache.folder.path)) ?? []).sorted() }
}

@Suite struct OptimizedModelCacheTests {
    static let input = ["x": try! Tensor((0..<1024).map { Float($0 % 97) * 0.37 - 9 }, shape: [4, 256])]

    @Test func theKeyFollowsTheModelFileTheRuntimeAndTheGraphOptionsOnly() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        let cache = scratch.cache
        let options = SessionOptions()
        let entry = try cache.entry(forModel: model, options: options, runtimeVersion: "1.32.0")
        #expect(entry.deletingLastPathComponent().path == cache.folder.path)
        #expect(entry.lastPathComponent.hasPrefix("slow_chain-") && entry.pathExtension == "onnx")
        // Threads, the arena and the memory pattern leave the graph as it is.
        let threads = SessionOptions(intraOpThreads: 1, allowSpinning: false, usesMemoryPattern: false)
        #expect(try cache.entry(forModel: model, options: threads, runtimeVersion: "1.32.0") == entry)
        #expect(try cache.entry(forModel: model, options: options, runtimeVersion: "1.33.0") != entry)
        #expect(try cache.entry(forModel: model, options: SessionOptions(optimizationLevel: .extended), runtimeVersion: "1.32.0") != entry)
        // A model changed in place: a new time, then a new size.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: model)
        let touched = try cache.entry(forModel: model, options: options, runtimeVersion: "1.32.0")
        #expect(touched != entry)
        let handle = try #require(FileHandle(forWritingAtPath: model))
        try handle.truncate(atOffset: try handle.seekToEnd() - 1)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: model)
        #expect(try cache.entry(forModel: model, options: options, runtimeVersion: "1.32.0") != touched)
        // The same model elsewhere has its own entry.
        let elsewhere = try cache.entry(forModel: modelPath("slow_chain"), options: options, runtimeVersion: "1.32.0")
        #expect(elsewhere != entry && elsewhere.lastPathComponent.hasPrefix("slow_chain-"))
    }

    @Test func theFirstLoadWritesTheOptimisedGraphAndTheNextReadsItWithTheSameOutputs() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        let cache = scratch.cache
        let plain = try InferenceSession(modelPath: model)
        let first = try cache.session(modelPath: model)
        let entry = try cache.entry(forModel: model, options: SessionOptions(), runtime: OnnxRuntime.shared())
        #expect(first.file == model)
        #expect(scratch.entries == [entry.lastPathComponent, entry.lastPathComponent + ".source"])
        let second = try cache.session(modelPath: model)
        #expect(second.file == entry.path)
        #expect(second.modelPath == model)
        #expect(second.inputs == plain.inputs && second.outputs == plain.outputs)
        let expected = try plain.run(Self.input)["y"]!.array(of: Float.self)
        #expect(try first.run(Self.input)["y"]!.array(of: Float.self) == expected)
        #expect(try second.run(Self.input)["y"]!.array(of: Float.self) == expected)
    }

    @Test func aDamagedEntryIsReplacedByAGoodOne() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        let cache = scratch.cache
        let entry = try cache.entry(forModel: model, options: SessionOptions(), runtime: OnnxRuntime.shared())
        try FileManager.default.createDirectory(at: cache.folder, withIntermediateDirectories: true)
        try Data("not a model".utf8).write(to: entry)
        let session = try cache.session(modelPath: model)
        #expect(session.file == model)
        #expect(scratch.entries == [entry.lastPathComponent, entry.lastPathComponent + ".source"])
        #expect(try Data(contentsOf: entry) != Data("not a model".utf8))
        #expect(try cache.session(modelPath: model).file == entry.path)
    }

    @Test func aChangedModelReplacesItsOldEntry() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        let cache = scratch.cache
        _ = try cache.session(modelPath: model)
        let old = scratch.entries
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: model)
        #expect(try cache.session(modelPath: model).file == model)
        #expect(scratch.entries.count == 2 && scratch.entries != old)
    }

    @Test func eachEntryNamesItsModel() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        _ = try scratch.cache.session(modelPath: model)
        let entry = try scratch.cache.entry(forModel: model, options: SessionOptions(), runtime: OnnxRuntime.shared())
        #expect(scratch.entries == [entry.lastPathComponent, entry.lastPathComponent + ".source"])
        #expect(try String(contentsOf: OptimizedModelCache.source(of: entry), encoding: .utf8) == model + "\n")
    }

    /// The entries of a model loaded once from a folder since removed are not kept for ever: the next
    /// entry written removes them, and keeps those of models still there.
    @Test func writingAnEntryRemovesThoseOfModelsThatAreGone() throws {
        let scratch = try Scratch()
        let kept = try scratch.model("slow_chain")
        let temporary = scratch.folder.appendingPathComponent("temporary")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let gone = temporary.appendingPathComponent("float32_affine.onnx").path
        try FileManager.default.copyItem(atPath: modelPath("float32_affine"), toPath: gone)
        let cache = scratch.cache
        _ = try cache.session(modelPath: kept)
        _ = try cache.session(modelPath: gone)
        #expect(scratch.entries.count == 4)
        try FileManager.default.removeItem(at: temporary)
        let third = try scratch.model("int64_gather")
        _ = try cache.session(modelPath: third)
        let expected = try [kept, third].flatMap { model -> [String] in
            let entry = try cache.entry(forModel: model, options: SessionOptions(), runtime: OnnxRuntime.shared()).lastPathComponent
            return [entry, entry + ".source"]
        }
        #expect(scratch.entries == expected.sorted())
    }

    /// An entry written before entries named their model is named when loaded, and kept; one not loaded
    /// is removed by the next entry written. A note alone is removed once a day old.
    @Test func entriesWithoutANoteAreNamedWhenLoadedElseRemoved() throws {
        let scratch = try Scratch()
        let cache = scratch.cache
        let loaded = try scratch.model("slow_chain")
        let unused = try scratch.model("float32_affine")
        for model in [loaded, unused] { _ = try cache.session(modelPath: model) }
        for model in [loaded, unused] {
            let entry = try cache.entry(forModel: model, options: SessionOptions(), runtime: OnnxRuntime.shared())
            try FileManager.default.removeItem(at: OptimizedModelCache.source(of: entry))
        }
        let lone = cache.folder.appendingPathComponent("gone-00000000-0000000000000000.onnx.source")
        let fresh = cache.folder.appendingPathComponent("gone-11111111-1111111111111111.onnx.source")
        try Data("/nowhere/gone.onnx\n".utf8).write(to: lone)
        try Data("/nowhere/gone.onnx\n".utf8).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)], ofItemAtPath: lone.path)
        let loadedEntry = try cache.entry(forModel: loaded, options: SessionOptions(), runtime: OnnxRuntime.shared())
        #expect(try cache.session(modelPath: loaded).file == loadedEntry.path)
        #expect(FileManager.default.fileExists(atPath: OptimizedModelCache.source(of: loadedEntry).path))
        let third = try scratch.model("int64_gather")
        _ = try cache.session(modelPath: third)
        let thirdEntry = try cache.entry(forModel: third, options: SessionOptions(), runtime: OnnxRuntime.shared())
        let names = [loadedEntry, thirdEntry].flatMap { [$0.lastPathComponent, $0.lastPathComponent + ".source"] }
        #expect(scratch.entries == (names + [fresh.lastPathComponent]).sorted())
    }

    @Test func aBadModelFailsAsWithoutACacheAndLeavesNothingBehind() throws {
        let scratch = try Scratch()
        let model = try scratch.model("corrupt")
        var expected: OnnxRuntimeError?
        do { _ = try InferenceSession(modelPath: model) } catch let error as OnnxRuntimeError { expected = error }
        #expect(expected != nil)
        #expect(throws: expected!) { try scratch.cache.session(modelPath: model) }
        #expect(scratch.entries.isEmpty)
    }

    @Test func aCacheThatCannotBeWrittenLoadsTheModelAsItIs() throws {
        let scratch = try Scratch()
        let model = try scratch.model("slow_chain")
        let blocker = scratch.folder.appendingPathComponent("file")
        try Data().write(to: blocker)
        let cache = OptimizedModelCache(folder: blocker.appendingPathComponent("cache"))
        let session = try cache.session(modelPath: model)
        #expect(session.file == model)
        #expect(try session.run(Self.input)["y"]!.array(of: Float.self)
                == (try InferenceSession(modelPath: model).run(Self.input)["y"]!.array(of: Float.self)))
    }

    @Test func theCacheLivesInTheModelStoreUnlessTurnedOff() {
        #expect(OptimizedModelCache.current(environment: ["CHORUS_MODELS": "/m"])?.folder.path == "/m/.optimized")
        for off in ["0", "off", "OFF", "no", "false"] {
            #expect(OptimizedModelCache.current(environment: ["CHORUS_MODELS": "/m", "CHORUS_OPTIMIZED_MODELS": off]) == nil)
        }
        #expect(OptimizedModelCache.current(environment: ["CHORUS_MODELS": "/m", "CHORUS_OPTIMIZED_MODELS": "1"]) != nil)
    }
}
