import ArgumentParser
import Audio
import Foundation
import OnnxRuntime
import Speech
import SpeechRecognition
import VAD

/// `chorus transcribe`: speech to text with a FastConformer CTC model, from a file or live from a stream.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe speech with a FastConformer CTC model.",
        discussion: """
            A model folder holds encoder.onnx (or encoder_T<frames>.onnx, one per length bucket) taking \
            [1, 80, frames] NeMo features and giving [1, frames/8, vocabulary+1] log-probabilities with the \
            blank last; tokens.txt (`piece id` per line); and optionally pronunciation.onnx (or \
            pronunciation_T<frames>.onnx) with pronunciation_vocab.txt for a second CTC head. \
            The default folder is $CHORUS_MODELS/fastconformer.

            Audio longer than the largest bucket is cut at pauses (Silero VAD, when installed) or into \
            overlapping chunks, and the pieces are merged. With --live, audio is read as it arrives \
            (raw 16-bit mono PCM at --rate, or a WAV stream), partial transcripts go to standard error \
            and each utterance's final transcript to standard output when the speaker pauses.

            Examples:
              chorus transcribe talk.wav --model ~/models/fastconformer
              arecord -f S16_LE -r 16000 -c 1 | chorus transcribe --live -
              chorus transcribe --live talk.wav --json
            """
    )

    @Argument(help: "The WAV file to transcribe; - reads standard input (with --live).")
    var file: String

    @Option(help: "The model folder (default: $CHORUS_MODELS/fastconformer).")
    var model: String?

    @Flag(help: "Transcribe as the audio arrives, with partial and final transcripts.")
    var live = false

    @Option(help: "With --live: the rate of raw PCM input (a WAV stream carries its own).")
    var rate: Int = 16000

    @Flag(help: "Do not use Silero VAD for cut points and pauses even when it is installed.")
    var noVad = false

    @Flag(help: "Print JSON: {\"text\", \"pronunciation\"}, or with --live one object per update.")
    var json = false

    @Option(help: "Threads inside each model operator (default: the runtime's choice, one per core).")
    var threads: Int?

    @Option(help: ArgumentHelp("After one warm-up run, transcribe the file this many times and report the fastest (for bench/).",
                               visibility: .hidden))
    var repeats: Int = 0

    func run() async throws {
        let folder = model.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelDirectory.folder(for: "fastconformer")
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw ValidationError("""
                No recogniser model at \(folder.path). No FastConformer weights ship with Chorus; \
                pass --model DIR with a folder as `chorus transcribe --help` describes.
                """)
        }
        let recognizer = try FastConformerRecognizer(folder: folder, options: SessionOptions(intraOpThreads: threads))
        let vadInstalled = !noVad && FileManager.default.fileExists(atPath: SileroVAD.defaultModelPath)
        if live {
            try await transcribeLive(recognizer, vad: vadInstalled ? StreamingVAD(vad: SileroVAD()) : nil)
        } else {
            try await transcribeFile(recognizer, useVAD: vadInstalled)
        }
    }

    private func transcribeFile(_ recognizer: FastConformerRecognizer, useVAD: Bool) async throws {
        guard file != "-" else { throw ValidationError("Reading standard input needs --live; give a WAV file otherwise.") }
        let (samples, inputRate) = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: file))
        let audio = inputRate == recognizer.sampleRate
            ? samples : try Resampler.resample(samples, from: inputRate, to: recognizer.sampleRate)
        let runtime = try OnnxRuntime.shared()
        func recognizeOnce() async throws -> Recognition {
            var speech: [SpeechSegment] = []
            if useVAD, let limit = recognizer.maximumChunkSamples, audio.count > limit {
                var vad = try SileroVAD()
                speech = try vad.speechSegments(in: audio)
            }
            return try await recognizer.recognize(audio, speech: speech)
        }
        if repeats > 0 { _ = try await recognizeOnce() }  // loads the sessions and warms them
        var result = Recognition(text: "", tokens: [])
        var elapsed: Duration?
        var runTime = Duration.zero
        var runs = 0
        for _ in 0..<max(repeats, 1) {
            runtime.resetStatistics()
            let started = ContinuousClock.now
            result = try await recognizeOnce()
            let time = ContinuousClock.now - started
            if elapsed.map({ time < $0 }) ?? true {
                (elapsed, runTime, runs) = (time, runtime.statistics.duration, runtime.statistics.runs)
            }
        }
        if json {
            print(Self.json(["text": result.text, "pronunciation": result.pronunciation]))
        } else {
            print(result.text)
            if let pronunciation = result.pronunciation { print("pronunciation: \(pronunciation)") }
        }
        let seconds = Double(audio.count) / Double(recognizer.sampleRate)
        let total = Self.seconds(elapsed ?? .zero)
        let inRun = Self.seconds(runTime)
        SpeakCommand.status(String(
            format: "transcribed %.2f s of audio in %.3f s (%.1fx real time)%@; %.3f s in %d model runs, %.3f s (%.1f%%) outside them\n",
            seconds, total, seconds / max(total, 1e-9), repeats > 0 ? " best of \(repeats)" : "", inRun, runs,
            total - inRun, 100 * (total - inRun) / max(total, 1e-9)))
    }

    private func transcribeLive(_ recognizer: FastConformerRecognizer, vad: StreamingVAD?) async throws {
        let input = file == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        var decoder = StreamDecoder(rawRate: rate)
        var transcriber: LiveTranscriber?
        while true {
            let block = input.readData(ofLength: 6400)
            let samples = try decoder.samples(from: block, final: block.isEmpty)
            if transcriber == nil, let inputRate = decoder.sampleRate {
                transcriber = try LiveTranscriber(recognizer: recognizer, inputRate: inputRate, vad: vad)
            }
            guard let transcriber else {
                if block.isEmpty { throw ValidationError("The input ended before any audio arrived.") }
                continue
            }
            let updates = block.isEmpty ? try await transcriber.finish() : try await transcriber.push(samples)
            updates.forEach(report)
            if block.isEmpty { break }
        }
    }

    private func report(_ update: LiveTranscriber.Update) {
        switch update {
        case .partial(let text):
            if json {
                Self.line(Self.json(["type": "partial", "text": text]))
            } else {
                SpeakCommand.status("… \(text)\n")
            }
        case .final(let text):
            Self.line(json ? Self.json(["type": "final", "text": text]) : text)
        }
    }

    /// One line on standard output, written at once so a reader of a pipe sees it as it happens.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func json(_ fields: [String: String?]) -> String {
        let object = fields.compactMapValues { $0 }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

/// Audio bytes as they arrive on a stream, to mono samples: a WAV stream (its header read with
/// Audio's WAV reader) or, without a RIFF header, raw 16-bit little-endian mono PCM.
struct StreamDecoder {
    let rawRate: Int
    private var pending = Data()
    /// The WAV header with its data size zeroed, so Audio decodes any run of whole frames after it.
    private var header: Data?
    private var frameBytes = 2
    private var decided = false
    private(set) var sampleRate: Int?

    init(rawRate: Int) {
        self.rawRate = rawRate
    }

    /// The samples `bytes` complete; `final` flushes what is left.
    mutating func samples(from bytes: Data, final: Bool) throws -> [Float] {
        pending += bytes
        if !decided {
            guard pending.count >= 4 || final else { return [] }
            let tag = String(decoding: pending.prefix(4), as: UTF8.self)
            if tag == "RIFF" || tag == "RF64" {
                guard try readHeader(final: final) else { return [] }
            } else {
                sampleRate = rawRate
            }
            decided = true
        }
        let whole = pending.count - pending.count % frameBytes
        guard whole > 0 else { return [] }
        let body = pending.prefix(whole)
        pending = Data(pending.dropFirst(whole))
        guard let header else {
            let pcm = body.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) } }
            return SampleConversion.floats(fromPCM16: pcm)
        }
        return try WAVFile.decode(header + body, path: "<stream>").mono
    }

    /// Finds the data chunk; true once the header is complete.
    private mutating func readHeader(final: Bool) throws -> Bool {
        let bytes = [UInt8](pending)
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
                var head = Data(bytes[..<(offset + 8)])
                head.replaceSubrange((offset + 4)..<(offset + 8), with: [0, 0, 0, 0])
                let format = try WAVFile.decode(head, path: "<stream>")
                let width: Int
                switch format.encoding {
                case .integer(let bits), .float(let bits): width = (bits + 7) / 8
                }
                header = head
                frameBytes = width * format.channels
                sampleRate = format.sampleRate
                pending = Data(bytes[(offset + 8)...])
                return true
            }
            offset += 8 + size + (size & 1)
        }
        if final { throw ValidationError("The WAV stream ended before its data chunk.") }
        return false
    }
}
