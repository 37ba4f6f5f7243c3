import ArgumentParser

/// The `chorus` command: on-device speech from the terminal.
@main
struct Chorus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chorus",
        abstract: "On-device speech: text to speech and speech to text, all local, on ONNX Runtime.",
        discussion: """
            Models live in $CHORUS_MODELS (default ~/.cache/chorus/models); scripts/setup.sh installs \
            the default Kokoro and Piper voices there.
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
        ]
    )
}
