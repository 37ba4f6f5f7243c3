import ChorusFiles
import ChorusModels
import ChorusAudio
import Foundation
@testable import ChorusStreaming
import ChorusTesting
import Testing

@Suite struct SinkTests {
    private let format = AudioFormat(sampleRate: 22_050, encoding: .float32)

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-sinks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: [WAVSampleFormat.pcm16, .float32])
    func wavFileSinkWritesTheSameFileAsTheWholeFileWriter(sampleFormat: WAVSampleFormat) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        let samples = ramp(22_050 + 11)
        let pipeline = StreamingAudioPipeline(sink: WAVFileSink(url: url, sampleFormat: sampleFormat))
        try await withDeadlockGuard {
            try await pipeline.play(byteStream(split(float32Bytes(samples), seed: 5)), format: format)
        }
        let written = try Data(contentsOf: url)
        #expect(written == (try WAVWriter.encode(samples, sampleRate: 22_050, format: sampleFormat)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.wav"])
    }

    @Test func wavFileSinkReplacesAnExistingFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        try Data("an older file".utf8).write(to: url)
        let samples = ramp(2_000)
        try await withDeadlockGuard {
            try await StreamingAudioPipeline(sink: WAVFileSink(url: url)).play(byteStream([float32Bytes(samples)]), format: format)
        }
        #expect(try Data(contentsOf: url) == (try WAVWriter.encode(samples, sampleRate: 22_050)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.wav"])
    }

    @Test func aStoppedWAVFileSinkLeavesNoFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = StreamingAudioPipeline(sink: WAVFileSink(url: folder.appendingPathComponent("out.wav")))
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(float32Bytes(ramp(1_000)))
            continuation.finish(throwing: FakeError.boom)
        }
        await #expect(throws: FakeError.boom) { try await pipeline.play(failing, format: format) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func wavFileSinkInAMissingFolderSaysSo() async throws {
        let sink = WAVFileSink(url: URL(fileURLWithPath: "/nonexistent-chorus-folder/out.wav"))
        await #expect(throws: AudioSinkError.cannotCreate(path: "/nonexistent-chorus-folder/out.wav", reason: "no such folder")) {
            try await StreamingAudioPipeline(sink: sink).play(byteStream([]), format: format)
        }
    }

    @Test(arguments: [PCMStreamSink.Container.raw, .wav])
    func pcmStreamSinkWritesSamplesAsTheyCome(container: PCMStreamSink.Container) async throws {
        let pipe = Pipe()
        let samples = ramp(5_000)
        let sink = PCMStreamSink(handle: pipe.fileHandleForWriting, name: "a pipe", container: container)
        // Read on a thread of its own so a full pipe cannot block the writer, nor a blocking read the task pool.
        let read = Locked<Data?>(nil)
        let reader = Thread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            read.withLock { $0 = data }
        }
        reader.start()
        try await withDeadlockGuard {
            try await StreamingAudioPipeline(sink: sink).play(byteStream(split(float32Bytes(samples), seed: 2)), format: format)
        }
        try pipe.fileHandleForWriting.close()
        try await eventually { read.withLock { $0 != nil } }
        let written = try #require(read.withLock { $0 })
        let pcm = Data(WAVWriter.encodeSamples(samples, format: .pcm16))
        switch container {
        case .raw:
            #expect(written == pcm)
        case .wav:
            let header = try WAVWriter.header(sampleRate: 22_050, channels: 1, format: .pcm16, dataBytes: Int(UInt32.max))
            #expect(written == header + pcm)
            #expect(Array(written[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
        }
    }

    #if canImport(CChorusAlsa)
    @Test func aMissingSoundDeviceIsAClearErrorThatSuggestsAnotherSink() async throws {
        let sink = AlsaSink(device: "chorus_no_such_device")
        let controller = StreamingTTSController(provider: ScriptedProvider(outputFormat: format, chunks: []), sink: sink)
        do {
            try await controller.start()
            Issue.record("opening a device that does not exist succeeded")
        } catch let error as AudioSinkError {
            guard case .deviceUnavailable(let device, _, let suggestion) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(device.contains("chorus_no_such_device"))
            #expect(suggestion.contains("-o"))
            #expect(error.description.contains("No sound device"))
        }
        await #expect(throws: StreamingError.alreadyStarted) { try await controller.start() }
    }

    @Test func alsaNullDevicePlaysAWholeStream() async throws {
        let sink = AlsaSink(device: "null")
        let pipeline = StreamingAudioPipeline(sink: sink, configuration: AudioPipelineConfiguration(playbackWatermark: 0.1))
        do {
            try await pipeline.open(for: format)
        } catch {
            print("skipping the ALSA null device test: \(error)")
            return
        }
        try await withDeadlockGuard {
            try await pipeline.play(byteStream(split(float32Bytes(ramp(22_050 / 2)), seed: 3)), format: format)
        }
        let statistics = await pipeline.statistics
        #expect(statistics.playedSamples == 22_050 / 2)
        #expect(statistics.bufferedSamples == 0)
    }

    @Test func alsaSinkStoppedMidStreamReturns() async throws {
        let sink = AlsaSink(device: "null")
        let pipeline = StreamingAudioPipeline(sink: sink)
        do {
            try await pipeline.open(for: format)
        } catch {
            print("skipping the ALSA null device test: \(error)")
            return
        }
        let endless = AsyncStream<Data>(unfolding: { float32Bytes(ramp(2_205)) })
        let playing = Task { try await pipeline.play(endless, format: format) }
        try await eventually { await pipeline.statistics.playedSamples > 0 }
        playing.cancel()
        await #expect(throws: CancellationError.self) { try await withDeadlockGuard { try await playing.value } }
    }
    #endif
}
