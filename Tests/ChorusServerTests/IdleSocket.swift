import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client connection on the system's sockets that sends only what it is told and never reads unless asked,
/// so a test can hold many at little cost and ask, without blocking, whether the server has closed one.
///
/// What blocks (sending, reading) runs on a thread of its own: on the few threads Swift concurrency has (two on
/// a 2-core machine) a blocking `recv` holds one that the server's routes need too, and a test waiting 60 s for a
/// reply held the server it waited for (every test of the process stalled until the read's timeout). It is
/// `@unchecked Sendable` for that hop: one test uses a socket, one call at a time.
final class IdleSocket: @unchecked Sendable {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address, to stand for another client) when given.
    init(port: Int, from source: String? = nil) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failed(description: "socket() failed: errno \(errno)") }
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // A throw from here on closes the socket in deinit.
            guard bound == 0 else { throw Failed(description: "binding to \(source) failed: errno \(errno)") }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failed(description: "connecting to port \(port) failed: errno \(errno)") }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func send(_ text: String) async {
        await send(bytes: Array(text.utf8))
    }

    func send(bytes: [UInt8]) async {
        await Self.offThePool { self.sendBlocking(bytes) }
    }

    private func sendBlocking(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            _ = Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            #else
            _ = Darwin.send(descriptor, raw.baseAddress, raw.count, 0)
            #endif
        }
    }

    /// Everything the server sends until it closes the connection, or until nothing has come for `seconds`
    /// (a deadline for a hang: what came so far).
    func readUntilClosed(seconds: Int) async -> [UInt8] {
        await Self.offThePool { self.readUntilClosedBlocking(seconds: seconds) }
    }

    private func readUntilClosedBlocking(seconds: Int) -> [UInt8] {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = recv(descriptor, &piece, piece.count, 0)
            if got <= 0 { return received }
            received += piece[..<got]
        }
    }

    /// Whether the server has closed the connection: an end of stream or a reset is waiting to be read.
    /// Bytes waiting (a response) do not count.
    var closedByServer: Bool {
        var byte: UInt8 = 0
        let got = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if got == 0 { return true }
        if got > 0 { return false }
        return errno != EAGAIN && errno != EWOULDBLOCK
    }

    /// Reads until `marker` has arrived or the server closes; what was read.
    func read(until marker: String) async -> String {
        await Self.offThePool { self.readBlocking(until: marker) }
    }

    private func readBlocking(until marker: String) -> String {
        var text = Data()
        var piece = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: text, as: UTF8.self).contains(marker) {
            let got = recv(descriptor, &piece, piece.count, 0)
            if got <= 0 { break }
            text.append(contentsOf: piece[..<got])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `work`'s result, `work` run on a new thread rather than one of Swift concurrency's.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }
}
