import ArgumentParser
import Kokoro
import Piper
import Speech

/// The engines the command can load, by their command-line names.
enum EngineChoice: String, CaseIterable, ExpressibleByArgument {
    case kokoro, piper

    /// Loads the engine's default model from the model directory.
    func load() throws -> any SpeechSynthesizer {
        switch self {
        case .kokoro: try KokoroSynthesizer()
        case .piper: try PiperSynthesizer()
        }
    }
}
