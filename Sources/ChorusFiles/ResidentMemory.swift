import Foundation

/// The process's resident memory, as the kernel counts it (`VmRSS` in /proc/self/status): one reader for the
/// server's `/metrics` and the tests that watch memory, so both mean the same figure. Visible to the package's
/// other targets.
package enum ResidentMemory {
    /// Resident bytes now; nil where /proc has no such line (not Linux).
    package static func bytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kibibytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kibibytes * 1024
    }
}
