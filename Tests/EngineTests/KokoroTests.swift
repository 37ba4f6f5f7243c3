import Foundation
import Testing
@testable import ChorusKokoro
import ChorusDSP
import ChorusModels
import ChorusSpeech
import ZIPFoundation

@Suite struct KokoroUnitTests {
    @Test func espeakDiphthongsBecomeKokoroLetters() {
        let tie = "\u{200D}"
        #expect(KokoroPhonemizer.rewrite("a\(tie)ɪ ˈo\(tie)ʊ juː", dialect: .american) == "I ˈO ju")
        #expect(KokoroPhonemizer.rewrite("d\(tie)ʒˈʌd\(tie)ʒ t\(tie)ʃˈɜːt\(tie)ʃ", dialect: .american) == "ʤˈʌʤ ʧˈɜɹʧ")
        #expect(KokoroPhonemizer.rewrite("bˈʌʔn̩ rˈɛd", dialect: .american) == "bˈʌtn ɹˈɛd")
    }

    @Test func americanAndBritishRulesFollowMisaki() {
        let tie = "\u{200D}"
        // r-coloured vowels, the flap, bare e and o, ɪə, length marks: American.
        #expect(KokoroPhonemizer.rewrite("bˈɜːd wˈɔːɾɚ ˈe hˈɪə", dialect: .american) == "bˈɜɹd wˈɔTəɹ ˈA hˈiə")
        // British keeps length, writes əʊ as Q and iə as ɪə.
        #expect(KokoroPhonemizer.rewrite("ɡˈə\(tie)ʊ bˈɜːd nˈiə", dialect: .british) == "ɡˈQ bˈɜːd nˈɪə")
        #expect(KokoroPhonemizer.Dialect(espeakVoice: "en-gb-x-rp") == .british)
        #expect(KokoroPhonemizer.Dialect(espeakVoice: "en-us") == .american)
        #expect(KokoroPhonemizer.Dialect(espeakVoice: "fr") == .other)
    }

    @Test func punctuationIsCutAndRestoredAsPhonemizerDoes() {
        let split = PunctuationSplit("\"Stop!\" he said.")
        #expect(split.chunks == ["Stop", "he said"])
        #expect(split.marks.map(\.position) == [.begins, .inside, .ends])
        #expect(split.restore(["stˈɑp ", "hi sˈɛd "]) == "\"stˈɑp!\" hi sˈɛd. ")
        let whole = PunctuationSplit(" ... ")
        #expect(whole.chunks.isEmpty && whole.restore([]) == " ... ")
        #expect(PunctuationSplit("no marks here").chunks == ["no marks here"])
    }

    @Test func packingKeepsEveryIdUnderTheLimit() {
        let space: Int64 = 16
        let clause = [Int64](repeating: 5, count: 9) + [space]
        let groups = KokoroSynthesizer.pack(Array(repeating: clause, count: 7), limit: 25, space: space)
        #expect(groups.allSatisfy { $0.count <= 25 })
        #expect(groups.map { $0.filter { $0 == 5 }.count }.reduce(0, +) == 63)
        // A clause longer than the limit is cut at spaces.
        let long = Array(repeating: [Int64](repeating: 7, count: 4) + [space], count: 20).flatMap { $0 }
        let cut = KokoroSynthesizer.pack([long], limit: 12, space: space)
        #expect(cut.allSatisfy { $0.count <= 12 && $0.first != space && $0.last != space })
        #expect(cut.flatMap { $0 }.filter { $0 == 7 }.count == 80)
    }

    @Test func voiceNamesGiveLanguageAndGender() {
        #expect(KokoroSynthesizer.describe("jf_alpha").language == "ja")
        #expect(KokoroSynthesizer.describe("jm_kumo").gender == .male)
        #expect(KokoroSynthesizer.describe("af_heart").language == "en-US")
    }

    @Test func damagedVoiceArchiveIsRejectedWithItsPath() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-bad-voices-\(UUID()).npz")
        try Data("not a zip archive".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: SpeechError.invalidModelFile(path: url.path, reason: "not a readable .npz (zip) archive")) {
            try KokoroVoicePack(contentsOf: url)
        }
    }

    @Test func voicesAreListedWithoutReadingTheirArrays() throws {
        let pack = try CraftedVoicePack()
        defer { pack.remove() }
        let voices = try KokoroVoicePack(contentsOf: pack.url)
        #expect(voices.names == ["af_bad", "af_good"])
        #expect(throws: pack.damagedError) { try voices.style(voice: "af_bad", idCount: 1) }
        // Kokoro's table is indexed by length - 1, the last row serving every longer input.
        #expect(try voices.style(voice: "af_good", idCount: 1) == pack.goodRows[0])
        #expect(try voices.style(voice: "af_good", idCount: 2) == pack.goodRows[1])
        #expect(try voices.style(voice: "af_good", idCount: 400) == pack.goodRows[2])
        #expect(throws: pack.damagedError) { try voices.style(voice: "af_bad", idCount: 1) }
    }

    /// A voice whose array is far larger than a voice is stopped while it is read, with its own sentence.
    @Test func anOversizedVoiceIsRefusedWhileItIsRead() throws {
        let rows = KokoroVoicePack.maximumVoiceBytes / (4 * KokoroVoicePack.styleWidth) + 1
        let bytes = try NPYFile(rows: [[Float]](repeating: [Float](repeating: 0, count: KokoroVoicePack.styleWidth), count: rows)).encoded()
        let archive = try Archive(data: Data(), accessMode: .create)
        try archive.addEntry(with: "af_huge.npy", type: .file, uncompressedSize: Int64(bytes.count)) { position, size in
            bytes.subdata(in: Int(position)..<(Int(position) + size))
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-voices-\(UUID()).npz")
        defer { try? FileManager.default.removeItem(at: url) }
        try #require(archive.data).write(to: url)
        let voices = try KokoroVoicePack(contentsOf: url)
        #expect(voices.names == ["af_huge"])
        #expect(throws: SpeechError.invalidModelFile(
            path: url.path, reason: "voice af_huge (af_huge.npy) is larger than 16 MB, far more than a voice's 0.5 MB; the other "
                + "voices can still be used, and `chorus models verify kokoro` checks the installed file")) {
            try voices.style(voice: "af_huge", idCount: 1)
        }
    }

    @Test func missingModelNamesTheFileAndTheFix() {
        let folder = URL(fileURLWithPath: "/nonexistent/kokoro")
        do {
            _ = try KokoroSynthesizer(files: .init(folder: folder))
            Issue.record("loaded from a missing folder")
        } catch let error as ModelError {
            #expect(error.description.contains("/nonexistent/kokoro/kokoro-v1.0.int8.onnx"))
            #expect(error.description.contains("chorus models pull kokoro"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

@Suite(.enabled(if: InstalledModels.kokoro, InstalledModels.reason))
struct KokoroModelTests {
    static let engine = Result { try KokoroSynthesizer() }

    @Test func speaksASentence() async throws {
        let kokoro = try Self.engine.get()
        #expect(kokoro.voices.count == 5)
        let audio = try await kokoro.synthesize(SynthesisRequest(text: "Hello, world. This is Chorus."))
        let seconds = Double(audio.count) / 24_000
        #expect(seconds > 1 && seconds < 6)
        #expect(rms(audio) > 0.02)
        #expect(audio.allSatisfy { $0.isFinite })
    }

    @Test func fasterSpeechIsShorter() async throws {
        let kokoro = try Self.engine.get()
        let text = "The library closes early on Sunday evenings."
        let normal = try await kokoro.synthesize(SynthesisRequest(text: text, voice: "jm_kumo", speed: 1))
        let fast = try await kokoro.synthesize(SynthesisRequest(text: text, voice: "jm_kumo", speed: 1.6))
        #expect(Double(fast.count) < 0.8 * Double(normal.count))
    }

    @Test func longTextIsSpokenInSeveralPiecesUnderTheIdLimit() async throws {
        let kokoro = try Self.engine.get()
        let paragraph = String(repeating: "Every morning she runs along the river before breakfast, and then she reads the news. ", count: 12)
        let inputs = try kokoro.modelInputs(for: paragraph)
        #expect(inputs.count >= 3)
        #expect(inputs.allSatisfy { $0.count <= KokoroVocabulary.maxIDs })
        var chunks = 0
        for try await chunk in kokoro.stream(SynthesisRequest(text: paragraph)) {
            #expect(rms(chunk.samples) > 0.01)
            chunks += 1
        }
        #expect(chunks >= 3)
    }

    @Test func cancellingAStreamStopsItQuietlyAndTheEngineSpeaksOn() async throws {
        let kokoro = try Self.engine.get()
        let paragraph = String(repeating: "Every morning she runs along the river before breakfast, and then she reads the news. ", count: 12)
        let (firstChunk, arrived) = AsyncStream<Void>.makeStream()
        let (goSignal, go) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            // A stream that fails before its first chunk ends the test's wait too, so the failure is reported
            // instead of the test waiting for ever (it did, when every Kokoro call threw).
            defer { arrived.finish() }
            var chunks = 0
            for try await _ in kokoro.stream(SynthesisRequest(text: paragraph)) {
                chunks += 1
                arrived.yield()
                // Waits for the test before asking for the next piece, so a busy machine that keeps the test
                // from running cannot let the consumer finish the whole paragraph before it is cancelled.
                for await _ in goSignal { break }
            }
            return chunks
        }
        for await _ in firstChunk { break }
        go.yield()
        // With no suspension between the two, the consumer is at most in the model call for the second piece.
        consumer.cancel()
        // Cancelled inside that call, the call stops and throws CancellationError; cancelled before it, the
        // stream ends (AsyncThrowingStream(unfolding:) returns nil once its task is cancelled). Either way
        // no audio comes after the cancel.
        switch await consumer.result {
        case .success(let chunks): #expect(chunks == 1)
        case .failure(let error): #expect(error is CancellationError)
        }
        let audio = try await kokoro.synthesize(SynthesisRequest(text: "Still here."))
        #expect(rms(audio) > 0.02)
    }

    @Test func voiceArraysReadOnDemandAreTheArchivesArrays() throws {
        // The whole archive read the way the pack read it at start before it became lazy: every entry.
        let url = KokoroSynthesizer.Files(folder: ModelStore.current.folder(for: KokoroSynthesizer.manifest)).voices
        let archive = try Archive(url: url, accessMode: .read)
        var tables: [String: [Float]] = [:]
        for entry in archive where entry.path.hasSuffix(".npy") {
            var bytes = Data()
            _ = try archive.extract(entry, skipCRC32: false) { bytes.append($0) }
            tables[String(entry.path.dropLast(4))] = try NPYFile.decode(bytes, path: entry.path).values
        }
        let voices = try KokoroVoicePack(contentsOf: url)
        #expect(voices.names == tables.keys.sorted())
        let width = KokoroVoicePack.styleWidth
        for (name, table) in tables {
            #expect(table.count == 510 * width)
            for (idCount, row) in [(1, 0), (2, 1), (57, 56), (510, 509), (600, 509)] {
                #expect(try voices.style(voice: name, idCount: idCount) == Array(table[(row * width)..<((row + 1) * width)]))
            }
        }
    }

    /// The probes' 580 bytes of Hebrew kept Kokoro speaking for 150 s: refused before any model runs, as the
    /// stream sees it; prose and numbers of the server's 4,096 characters pass the check.
    @Test func textThatCostsFarMoreThanItsLengthIsRefused() async throws {
        let kokoro = try Self.engine.get()
        for text in [CostlyTexts.prose, CostlyTexts.numbers, CostlyTexts.emoji, CostlyTexts.hebrew] {
            let refused = try CostlyTexts.refusal(text, kokoro.checkCost(of:))
            print("Kokoro: \(text.count) characters (\(text.prefix(12))...): \(refused.map { "refused, \($0.units) phonemes over \($0.limit)" } ?? "allowed")")
        }
        #expect(try CostlyTexts.refusal(CostlyTexts.prose, kokoro.checkCost(of:)) == nil)
        #expect(try CostlyTexts.refusal(CostlyTexts.numbers, kokoro.checkCost(of:)) == nil)
        await CostlyTexts.expectRefusedBeforeAudio(kokoro.stream(SynthesisRequest(text: CostlyTexts.hebrew)))
        #expect(try CostlyTexts.refusal(CostlyTexts.hebrew, kokoro.checkCost(of:)) != nil)
    }

    @Test func badRequestsGetClearErrors() async throws {
        let kokoro = try Self.engine.get()
        await #expect(throws: SpeechError.emptyText) { try await kokoro.synthesize(SynthesisRequest(text: " \n ")) }
        await #expect(throws: SpeechError.unknownVoice("nobody", engine: "kokoro", available: kokoro.voices.map(\.id))) {
            try await kokoro.synthesize(SynthesisRequest(text: "Hi.", voice: "nobody"))
        }
        await #expect(throws: SpeechError.invalidSpeed(9, allowed: SynthesisRequest.speeds)) {
            try await kokoro.synthesize(SynthesisRequest(text: "Hi.", speed: 9))
        }
    }
}

/// A voice pack of two voices written to a temporary file: `af_good` (three rows) and `af_bad`, whose
/// array has one byte changed after the archive was written, so its checksum no longer matches.
struct CraftedVoicePack {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-voices-\(UUID()).npz")
    let goodRows: [[Float]] = (0..<3).map { row in (0..<KokoroVoicePack.styleWidth).map { Float(row * 1000 + $0) } }

    init() throws {
        let bad = try NPYFile(rows: [[Float](repeating: 0.5, count: KokoroVoicePack.styleWidth)]).encoded()
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, bytes) in [("af_good.npy", try NPYFile(rows: goodRows).encoded()), ("af_bad.npy", bad)] {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count)) { position, size in
                bytes.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        var data = try #require(archive.data)
        let stored = try #require(data.range(of: bad))
        data[stored.upperBound - 1] ^= 0xFF
        try data.write(to: url)
    }

    /// What asking for `af_bad` throws.
    var damagedError: SpeechError {
        .invalidModelFile(path: url.path, reason: "voice af_bad (af_bad.npy) is damaged: it cannot be read back as the "
            + "archive stored it; the other voices can still be used, and `chorus models verify kokoro` checks the installed file")
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
