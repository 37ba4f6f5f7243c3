import ArgumentParser
import ChorusAudio
import ChorusChatterbox
import ChorusCosyVoice
import ChorusNeuTTS
import ChorusONNX
import Foundation
import ChorusSpeech

/// `chorus voice`: manage cloned voices.
struct VoiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice",
        abstract: "Manage cloned voices.",
        subcommands: [VoiceAddCommand.self]
    )
}

/// `chorus voice add`: a new CosyVoice voice from a short clip and its exact transcript.
struct VoiceAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Clone a voice from a 2-6 s clip and the exact words it says.",
        discussion: """
            Example:
              chorus voice add --engine cosyvoice --audio clip.wav --text "希望你以后能够做的比我还好呦。" --id mine
              chorus speak --engine cosyvoice --voice mine "你好，世界。" -o hello.wav
              chorus voice add --engine neutts --codes dave.npy --text "What the reference says." --id dave
              chorus voice add --engine neutts --audio dave.wav --text "What the reference says." --id dave
                  (--audio needs encoder.onnx in the NeuTTS folder: scripts/export-neucodec-encoder.py)
              chorus voice add --engine chatterbox --audio eve.wav --id eve     (more than 5 s, no transcript)
              chorus voice add --audio clip.wav --text "希望你以后能够做的比我还好呦。" --id mine-yue --dialect cantonese

            A voice with --dialect or --instruction is spoken as upstream's instruct mode: the model is told
            the instruction in place of the clip's transcript and keeps the clip's timbre. Dialects:
            \(Dialect.allCases.map { "\($0.rawValue) (\($0.chineseName))" }.joined(separator: ", ")).
            """
    )

    @Option(help: "The engine that clones: cosyvoice, neutts (NeuCodec reference codes, or a clip of at most 30 s with an encoder) or chatterbox (a clip of more than 5 s, no transcript).")
    var engine: EngineChoice = .cosyvoice

    @Option(help: ArgumentHelp("The clip: a WAV file of any rate and channel count.", valueName: "file.wav"))
    var audio: String?

    @Option(help: ArgumentHelp("NeuTTS only: the reference's NeuCodec codes as a .npy of integers (50 a second).", valueName: "codes.npy"))
    var codes: String?

    @Option(help: """
        What the clip says, word for word. Without it the voice speaks only in the cross-lingual mode \
        (`chorus speak --cross-lingual`), which reads no transcript.
        """)
    var text: String?

    @Option(help: "The new voice's id (letters, digits, - and _).")
    var id: String

    @Option(help: "Language or dialect of the voice, as a BCP 47 tag (zh, yue, en, ...); default zh, or the dialect's.")
    var language: String?

    @Option(help: "Speak in a Chinese dialect, by its English or Chinese name (cantonese, 四川话, ...).")
    var dialect: String?

    @Option(help: "Tell the model how to speak instead (such as 请用尽可能快地语速说一句话。).")
    var instruction: String?

    @Option(help: "female, male or unknown.")
    var gender = Voice.Gender.unknown

    @Option(help: ArgumentHelp("A CosyVoice model folder other than the default.", valueName: "path"))
    var model: String?

    @Flag(help: "Replace a voice with the same id.")
    var replace = false

    func validate() throws {
        if dialect != nil, instruction != nil {
            throw ValidationError("Give --dialect or --instruction, not both.")
        }
        if let dialect, Dialect(name: dialect) == nil {
            throw ValidationError("Unknown dialect '\(dialect)'; one of: "
                                  + Dialect.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        if let instruction, instruction.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("The instruction is empty.")
        }
    }

    func run() async throws {
        if engine == .neutts { return try await addNeuTTSVoice() }
        if engine == .chatterbox { return try await addChatterboxVoice() }
        guard engine == .cosyvoice else {
            throw ValidationError("Only cosyvoice, neutts and chatterbox clone voices; \(engine.rawValue) has its own fixed voices.")
        }
        if codes != nil { throw ValidationError("--codes applies to --engine neutts; CosyVoice takes --audio.") }
        guard let audio else { throw ValidationError("Give the clip with --audio FILE.wav.") }
        let dialect = self.dialect.flatMap(Dialect.init(name:))
        let folder = model.map { URL(fileURLWithPath: $0) } ?? CosyVoiceSynthesizer.defaultFolder
        let voices = CosyVoiceSynthesizer.voicesFolder(of: folder)
        let id = try VoiceCatalog.checkedID(self.id, in: voices, replacing: replace)  // before any model work
        let clip = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: audio))
        let prompt = try VoiceExtractor(folder: folder).encode(samples: clip.samples, sampleRate: clip.sampleRate, transcript: text)
        var summary = String(format: "%.1f s clip", prompt.duration)
        if let dialect { summary += ", \(dialect.rawValue)" }
        if text == nil, dialect == nil, instruction == nil { summary += ", no transcript: cross-lingual only" }
        let written = try VoiceCatalog.add(prompt, id: id, language: language ?? dialect?.languageTag ?? "zh",
                                           gender: gender, summary: summary,
                                           instruction: dialect?.instruction ?? instruction,
                                           to: voices, replacing: replace)
        print("added voice \(id): \(prompt.speechTokens.count) tokens (\(summary)) in \(written.path)")
    }
}

extension VoiceAddCommand {
    /// A NeuTTS voice: its reference codes (from --codes, or from --audio through the folder's NeuCodec encoder)
    /// and transcript, stored in the model folder's voices as the same two files either way.
    func addNeuTTSVoice() async throws {
        guard dialect == nil, instruction == nil else { throw ValidationError("--dialect and --instruction apply to CosyVoice.") }
        guard let text else { throw ValidationError("NeuTTS reads the reference's transcript; add --text with what it says.") }
        let folder = try NeuTTSModelFolder(url: model.map { URL(fileURLWithPath: $0) } ?? NeuTTSSynthesizer.defaultFolder)
        try NeuTTSVoice.checkWritable(id: id, in: folder.voices, replacing: replace)  // before any model work
        let referenceCodes: [Int]
        switch (codes, audio) {
        case (let codes?, nil):
            referenceCodes = try NeuTTSVoice.codes(npy: URL(fileURLWithPath: codes))
        case (nil, let audio?):
            guard folder.hasEncoder else { throw NeuTTSError.noEncoder(folder: folder.url.path) }
            let clip = try CodecEncoder.clip(contentsOf: URL(fileURLWithPath: audio))  // refused by its header when too long
            let path = folder.path(NeuTTSModelFolder.encoder)
            referenceCodes = try await InferenceExecutor.shared.run {
                try CodecEncoder(session: InferenceSession(modelPath: path)).encode(clip.samples, sampleRate: clip.sampleRate)
            }
        default:
            throw ValidationError("Give the reference as --codes CODES.npy or --audio CLIP.wav, not both or neither.")
        }
        let voice = try NeuTTSVoice(codes: referenceCodes, transcript: text)
        let written = try voice.write(id: id, to: folder.voices, replacing: replace)
        print(String(format: "added voice %@: %d codes (%.1f s) in %@", id, referenceCodes.count,
                     Double(referenceCodes.count) / 50, written.path))
    }
}

extension Voice.Gender: ExpressibleByArgument {}

extension VoiceAddCommand {
    /// A Chatterbox voice: the clip through the speech encoder (24 kHz, more than 5 s, -27 LUFS), its four
    /// outputs stored in the model folder's voices; no transcript is read.
    func addChatterboxVoice() async throws {
        guard dialect == nil, instruction == nil, codes == nil else {
            throw ValidationError("--dialect, --instruction and --codes do not apply to Chatterbox; give --audio CLIP.wav.")
        }
        guard let audio else { throw ValidationError("Give the clip with --audio FILE.wav.") }
        let folder = try ChatterboxModelFolder(url: model.map { URL(fileURLWithPath: $0) } ?? ChatterboxSynthesizer.defaultFolder)
        let target = folder.voices.appendingPathComponent(id, isDirectory: true)
        guard !id.isEmpty, !id.contains("/"), !id.hasPrefix(".") else {
            throw ValidationError("The voice id '\(id)' is not a usable folder name; use letters, digits, - or _.")
        }
        if FileManager.default.fileExists(atPath: target.path), !replace {
            throw ValidationError("A Chatterbox voice '\(id)' exists in \(folder.voices.path); add --replace to replace it.")
        }
        let clip = try WAVFile.readMono(contentsOf: URL(fileURLWithPath: audio))
        let prepared = try SpeechEncoder.preparedClip(clip.samples, sampleRate: clip.sampleRate)  // refuse before loading
        guard folder.hasSpeechEncoder else {
            throw ValidationError("There is no speech_encoder.onnx in \(folder.url.path); run chorus models pull chatterbox.")
        }
        let path = folder.path(ChatterboxModelFolder.speechEncoder)
        let voice = try await InferenceExecutor.shared.run {
            try SpeechEncoder(session: InferenceSession(modelPath: path)).encode(prepared, sampleRate: ConditionalDecoder.sampleRate)
        }
        // Written beside and renamed into place, so a failure leaves any earlier voice whole.
        let staging = folder.voices.appendingPathComponent(".\(id).adding-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        try voice.write(to: staging)
        if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
        try FileManager.default.moveItem(at: staging, to: target)
        print(String(format: "added voice %@: %.1f s clip, %d prompt tokens in %@", id,
                     Double(prepared.count) / Double(ConditionalDecoder.sampleRate), voice.audioTokens.count, target.path))
    }
}
