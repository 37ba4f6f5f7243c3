import ArgumentParser
import ChorusModels

/// The `chorus` command: on-device speech from the terminal.
@main
struct Chorus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chorus",
        abstract: "On-device speech: text to speech and speech to text, all local, on ONNX Runtime.",
        discussion: """
            Models live in \(ModelStore.current.root.path) ($CHORUS_MODELS if set, else \
            $XDG_CACHE_HOME/chorus/models or ~/.cache/chorus/models); `chorus models pull NAME` installs \
            one there, and scripts/setup.sh the defaults (Kokoro, Piper, Silero VAD, wetext).
            """,
        version: "0.1.0",
        subcommands: [
            SpeakCommand.self,
            VoicesCommand.self,
            VoiceCommand.self,
            FeaturesCommand.self,
            VADCommand.self,
            TranscribeCommand.self,
            TokenizeCommand.self,
            ServeCommand.self,
            ModelsCommand.self,
        ]
    )
}
