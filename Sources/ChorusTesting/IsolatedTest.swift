import Foundation

/// Runs one test alone, in a child process of the test binary, for a test that measures the whole
/// process (resident memory): beside the other suites, which a test runner runs in parallel, the
/// figure would be theirs as much as its own.
///
/// ```swift
/// @Test func memoryStaysFlat() throws {
///     if try IsolatedTest.ranInChild("MyTests.MemoryTests") { return }
///     // measured here, in the child, alone
/// }
/// ```
public enum IsolatedTest {
    /// Set in the child's environment.
    static let variable = "CHORUS_ISOLATED_TEST"

    /// In the test runner: runs the tests `filter` selects in a child process with nothing beside them
    /// and returns true, or throws `Failure` with the child's output when they fail. In that child:
    /// returns false, so the caller goes on to the measurement.
    public static func ranInChild(_ filter: String) throws -> Bool {
        if ProcessInfo.processInfo.environment[variable] == filter { return false }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-isolated-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw Failure(output: "cannot create \(log.path)") }
        defer { try? FileManager.default.removeItem(at: log) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging([variable: filter]) { $1 }
        let output = try FileHandle(forWritingTo: log)
        child.standardOutput = output
        child.standardError = output
        try child.run()
        child.waitUntilExit()
        try output.close()
        let printed = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        // A filter that selects nothing passes too ("0 tests"): that is a failure here.
        guard child.terminationReason == .exit, child.terminationStatus == 0, printed.contains("Test run with"),
              !printed.contains("Test run with 0 tests") else {
            throw Failure(output: String(printed.suffix(4_000)))
        }
        // The child's own lines (what it measured) go to this runner's output too.
        print(printed.split(separator: "\n").filter { !$0.contains("Test ") && !$0.contains("Suite ") }.joined(separator: "\n"))
        return true
    }

    /// The isolated run failed; `output` is the end of what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "The test failed when run alone in a child process:\n\(output)" }
    }
}
