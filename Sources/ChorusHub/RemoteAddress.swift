import Foundation

/// An address the downloader is about to fetch: its origin (scheme, host, port), which decides where
/// the token may go, and how far away its host is, which decides whether a hub may send us there.
struct RemoteAddress: Sendable, Equatable {
    /// How far a host is from the open internet.
    enum Reach: Sendable, Equatable {
        /// A public address, or a name (not resolved here).
        case internet
        /// Loopback, a private network (RFC 1918, unique-local IPv6), or an unspecified address.
        case local
        /// Link-local (169.254.0.0/16, fe80::/10): where cloud metadata services answer.
        case linkLocal
    }

    let scheme: String
    let host: String
    let port: Int

    /// `url` as an address this downloader fetches: http or https with a host, or a `HubError` saying why not.
    init(_ url: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw HubError.refusedAddress(url: url, reason: "it is not an address")
        }
        guard scheme == "http" || scheme == "https" else {
            throw HubError.refusedAddress(url: url, reason: "only http and https addresses are downloaded, not \(scheme)")
        }
        guard var host = components.host?.lowercased(), !host.isEmpty else {
            throw HubError.refusedAddress(url: url, reason: "it names no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host.hasSuffix(".") ? String(host.dropLast()) : host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether `other` has the same scheme, host and port: only then does the hub's token go along.
    func isSameOrigin(as other: RemoteAddress) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    /// How far away the host is, read from its literal address (IPv4 in any form `inet_aton` takes, as
    /// the resolver does: `2852039166` is 169.254.169.254), or `localhost`.
    var reach: Reach {
        if host == "localhost" || host.hasSuffix(".localhost") { return .local }
        var v4 = in_addr()
        if !host.contains(":"), inet_aton(host, &v4) != 0 {
            return Self.reach(ipv4: UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return .internet }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            // An IPv4 address mapped into IPv6 is that IPv4 address.
            return Self.reach(ipv4: bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
        }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] & 0xFE == 0xFC { return .local }
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] <= 1 { return .local }  // :: and ::1
        return .internet
    }

    private static func reach(ipv4 address: UInt32) -> Reach {
        let a = address >> 24, b = (address >> 16) & 0xFF
        if a == 169 && b == 254 { return .linkLocal }
        if a == 127 || a == 10 || a == 0 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
            || (a == 100 && (64...127).contains(b)) {
            return .local
        }
        return .internet
    }
}

extension HubSettings {
    /// Whether the downloader fetches `url`, and whether the hub's token goes along: throws
    /// `HubError.refusedAddress` for another scheme than http(s), a link-local host, or a private or
    /// loopback host while the hub (`endpoint` and `pypiEndpoint`) is public. A host name is taken as
    /// public: what it resolves to is not checked here.
    func permit(_ url: String) throws -> (address: RemoteAddress, sendsToken: Bool) {
        let address = try RemoteAddress(url)
        let hubs = [endpoint, pypiEndpoint].compactMap { try? RemoteAddress($0) }
        switch address.reach {
        case .linkLocal:
            throw HubError.refusedAddress(url: url, reason: "\(address.host) is a link-local address, where no hub serves files")
        case .local where !hubs.contains(where: { $0.reach == .local }):
            throw HubError.refusedAddress(url: url, reason: "\(address.host) is a private or loopback address and the hub is not")
        case .local, .internet:
            break
        }
        let hub = try? RemoteAddress(endpoint)
        return (address, token != nil && hub.map(address.isSameOrigin) == true)
    }
}
