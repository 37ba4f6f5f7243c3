import ChorusHub
import Foundation

/// Shows a pull's progress on standard error: one line redrawn in place on a terminal (bytes, rate,
/// time left), plain lines every few seconds otherwise.
struct ProgressReporter: Sendable {
    let name: String
    let progress: PullProgress
    let isTerminal = isatty(STDERR_FILENO) == 1

    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs `body`, drawing progress until it returns.
    func showing<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let start = Date()
        let drawing = Task {
            var notesShown = 0
            var lastLine = Date.distantPast
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 200_000_000)
                let snapshot = progress.snapshot
                for note in snapshot.notes.dropFirst(notesShown) { clearLine(); Self.say(note) }
                notesShown = snapshot.notes.count
                if isTerminal {
                    FileHandle.standardError.write(Data(("\r\u{1B}[K" + line(snapshot, since: start)).utf8))
                } else if Date().timeIntervalSince(lastLine) >= 5, snapshot.received > 0 {
                    Self.say(line(snapshot, since: start))
                    lastLine = Date()
                }
            }
        }
        defer { drawing.cancel() }
        do {
            let result = try await body()
            drawing.cancel()
            clearLine()
            let snapshot = progress.snapshot
            if snapshot.received > 0 { Self.say(line(snapshot, since: start)) }
            return result
        } catch {
            drawing.cancel()
            clearLine()
            throw error
        }
    }

    private func clearLine() {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    /// "kokoro  45.2 MB / 92.4 MB  12.3 MB/s  4 s left  (2/4 files)".
    private func line(_ snapshot: PullProgress.Snapshot, since start: Date) -> String {
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        let rate = Double(snapshot.received) / elapsed
        var parts = [name]
        if let expected = snapshot.expected, expected > 0 {
            parts.append("\(ModelsCommand.size(snapshot.received)) / \(ModelsCommand.size(expected))")
        } else {
            parts.append(ModelsCommand.size(snapshot.received))
        }
        parts.append("\(ModelsCommand.size(Int64(rate)))/s")
        if let expected = snapshot.expected, rate > 0, expected > snapshot.received {
            parts.append("\(Int((Double(expected - snapshot.received) / rate).rounded(.up))) s left")
        }
        parts.append("(\(snapshot.filesDone)/\(snapshot.files) files)")
        return parts.joined(separator: "  ")
    }
}
