/// What went wrong running the wetext normaliser (a grammar file that is absent is a `ModelError`).
public enum WeTextError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The tagger wrote something that is not a token sequence (never expected from wetext's grammars).
    case unparsableTags(String)

    public var description: String {
        switch self {
        case .unparsableTags(let tagged):
            return "the wetext tagger wrote text its token parser cannot read: \(tagged.debugDescription)"
        }
    }
}
