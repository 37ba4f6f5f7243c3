import Foundation
import Testing
@testable import ChorusONNX

/// The generated models next to this file; see scripts/testdata/make_ort_test_models.py.
func modelPath(_ name: String) -> String {
    Bundle.module.url(forResource: "Models/\(name)", withExtension: "onnx")!.path
}

@Suite struct RuntimeLoadingTests {
    @Test func loadsTheRuntimeAndReportsItsVersion() throws {
        let runtime = try OnnxRuntime.shared()
        #expect(!runtime.version.isEmpty)
        #expect(runtime.availableProviders.contains("CPUExecutionProvider"))
        #expect(try OnnxRuntime.shared() === runtime)
    }

    @Test func searchOrderIsExplicitThenEnvironmentThenProjectThenSystem() {
        let places = RuntimeLibrary.candidates(
            explicitPath: "/opt/x/libonnxruntime.so", environment: ["CHORUS_ORT_LIBRARY": "/env/libonnxruntime.so"])
        let sources = places.map(\.source)
        #expect(places.first?.path == "/opt/x/libonnxruntime.so")
        #expect(places[1].path == "/env/libonnxruntime.so")
        #expect(sources.firstIndex(of: "project install")! < sources.firstIndex(of: "system loader")!)
        #expect(places.last?.source == "system loader")
    }

    @Test func missingLibraryErrorNamesEveryPlaceAndTheInstallCommand() {
        let error = OnnxRuntimeError.libraryNotFound(tried: [
            .init(source: "CHORUS_ORT_LIBRARY", path: "/nope/libonnxruntime.so", reason: "no such file"),
            .init(source: "system loader", path: "libonnxruntime.so", reason: "cannot open shared object file"),
        ])
        #expect(error.description.contains("/nope/libonnxruntime.so"))
        #expect(error.description.contains("libonnxruntime.so (cannot open shared object file)"))
        #expect(error.description.contains("scripts/setup.sh"))
    }
}

@Suite struct SessionTests {
    @Test func float32ModelRunsAndDescribesSymbolicShapes() throws {
        let session = try InferenceSession(modelPath: modelPath("float32_affine"))
        #expect(session.inputs == [ValueInfo(name: "x", elementType: .float32, shape: [.fixed(1), .symbolic("N")])])
        #expect(session.outputs.map(\.name) == ["y"])
        let result = try session.run(["x": Tensor([0, 1, -2.5, 100] as [Float], shape: [1, 4])])
        let y = try #require(result["y"])
        #expect(y.shape == [1, 4])
        #expect(y.elementType == .float32)
        #expect(try y.array(of: Float.self) == [1, 3, -4, 201])
    }

    @Test func float16TensorsKeepTheirTypeAndRefuseFloat32Reads() throws {
        let session = try InferenceSession(modelPath: modelPath("float16_scale"))
        let input: [Float16] = [1, 2, 3, -4, 0.5, 1000]
        let result = try session.run(["h": Tensor(input, shape: [2, 3])])
        let out = try #require(result["out"])
        #expect(out.elementType == .float16)
        #expect(try out.array(of: Float16.self) == input.map { $0 * 0.5 })
        #expect(throws: OnnxRuntimeError.elementTypeMismatch(requested: .float32, actual: .float16)) {
            try out.array(of: Float.self)
        }
        #expect(try out.floats() == input.map { Float($0) * 0.5 })
        #expect(try result["out32"]!.array(of: Float.self) == input.map { Float($0) })
    }

    @Test func int64GatherLooksUpRows() throws {
        let session = try InferenceSession(modelPath: modelPath("int64_gather"))
        let result = try session.run(["ids": Tensor([3, 0, 9] as [Int64], shape: [1, 3])])
        let emb = try #require(result["emb"])
        #expect(emb.shape == [1, 3, 4])
        #expect(try emb.array(of: Float.self) == [3, 3.25, 3.5, 3.75, 0, 0.25, 0.5, 0.75, 9, 9.25, 9.5, 9.75])
    }

    @Test func otherElementTypesRoundTrip() throws {
        let session = try InferenceSession(modelPath: modelPath("mixed_types"))
        let result = try session.run([
            "i32": Tensor([1, -2, 2_000_000_000] as [Int32], shape: [3]),
            "i8": Tensor([1, -128 + 1, 127] as [Int8], shape: [3]),
            "u8": Tensor([0, 128, 255] as [UInt8], shape: [3]),
            "flag": Tensor([true, false, true], shape: [3]),
        ])
        #expect(try result["i32_out"]!.array(of: Int32.self) == [2, -1, 2_000_000_001])
        #expect(try result["i8_out"]!.array(of: Int8.self) == [-1, 127, -127])
        #expect(try result["u8_out"]!.array(of: UInt8.self) == [0, 128, 255])
        #expect(try result["flag_out"]!.array(of: Bool.self) == [false, true, false])
    }

    @Test func outputFedBackAsInputFor100StepsKeepsTypeAndValues() throws {
        let session = try InferenceSession(modelPath: modelPath("kv_feedback"))
        var past = try Tensor([Float16](), shape: [2, 1, 0, 4])
        var expectedSum: Float = 0
        for index in 0..<100 {
            let value = Float16(Float(index % 7) * 0.25)
            let step = try Tensor([Float16](repeating: value, count: 4), shape: [1, 1, 1, 4])
            let result = try session.run(["past": past, "step": step])
            let present = try #require(result["present"])
            #expect(present.elementType == .float16)
            #expect(present.shape == [2, 1, index + 1, 4])
            expectedSum += 3 * 4 * Float(value)
            #expect(abs(try result["total"]!.array(of: Float.self)[0] - expectedSum) < 1e-2)
            past = present  // the runtime's own value goes straight back in
        }
        let cache = try past.array(of: Float16.self)
        // Layer 0 holds each step's value, layer 1 twice it; spot-check the last step.
        #expect(cache[99 * 4] == Float16(Float(99 % 7) * 0.25))
        #expect(cache[100 * 4 + 99 * 4] == 2 * Float16(Float(99 % 7) * 0.25))
    }

    @Test func plannedRunsWriteIntoGivenOutputsAndStorageViews() throws {
        let session = try InferenceSession(modelPath: modelPath("kv_feedback"))
        // Inputs in the plan's order, not the model's; outputs in the plan's order.
        let plan = try session.plan(inputs: ["step", "past"], outputs: ["total", "present"])
        let buffers = [try TensorStorage(elementType: .float16, capacity: 2 * 1 * 50 * 4),
                       try TensorStorage(elementType: .float16, capacity: 2 * 1 * 50 * 4)]
        let step = try Tensor([Float16](repeating: 0, count: 4), shape: [1, 1, 1, 4])
        var past = try Tensor([Float16](), shape: [2, 1, 0, 4])
        var total: Tensor?
        var expectedSum: Float = 0
        for index in 0..<50 {
            let value = Float16(Float(index % 5) * 0.5)
            try step.withUnsafeMutableBufferPointer(of: Float16.self) { $0.update(repeating: value) }
            let present = try Tensor(over: buffers[index % 2], shape: [2, 1, index + 1, 4])
            let results = try session.run(plan, inputs: [step, past], outputs: [total, present])
            #expect(results[1] === present)
            if let total { #expect(results[0] === total) }
            total = results[0]
            expectedSum += 3 * 4 * Float(value)
            #expect(abs(try results[0].array(of: Float.self)[0] - expectedSum) < 1e-2)
            past = present
        }
        // The last step's cache is in the second buffer: layer 0 then layer 1 (twice the value), 50 steps each.
        let cache = try buffers[1].withUnsafeMutableBufferPointer(of: Float16.self) { Array($0.prefix(2 * 50 * 4)) }
        #expect(cache[49 * 4] == Float16(Float(49 % 5) * 0.5))
        #expect(cache[50 * 4 + 49 * 4] == 2 * Float16(Float(49 % 5) * 0.5))
        #expect(cache[50 * 4 + 3 * 4] == 2 * Float16(Float(3 % 5) * 0.5))

        #expect(throws: OnnxRuntimeError.self) { try session.plan(inputs: ["step"], outputs: ["total"]) }
        #expect(throws: OnnxRuntimeError.self) { try session.plan(inputs: ["step", "past"], outputs: ["nope"]) }
        #expect(throws: OnnxRuntimeError.self) {
            try Tensor(over: buffers[0], shape: [2, 1, 51, 4])   // larger than the storage
        }
        #expect(throws: OnnxRuntimeError.self) {
            // A given output of the wrong element type is refused before the run.
            try session.run(plan, inputs: [step, past], outputs: [nil, Tensor([Float](repeating: 0, count: 8), shape: [2, 1, 1, 4])])
        }
    }

    @Test func runsAreCountedInTheRuntimeStatistics() throws {
        let runtime = try OnnxRuntime.shared()
        let session = try InferenceSession(modelPath: modelPath("float32_affine"))
        let before = runtime.statistics
        for _ in 0..<3 { _ = try session.run(["x": Tensor([1] as [Float], shape: [1, 1])]) }
        let after = runtime.statistics
        // Other tests may run at the same time, so at least our three calls are counted.
        #expect(after.runs >= before.runs + 3)
        #expect(after.duration > before.duration)
    }

    @Test func sessionsWithoutMemoryPatternGiveTheSameResultsForEveryLength() throws {
        let planned = try InferenceSession(modelPath: modelPath("float32_affine"))
        let unplanned = try InferenceSession(modelPath: modelPath("float32_affine"),
                                             options: SessionOptions(usesMemoryPattern: false))
        // Each length is a new input shape, the case the memory pattern is planned for.
        for length in [1, 7, 3, 64, 7] {
            let x = try Tensor((0..<length).map { Float($0) * 0.5 - 3 }, shape: [1, length])
            let expected = try planned.run(["x": x])["y"]!.array(of: Float.self)
            #expect(try unplanned.run(["x": x])["y"]!.array(of: Float.self) == expected)
        }
    }

    @Test func aCancelledCallerStopsTheRunAndGetsACancellation() async throws {
        let session = try InferenceSession(modelPath: modelPath("float32_affine"))
        let x = try Tensor([0, 1] as [Float], shape: [1, 2])
        let cancelled = Task {
            // Cancelled before the run starts: the terminate flag is up when the runtime first looks.
            withUnsafeCurrentTask { $0?.cancel() }
            return try await session.run(["x": x])
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // The session is not left stopped: the next run works.
        #expect(try await session.run(["x": x])["y"]?.array(of: Float.self) == [1, 3])
    }

    @Test func preferredProvidersTheLibraryLacksAreSkipped() throws {
        let runtime = try OnnxRuntime.shared()
        let options = SessionOptions(intraOpThreads: 1, allowSpinning: false, usesMemoryArena: false,
                                     preferredProviders: [.coreML, .cuda])
        let session = try InferenceSession(modelPath: modelPath("float32_affine"), options: options)
        #expect(session.providers.last == "CPUExecutionProvider")
        for provider in session.providers.dropLast() {
            #expect(runtime.availableProviders.contains(provider))
        }
    }
}

@Suite struct ErrorTests {
    @Test func missingModelFileIsNamed() {
        #expect(throws: OnnxRuntimeError.modelNotFound(path: "/no/such/model.onnx")) {
            try InferenceSession(modelPath: "/no/such/model.onnx")
        }
    }

    @Test func corruptModelFileGivesARuntimeErrorNamingIt() throws {
        let path = modelPath("corrupt")
        do {
            _ = try InferenceSession(modelPath: path)
            Issue.record("a corrupt model loaded")
        } catch let OnnxRuntimeError.runtime(code, _, message, model) {
            #expect(code != 0)
            #expect(!message.isEmpty)
            #expect(model == path)
        }
    }

    @Test func wrongInputNameTypeShapeAndMissingInputsAreReported() throws {
        let path = modelPath("float32_affine")
        let session = try InferenceSession(modelPath: path)
        let good = try Tensor([1, 2] as [Float], shape: [1, 2])
        #expect(throws: OnnxRuntimeError.unknownInput(name: "z", model: path, expected: ["x"])) {
            try session.run(["z": good])
        }
        #expect(throws: OnnxRuntimeError.missingInput(name: "x", model: path)) {
            try session.run([:])
        }
        #expect(throws: OnnxRuntimeError.inputTypeMismatch(name: "x", model: path, expected: .float32, actual: .int64)) {
            try session.run(["x": Tensor([1, 2] as [Int64], shape: [1, 2])])
        }
        #expect(throws: OnnxRuntimeError.inputShapeMismatch(
            name: "x", model: path, expected: [.fixed(1), .symbolic("N")], actual: [2, 1])) {
            try session.run(["x": Tensor([1, 2] as [Float], shape: [2, 1])])
        }
        #expect(throws: OnnxRuntimeError.inputShapeMismatch(
            name: "x", model: path, expected: [.fixed(1), .symbolic("N")], actual: [2])) {
            try session.run(["x": Tensor([1, 2] as [Float], shape: [2])])
        }
        #expect(throws: OnnxRuntimeError.unknownOutput(name: "q", model: path, available: ["y"])) {
            try session.run(["x": good], outputs: ["q"])
        }
    }

    @Test func tensorShapeMustMatchElementCount() {
        #expect(throws: OnnxRuntimeError.shapeMismatch(shape: [2, 2], elementCount: 3)) {
            try Tensor([1, 2, 3] as [Float], shape: [2, 2])
        }
    }

    @Test func spinningIsTheOptionsThenTheEnvironmentsAndAnythingElseThereIsRefused() throws {
        let variable = SessionOptions.spinningVariable
        #expect(try SessionOptions().spinning(environment: [:]) == nil)
        #expect(try SessionOptions().spinning(environment: [variable: "0"]) == false)
        #expect(try SessionOptions().spinning(environment: [variable: "1"]) == true)
        #expect(try SessionOptions(allowSpinning: true).spinning(environment: [variable: "0"]) == true)
        #expect(throws: OnnxRuntimeError.invalidSpinningSetting(value: "off")) {
            try SessionOptions().spinning(environment: [variable: "off"])
        }
        #expect(OnnxRuntimeError.invalidSpinningSetting(value: "off").description.contains("set it to 0"))
    }

    @Test func theEnvironmentsIntraOpThreadsOverrideTheOptionsAndNonsenseIsRefused() throws {
        let variable = SessionOptions.intraOpThreadsVariable
        #expect(try SessionOptions().intraOpThreads(environment: [:]) == nil)
        #expect(try SessionOptions(intraOpThreads: 3).intraOpThreads(environment: [:]) == 3)
        #expect(try SessionOptions(intraOpThreads: 3).intraOpThreads(environment: [variable: "1"]) == 1)
        #expect(try SessionOptions().intraOpThreads(environment: [variable: " 2"]) == 2)
        for value in ["0", "-1", "65", "two", ""] {
            #expect(throws: OnnxRuntimeError.invalidThreadSetting(value: value, maximum: SessionOptions.maximumThreads)) {
                try SessionOptions().intraOpThreads(environment: [variable: value])
            }
        }
        #expect(OnnxRuntimeError.invalidThreadSetting(value: "0", maximum: 64).description
            == "CHORUS_ORT_INTRA_OP_THREADS is '0'; set it to a whole number of threads from 1 to 64, or unset it.")
    }
}

@Suite struct SessionCacheTests {
    @Test func concurrentRequestsShareOneSessionAndUnloadDropsIt() async throws {
        let cache = SessionCache()
        let path = modelPath("int64_gather")
        let sessions = try await withThrowingTaskGroup(of: InferenceSession.self) { group in
            for _ in 0..<8 { group.addTask { try await cache.session(for: path) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sessions.allSatisfy { $0 === sessions[0] })
        #expect(await cache.loadedModels == [path])
        await cache.unload(path)
        #expect(await cache.loadedModels.isEmpty)
        let reloaded = try await cache.session(for: path)
        #expect(reloaded !== sessions[0])
    }

    @Test func differentOptionsGetDifferentSessions() async throws {
        let cache = SessionCache()
        let path = modelPath("float32_affine")
        let a = try await cache.session(for: path, options: SessionOptions(intraOpThreads: 1))
        let b = try await cache.session(for: path, options: SessionOptions(intraOpThreads: 2))
        #expect(a !== b)
        await cache.unloadAll()
        #expect(await cache.loadedModels.isEmpty)
    }

    @Test func aFailedLoadIsReportedAndNotCached() async throws {
        let cache = SessionCache()
        await #expect(throws: OnnxRuntimeError.modelNotFound(path: "/missing.onnx")) {
            try await cache.session(for: "/missing.onnx")
        }
        #expect(await cache.loadedModels.isEmpty)
    }
}
