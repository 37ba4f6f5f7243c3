/// A run of digits in English words, as the Python package inflect (7.x) writes it with
/// `engine().number_to_words(digits)` and its defaults: "2024" -> "two thousand and twenty-four",
/// "1234567" -> "one million, two hundred and thirty-four thousand, five hundred and sixty-seven".
///
/// Only what CosyVoice's `spell_out_number` passes it: a run of code points for which `str.isdigit()`
/// holds, so no sign, decimal point or ordinal suffix. inflect's steps, followed here:
/// - only decimal digits (`\d`) are read; a run with none (e.g. a lone "²") reads as "zero";
/// - a value of 0 or 1 is "zero" or "one" whatever the leading zeros;
/// - otherwise leading ASCII zeros go, then groups of three from the right become
///   "<h> hundred and <tens>-<unit> <scale>, ", the one or two digits left in front likewise, and the
///   result is tidied: the last ", " dropped, spaces before commas removed, ", <last word>" made
///   " and <last word>", runs of spaces made one.
public enum EnglishNumberWords {
    static let units = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let teens = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                        "eighteen", "nineteen"]
    /// inflect's scale words; the first is a single space, which the tidying removes again.
    static let scales = [" ", " thousand", " million", " billion", " trillion", " quadrillion", " quintillion",
                         " sextillion", " septillion", " octillion", " nonillion", " decillion"]

    /// The words for `digits`, or nil where inflect raises `NumOutOfRangeError` (a scale past
    /// "decillion", i.e. more than 36 digits after the leading zeros).
    public static func words<Digits: Collection<Unicode.Scalar>>(for digits: Digits) -> String? {
        let decimal = digits.filter(PythonStringRules.isDecimalDigit)
        let values = decimal.map { Int($0.properties.numericValue ?? 0) }
        if values.allSatisfy({ $0 == 0 }) { return "zero" }
        if values.dropLast().allSatisfy({ $0 == 0 }) && values.last == 1 { return "one" }

        // Python's lstrip("0") removes ASCII zeros only; other scripts' zeros stay as digits.
        let significant = Array(values[(decimal.firstIndex { $0 != "0" } ?? decimal.count)...])
        var words = ""
        var scale = 0
        var remaining = significant.count
        while remaining >= 3 {
            guard let group = hundreds(significant[remaining - 3], significant[remaining - 2],
                                       significant[remaining - 1], scale: scale) else { return nil }
            words = group + words
            scale += 1
            remaining -= 3
        }
        if remaining == 2 {
            guard let front = tensAndUnits(significant[0], significant[1], scale: scale) else { return nil }
            words = front + ", " + words
        } else if remaining == 1 {
            guard scale < scales.count else { return nil }
            words = units[significant[0]] + scales[scale] + ", " + words
        }
        return tidy(words)
    }

    /// inflect's `hundfn`: an all-zero group gives nothing (and never looks its scale up).
    static func hundreds(_ hundred: Int, _ ten: Int, _ unit: Int, scale: Int) -> String? {
        if hundred != 0 {
            guard scale < scales.count, let rest = tensAndUnits(ten, unit, scale: 0) else { return nil }
            let and = ten != 0 || unit != 0 ? " and " : ""
            return units[hundred] + " hundred" + and + rest + scales[scale] + ", "
        }
        if ten != 0 || unit != 0 {
            guard scale < scales.count, let rest = tensAndUnits(ten, unit, scale: 0) else { return nil }
            return rest + scales[scale] + ", "
        }
        return ""
    }

    /// inflect's `tenfn`.
    static func tensAndUnits(_ ten: Int, _ unit: Int, scale: Int) -> String? {
        guard scale < scales.count else { return nil }
        if ten == 1 { return teens[unit] + scales[scale] }
        return tens[ten] + (ten != 0 && unit != 0 ? "-" : "") + units[unit] + scales[scale]
    }

    /// inflect's clean-up of a chunk: drop a final ", ", remove spaces before commas, turn the last
    /// ", <word> " into " and <word>", remove spaces before commas again, collapse spaces, strip.
    static func tidy(_ raw: String) -> String {
        var text = Array(raw.unicodeScalars)
        if text.count >= 2 && text[text.count - 2] == "," && text[text.count - 1] == " " { text.removeLast(2) }
        text = removingSpacesBeforeCommas(text)
        if let last = text.lastIndex(where: { !PythonStringRules.isWhitespace($0) }), last < text.count - 1 {
            let word = text[...last]
            if let space = word.lastIndex(where: PythonStringRules.isWhitespace), space > 0,
               text[space] == " ", text[space - 1] == "," {
                text = Array(text[..<(space - 1)]) + Array(" and ".unicodeScalars) + Array(text[(space + 1)...last])
            }
        }
        text = removingSpacesBeforeCommas(text)
        var collapsed = String.UnicodeScalarView()
        var inSpace = false
        for scalar in text {
            if PythonStringRules.isWhitespace(scalar) {
                if !inSpace { collapsed.append(" ") }
                inSpace = true
            } else {
                collapsed.append(scalar)
                inSpace = false
            }
        }
        return PythonStringRules.strip(String(collapsed))
    }

    /// `re.sub(r"\s+,", ",", text)`.
    static func removingSpacesBeforeCommas(_ text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.count)
        var pending: [Unicode.Scalar] = []
        for scalar in text {
            if PythonStringRules.isWhitespace(scalar) {
                pending.append(scalar)
                continue
            }
            if scalar != "," { output += pending }
            pending.removeAll()
            output.append(scalar)
        }
        return output + pending
    }
}
