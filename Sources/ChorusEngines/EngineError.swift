import Foundation

/// Why an engine cannot be found, registered or loaded as asked.
public enum EngineError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case unknownEngine(String, known: [String])
    case languageNotSelectable(engine: String, selecting: [String])
    case cannotClone(engine: String, cloning: [String])
    case engineExists(String)
    case invalidEngineID(String)

    public var description: String {
        switch self {
        case .unknownEngine(let id, let known):
            "There is no engine called '\(id)'; use one of \(known.joined(separator: ", "))."
        case .languageNotSelectable(let engine, let selecting):
            "The \(engine) engine speaks the language of its voice; leave the language out"
                + (selecting.isEmpty ? "." : " or pick \(selecting.joined(separator: " or ")).")
        case .cannotClone(let engine, let cloning):
            "The \(engine) engine cannot clone voices; use \(cloning.joined(separator: " or "))."
        case .engineExists(let id):
            "An engine called '\(id)' is already registered; give yours another id."
        case .invalidEngineID(let id):
            "'\(id)' cannot name an engine; use lower-case letters, digits, '-' and '_'."
        }
    }

    public var errorDescription: String? { description }
}
