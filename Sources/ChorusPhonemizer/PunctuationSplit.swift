/// Text cut at runs of punctuation, as the `phonemizer` package's `Punctuation.preserve` cuts a line
/// (phonemizer/punctuation.py): a run is any stretch of punctuation marks and white space holding at
/// least one mark, remembered with where it stands (begins the line, ends it, inside, or is the whole
/// line); the words between runs are phonemized on their own and `restore` puts the marks back.
///
/// Used by the engines whose references phonemize through phonemizer with `preserve_punctuation`:
/// Kokoro (misaki 0.9.4, phonemizer 3.3's rules) and NeuTTS (neutts 1.4.1, phonemizer 3.4's rules).
public struct PunctuationSplit: Equatable, Sendable {
    /// phonemizer's default marks.
    public static let marks: Set<Unicode.Scalar> = Set(";:,.!?¡¿—…\"«»“”(){}[]".unicodeScalars)

    /// Which phonemizer release's rules cut the line.
    public enum Rules: Sendable, Equatable {
        /// phonemizer 3.3 and before: every mark is punctuation.
        case phonemizer3_3
        /// phonemizer 3.4: "," and "." between two digits are a decimal separator, not punctuation, so
        /// "3.5" reaches espeak whole. The line is then cut as 3.4 cuts it, at the first occurrence of each
        /// run's text in what is left (`str.split`), which may be such a separator (kept as upstream does).
        case phonemizer3_4
    }

    /// Where a run of marks stands in its line.
    public enum Position: Equatable, Sendable { case begins, ends, inside, whole }

    /// One run of marks and white space.
    public struct Mark: Equatable, Sendable {
        public var text: String
        public var position: Position
    }

    /// The runs of words between the marks, empty ones left out.
    public var chunks: [String]
    public var marks: [Mark]

    /// `line` cut by `rules`.
    public init(_ line: String, rules: Rules = .phonemizer3_3) {
        let scalars = Array(line.unicodeScalars)
        func string(_ range: Range<Int>) -> String {
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars[range])
            return text
        }
        func isMark(_ index: Int) -> Bool {
            let scalar = scalars[index]
            guard Self.marks.contains(scalar) else { return false }
            guard rules == .phonemizer3_4, scalar == "," || scalar == "." else { return true }
            let digitBefore = index > 0 && ("0"..."9").contains(scalars[index - 1])
            let digitAfter = index + 1 < scalars.count && ("0"..."9").contains(scalars[index + 1])
            return !(digitBefore && digitAfter)
        }
        // Each run: the white space before its first mark, marks and white space, the white space after.
        var runs: [Range<Int>] = []
        var index = 0
        while index < scalars.count {
            guard isMark(index) || scalars[index].properties.isWhitespace else {
                index += 1
                continue
            }
            var end = index
            var hasMark = false
            while end < scalars.count, isMark(end) || scalars[end].properties.isWhitespace {
                if isMark(end) { hasMark = true }
                end += 1
            }
            if hasMark {
                runs.append(index..<end)
            }
            index = end
        }
        if runs.isEmpty {
            chunks = [line]
            marks = []
            return
        }
        if runs.count == 1, runs[0] == 0..<scalars.count {
            chunks = []
            marks = [Mark(text: line, position: .whole)]
            return
        }
        var marks: [Mark] = []
        for (number, run) in runs.enumerated() {
            let position: Position =
                number == 0 && run.lowerBound == 0 ? .begins
                : number == runs.count - 1 && run.upperBound == scalars.count ? .ends : .inside
            marks.append(Mark(text: string(run), position: position))
        }
        var pieces: [String] = []
        switch rules {
        case .phonemizer3_3:
            var start = 0
            for run in runs {
                pieces.append(string(start..<run.lowerBound))
                start = run.upperBound
            }
            pieces.append(string(start..<scalars.count))
        case .phonemizer3_4:
            var rest = scalars[...]
            for mark in marks {
                let needle = Array(mark.text.unicodeScalars)
                guard let found = Self.firstOccurrence(of: needle, in: rest) else {
                    pieces.append(String(String.UnicodeScalarView(rest)))
                    rest = rest[rest.endIndex...]
                    continue
                }
                pieces.append(String(String.UnicodeScalarView(rest[rest.startIndex..<found])))
                rest = rest[(found + needle.count)...]
            }
            pieces.append(String(String.UnicodeScalarView(rest)))
        }
        chunks = pieces.filter { !$0.isEmpty }
        self.marks = marks
    }

    private static func firstOccurrence(of needle: [Unicode.Scalar], in haystack: ArraySlice<Unicode.Scalar>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var start = haystack.startIndex
        while start + needle.count <= haystack.endIndex {
            if haystack[start] == needle[0], haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
            start += 1
        }
        return nil
    }

    /// The phonemized chunks with the marks put back, as phonemizer's `Punctuation.restore` does for one
    /// line (every word ends with a space; a mark takes the place of the space before it). Returns the
    /// first line of the result, the one a single input line becomes.
    public func restore(_ phonemized: [String]) -> String {
        var text = phonemized
        var marks = self.marks[...]
        var lines: [String] = []
        var position = 0
        func withSpace(_ line: String) -> String { line.hasSuffix(" ") ? line : line + " " }
        while !text.isEmpty || !marks.isEmpty {
            if marks.isEmpty {
                lines += text.map(withSpace)
                text = []
            } else if text.isEmpty {
                lines.append(marks.map(\.text).joined())
                marks = []
            } else if position == 0 {
                let mark = marks.removeFirst()
                if text[0].hasSuffix(" ") { text[0].removeLast() }
                switch mark.position {
                case .begins:
                    text[0] = mark.text + text[0]
                case .ends:
                    lines.append(withSpace(text.removeFirst() + mark.text))
                    position += 1
                case .whole:
                    lines.append(withSpace(mark.text))
                    position += 1
                case .inside:
                    if text.count == 1 {
                        text[0] += mark.text
                    } else {
                        let first = text.removeFirst()
                        text[0] = first + mark.text + text[0]
                    }
                }
            } else {
                lines.append(text.removeFirst())
                position += 1
            }
        }
        return lines.first ?? ""
    }
}
