import ArgumentParser
import Foundation
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
        var listed: [Voice] = []
        var problems: [String] = []
        for choice in engine.map({ [$0] }) ?? EngineChoice.allCases {
            do {
                listed += try choice.engine.installedVoices()  // from disk: no engine is loaded
                for voice in choice.engine.unusableVoices() {
                    problems.append("\(choice.rawValue) voice '\(voice.id)': \(voice.problem)")
                }
            } catch {
                problems.append("\(choice.rawValue): \(error)")
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(listed), as: UTF8.self))
        } else {
            let rows = listed.map { [$0.engine, $0.id, $0.language, $0.gender.rawValue] }
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
}
