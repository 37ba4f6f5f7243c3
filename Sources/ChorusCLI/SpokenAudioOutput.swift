import ArgumentParser
import ChorusAudio
import ChorusAudioCodecs
import ChorusFiles
import ChorusModels
import ChorusStreaming
import Foundation

extension AudioEncoding: ExpressibleByArgument {}

/// How `chorus speak` encodes what it writes, and the writers for each encoding.
enum SpokenAudioOutput {
    /// `--format` when given, else the output file's extension (`out.mp3`, `out.flac`), else WAV (a name with
    /// no extension, or standard output). 32-bit float samples exist only in WAV and raw PCM.
    static func encoding(output: String?, format: AudioEncoding?, sampleFormat: SampleFormatChoice) throws -> AudioEncoding {
        var encoding = format ?? .wav
        if format == nil, let output, output != "-" {
            let suffix = URL(fileURLWithPath: output).pathExtension
            if !suffix.isEmpty {
                guard let named = AudioEncoding(fileExtension: suffix) else {
                    throw ValidationError("Cannot tell how to write \(output): chorus writes .wav, .mp3, .flac, .opus, .aac and .pcm files; "
                                          + "rename it or add --format wav|mp3|flac|opus|aac|pcm.")
                }
                encoding = named
            }
        }
        if sampleFormat == .float32, encoding != .wav, encoding != .pcm {
            throw ValidationError("--sample-format float32 applies to WAV and PCM; \(encoding.rawValue) is written from 16-bit samples, so leave it out.")
        }
        return encoding
    }
}

/// Samples to bytes in one encoding, chunk by chunk, onto a file handle: MP3, FLAC, Opus and AAC frames through
/// `AudioStreamEncoder` as each is complete, WAV and raw PCM in the sample format asked for. WAV and FLAC
/// headers go out with the length unknown; when the handle is a regular file (a staged file, or standard
/// output sent to one), `finish` goes back and writes the real length, so readers see the true duration.
struct EncodedAudioWriter: Sendable {
    let handle: FileHandle
    private var encoder: AudioStreamEncoder?
    private let sampleFormat: WAVSampleFormat
    private let sampleRate: Int
    private let encoding: AudioEncoding
    private var headerPending: Data?
    /// Where the first byte went, when the handle is a regular file that can be written back into.
    private let start: off_t?
    /// Frames written so far.
    private(set) var frameCount = 0

    init(handle: FileHandle, encoding: AudioEncoding, sampleRate: Int, sampleFormat: WAVSampleFormat) throws {
        self.handle = handle
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.encoding = encoding
        start = Self.rewritableStart(of: handle.fileDescriptor)
        switch encoding {
        case .mp3, .flac, .opus, .aac:
            encoder = try AudioStreamEncoder(encoding: encoding, sampleRate: sampleRate)
        case .wav:
            headerPending = try WAVWriter.header(sampleRate: sampleRate, channels: 1, format: sampleFormat, dataBytes: Int(UInt32.max))
        case .pcm:
            break
        }
    }

    mutating func write(_ samples: [Float]) throws {
        var bytes = headerPending ?? Data()
        headerPending = nil
        if encoder != nil {
            bytes.append(try encoder!.encode(samples))
        } else {
            bytes.append(contentsOf: WAVWriter.encodeSamples(samples, format: sampleFormat))
        }
        try handle.write(contentsOf: bytes)
        frameCount += samples.count
    }

    /// The encoder's last frames (or a WAV header when no audio came), then the real length into the header
    /// where the handle allows.
    mutating func finish() throws {
        var bytes = headerPending ?? Data()
        headerPending = nil
        if encoder != nil { bytes.append(try encoder!.finish()) }
        if !bytes.isEmpty { try handle.write(contentsOf: bytes) }
        guard let start else { return }
        let header: (offset: Int, bytes: Data)?
        if encoding == .wav {
            let dataBytes = frameCount * sampleFormat.bitsPerSample / 8
            header = dataBytes <= Int(UInt32.max) - 36
                ? (0, try WAVWriter.header(sampleRate: sampleRate, channels: 1, format: sampleFormat, dataBytes: dataBytes)) : nil
        } else {
            header = try encoder?.completedHeader()
        }
        guard let header else { return }
        let written = header.bytes.withUnsafeBytes { pwrite(handle.fileDescriptor, $0.baseAddress, $0.count, start + off_t(header.offset)) }
        guard written == header.bytes.count else {
            throw AudioFileError.writeFailed(path: "the output", reason: String(cString: strerror(errno)))
        }
    }

    /// The current offset of `descriptor` when it is a regular file opened without O_APPEND (where pwrite
    /// writes where it is told); nil for pipes, terminals and devices, whose start cannot be written again.
    private static func rewritableStart(of descriptor: Int32) -> off_t? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        guard fcntl(descriptor, F_GETFL) & O_APPEND == 0 else { return nil }
        let offset = lseek(descriptor, 0, SEEK_CUR)
        return offset >= 0 ? offset : nil
    }
}

/// `chorus speak -o FILE` in any encoding: WAV through `WAVStreamWriter` (the header gets the real sizes when the
/// file is done), the others through `EncodedAudioWriter`, all into the staged file that is renamed into place.
enum SpokenFileWriter {
    case wav(WAVStreamWriter)
    case encoded(EncodedAudioWriter)

    init(staged: StagedFile, encoding: AudioEncoding, sampleRate: Int, sampleFormat: WAVSampleFormat) throws {
        if encoding == .wav {
            self = .wav(try WAVStreamWriter(staged: staged, sampleRate: sampleRate, format: sampleFormat))
            return
        }
        let handle: FileHandle
        do {
            handle = try staged.create()
        } catch {
            throw AudioFileError.cannotCreate(path: staged.destination.path, reason: AudioFileError.creationReason(for: error))
        }
        self = .encoded(try EncodedAudioWriter(handle: handle, encoding: encoding, sampleRate: sampleRate, sampleFormat: sampleFormat))
    }

    var frameCount: Int {
        switch self {
        case .wav(let writer): writer.frameCount
        case .encoded(let writer): writer.frameCount
        }
    }

    mutating func write(_ samples: [Float]) throws {
        switch self {
        case .wav(let writer):
            try writer.write(samples)
        case .encoded(var writer):
            try writer.write(samples)
            self = .encoded(writer)
        }
    }

    mutating func close() throws {
        switch self {
        case .wav(let writer):
            try writer.close()
        case .encoded(var writer):
            try writer.finish()
            try writer.handle.close()
            self = .encoded(writer)
        }
    }
}

/// `chorus speak --stream` into MP3, FLAC or a raw PCM file: a file staged and renamed into place when the stream
/// ends, or standard output (`-o -`). WAV files and WAV or PCM on standard output keep `WAVFileSink` and `PCMStreamSink`.
final class EncodedAudioSink: AudioSink {
    enum Destination: Sendable {
        case file(URL, OutputTarget.Policy)
        case standardOutput
    }

    let name: String
    private let destination: Destination
    private let encoding: AudioEncoding
    private let sampleFormat: WAVSampleFormat
    private let state = Locked<(writer: EncodedAudioWriter, staged: StagedFile?)?>(nil)

    init(_ destination: Destination, encoding: AudioEncoding, sampleFormat: WAVSampleFormat = .pcm16) {
        self.destination = destination
        self.encoding = encoding
        self.sampleFormat = sampleFormat
        switch destination {
        case .file(let url, _): name = "\(encoding.rawValue.uppercased()) file \(url.path)"
        case .standardOutput: name = "standard output"
        }
    }

    private var path: String {
        switch destination {
        case .file(let url, _): url.path
        case .standardOutput: "standard output"
        }
    }

    func open(for source: AudioFormat, configuration: AudioPipelineConfiguration) async throws -> SinkFormat {
        guard source.channels == 1 else {
            throw AudioSinkError.cannotCreate(path: path, reason: "\(encoding.rawValue) is written mono, and the audio has \(source.channels) channels")
        }
        var staged: StagedFile?
        do {
            let handle: FileHandle
            switch destination {
            case .file(let url, let policy):
                staged = try StagedFile(destination: url, policy: policy)
                handle = try staged!.create()
            case .standardOutput:
                handle = .standardOutput
            }
            let writer = try EncodedAudioWriter(handle: handle, encoding: encoding, sampleRate: source.sampleRate, sampleFormat: sampleFormat)
            state.withLock { $0 = (writer, staged) }
        } catch {
            staged?.discard()
            throw AudioSinkError.cannotCreate(path: path, reason: AudioFileError.reason(for: error))
        }
        return SinkFormat(sampleRate: source.sampleRate, channels: 1)
    }

    func schedule(_ samples: [Float], onPlayed: @escaping @Sendable () -> Void) async throws {
        try state.withLock { state in
            guard state != nil else { throw AudioSinkError.notOpen(sink: name) }
            do {
                try state!.writer.write(samples)
            } catch {
                throw AudioSinkError.writeFailed(sink: name, reason: AudioFileError.reason(for: error))
            }
        }
        onPlayed()
    }

    func play() async throws {}

    func finish() async throws {
        guard var open = take() else { return }
        do {
            try open.writer.finish()
            if let staged = open.staged {
                try open.writer.handle.close()
                try staged.commit()
            }
        } catch {
            open.staged?.discard()
            throw AudioSinkError.writeFailed(sink: name, reason: AudioFileError.reason(for: error))
        }
    }

    func stop() async {
        guard let open = take(), let staged = open.staged else { return }
        try? open.writer.handle.close()
        staged.discard()
    }

    private func take() -> (writer: EncodedAudioWriter, staged: StagedFile?)? {
        state.withLock { state in
            defer { state = nil }
            return state
        }
    }
}
