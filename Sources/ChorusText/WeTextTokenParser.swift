/// wetext's token parser (`wetext/token_parser.py`): reads the tagger's output, a sequence of
/// `name { key: "value" ... }` tokens, and writes it back with each token's fields in the order the
/// verbalizer expects.
struct WeTextTokenParser: Sendable {
    /// Field order per token name; fields not listed keep their order after the listed ones.
    let orders: [String: [String]]

    /// wetext's `TN_ORDERS`, used for Chinese (and Japanese) text normalisation.
    static let chinese = WeTextTokenParser(orders: [
        "date": ["year", "month", "day"],
        "fraction": ["denominator", "numerator"],
        "measure": ["denominator", "numerator", "value"],
        "money": ["value", "currency"],
        "time": ["noon", "hour", "minute", "second"],
    ])

    /// wetext's `EN_TN_ORDERS`, used for English text normalisation.
    static let english = WeTextTokenParser(orders: [
        "date": ["preserve_order", "text", "day", "month", "year"],
        "money": ["integer_part", "fractional_part", "quantity", "currency_maj"],
    ])

    init(orders: [String: [String]]) {
        self.orders = orders
    }

    /// One parsed token: its name and its fields in the order the tagger wrote them. A repeated key keeps
    /// its first position and its last value, as wetext's dictionary does.
    struct Token {
        var name: String
        var keys: [String] = []
        var values: [String: String] = [:]

        mutating func append(_ key: String, _ value: String) {
            keys.append(key)
            values[key] = value
        }

        /// The token written back with fields in `order` (unless it asks to keep its own order).
        func serialized(order canonical: [String]?) -> String {
            var order = keys
            if let canonical, values["preserve_order"] != "true" {
                order = canonical + keys.filter { !canonical.contains($0) }
            }
            var output = name + " {"
            for key in order {
                guard let value = values[key] else { continue }
                output += " \(key): \"\(Self.escaped(value))\""
            }
            return output + " }"
        }

        /// wetext escapes the raw value again (backslashes first, then quotes).
        static func escaped(_ value: String) -> String {
            value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        }
    }

    /// `tagged` with every token's fields reordered; tokens are joined by one space.
    func reorder(_ tagged: String) throws -> String {
        try Self.parse(tagged).map { $0.serialized(order: orders[$0.name]) }.joined(separator: " ")
    }

    /// The tokens of `tagged`, read code point by code point as wetext's parser reads them.
    static func parse(_ tagged: String) throws -> [Token] {
        var cursor = Cursor(Array(tagged.unicodeScalars))
        guard cursor.char != nil else { throw WeTextError.unparsableTags(tagged) }
        var tokens: [Token] = []
        while cursor.skipSpaces() {
            let before = cursor.index
            var token = Token(name: try cursor.key(in: tagged))
            cursor.skip(" { ")
            while cursor.skipSpaces() {
                if cursor.char == "}" {
                    cursor.skip("}")
                    break
                }
                let key = try cursor.key(in: tagged)
                cursor.skip(": \"")
                let value = try cursor.value(in: tagged)
                cursor.skip("\"")
                token.append(key, value)
            }
            tokens.append(token)
            // wetext would loop forever on input that makes no progress; the tagger never writes it.
            if cursor.index == before && cursor.char != nil { throw WeTextError.unparsableTags(tagged) }
        }
        return tokens
    }

    /// wetext's reading position: the current code point, nil at the end.
    struct Cursor {
        let scalars: [Unicode.Scalar]
        private(set) var index = 0
        private(set) var char: Unicode.Scalar?

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
            char = scalars.first
        }

        @discardableResult
        mutating func read() -> Bool {
            if index < scalars.count - 1 {
                index += 1
                char = scalars[index]
                return true
            }
            char = nil
            return false
        }

        /// Skips spaces; false at the end.
        mutating func skipSpaces() -> Bool {
            var notEnd = char != nil
            while notEnd && char == " " { notEnd = read() }
            return notEnd
        }

        /// Consumes each character of `expected` in turn when it is the current one (wetext's `parse_chars`).
        mutating func skip(_ expected: String) {
            for scalar in expected.unicodeScalars where char == scalar { read() }
        }

        /// A run of ASCII letters and underscores.
        mutating func key(in tagged: String) throws -> String {
            guard let first = char, !" \t\n\r\u{0B}\u{0C}".unicodeScalars.contains(first) else {
                throw WeTextError.unparsableTags(tagged)
            }
            var key = ""
            while let c = char, c.isASCII, c.properties.isAlphabetic || c == "_" {
                key.unicodeScalars.append(c)
                read()
            }
            return key
        }

        /// Everything up to the closing quote; a backslash and the character after it are kept as they are.
        mutating func value(in tagged: String) throws -> String {
            var value = ""
            while char != "\"" {
                guard let c = char else { throw WeTextError.unparsableTags(tagged) }
                value.unicodeScalars.append(c)
                read()
                if c == "\\" {
                    guard let escaped = char else { throw WeTextError.unparsableTags(tagged) }
                    value.unicodeScalars.append(escaped)
                    read()
                }
            }
            return value
        }
    }
}
