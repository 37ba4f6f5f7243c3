import ChorusAudio
import ChorusDSP
import ChorusSpeech
import Foundation
import Testing
@testable import ChorusChatterbox

@Suite struct EngineTests {
    /// A model folder of the generated graphs with the test voice installed as "eve".
    static func modelFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: TestResources.model.path) {
            try FileManager.default.copyItem(at: TestResources.model.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("voices"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestResources.voice, to: folder.appendingPathComponent("voices/eve"))
        return folder
    }

    static func configuration(seed: UInt64, maximumNewTokens: Int? = nil) -> ChatterboxSynthesizer.Configuration {
        .init(seed: seed, chunkCharacters: 50, firstChunkCharacters: 50,
              maximumNewTokens: maximumNewTokens ?? LanguageModel.maximumNewTokens)
    }

    /// The engine over the whole text: the seed's chunks, each spoken as upstream's generate does, joined.
    @Test func speaksChunksAsUpstream() async throws {
        let golden = try TestResources.decoded("chunked.json", as: TestResources.Chunked.self)
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: Self.configuration(seed: golden.seed, maximumNewTokens: golden.maxGenLen))
        #expect(engine.voices.map(\.id) == ["eve"])
        #expect(try ChatterboxSynthesizer.installedVoices(folder: folder).map(\.id) == ["eve"])
        var pieces: [AudioChunk] = []
        for try await chunk in engine.stream(SynthesisRequest(text: golden.text)) { pieces.append(chunk) }
        #expect(pieces.map(\.text) == golden.chunks.map(\.text))
        #expect(pieces.map(\.samples.count) == golden.chunks.map(\.samples))
        let audio = pieces.flatMap(\.samples)
        let difference = TestResources.maximumDifference(audio, try TestResources.floats("chunked.f32"))
        print("Chatterbox engine: \(pieces.count) chunks, max |difference| from upstream \(difference)")
        #expect(difference < 1e-4)
    }

    /// Editing one sentence of a text re-synthesises only the chunk it is in; the others come from the cache.
    @Test func chunkCacheHitsAfterOneSentenceEdit() async throws {
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 30 characters: each sentence is a chunk of its own.
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: .init(seed: 4, chunkCharacters: 30, firstChunkCharacters: 30))
        let sentences = ["The first sentence is here.", "The second one is here.", "And a third one ends it."]
        let first = try await engine.synthesize(SynthesisRequest(text: sentences.joined(separator: " ")))
        #expect(engine.chunkCache.statistics == (hits: 0, misses: 3))
        var edited = sentences
        edited[1] = "The second one has changed."
        var pieces: [AudioChunk] = []
        for try await chunk in engine.stream(SynthesisRequest(text: edited.joined(separator: " "))) { pieces.append(chunk) }
        #expect(engine.chunkCache.statistics == (hits: 2, misses: 4))
        #expect(engine.chunkCache.count == 4)
        // The unchanged chunks are the same audio.
        let firstLength = pieces[0].samples.count
        #expect(Array(first.prefix(firstLength)) == pieces[0].samples)
        #expect(Array(first.suffix(pieces[2].samples.count)) == pieces[2].samples)
        // A bounded cache drops the least recently used.
        let small = ChunkCache(limit: 2)
        for (index, text) in ["a", "b", "c"].enumerated() { small.store([Float(index)], for: .init(text: text, voice: "v")) }
        #expect(small.count == 2 && small.audio(for: .init(text: "a", voice: "v")) == nil && small.audio(for: .init(text: "c", voice: "v")) == [2])
    }

    /// A voice replaced on disk by another process is read again and the chunks spoken in it dropped; a voice whose
    /// file has the wrong shape is listed as unusable with why, and the others still speak.
    @Test func aVoiceChangedOnDiskIsReadAgainAndADamagedOneIsUnusable() async throws {
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let voices = folder.appendingPathComponent("voices")
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: .init(seed: 4, chunkCharacters: 30, firstChunkCharacters: 30))
        let text = "The first sentence is here."
        _ = try await engine.synthesize(SynthesisRequest(text: text, voice: "eve"))
        #expect(engine.chunkCache.count == 1)
        _ = try await engine.synthesize(SynthesisRequest(text: text, voice: "eve"))
        #expect(engine.chunkCache.statistics.hits == 1)

        let conditioning = try VoiceConditioning(folder: voices.appendingPathComponent("eve"))
        try ChatterboxSynthesizer.store(voices).write(id: "eve", replacing: true) { try conditioning.write(to: $0) }
        #expect(engine.voices.map(\.id) == ["eve"])
        #expect(engine.chunkCache.count == 0, "the chunks spoken in the old eve are kept")

        try FileManager.default.copyItem(at: voices.appendingPathComponent("eve"), to: voices.appendingPathComponent("broken"))
        try NPYFile(shape: [1, 3], values: [1, 2, 3]).write(to: voices.appendingPathComponent("broken/speaker_embeddings.npy"))
        #expect(engine.voices.map(\.id) == ["eve"])
        #expect(engine.unusableVoices.map(\.id) == ["broken"])
        #expect(engine.unusableVoices.first?.problem.contains("speaker_embeddings") == true, "\(engine.unusableVoices)")
        await #expect(throws: SpeechError.self) { try await engine.synthesize(SynthesisRequest(text: text, voice: "broken")) }
        #expect(try await engine.synthesize(SynthesisRequest(text: text, voice: "eve")).count > 0)
    }

    /// Concurrent first calls share one model load; the status stream gives late subscribers the newest value.
    @Test func oneSharedLoadAndStatus() async throws {
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: Self.configuration(seed: 1))
        #expect(engine.status.value == .idle)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { try await engine.prepare() } }
            try await group.waitForAll()
        }
        #expect(engine.loadCount == 1)
        var late = engine.status.stream().makeAsyncIterator()
        #expect(await late.next() == .ready)
        let watcher = Task {
            var seen: [ChatterboxSynthesizer.Status] = []
            for await status in engine.status.stream() {
                seen.append(status)
                if seen.count == 3 { break }
            }
            return seen
        }
        while engine.status.subscriberCount < 2 { await Task.yield() }
        _ = try await engine.synthesize(SynthesisRequest(text: "Hello there."))
        #expect(await watcher.value == [.ready, .synthesizing, .ready])
    }

    /// Cancelling a stream mid-generation ends its work at the next token; the engine is ready and speaks again.
    @Test func cancelMidGeneration() async throws {
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatterboxSynthesizer(folder: folder, configuration: Self.configuration(seed: 1))
        let text = (1...12).map { "Sentence number \($0) is spoken here." }.joined(separator: " ")
        let consumer = Task {
            var count = 0
            for try await _ in engine.stream(SynthesisRequest(text: text)) {
                count += 1
                if count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        let spoken = try? await consumer.value
        #expect((spoken ?? 0) < 12)
        // The stream's task ends and status returns to ready.
        var waited = 0
        while engine.status.value != .ready, waited < 2_000 { try await Task.sleep(for: .milliseconds(5)); waited += 1 }
        #expect(engine.status.value == .ready)
        #expect(engine.chunkCache.count < 12)
        let again = try await engine.synthesize(SynthesisRequest(text: "Still speaking."))
        #expect(!again.isEmpty)
    }

    /// CHORUS_CHATTERBOX_MAX_NEW_TOKENS sets upstream's max_gen_len for the engines the command line and the server
    /// make (the real-size bench draws a fixed count with it); anything but 0...1000 is refused naming the variable.
    @Test func maximumNewTokensComeFromTheEnvironment() throws {
        let variable = ChatterboxSynthesizer.Configuration.maximumNewTokensVariable
        #expect(try ChatterboxSynthesizer.Configuration(environment: [:]).maximumNewTokens == LanguageModel.maximumNewTokens)
        #expect(try ChatterboxSynthesizer.Configuration(environment: [variable: "99"]).maximumNewTokens == 99)
        #expect(try ChatterboxSynthesizer.Configuration(environment: [variable: "0"]).maximumNewTokens == 0)
        for value in ["-1", "1001", "ten", ""] {
            #expect(throws: ChatterboxError.invalidSetting(variable: variable, value: value, expected: "a whole number from 0 to 1000")) {
                try ChatterboxSynthesizer.Configuration(environment: [variable: value])
            }
        }
    }

    @Test func badInputIsRefused() async throws {
        let folder = try Self.modelFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try ChatterboxSynthesizer(folder: folder)
        await #expect(throws: SpeechError.self) { _ = try await engine.synthesize(SynthesisRequest(text: "  ")) }
        await #expect(throws: SpeechError.self) { _ = try await engine.synthesize(SynthesisRequest(text: "Hi.", voiceID: "nobody")) }
        // A clip of 5 s or less is refused before any model runs, naming its length.
        do {
            _ = try SpeechEncoder.preparedClip([Float](repeating: 0.1, count: 5 * 16_000), sampleRate: 16_000)
            Issue.record("a 5 s clip was accepted")
        } catch let error as ChatterboxError {
            #expect(error == .clipTooShort(seconds: 5) && "\(error)".contains("more than 5 s"))
        }
        // A longer clip at another rate comes out at 24 kHz and -27 LUFS.
        let tone = (0..<(6 * 16_000)).map { Float(0.3 * sin(Double($0) * 2 * .pi * 220 / 16_000)) }
        let prepared = try SpeechEncoder.preparedClip(tone, sampleRate: 16_000)
        #expect(abs(prepared.count - 6 * 24_000) <= 1)
        #expect(abs(try LoudnessMeter(sampleRate: 24_000).integratedLoudness(prepared) + 27) < 0.01)
        // A folder without its graphs names the missing file.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("chatterbox-empty-\(UUID().uuidString)")
        #expect(throws: (any Error).self) { try ChatterboxSynthesizer(folder: empty) }
    }
}
