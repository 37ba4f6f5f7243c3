import ArgumentParser
import ChorusFiles
import Foundation
import ChorusAudioCodecs
import ChorusEngines
import ChorusModels
import ChorusSpeech
import ChorusStreaming
import ChorusText

/// The options of `chorus speak --stream`.
struct StreamingSpeechOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Speak while the text is still arriving: each sentence is synthesised and played as soon as it is complete.",
        discussion: "Without -o it plays on the sound device; -o FILE.wav writes a file; -o - writes audio to standard output as it is made. Text on standard input is read as it comes: llm-cli | chorus speak --stream -"))
    var stream = false

    @Option(help: ArgumentHelp(
        "The audio's encoding: wav, mp3, flac or pcm (samples only); by default the -o file's extension, else wav.",
        discussion: "Written to standard output (-o -), wav has a header with open-ended sizes."))
    var format: AudioEncoding?

    @Option(help: ArgumentHelp("With --stream: the ALSA device to play on.", valueName: "name"))
    var device: String = "default"

    @Option(help: ArgumentHelp(
        "Speak with a cloud service instead of a local engine: \(CloudProviderChoice.allCases.map(\.rawValue).joined(separator: ", ")) (implies --stream).",
        discussion: """
            The key comes from OPENAI_API_KEY or ELEVENLABS_API_KEY; Google's from GOOGLE_API_KEY, else an \
            access token in GOOGLE_OAUTH_ACCESS_TOKEN. --voice and --model name the service's voice and model \
            (ElevenLabs: a voice id; Google: a voice name such as en-US-Chirp3-HD-Charon, no model). The \
            service's root is --base-url, else OPENAI_BASE_URL, ELEVENLABS_BASE_URL or GOOGLE_TTS_ENDPOINT, so \
            the same command reaches a compatible server such as chorus serve or a local gRPC server.
            """))
    var provider: CloudProviderChoice?

    @Option(help: ArgumentHelp("With --provider: the service's root URL (https://api.openai.com/v1, wss://api.elevenlabs.io, https://texttospeech.googleapis.com).",
                               valueName: "url"))
    var baseURL: String?
}


/// `chorus speak --stream`: text in as it arrives, audio out as it is made, through the streaming pipeline.
struct StreamingSpeech {
    var options: StreamingSpeechOptions
    var input: TextInput
    var output: String?
    /// What `output` gets: `SpokenAudioOutput.encoding(output:format:sampleFormat:)`.
    var encoding: AudioEncoding
    var engine: EngineOptions
    var voice: String?
    var speed: Float
    var sampleFormat: SampleFormatChoice
    var verbose: Bool
    var outputPolicy: OutputTarget.Policy

    func run() async throws {
        // Text given whole is checked before any model work or output.
        let wholeText = readsStandardInputIncrementally ? nil : try input.read()
        let provider = try await makeProvider(text: wholeText)
        let sink = try makeSink()
        let controller = StreamingTTSController(provider: provider, sink: sink)
        let started = ContinuousClock.now
        let firstAudio = Task { () -> Duration? in
            for await status in controller.status {
                if case .playing = status { return ContinuousClock.now - started }
            }
            return nil
        }
        try await controller.start()
        let reader = StandardInputReader(controller: controller)
        if let wholeText {
            controller.yield(text: wholeText)
            controller.finish()
        } else {
            reader.start()
        }
        do {
            try await controller.waitUntilFinished()
        } catch is CancellationError {
            // The reader cancels the stream on empty or invalid input; say why, not "cancelled".
            throw reader.problem ?? CancellationError()
        }
        if let problem = reader.problem { throw problem }
        let statistics = await controller.statistics
        let latency = await firstAudio.value
        let elapsed = ContinuousClock.now - started
        var summary = String(format: "%@: %.2f s of audio at %d Hz in %.2f s", sink.name,
                             statistics.playedDuration, statistics.sinkFormat?.sampleRate ?? 0, elapsed.seconds)
        if let latency { summary += String(format: ", playback started after %.2f s", latency.seconds) }
        if verbose || output != "-" { SpeakCommand.status(summary + "\n") }
    }

    /// The cloud service's provider when one is chosen, else the local engine's.
    /// `text` is the whole text when it is known before speaking (not read as it arrives): its language
    /// picks the engine when none is named.
    private func makeProvider(text: String?) async throws -> any TTSProvider {
        if let cloud = options.provider {
            return try cloud.provider(voice: voice, model: engine.model, speed: speed, baseURL: options.baseURL)
        }
        if options.baseURL != nil { throw ValidationError("--base-url applies to --provider; add one or leave it out.") }
        let choice = engine.choice(for: text, voice: voice)
        guard choice.engine.capabilities.contains(.streaming) else {
            throw ValidationError("The \(choice.engine.id) engine makes a text's audio all at once; leave --stream out and write a file with -o.")
        }
        let voice = self.voice ?? choice.voice?.id
        let synthesizer = try await engine.load(choice)
        let spoken = try synthesizer.voice(voice)  // an unknown voice fails before any work
        if verbose {
            SpeakCommand.status(SpeakCommand.choiceNote(choice, voice: spoken) + "\n")
            if let note = synthesizer.diagnostics { SpeakCommand.status(note + "\n") }
        }
        return synthesizer.streamingProvider(voice: voice.map(VoiceReference.installed), speed: speed)
    }

    /// Standard input is read as it comes unless the text is an argument or a file.
    private var readsStandardInputIncrementally: Bool {
        input.file == nil && (input.text == nil || input.text == "-")
    }

    private func makeSink() throws -> any AudioSink {
        switch output {
        case nil:
            return try DeviceSink.make(device: options.device)
        case "-":
            switch encoding {
            case .wav, .pcm: return PCMStreamSink(container: encoding == .wav ? .wav : .raw, sampleFormat: sampleFormat.format)
            case .mp3, .flac, .opus, .aac: return EncodedAudioSink(.standardOutput, encoding: encoding, sampleFormat: sampleFormat.format)
            }
        case let path?:
            let url = URL(fileURLWithPath: path)  // SpeakCommand.run checked it writable before anything else
            switch encoding {
            case .wav: return WAVFileSink(url: url, sampleFormat: sampleFormat.format, policy: outputPolicy)
            case .pcm, .mp3, .flac, .opus, .aac: return EncodedAudioSink(.file(url, outputPolicy), encoding: encoding, sampleFormat: sampleFormat.format)
            }
        }
    }
}

/// Feeds standard input to a controller as it arrives, on a thread of its own because reads block.
/// Input that is empty (or only blanks) or not UTF-8 cancels the stream, so no file is left as if
/// complete, and `problem` says what was wrong.
private final class StandardInputReader: Sendable {
    let controller: StreamingTTSController
    private let failure = Locked<ValidationError?>(nil)

    /// Text read ahead of speech at most, in bytes: minutes of speech, while a fast producer waits.
    static let backlogLimit = 16_384

    init(controller: StreamingTTSController) { self.controller = controller }

    /// Why the reader stopped the stream, if it did.
    var problem: ValidationError? { failure.withLock { $0 } }

    func start() {
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var consumed = 0
            var sawWords = false
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += buffer[..<count]
                guard let (text, rest) = Self.decodeWholeCharacters(pending) else {
                    stop(TextInput.invalidUTF8(source: "standard input", offset: consumed + UTF8Validation.validPrefixLength(pending)))
                    return
                }
                if let nul = pending.firstIndex(of: 0) {
                    stop(TextInput.nulByte(source: "standard input", offset: consumed + nul))
                    return
                }
                if !text.isEmpty {
                    controller.yield(text: text)
                    controller.waitForRoom(upTo: Self.backlogLimit)  // backpressure: memory stays flat
                }
                sawWords = sawWords || text.contains { !$0.isWhitespace }
                consumed += pending.count - rest.count
                pending = rest
            }
            if !pending.isEmpty {
                stop(TextInput.invalidUTF8(source: "standard input", offset: consumed))
            } else if !sawWords {
                stop(ValidationError("Standard input had no text to speak; pipe some words in."))
            } else {
                controller.finish()
            }
        }
        thread.name = "chorus-stdin"
        thread.start()
    }

    private func stop(_ problem: ValidationError) {
        failure.withLock { $0 = problem }
        let controller = controller
        Task { await controller.cancel() }
    }

    /// The text of `bytes` up to a character cut by the read, and the up to three bytes of that
    /// character; nil when the bytes are not UTF-8.
    static func decodeWholeCharacters(_ bytes: [UInt8]) -> (String, [UInt8])? {
        let complete = UTF8Validation.completePrefixLength(bytes)
        guard let text = String(validating: bytes[..<complete], as: UTF8.self) else { return nil }
        return (text, Array(bytes[complete...]))
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
