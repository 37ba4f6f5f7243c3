/// Python's definitions of whitespace and digits, for the front ends that reproduce Python code
/// (wetext, CosyVoice) and must treat every code point as it does.
public enum PythonStringRules {
    /// `str.isspace()` for one code point: Python's whitespace table (categories Zs, Zl, Zp and the
    /// bidirectional classes WS, B, S), which includes U+001C-U+001F and U+0085 but not U+200B.
    public static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// `str.strip()`: `text` without leading and trailing Python whitespace.
    public static func strip(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }),
              let last = scalars.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// `str.isdigit()` for one code point: numeric type Decimal or Digit (so `²` counts, `½` does not).
    public static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.numericType {
        case .decimal?, .digit?: return true
        default: return false
        }
    }

    /// `str.isdigit()` for a string: not empty and every code point a digit.
    public static func isDigit(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isDigit)
    }

    /// Whether `re`'s `\d` matches the code point: a decimal digit (category Nd) of any script.
    public static func isDecimalDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .decimalNumber
    }
}
