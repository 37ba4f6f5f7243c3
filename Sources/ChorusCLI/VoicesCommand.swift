import ArgumentParser
import Foundation
import ChorusEngines
import ChorusSpeech

/// `chorus voices`: the voices of every installed engine.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List the voices of the installed engines."
    )

    @Option(help: "Only this engine's voices.")
    var engine: EngineChoice?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        let (listed, problems) = Self.voices(of: engine.map { [$0.engine] } ?? Engine.all)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(listed), as: UTF8.self))
        } else {
            let rows = listed.map { [$0.engine, VoiceID.excerpt(of: $0.id), $0.language, $0.gender.rawValue] }
            let header = ["ENGINE", "VOICE", "LANGUAGE", "GENDER"]
            let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max()! }
            for row in [header] + rows {
                let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                print(String(line.reversed().drop(while: { $0 == " " }).reversed()))  // no trailing blanks
            }
        }
        for problem in problems {
            FileHandle.standardError.write(Data("not available: \(problem)\n".utf8))
        }
        if listed.isEmpty { throw ExitCode.failure }
    }

    /// The voices of `engines` read from disk (no engine is loaded), and a line for each engine or voice that
    /// cannot be used.
    static func voices(of engines: [Engine]) -> (voices: [Voice], problems: [String]) {
        var listed: [Voice] = []
        var problems: [String] = []
        for engine in engines {
            do {
                listed += try engine.installedVoices()
                for voice in engine.unusableVoices() {
                    problems.append("\(engine.id) voice '\(VoiceID.excerpt(of: voice.id))': \(voice.problem)")
                }
            } catch {
                problems.append("\(engine.id): \(error)")
            }
        }
        return (listed, problems)
    }
}
