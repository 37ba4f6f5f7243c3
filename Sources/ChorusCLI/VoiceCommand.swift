import ArgumentParser
import ChorusAudio
import ChorusAudioCodecs
import ChorusCosyVoice
import ChorusEngines
import ChorusNeuTTS
import ChorusONNX
import ChorusSpeech
import Foundation

/// `chorus voice`: manage cloned voices.
struct VoiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice",
        abstract: "Manage cloned voices.",
        subcommands: [VoiceAddCommand.self, VoiceRemoveCommand.self]
    )

    /// The engines that clone, for help texts.
    static var cloningEngines: String {
        Engine.all.filter { $0.cloning != nil }.map { engine in
            let cloning = engine.cloning!
            return "\(engine.id) (a clip of \(String(format: "%g-%g", cloning.clipSeconds.lowerBound, cloning.clipSeconds.upperBound)) s"
                + (cloning.needsTranscript ? " and its transcript)" : ", no transcript)")
        }.joined(separator: ", ")
    }
}

/// `chorus voice add`: a new voice from a short clip, through the engine's `VoiceCloning`.
struct VoiceAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Clone a voice from a short clip (and, for engines that read one, the exact words it says).",
        discussion: """
            Engines that clone: \(VoiceCommand.cloningEngines).

            Examples:
              chorus voice add --engine cosyvoice --audio clip.wav --text "希望你以后能够做的比我还好呦。" --id mine
              chorus speak --engine cosyvoice --voice mine "你好，世界。" -o hello.wav
              chorus voice add --engine neutts --audio dave.flac --text "What the reference says." --id dave
                  (needs encoder.onnx in the NeuTTS folder: scripts/export-neucodec-encoder.py)
              chorus voice add --engine neutts --codes dave.npy --text "What the reference says." --id dave
              chorus voice add --engine chatterbox --audio eve.mp3 --id eve     (more than 5 s, no transcript)
              chorus voice add --audio clip.wav --text "希望你以后能够做的比我还好呦。" --id mine-yue --dialect cantonese

            A voice with --dialect or --instruction (engines with instructions: \(Engine.all.filter { $0.capabilities.contains(.instructions) }.map(\.id).joined(separator: ", "))) \
            is spoken as upstream's instruct mode: the model is told the instruction in place of the clip's transcript and \
            keeps the clip's timbre. Dialects: \(Dialect.allCases.map { "\($0.rawValue) (\($0.chineseName))" }.joined(separator: ", ")).

            Voice ids are letters, digits, - and _ in any script, starting with a letter or digit, at most \(VoiceID.maximumBytes) bytes.
            --replace keeps the old voice usable until the new one is complete.
            """
    )

    @Option(help: ArgumentHelp("The engine that clones: \(Engine.all.filter { $0.cloning != nil }.map(\.id).joined(separator: ", ")).",
                               valueName: "engine"))
    var engine = EngineChoice(Engine.all.first { $0.cloning != nil } ?? Engine.all[0])

    @Option(help: ArgumentHelp("The clip: WAV (any rate, channels, PCM or float), FLAC or MP3.", valueName: "file"))
    var audio: String?

    @Option(help: ArgumentHelp("NeuTTS only: the reference's NeuCodec codes as a .npy of integers (50 a second).", valueName: "codes.npy"))
    var codes: String?

    @Option(help: """
        What the clip says, word for word. CosyVoice without it makes a voice that speaks only in the cross-lingual \
        mode (`chorus speak --cross-lingual`), which reads no transcript.
        """)
    var text: String?

    @Option(help: "The new voice's id (letters, digits, - and _).")
    var id: String

    @Option(help: "Language or dialect of the voice, as a BCP 47 tag (zh, yue, en, ...); default the engine's, or the dialect's.")
    var language: String?

    @Option(help: "Speak in a Chinese dialect, by its English or Chinese name (cantonese, 四川话, ...).")
    var dialect: String?

    @Option(help: "Tell the model how to speak instead (such as 请用尽可能快地语速说一句话。).")
    var instruction: String?

    @Option(help: "female, male or unknown.")
    var gender = Voice.Gender.unknown

    @Option(help: ArgumentHelp("A model other than the engine's default.", valueName: "path"))
    var model: String?

    @Flag(help: "Replace a voice with the same id (the old one stays usable until the new one is complete).")
    var replace = false

    func validate() throws {
        if dialect != nil, instruction != nil {
            throw ValidationError("Give --dialect or --instruction, not both.")
        }
        if let instruction, instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("The instruction is empty.")
        }
    }

    func run() async throws {
        let engine = engine.engine
        guard let cloning = engine.cloning else {
            throw ValidationError("The \(engine.id) engine has its own fixed voices; engines that clone: \(VoiceCommand.cloningEngines).")
        }
        let wantsInstruction = dialect != nil || instruction != nil
        if wantsInstruction, !engine.capabilities.contains(.instructions) {
            throw ValidationError("--dialect and --instruction apply to engines with instructions; \(engine.id) has none.")
        }
        if codes != nil, engine.id != Engine.neutts.id {
            throw ValidationError("--codes applies to --engine neutts; \(engine.id) takes --audio.")
        }
        let dialect = try self.dialect.map { name in
            guard let found = cloning.dialect(named: name) else {
                let known = cloning.dialects.map(\.name)
                throw ValidationError(known.isEmpty ? "--dialect applies to engines with dialects; \(engine.id) has none."
                                      : "Unknown dialect '\(name)'; one of: \(known.joined(separator: ", ")).")
            }
            return found
        }
        if cloning.needsTranscript, text == nil, cloning.withoutTranscript == nil {
            throw ValidationError("The \(engine.id) engine reads the clip's transcript; add --text with what it says.")
        }
        if !cloning.needsTranscript, text != nil {
            throw ValidationError("The \(engine.id) engine reads no transcript; leave --text out.")
        }
        let modelURL = model.map { URL(fileURLWithPath: $0) }
        // Everything the user can get wrong is checked before a model loads.
        let id = try VoiceID.checked(self.id)
        if !replace, try engine.installedVoices(from: modelURL).contains(where: { $0.id == id }) {
            throw SpeechError.voiceExists(id, engine: engine.id)
        }
        let clip: VoiceClip?
        switch (codes, audio) {
        case (nil, let audio?):
            let read = try AudioFileReader.readMono(contentsOf: URL(fileURLWithPath: audio),
                                                    limits: AudioInputLimits(maximumSeconds: cloning.clipSeconds.upperBound))
            clip = VoiceClip(samples: read.samples, sampleRate: read.sampleRate, transcript: text)
            try clip!.check(accepting: cloning.clipSeconds, engine: engine.id)
        case (_?, nil):
            clip = nil
        default:
            throw ValidationError(engine.id == Engine.neutts.id
                ? "Give the reference as --codes CODES.npy or --audio CLIP, not both or neither."
                : "Give the clip with --audio FILE.")
        }
        let cloner = try await engine.loadCloner(from: modelURL)
        var voice: ClonedVoice
        if let clip {
            voice = try await cloner.cloneVoice(from: clip, id: id, language: language)
        } else if let codes, let neutts = cloner as? NeuTTSSynthesizer {
            voice = try neutts.voice(codes: NeuTTSVoice.codes(npy: URL(fileURLWithPath: codes)), transcript: text ?? "", id: id)
        } else {
            throw ValidationError("--codes applies to --engine neutts.")
        }
        if let said = dialect?.instruction ?? instruction {
            guard let instructed = cloner as? any InstructedVoices else {
                throw ValidationError("The \(engine.id) engine takes no instruction.")
            }
            voice = try instructed.instructed(voice, with: said)
        }
        if let tag = language ?? dialect?.language { voice.voice.language = tag }
        voice.voice.gender = gender
        if let dialect { voice.voice.summary += ", \(dialect.name)" }
        try await cloner.register(voice, replacing: replace)
        print("added voice \(id) (\(engine.id)): \(voice.voice.summary)")
    }
}

/// `chorus voice rm`: removes a cloned voice.
struct VoiceRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a cloned voice."
    )

    @Option(help: ArgumentHelp("The engine whose voice it is.", valueName: "engine"))
    var engine: EngineChoice

    @Option(help: ArgumentHelp("A model other than the engine's default.", valueName: "path"))
    var model: String?

    @Argument(help: "The voice's id.")
    var id: String

    func run() async throws {
        let cloner = try await engine.engine.loadCloner(from: model.map { URL(fileURLWithPath: $0) })
        try await cloner.removeVoice(id: id.precomposedStringWithCanonicalMapping)
        print("removed \(engine.id) voice \(id)")
    }
}

extension Voice.Gender: ExpressibleByArgument {}
