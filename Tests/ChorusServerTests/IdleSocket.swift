import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client connection on the system's sockets that sends only what it is told and never reads unless asked,
/// so a test can hold many at little cost and ask, without blocking, whether the server has closed one.
final class IdleSocket {
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

    func send(_ text: String) {
        send(bytes: Array(text.utf8))
    }

    func send(bytes: [UInt8]) {
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
    func readUntilClosed(seconds: Int) -> [UInt8] {
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
    func read(until marker: String) -> String {
        var text = Data()
        var piece = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: text, as: UTF8.self).contains(marker) {
            let got = recv(descriptor, &piece, piece.count, 0)
            if got <= 0 { break }
            text.append(contentsOf: piece[..<got])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }
}
