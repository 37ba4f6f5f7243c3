import Foundation
import NIOCore
import NIOPosix

/// A TCP connection to the server that sends bytes exactly as given (no client normalises the path,
/// fills in a body or times out on its own), for the probes an ordinary HTTP client cannot make.
struct RawConnection {
    /// What the server sent until it closed the connection: its status code (nil for none) and the whole text.
    struct Reply {
        var text: String
        var status: Int? {
            let words = text.prefix { $0 != "\r" }.split(separator: " ")
            return words.count >= 2 ? Int(words[1]) : nil
        }
        var body: String { text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n") }
    }

    /// Connects to 127.0.0.1:`port`, writes `bytes`, half-closes when `halfClose`, and reads until the
    /// server closes. A deadline for a hang, not a timing check.
    static func exchange(port: Int, _ bytes: String, halfClose: Bool = false, deadline: Duration = .seconds(120)) async throws -> Reply {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        return try await withThrowingTaskGroup(of: Reply?.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    do {
                        try await outbound.write(ByteBuffer(string: bytes))
                        if halfClose { outbound.finish() }
                    } catch {
                        // The server closed the connection before the bytes went: what it sent (if anything) is the reply.
                    }
                    var text = ""
                    do {
                        for try await piece in inbound { text += String(buffer: piece) }
                    } catch {
                        // A reset after the reply is still the reply.
                    }
                    return Reply(text: text)
                }
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                channel.channel.close(promise: nil)
                return nil
            }
            defer { group.cancelAll() }
            guard let reply = try await group.next() ?? nil else { throw TimedOut(request: String(bytes.prefix { $0 != "\r" })) }
            return reply
        }
    }

    /// An open connection the test writes to and never reads (a client that stopped reading).
    struct Open: Sendable {
        let channel: any Channel
        func send(_ bytes: String) async throws {
            try await channel.writeAndFlush(ByteBuffer(string: bytes))
        }
        func send(bytes: [UInt8]) async throws {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        }
        func close() async {
            try? await channel.close()
        }
    }

    /// Connects without ever reading: the socket's receive buffer fills and the server's writes wait.
    static func open(port: Int) async throws -> Open {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port).get()
        return Open(channel: channel)
    }

    struct TimedOut: Error, CustomStringConvertible {
        /// The request's first line.
        var request: String
        var description: String { "the server neither answered nor closed the connection (\(request))" }
    }

    /// A request head with `Connection: close`, and `body` with its Content-Length when given.
    static func request(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) -> String {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1", "Connection: close"] + headers
        if let body { lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] }
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")
    }
}
