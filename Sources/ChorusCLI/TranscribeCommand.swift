import ArgumentParser
import ChorusAudio
import ChorusAudioCodecs
import ChorusModels
import Foundation
import ChorusONNX
import ChorusSpeech
import ChorusRecognition
import ChorusVAD

/// `chorus transcribe`: speech to text with a FastConformer CTC model, from a file or live from a stream.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe speech with a FastConformer CTC model.",
        discussion: """
            A model folder holds encoder.onnx (or encoder_T<frames>.onnx, one per length bucket) taking \
            [1, 80, frames] NeMo features and giving [1, frames/8, vocabulary+1] log-probabilities with the \
            blank last (float32 or float16); tokenizer.model (SentencePiece) or tokens.txt (`piece id` per \
            line); and optionally pronunciation.onnx (or \
            pronunciation_T<frames>.onnx) with pronunciation_vocab.txt for a second CTC head. \
            The default folder is $CHORUS_MODELS/fastconformer.

            Audio longer than the largest bucket is cut at pauses (Silero VAD, when installed) or into \
            overlapping chunks, and the pieces are merged. Audio at other rates is resampled to 16 kHz and \
            stereo is mixed to mono. With --live, audio is read as it arrives (raw 16-bit mono PCM at --rate, \
            or a WAV stream), partial transcripts go to standard error and each utterance's final transcript \
            to standard output when the speaker pauses.

            Examples:
              chorus transcribe talk.wav --model ~/models/fastconformer
              arecord -f S16_LE -r 16000 -c 1 | chorus transcribe --live -
              chorus transcribe --live talk.wav --json
            """
    )

    @Argument(help: "The audio file to transcribe (WAV, FLAC or MP3); - reads standard input (a WAV stream, raw 16-bit mono PCM at --rate, or FLAC or MP3 without --live).")
    var file: String

    @Option(help: "The model folder (default: $CHORUS_MODELS/fastconformer).")
    var model: String?

    @Flag(help: "Transcribe as the audio arrives, with partial and final transcripts.")
    var live = false

    @Option(help: "The rate of raw PCM on standard input (a WAV stream carries its own).")
    var rate: Int = 16000

    @Flag(help: "Do not use Silero VAD for cut points and pauses even when it is installed.")
    var noVad = false

    @Flag(help: "Print JSON: {\"text\", \"tokens\", \"pronunciation\"}, or with --live one object per update.")
    var json = false

    @Option(help: "Threads inside each model operator (default: the runtime's choice, one per core).")
    var threads: Int?

    @Option(help: ArgumentHelp("After one warm-up run, transcribe the file this many times and report the fastest (for bench/).",
                               visibility: .hidden))
    var repeats: Int = 0

    func validate() throws {
        if let threads, !(1...SessionOptions.maximumThreads).contains(threads) {
            throw ValidationError("--threads must be 1 to \(SessionOptions.maximumThreads); leave it out for one per core.")
        }
        guard rate > 0 else { throw ValidationError("--rate must be a sample rate in Hz, such as 16000.") }
    }

    func run() async throws {
        let folder = model.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelStore.current.folder(for: FastConformerRecognizer.manifest)
        let recognizer = try FastConformerRecognizer(folder: folder, options: SessionOptions(intraOpThreads: threads))
        let vadInstalled = !noVad && FileManager.default.fileExists(atPath: SileroVAD.defaultModelPath)
        if live {
            try await transcribeLive(recognizer, vad: vadInstalled ? StreamingVAD(vad: SileroVAD()) : nil)
        } else {
            try await transcribeFile(recognizer, useVAD: vadInstalled)
        }
    }

    /// The name of the input in messages.
    private var source: String { file == "-" ? "standard input" : file }

    /// The whole input as mono samples and their rate: a WAV file, or standard input (WAV or raw PCM at --rate).
    private func readAudio() throws -> (samples: [Float], sampleRate: Int) {
        guard file == "-" else { return try AudioFileReader.readMono(contentsOf: URL(fileURLWithPath: file)) }
        let bytes = try BoundedInput.standardInput(
            limit: BoundedInput.audioLimit,
            tooLarge: "The audio on standard input is over \(BoundedInput.megabytes(BoundedInput.audioLimit)); give it as a file, or transcribe it as it arrives with --live.")
        guard !bytes.isEmpty else { throw WAVStreamDecoder.Failure.noAudio(source: source) }
        // Read whole, FLAC and MP3 (with its ID3 tag) decode as from a file; a WAV stream or raw PCM as it came.
        if bytes.starts(with: Data("fLaC".utf8)) || bytes.starts(with: Data("ID3".utf8)) {
            return try AudioFileReader.decodeMono(bytes, path: source)
        }
        var decoder = WAVStreamDecoder(rawRate: rate, source: source, limits: .file)
        let samples = try decoder.samples(from: bytes, final: true)
        return (samples, decoder.sampleRate ?? rate)
    }

    private func transcribeFile(_ recognizer: FastConformerRecognizer, useVAD: Bool) async throws {
        let (samples, inputRate) = try readAudio()
        if samples.isEmpty { SpeakCommand.status("note: \(source) holds no audio, so the transcript is empty\n") }
        let vad = useVAD ? try SileroVAD() : nil
        let runtime = try OnnxRuntime.shared()
        func recognizeOnce() async throws -> Recognition {
            try await recognizer.recognize(samples, sampleRate: inputRate, vad: vad)
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
            print(Self.json(["text": result.text, "tokens": result.tokens, "pronunciation": result.pronunciation]))
        } else {
            print(result.text)
            if let pronunciation = result.pronunciation { print("pronunciation: \(pronunciation)") }
        }
        let seconds = Double(samples.count) / Double(inputRate)
        let total = Self.seconds(elapsed ?? .zero)
        let inRun = Self.seconds(runTime)
        SpeakCommand.status(String(
            format: "transcribed %.2f s of audio in %.3f s (%.1fx real time)%@; %.3f s in %d model runs, %.3f s (%.1f%%) outside them\n",
            seconds, total, seconds / max(total, 1e-9), repeats > 0 ? " best of \(repeats)" : "", inRun, runs,
            total - inRun, 100 * (total - inRun) / max(total, 1e-9)))
    }

    private func transcribeLive(_ recognizer: FastConformerRecognizer, vad: StreamingVAD?) async throws {
        let input = file == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        var decoder = WAVStreamDecoder(rawRate: rate, source: source)
        var transcriber: LiveTranscriber?
        var heard = 0
        while true {
            let block = input.readData(ofLength: 6400)
            let samples = try decoder.samples(from: block, final: block.isEmpty)
            heard += samples.count
            if block.isEmpty, heard == 0 { throw WAVStreamDecoder.Failure.noAudio(source: source) }
            if transcriber == nil, let inputRate = decoder.sampleRate {
                transcriber = try LiveTranscriber(recognizer: recognizer, inputRate: inputRate, vad: vad)
            }
            guard let transcriber else { continue }
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
        case .final(let text, let tokens):
            Self.line(json ? Self.json(["type": "final", "text": text, "tokens": tokens]) : text)
        }
    }

    /// One line on standard output, written at once so a reader of a pipe sees it as it happens.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func json(_ fields: [String: (any Sendable)?]) -> String {
        let object = fields.compactMapValues { $0 }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
