import Foundation

/// An audio file's bytes for a reader to judge and decode, mapped rather than loaded, so a large file costs
/// address space and not memory until its samples are read. A folder or an unreadable file is refused with
/// `AudioFileError.cannotRead`, naming the path.
public enum AudioFileBytes {
    public static func mapped(_ url: URL, options: Data.ReadingOptions = .alwaysMapped) throws -> Data {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw AudioFileError.cannotRead(path: url.path, reason: "it is a folder, not a file")
        }
        do {
            return try Data(contentsOf: url, options: options)
        } catch {
            throw AudioFileError.cannotRead(path: url.path, reason: AudioFileError.reason(for: error))
        }
    }
}
