import ChorusFiles
import Foundation

/// Writes a WAV file a chunk at a time, for audio whose length is not known up front.
///
/// The header is written first with the sizes 0xFFFFFFFF ("until the end of the file"), so a file cut
/// short by a crash still reads; `close()` seeks back and writes the real sizes.
public final class WAVStreamWriter {
    /// Where the file is written (the staged file's temporary name).
    public let url: URL
    /// Frames per second.
    public let sampleRate: Int
    /// Channels per frame; `write` takes interleaved frames.
    public let channels: Int
    /// The on-disk encoding.
    public let format: WAVSampleFormat
    /// Bytes of sample data written so far.
    public private(set) var dataBytes = 0

    private var handle: FileHandle?

    /// Creates `staged`'s temporary file and writes the header; `close()`, then `staged.commit()`, puts the
    /// finished file in place. `StagedFile.create` opens with open(2), so a device destination (`/dev/null`)
    /// is written to, not replaced by a file as FileManager would.
    public init(staged: StagedFile, sampleRate: Int, channels: Int = 1, format: WAVSampleFormat = .pcm16) throws {
        url = staged.temporary
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
        let header = try WAVWriter.header(sampleRate: sampleRate, channels: channels, format: format,
                                          dataBytes: Int(UInt32.max))
        do {
            handle = try staged.create(contents: header)
        } catch {
            throw AudioFileError.cannotCreate(path: url.path, reason: AudioFileError.creationReason(for: error))
        }
    }

    deinit { try? close() }

    /// Frames written so far.
    public var frameCount: Int { dataBytes / (channels * format.bitsPerSample / 8) }

    /// Appends interleaved frames (clipped to [-1, 1] for 16-bit).
    public func write(_ samples: [Float]) throws {
        guard let handle else { throw AudioFileError.writerClosed(path: url.path) }
        guard samples.count % channels == 0 else {
            throw AudioFileError.partialFrame(sampleCount: samples.count, channels: channels)
        }
        do {
            try handle.write(contentsOf: WAVWriter.encodeSamples(samples, format: format))
        } catch {
            throw AudioFileError.writeFailed(path: url.path, reason: AudioFileError.reason(for: error))
        }
        dataBytes += samples.count * format.bitsPerSample / 8
    }

    /// Writes the final sizes into the header and closes the file; later calls do nothing.
    public func close() throws {
        guard let handle else { return }
        self.handle = nil
        do {
            let header = try WAVWriter.header(sampleRate: sampleRate, channels: channels, format: format,
                                              dataBytes: dataBytes)
            // A pipe cannot seek back; its header keeps the "size unknown" values streams use.
            if lseek(handle.fileDescriptor, 0, SEEK_SET) == 0 { try handle.write(contentsOf: header) }
            try handle.close()
        } catch {
            try? handle.close()
            throw AudioFileError.writeFailed(path: url.path, reason: AudioFileError.reason(for: error))
        }
    }
}
