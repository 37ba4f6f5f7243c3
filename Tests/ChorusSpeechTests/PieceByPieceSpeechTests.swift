import Foundation
import ChorusSpeech
import Testing

/// What the calls of one stream did, seen from outside.
private final class Record: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func note(_ event: String) { lock.withLock { events.append(event) } }
    var seen: [String] { lock.withLock { events } }
}

@Suite struct PieceByPieceSpeechTests {
    static let text = "One. Two. Three."
    static let pieces = ["One.", "Two.", "Three."]

    /// Chunks handed back early come as they are made, in the order of the text, each piece's before the next's;
    /// a call's last samples follow its early ones, and a call that ends with none adds no empty chunk.
    @Test(arguments: [false, true])
    func earlyChunksComeInTheOrderOfTheText(splitSideBySide: Bool) async throws {
        let request = SynthesisRequest(text: Self.text, priority: splitSideBySide ? .wholeText : .firstAudio)
        let stream = PieceByPieceSpeech.stream(
            request, sampleRate: 8_000,
            calls: splitSideBySide ? .split(PieceParallelism(inFlight: 2, threadsPerRun: 1)) : .oneAfterAnother,
            setup: {}, pieces: { Self.pieces }, calls: { piece in [Self.pieces.firstIndex(of: piece)!] }
        ) { index, _, _, early in
            // Later pieces are quicker, so side by side they end before the ones ahead of them.
            try await Task.sleep(for: .milliseconds(10 * (3 - index)))
            early([Float(index), 0])
            early([Float(index), 1])
            return index == 1 ? [] : [Float(index), 2]
        }
        var chunks: [AudioChunk] = []
        for try await chunk in stream { chunks.append(chunk) }
        #expect(chunks.map(\.samples) == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]])
        #expect(chunks.map(\.text) == ["One.", "One.", "One.", "Two.", "Two.", "Three.", "Three.", "Three."])
        #expect(chunks.allSatisfy { $0.sampleRate == 8_000 })
    }

    /// The reader gets a call's early chunk while that call still runs.
    @Test func anEarlyChunkIsHandedOnBeforeItsCallEnds() async throws {
        let record = Record()
        let stream = PieceByPieceSpeech.stream(
            SynthesisRequest(text: "Hello."), sampleRate: 8_000, setup: {}, pieces: { ["Hello."] }
        ) { _, _, early in
            early([1])
            try await Task.sleep(for: .milliseconds(100))
            record.note("ended")
            return [2]
        }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.samples == [1])
        #expect(record.seen.isEmpty)
        #expect(try await iterator.next()?.samples == [2])
        #expect(record.seen == ["ended"])
        #expect(try await iterator.next() == nil)
    }

    /// Text whose pieces give no model call is refused, not spoken as silence; so is a request the checks refuse,
    /// before anything is readied.
    @Test func nothingToSpeakIsRefused() async throws {
        let record = Record()
        let none = PieceByPieceSpeech.stream(SynthesisRequest(text: Self.text), sampleRate: 8_000,
                                             setup: {}, pieces: { [] }) { _, _, _ in [1] }
        await #expect(throws: SpeechError.nothingToSpeak(Self.text)) { for try await _ in none {} }
        let tooFast = PieceByPieceSpeech.stream(
            SynthesisRequest(text: Self.text, speed: 2), sampleRate: 8_000, speeds: 1...1,
            setup: { record.note("setup") }, pieces: { Self.pieces }) { _, _, _ in [1] }
        await #expect(throws: SpeechError.self) { for try await _ in tooFast {} }
        #expect(record.seen.isEmpty)
    }

    /// Nothing is readied or spoken until the reader asks for the first chunk, and then only two calls ahead of
    /// what the reader took.
    @Test func nothingRunsBeforeTheReaderAsks() async throws {
        let record = Record()
        let pieces = ["One.", "Two.", "Three.", "Four."]
        let stream = PieceByPieceSpeech.stream(
            SynthesisRequest(text: pieces.joined(separator: " ")), sampleRate: 8_000,
            setup: { record.note("setup") }, pieces: { pieces }
        ) { piece, _, _ in
            record.note(piece)
            return [1]
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(record.seen.isEmpty)
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .milliseconds(50))
        #expect(record.seen == ["setup", "One.", "Two.", "Three."])
    }

    /// Cancelling the reader while it waits for a call that streams stops that call before the stream ends, and
    /// no later call starts.
    @Test func cancellingTheReaderStopsTheCallInFlight() async throws {
        let record = Record()
        let stream = PieceByPieceSpeech.stream(
            SynthesisRequest(text: Self.text), sampleRate: 8_000, setup: {}, pieces: { Self.pieces }
        ) { piece, _, early in
            record.note("started \(piece)")
            early([1])
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                record.note("stopped \(piece)")
                throw error
            }
            return [2]
        }
        let reader = Task {
            for try await _ in stream { record.note("chunk") }
        }
        while !record.seen.contains("chunk") { try await Task.sleep(for: .milliseconds(5)) }
        // The reader is back in the stream, waiting for the rest of the first call.
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        _ = try? await reader.value
        #expect(record.seen == ["started One.", "chunk", "stopped One."])
    }
}
