import ArgumentParser
import ChorusAudio
import ChorusCosyVoice
import ChorusEngines
import ChorusFiles
import ChorusModels
import ChorusNeuTTS
import Foundation
import ChorusSpeech

/// `chorus speak`: text to a WAV file with a local engine.
struct SpeakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Speak text into an audio file (WAV, MP3, FLAC or raw PCM).",
        discussion: """
            Examples:
              chorus speak "Hello there." -o hello.wav       (an English voice: -v says which and why)
              chorus speak "こんにちは。" -o konnichiwa.wav     (a Japanese voice)
              chorus speak --engine piper --file story.txt -o story.mp3
              echo "Hi." | chorus speak -o hi.wav
              chorus speak --language fr "Bonjour à tous." -o bonjour.wav
              chorus speak --engine piper --model ~/voices/en_GB-alan-medium.onnx "Hello." -o alan.wav
            """
    )

    @OptionGroup var input: TextInput

    @Option(name: .shortAndLong, help: "The audio file to write (.wav, .mp3, .flac, .opus, .aac or .pcm, or --format); - writes to standard output as the audio is made.")
    var output: String?

    @OptionGroup var engineOptions: EngineOptions

    @Option(help: "A voice of the engine (see `chorus voices`); without --engine, the engine that has it speaks. Left out: the voice chosen for the text's language, else the engine's default.")
    var voice: String?

    @Option(help: "Speaking rate from 0.5 to 2 (1 is the voice's natural pace).")
    var speed: Float = 1

    @Flag(help: "Replace the output file even when it is read-only.")
    var force = false

    @Option(help: "Sample format of WAV or PCM output: pcm16 or float32.")
    var sampleFormat: SampleFormatChoice = .pcm16

    @Flag(name: .shortAndLong, help: "Print progress even for short text.")
    var verbose = false

    @OptionGroup var streaming: StreamingSpeechOptions

    func validate() throws {
        let speeds = SynthesisRequest.speeds
        guard speeds.contains(speed) else {
            throw ValidationError("--speed must be between \(SynthesisRequest.describe(speeds.lowerBound)) and "
                                  + "\(SynthesisRequest.describe(speeds.upperBound)); got \(SynthesisRequest.describe(speed)).")
        }
    }

    func run() async throws {
        StagedFile.cleansUpOnSignals()
        // What the output may not be (the text file, a read-only file) is said before what it is called.
        if let output, output != "-" { try Self.checkWritable(URL(fileURLWithPath: output), policy: outputPolicy) }
        let encoding = try SpokenAudioOutput.encoding(output: output, format: streaming.format, sampleFormat: sampleFormat)
        // Standard output takes the audio as it is made (a WAV stream with open-ended sizes, or raw PCM with
        // --format pcm), as with --stream; a whole file cannot be staged and renamed there.
        if streaming.stream || streaming.provider != nil || output == "-" {
            return try await StreamingSpeech(options: streaming, input: input, output: output, encoding: encoding, engine: engineOptions,
                                             voice: voice, speed: speed, sampleFormat: sampleFormat, verbose: verbose,
                                             outputPolicy: outputPolicy).run()
        }
        let text = try input.read()
        guard let output else {
            throw ValidationError("No output file. Add -o FILE.wav (or .mp3, .flac, .opus, .aac), or --stream to play it.")
        }
        let destination = URL(fileURLWithPath: output)  // checked writable at the start of run()

        // The file is heard only once it is all written: the whole text comes first. The engine serves
        // this request alone, so it makes only the sessions the request's calls use.
        let choice = engineOptions.choice(for: text, voice: voice)
        let voice = self.voice ?? choice.voice?.id
        let request = SynthesisRequest(text: text, voiceID: voice, speed: speed, priority: .wholeText)
        try request.checkTextAndSpeed()  // text with nothing to say is refused before the engine loads
        let synthesizer = try await engineOptions.load(choice, servingOnly: request)
        let spoken = try synthesizer.voice(voice)  // an unknown voice fails before any work
        if verbose {
            Self.status(Self.choiceNote(choice, voice: spoken) + "\n")
            if let note = synthesizer.diagnostics { Self.status(note + "\n") }
        }

        let started = Date()
        let reportsProgress = verbose || text.count > 200
        let written: Int
        do {
            written = try await StagedFile.write(to: destination, policy: outputPolicy) { staged in
                var writer = try SpokenFileWriter(staged: staged, encoding: encoding, sampleRate: synthesizer.sampleRate,
                                                  sampleFormat: sampleFormat.format)
                var progress = TextProgress(text: text)
                for try await chunk in synthesizer.stream(request) {
                    try writer.write(chunk.samples)
                    progress.advance(past: chunk.text)
                    if reportsProgress {
                        Self.status(String(format: "\r%3d%%  %.1f s of audio", progress.percent,
                                           Double(writer.frameCount) / Double(synthesizer.sampleRate)))
                    }
                }
                try writer.close()
                return writer.frameCount
            }
        } catch let error as POSIXError {  // the rename into place failed
            throw AudioFileError.writeFailed(path: destination.path, reason: AudioFileError.reason(for: error))
        }
        if reportsProgress { Self.status("\n") }
        let seconds = Double(written) / Double(synthesizer.sampleRate)
        let elapsed = Date().timeIntervalSince(started)
        Self.status(String(format: "wrote %@: %.2f s of audio at %d Hz in %.2f s (%.2fx real time)\n",
                           output, seconds, synthesizer.sampleRate, elapsed, seconds / max(elapsed, 1e-9)))
    }

    /// What the output may not be: the text file read, or a read-only file unless `--force`.
    var outputPolicy: OutputTarget.Policy {
        OutputTarget.Policy(inputs: input.file.map { [URL(fileURLWithPath: $0)] } ?? [], replacesReadOnly: force)
    }

    /// Fails early, before any synthesis, when the output cannot be written.
    static func checkWritable(_ url: URL, policy: OutputTarget.Policy) throws {
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("Cannot write \(url.path): folder \(folder) does not exist.")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw ValidationError("Cannot write \(url.path): folder \(folder) is not writable.")
        }
        _ = try OutputTarget.inspect(url, policy: policy)
    }

    /// What `-v` says about which engine and voice speak, and why ("kokoro/jf_alpha: the text is Japanese ...").
    static func choiceNote(_ choice: VoiceChoice, voice: Voice) -> String {
        "voice: \(choice.engine.id)/\(voice.id) (\(voice.language)): \(choice.reason)"
    }


    static func status(_ message: String) {
        FileHandle.standardError.write(Data(message.utf8))
    }
}

/// WAV sample formats by their command-line names.
enum SampleFormatChoice: String, CaseIterable, ExpressibleByArgument {
    case pcm16, float32

    var format: WAVSampleFormat { self == .pcm16 ? .pcm16 : .float32 }
}
