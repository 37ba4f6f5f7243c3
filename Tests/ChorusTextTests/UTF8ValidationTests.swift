import Testing
@testable import ChorusText

@Suite struct UTF8ValidationTests {
    func length(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { UTF8Validation.validLength($0) }
    }

    @Test func characterLengthsAndRejections() {
        #expect(length([0x61]) == 1)
        #expect(length([0xC3, 0xA9]) == 2)                // é
        #expect(length([0xE4, 0xB8, 0xAD, 0x61]) == 3)    // 中, then more
        #expect(length([0xF0, 0x9F, 0x98, 0x80]) == 4)    // U+1F600
        #expect(length([]) == 0)
        #expect(length([0x80]) == 0)                      // a continuation byte alone
        #expect(length([0xC0, 0x80]) == 0)                // overlong NUL
        #expect(length([0xE0, 0x80, 0x80]) == 0)          // overlong
        #expect(length([0xED, 0xA0, 0x80]) == 0)          // a surrogate
        #expect(length([0xF4, 0x90, 0x80, 0x80]) == 0)    // above U+10FFFF
        #expect(length([0xE4, 0xB8]) == 0)                // cut short
    }

    @Test func validPrefixStopsAtTheFirstBadCharacter() {
        #expect(UTF8Validation.validPrefixLength([0x61, 0x62, 0x63, 0xE4, 0xB8]) == 3)
        #expect(UTF8Validation.validPrefixLength([0x61, 0xC0, 0x80]) == 1)
        #expect(UTF8Validation.validPrefixLength(Array("añ中😀".utf8)) == 10)
    }

    @Test func completePrefixHoldsBackACutCharacter() {
        #expect(UTF8Validation.completePrefixLength([0x61, 0xE4, 0xB8]) == 1)
        #expect(UTF8Validation.completePrefixLength([0x61, 0xE4, 0xB8, 0xAD]) == 4)
        #expect(UTF8Validation.completePrefixLength([0x61, 0xF0, 0x9F, 0x98]) == 1)
        // Not held back: bytes that no more input can complete are left for validation to refuse.
        #expect(UTF8Validation.completePrefixLength([0x61, 0x80]) == 2)
        #expect(UTF8Validation.completePrefixLength([0x61, 0xFF]) == 2)
    }

    /// Short random byte strings, weighted towards the bytes where UTF-8's rules have edges.
    @Test func agreesWithTheStandardLibrary() {
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF]
        var state: UInt64 = 12
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<20_000 {
            let bytes = (0..<(next() % 6)).map { _ in interesting[next() % interesting.count] }
            let valid = UTF8Validation.validPrefixLength(bytes) == bytes.count
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
