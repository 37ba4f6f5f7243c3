#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a folder and the files in it look like on disk: each one's name, identity (device and inode), size and
/// time of change. Two equal stamps mean nothing was swapped in or written over between them (to the clock's
/// resolution), so `VoiceStore.Cache` can keep what it read. This is the platform edge of that cache.
struct FolderStamp: Equatable {
    struct Item: Equatable {
        var name: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    var items: [Item]

    init(_ folder: URL) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        items = ([""] + names).compactMap { name in
            Self.item(name, path: name.isEmpty ? folder.path : folder.appendingPathComponent(name).path)
        }
    }

    private static func item(_ name: String, path: String) -> Item? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let changed = info.st_mtimespec
        #else
        let changed = info.st_mtim
        #endif
        return Item(name: name, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                    seconds: Int(changed.tv_sec), nanoseconds: Int(changed.tv_nsec))
    }
}
