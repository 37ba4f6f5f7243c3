#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

/// `chorus serve` ends after SIGTERM whatever its requests are doing (issue 31, item 4): on main at 53645ad a form
/// of 400k tiny parts kept it parsing, and SIGTERM did not stop it (killed after 40 s). It lets requests in flight
/// finish for 30 s and ends the process 5 s after that (`ShutdownDeadline`), so work that ignores its
/// cancellation cannot hold it.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ChorusProcess.binary.path), "needs the chorus binary"))
struct ServeShutdownTests {
    @Test func sigtermEndsTheServerWhileItReadsAHugeForm() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("serve.log")
        try Data().write(to: log)
        let server = Process()
        server.executableURL = ChorusProcess.binary
        server.arguments = ["serve", "--port", "0", "--engine", "piper", "--no-history"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(forWritingTo: log)
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        guard let port = await Self.port(of: server, log: log) else {
            let serverLog = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            let state = server.isRunning ? "still running" : "ended with status \(server.terminationStatus)"
            Issue.record("the server never said which port it listens on (\(state)); its log:\n\(serverLog.suffix(2_000))")
            return
        }

        // 400k parts of one byte each: 19.5 MB, under the 25 MB upload limit.
        var form = Data()
        for index in 0..<400_000 { form.append(Data("--b\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\nx\r\n".utf8)) }
        form.append(Data("--b--\r\n".utf8))
        let head = "POST /v1/audio/voices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            + "Content-Length: \(form.count)\r\n\r\n"
        let connection = try #require(Self.post(Data(head.utf8) + form, to: port), "could not send the form")
        defer { close(connection) }

        kill(server.processIdentifier, SIGTERM)
        let sent = ContinuousClock.now
        // A deadline for a hang, not a pace: the server's own bound is 35 s.
        let ended = await Self.waitForExit(server, upTo: .seconds(120))
        let serverLog = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        #expect(ended, "the server was still running 120 s after SIGTERM; its log:\n\(serverLog.suffix(2_000))")
        if ended {
            print("chorus serve ended \(ContinuousClock.now - sent) after SIGTERM, status \(server.terminationStatus)")
        }
    }

    /// The port the server logged ("listening on 127.0.0.1:PORT"), or nil when it ended or said nothing within
    /// 300 s: a bound for a hang, not a pace (in a whole test run on 2 cores the port did not come within 120 s).
    static func port(of server: Process, log: URL) async -> Int? {
        let giveUp = ContinuousClock.now + .seconds(300)
        while server.isRunning, ContinuousClock.now < giveUp {
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on 127.0.0.1:") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                return port
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Connects to 127.0.0.1:`port` and writes `bytes` (blocking, as the kernel takes them); the open socket, or
    /// nil when the connection failed. The reply is never read.
    static func post(_ bytes: Data, to port: Int) -> Int32? {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let noSignal = Int32(MSG_NOSIGNAL)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        let noSignal: Int32 = 0
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let whole = connected == 0 && bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, noSignal)
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard whole else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether `process` ended within `limit`, watched on a thread of its own.
    static func waitForExit(_ process: Process, upTo limit: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                let giveUp = ContinuousClock.now + limit
                while process.isRunning, ContinuousClock.now < giveUp { Thread.sleep(forTimeInterval: 0.05) }
                continuation.resume(returning: !process.isRunning)
            }.start()
        }
    }
}
