/// What went wrong reading or running a weighted FST, naming the file so the user knows what to replace.
public enum WeightedFSTError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file does not exist.
    case missingFile(path: String)
    /// The file exists but could not be read.
    case unreadableFile(path: String, reason: String)
    /// The file does not start with OpenFst's magic number.
    case notAnFST(path: String)
    /// The file is an OpenFst file of a kind this reader does not handle.
    case unsupported(path: String, feature: String)
    /// The file ends before the data its header promises.
    case truncated(path: String, offset: Int, needed: String)
    /// The file's content is inconsistent (an arc to a state that does not exist, trailing bytes, ...).
    case corrupt(path: String, problem: String)
    /// The graph accepts no path for the input: the grammar does not cover it.
    case noPath(path: String, input: String)
    /// Composing the input with the graph gave a cycle (an input-epsilon loop), which the one-best
    /// search here does not reproduce.
    case cyclicComposition(path: String)
    /// The search for an input's best path passed its bound on composed states.
    case searchTooLarge(path: String, inputBytes: Int, states: Int)

    public var description: String {
        switch self {
        case .missingFile(let path):
            return "the FST file \(path) does not exist; run scripts/setup.sh to install the wetext grammars"
        case .unreadableFile(let path, let reason):
            return "cannot read the FST file \(path): \(reason)"
        case .notAnFST(let path):
            return "\(path) is not an OpenFst binary file (wrong magic number); reinstall it with scripts/setup.sh"
        case .unsupported(let path, let feature):
            return "\(path) uses \(feature), which Chorus does not read"
        case .truncated(let path, let offset, let needed):
            return "the FST file \(path) is truncated: it ends at byte \(offset) where \(needed) should follow; "
                + "reinstall it with scripts/setup.sh"
        case .corrupt(let path, let problem):
            return "the FST file \(path) is corrupt: \(problem); reinstall it with scripts/setup.sh"
        case .noPath(let path, let input):
            return "the grammar \(path) has no path for the input \(input.debugDescription)"
        case .cyclicComposition(let path):
            return "the grammar \(path) has an input-epsilon cycle, which Chorus's one-best search does not handle"
        case .searchTooLarge(let path, let bytes, let states):
            return "the grammar \(path) passed \(states) search states on \(bytes) bytes of input; give shorter text"
        }
    }
}
