/// What went wrong loading or running the wetext normaliser.
public enum WeTextError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The grammar folder lacks a file the normaliser needs.
    case missingGrammar(folder: String, file: String)
    /// The tagger wrote something that is not a token sequence (never expected from wetext's grammars).
    case unparsableTags(String)

    public var description: String {
        switch self {
        case .missingGrammar(let folder, let file):
            return "the wetext folder \(folder) has no \(file); run scripts/setup.sh to install the wetext grammars"
        case .unparsableTags(let tagged):
            return "the wetext tagger wrote text its token parser cannot read: \(tagged.debugDescription)"
        }
    }
}
