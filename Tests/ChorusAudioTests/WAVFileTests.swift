import ChorusFiles
import ChorusModels
import Foundation
import Testing
@testable import ChorusAudio

/// Builds WAV bytes chunk by chunk, the way the odd writers in the wild lay them out.
struct WAVBytes {
    var bytes: [UInt8] = []

    mutating func tag(_ text: String) { bytes += Array(text.utf8) }
    mutating func u16(_ value: Int) { bytes += [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    mutating func u32(_ value: UInt32) { bytes += (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    mutating func chunk(_ id: String, _ body: [UInt8], declaredSize: UInt32? = nil) {
        tag(id)
        u32(declaredSize ?? UInt32(body.count))
        bytes += body
        if body.count % 2 == 1 { bytes.append(0) }
    }

    static func format(tag: Int, channels: Int, rate: Int, bits: Int, extensible: Bool = false) -> [UInt8] {
        var fmt = WAVBytes()
        let container = (bits + 7) / 8
        fmt.u16(extensible ? 0xFFFE : tag)
        fmt.u16(channels)
        fmt.u32(UInt32(rate))
        fmt.u32(UInt32(truncatingIfNeeded: rate * channels * container))
        fmt.u16(channels * container)
        fmt.u16(container * 8)
        if extensible {
            fmt.u16(22)
            fmt.u16(bits)
            fmt.u32(3)  // channel mask
            fmt.u16(tag)
            fmt.bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        return fmt.bytes
    }

    /// A whole file: RIFF header, then the given chunks in order.
    static func file(_ chunks: [(String, [UInt8], UInt32?)], riffSize: UInt32? = nil) -> Data {
        var body = WAVBytes()
        for (id, content, declared) in chunks { body.chunk(id, content, declaredSize: declared) }
        var file = WAVBytes()
        file.tag("RIFF")
        file.u32(riffSize ?? UInt32(body.bytes.count + 4))
        file.tag("WAVE")
        return Data(file.bytes + body.bytes)
    }
}

@Suite struct WAVFileTests {
    @Test func readsWhatTheWriterWritesInBothFormats() throws {
        let samples: [Float] = [0, 0.5, -0.5, 0.25, -1, 0.999]
        for format in WAVSampleFormat.allCases {
            let data = try WAVWriter.encode(samples, sampleRate: 22_050, channels: 2, format: format)
            let file = try WAVFile.decode(data)
            #expect(file.channels == 2)
            #expect(file.sampleRate == 22_050)
            #expect(file.frameCount == 3)
            let tolerance: Float = format == .pcm16 ? 1.0 / 16_000 : 0
            for (read, written) in zip(file.samples, samples) { #expect(abs(read - written) <= tolerance) }
        }
    }

    @Test func writingOverAnExistingFileReplacesItAndLeavesNothingElse() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-wav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        try WAVWriter.write([0.5, -0.5, 0.25], sampleRate: 16_000, to: url)
        try WAVWriter.write([0.1], sampleRate: 24_000, to: url)
        let file = try WAVFile.decode(try Data(contentsOf: url))
        #expect(file.sampleRate == 24_000)
        #expect(file.frameCount == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.wav"])
    }

    @Test func aMissingFileIsNamedWithAPlainReason() throws {
        let error = try #require(throws: AudioFileError.self) {
            try WAVFile.readMono(contentsOf: URL(fileURLWithPath: "/nonexistent-chorus/clip.wav"))
        }
        #expect(error.description == "Cannot read /nonexistent-chorus/clip.wav: no such file or folder. Check the path and its permissions.")
    }

    @Test func aFolderIsNamedAsOne() throws {
        let error = try #require(throws: AudioFileError.self) {
            try WAVFile.readMono(contentsOf: FileManager.default.temporaryDirectory)
        }
        #expect(error.description.contains(": it is a folder, not a file. Check the path"))
    }

    @Test func decodesEveryIntegerWidthToTheSameValues() throws {
        // 0.5 and -0.25 are exact in every width.
        let cases: [(bits: Int, bytes: [UInt8])] = [
            (8, [192, 96]),
            (16, [0x00, 0x40, 0x00, 0xE0]),
            (24, [0x00, 0x00, 0x40, 0x00, 0x00, 0xE0]),
            (32, [0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0xE0]),
        ]
        for (bits, payload) in cases {
            for extensible in [false, true] {
                let data = WAVBytes.file([
                    ("fmt ", WAVBytes.format(tag: 1, channels: 1, rate: 8000, bits: bits, extensible: extensible), nil),
                    ("data", payload, nil),
                ])
                let file = try WAVFile.decode(data)
                #expect(file.samples == [0.5, -0.25], "\(bits)-bit, extensible \(extensible)")
                #expect(file.encoding == .integer(bits: bits))
            }
        }
    }

    @Test func decodesFloat32AndFloat64() throws {
        var f32 = WAVBytes()
        f32.u32(Float(0.75).bitPattern)
        f32.u32(Float(-2).bitPattern)
        var f64 = WAVBytes()
        for value in [0.75, -2.0] {
            let bits = value.bitPattern
            f64.u32(UInt32(bits & 0xFFFF_FFFF))
            f64.u32(UInt32(bits >> 32))
        }
        for (bits, payload) in [(32, f32.bytes), (64, f64.bytes)] {
            let data = WAVBytes.file([("fmt ", WAVBytes.format(tag: 3, channels: 2, rate: 48_000, bits: bits), nil),
                                      ("data", payload, nil)])
            let file = try WAVFile.decode(data)
            #expect(file.samples == [0.75, -2])
            #expect(file.mono == [-0.625])
        }
    }

    @Test func skipsExtraChunksWithOddSizesAndPadding() throws {
        let data = WAVBytes.file([
            ("LIST", Array("INFOISFT\u{5}\0\0\0Lavf\0".utf8), nil),  // 17 bytes: padded
            ("fmt ", WAVBytes.format(tag: 1, channels: 3, rate: 16_000, bits: 16), nil),
            ("fact", [4, 0, 0, 0], nil),
            ("junk", [1, 2, 3], nil),
            ("data", [0x00, 0x40, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x20, 0x00, 0x20, 0x00, 0x20], nil),
            ("LIST", Array("INFOtrailing".utf8), nil),
        ])
        let file = try WAVFile.decode(data)
        #expect(file.channels == 3)
        #expect(file.frameCount == 2)
        #expect(file.channel(0) == [0.5, 0.25])
        #expect(file.mono == [0, 0.25])
    }

    @Test func streamingSizesMeanTheDataRunsToTheEnd() throws {
        for declared: UInt32 in [0, 0xFFFF_FFFF] {
            let data = WAVBytes.file([("fmt ", WAVBytes.format(tag: 1, channels: 1, rate: 8000, bits: 16), nil),
                                      ("data", [0x00, 0x40, 0x00, 0x20, 0x7F], declared)], riffSize: declared)
            let file = try WAVFile.decode(data.dropLast())  // drop the pad byte: a dangling half sample remains
            #expect(file.samples == [0.5, 0.25])
        }
    }

    @Test(arguments: [0, 1, 999, 768_001, 4_000_000_000, Int(UInt32.max)])
    func absurdSampleRatesAreRefusedBeforeAnyAllocation(rate: Int) throws {
        // 32 KB of audio under a header whose rate would make resampling to 16 kHz allocate tens of GB.
        let file = WAVBytes.file([("fmt ", WAVBytes.format(tag: 1, channels: 1, rate: rate, bits: 16), nil),
                                  ("data", [UInt8](repeating: 7, count: 32_768), nil)])
        let error = try #require(throws: AudioFileError.self) { try WAVFile.decode(file) }
        #expect(error.description.contains("sample rate of \(rate) Hz"), "\(error)")
        #expect(throws: AudioFileError.invalidSampleRate(rate)) { try StreamingResampler(inputRate: rate, outputRate: 16_000) }
        #expect(throws: AudioFileError.invalidSampleRate(rate)) { try Resampler.resample([0], from: 16_000, to: rate) }
    }

    @Test func everyRateAReaderAcceptsResamplesToBoundedOutput() throws {
        for rate in [WAVFile.sampleRates.lowerBound, 8_000, 44_100, WAVFile.sampleRates.upperBound] {
            let file = WAVBytes.file([("fmt ", WAVBytes.format(tag: 1, channels: 1, rate: rate, bits: 16), nil),
                                      ("data", [UInt8](repeating: 7, count: 32_768), nil)])
            let decoded = try WAVFile.decode(file)
            let resampled = try Resampler.resample(decoded.mono, from: decoded.sampleRate, to: 16_000)
            #expect(resampled.count <= decoded.frameCount * 16 + 1)
        }
    }

    @Test func writeFailuresNameTheirCauseInsteadOfFoundationsCode() throws {
        // /dev/full refuses every write with ENOSPC, as a full disk does.
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let error = try #require(throws: (any Error).self) { try full.write(contentsOf: Data(count: 4096)) }
        #expect(AudioFileError.reason(for: error) == "the disk is full")
        let wrapped = NSError(domain: NSCocoaErrorDomain, code: 512,
                              userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EPIPE))])
        #expect(AudioFileError.reason(for: wrapped) == "the program reading the output closed it (broken pipe)")
        #expect(AudioFileError.reason(for: POSIXError(.EISDIR)) == "it is a folder")
        let message = AudioFileError.writeFailed(path: "/x.wav", reason: AudioFileError.reason(for: wrapped)).description
        #expect(!message.contains("NSCocoaErrorDomain") && !message.contains(".."))
    }

    @Test func truncatedAndCorruptFilesGiveClearErrors() throws {
        let good = WAVBytes.file([("fmt ", WAVBytes.format(tag: 1, channels: 1, rate: 8000, bits: 16), nil),
                                  ("data", [UInt8](repeating: 1, count: 100), nil)])
        #expect(throws: AudioFileError.truncated(path: "<memory>", expectedBytes: 100, availableBytes: 60)) {
            try WAVFile.decode(good.prefix(good.count - 40))
        }
        #expect(throws: AudioFileError.self) { try WAVFile.decode(Data("RIFF".utf8)) }
        #expect(throws: AudioFileError.self) { try WAVFile.decode(good.prefix(30)) }
        var noFormat = good
        noFormat.replaceSubrange(12..<16, with: Array("xxxx".utf8))
        #expect(throws: AudioFileError.self) { try WAVFile.decode(noFormat) }
        let adpcm = WAVBytes.file([("fmt ", WAVBytes.format(tag: 2, channels: 1, rate: 8000, bits: 4), nil),
                                   ("data", [0, 0], nil)])
        let error = #expect(throws: AudioFileError.self) { try WAVFile.decode(adpcm) }
        #expect(error?.description.contains("format tag 0x2") == true)
    }

    @Test func streamWriterFixesTheSizesWhenClosed() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-stream-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let staged = try StagedFile(destination: url)
        let writer = try WAVStreamWriter(staged: staged, sampleRate: 24_000, channels: 2, format: .float32)
        try writer.write([0.1, -0.1, 0.2, -0.2])
        // Before closing, the placeholder sizes already make a readable file.
        #expect(try WAVFile.read(contentsOf: staged.temporary).frameCount == 2)
        try writer.write([0.3, -0.3])
        #expect(throws: AudioFileError.partialFrame(sampleCount: 1, channels: 2)) { try writer.write([1]) }
        try writer.close()
        try staged.commit()
        let bytes = [UInt8](try Data(contentsOf: url))
        let dataSize = bytes[40...43].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let riffSize = bytes[4...7].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(dataSize == 24)
        #expect(riffSize == bytes.count - 8)
        let file = try WAVFile.read(contentsOf: url)
        #expect(file.samples == [0.1, -0.1, 0.2, -0.2, 0.3, -0.3])
        #expect(throws: AudioFileError.writerClosed(path: staged.temporary.path)) { try writer.write([0, 0]) }
        // The whole-file writer produces the same bytes.
        let whole = try WAVWriter.encode(file.samples, sampleRate: 24_000, channels: 2, format: .float32)
        #expect(whole == Data(bytes))
    }

    @Test func readMonoAveragesChannels() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-mono-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        try WAVWriter.write([1, 1], sampleRate: 8000, channels: 2, format: .float32, to: url)
        // Writing again replaces the file.
        try WAVWriter.write([0.5, 0, 0.25, 0.25], sampleRate: 44_100, channels: 2, format: .float32, to: url)
        let (samples, rate) = try WAVFile.readMono(contentsOf: url)
        #expect(samples == [0.25, 0.25])
        #expect(rate == 44_100)
        #expect(throws: AudioFileError.self) { try WAVFile.read(contentsOf: url.appendingPathExtension("missing")) }
    }

    @Test func pcm16ConversionsRoundTrip() {
        let values: [Int16] = [-32768, -1, 0, 1, 32767]
        let floats = SampleConversion.floats(fromPCM16: values)
        #expect(floats.first == -1)
        #expect(SampleConversion.pcm16(from: [-1, 0, 1, 2, .nan]) == [-32767, 0, 32767, 32767, 0])
        #expect(SampleConversion.interleave(SampleConversion.deinterleave([1, 2, 3, 4, 5, 6], channels: 3))
                == [1, 2, 3, 4, 5, 6])
    }

    @Test func remixAveragesToMonoAndSpreadsIt() {
        #expect(SampleConversion.remix([0.5, 0.25, -1, 1], from: 2, to: 1) == [0.375, 0])
        #expect(SampleConversion.remix([0.5, -0.25], from: 1, to: 3) == [0.5, 0.5, 0.5, -0.25, -0.25, -0.25])
        #expect(SampleConversion.remix([0.75, 0.25, 1, 0], from: 2, to: 2) == [0.75, 0.25, 1, 0])
        // A trailing partial frame is dropped, as in `mixdown`.
        #expect(SampleConversion.remix([1, 0, 0.5], from: 2, to: 4) == [0.5, 0.5, 0.5, 0.5])
    }

    @Test func decodesLittleEndianSamples() {
        let pcm16: [UInt8] = [0x00, 0x80, 0xFF, 0xFF, 0x00, 0x40]
        let floats = pcm16.withUnsafeBytes { SampleConversion.floats(decoding: $0, encoding: .integer(bits: 16), count: 3) }
        #expect(floats == [-1, -1 / 32768, 0.5])
        let float32 = [Float(0.25), -2].flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        #expect(float32.withUnsafeBytes { SampleConversion.floats(decoding: $0, encoding: .float(bits: 32), count: 2) } == [0.25, -2])
    }
}
