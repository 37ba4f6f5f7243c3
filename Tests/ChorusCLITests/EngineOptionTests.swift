@testable import ChorusCLI
import ChorusEngines
import ChorusSpeech
import Testing

/// Issue 40, item 2: `--set NAME=VALUE` takes every option every engine declares (`Engine.options`), read as the
/// option's kind, and refuses it for an engine that does not declare it; `--cross-lingual` is `--set
/// cross_lingual=true`. The server and `/v1/models` are checked on the same list by ChorusServerTests'
/// EngineOptionsTests.
@Suite struct EngineOptionTests {
    /// A value `option` takes, as the command line writes it and as it is read.
    static func sample(_ option: SpeechOption) -> (text: String, value: SpeechOptionValue) {
        switch option.kind {
        case .number(let range): (String(range.upperBound), .number(range.upperBound))
        case .integer(let range): (String(range.lowerBound), .number(Double(range.lowerBound)))
        case .text: ("请用四川话表达。", .text("请用四川话表达。"))
        case .flag: ("yes", .flag(true))
        }
    }

    @Test func setTakesEveryDeclaredOptionOfItsEngineOnly() throws {
        let engines = Engine.registered
        #expect(engines.contains { !$0.options.isEmpty }, "no engine declares an option: nothing here is tested")
        for engine in engines {
            for option in engine.options {
                let (text, value) = Self.sample(option)
                let parsed = try EngineOptions.parse(["--set", "\(option.name)=\(text)"])
                #expect(try parsed.requestOptions(for: engine) == [option.name: value], "\(engine.id).\(option.name)")
                #expect(EngineOptions.settingsHelp.contains(option.name))
                for other in engines where !other.options.contains(where: { $0.name == option.name }) {
                    #expect(throws: SpeechError.unknownOption(name: option.name, engine: other.id, known: other.options.map(\.name))) {
                        try parsed.requestOptions(for: other)
                    }
                }
                if case .flag = option.kind { continue }
                let wrong = try EngineOptions.parse(["--set", "\(option.name)=\(String(repeating: "9", count: 600))"])
                #expect(throws: SpeechError.self) { try wrong.requestOptions(for: engine) }
            }
        }
        let crossing = try EngineOptions.parse(["--cross-lingual"])
        #expect(try crossing.requestOptions(for: Engine.cosyvoice) == ["cross_lingual": .flag(true)])
        #expect(throws: (any Error).self) { try EngineOptions.parse(["--set", "noise_scale"]).requestOptions(for: Engine.piper) }
    }
}
