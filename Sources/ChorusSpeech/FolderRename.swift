#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation

/// Puts a filled folder in place in one step: without replacing (fails when the destination exists, so two
/// writers of one name never both succeed) or swapping it with the folder there (the old one ends up at the
/// source's name), where the system can. This is the platform edge of `VoiceStore`.
enum FolderRename {
    enum Outcome: Equatable {
        case moved
        case destinationExists
        case failed(Int32)
    }

    static func move(_ source: URL, to destination: URL, replacing: Bool) -> Outcome {
        let exists = FileManager.default.fileExists(atPath: destination.path)
        if replacing, exists {
            if exchange(source.path, destination.path) == 0 { return .moved }
            // No atomic swap here (an old kernel or a file system without it): set the old aside, then move.
            let aside = source.path + ".old"
            guard rename(destination.path, aside) == 0 else { return .failed(errno) }
            guard rename(source.path, destination.path) == 0 else {
                let code = errno
                _ = rename(aside, destination.path)
                return .failed(code)
            }
            try? FileManager.default.removeItem(atPath: aside)
            return .moved
        }
        switch renameNoReplace(source.path, destination.path) {
        case 0: return .moved
        case EEXIST, ENOTEMPTY: return .destinationExists
        case let code: return .failed(code)
        }
    }

    #if canImport(Darwin)
    private static func exchange(_ a: String, _ b: String) -> Int32 { renamex_np(a, b, UInt32(RENAME_SWAP)) }

    private static func renameNoReplace(_ a: String, _ b: String) -> Int32 {
        renamex_np(a, b, UInt32(RENAME_EXCL)) == 0 ? 0 : errno
    }
    #else
    private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    /// glibc's renameat2 (2.28 on), looked up at run time since the Glibc module does not declare it.
    private static let renameat2: Renameat2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Renameat2.self) }
    private static let currentDirectory: Int32 = -100  // AT_FDCWD
    private static let noReplace: UInt32 = 1  // RENAME_NOREPLACE
    private static let swap: UInt32 = 2  // RENAME_EXCHANGE

    private static func exchange(_ a: String, _ b: String) -> Int32 {
        guard let renameat2 else { return -1 }
        return renameat2(currentDirectory, a, currentDirectory, b, swap)
    }

    private static func renameNoReplace(_ a: String, _ b: String) -> Int32 {
        if let renameat2, renameat2(currentDirectory, a, currentDirectory, b, noReplace) == 0 { return 0 }
        if renameat2 != nil, errno != EINVAL, errno != ENOSYS { return errno }
        // Without the flag: rename(2) refuses to replace a folder that has files, which a voice always has.
        if FileManager.default.fileExists(atPath: b) { return EEXIST }
        return rename(a, b) == 0 ? 0 : errno
    }
    #endif
}
