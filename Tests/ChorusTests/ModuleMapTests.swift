import Foundation
import Testing

/// DEVELOPING.md's module map says what Package.swift declares: every target has a row, every row names a
/// target, and each row's imports are the target's own (a row may say "the engines" or "everything", and then
/// only what it names is checked, or "everything but ...", and then what it excludes).
@Suite struct ModuleMapTests {
    static let root = ReadmeExampleTests.root

    /// Package.swift's library and executable targets (not tests, not those under bench/) with the package's own
    /// targets each depends on.
    static func packageTargets() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|systemLibrary)\(name: "([A-Za-z0-9]+)"(?:, dependencies: \[([^\]]*)\])?([^\n]*)"#)
        // Dependencies kept in a variable (`let alsaOnLinux = Target.Dependency.target(name: "CChorusAlsa", ...)`).
        let variables = manifest.matches(of: try Regex(#"let ([A-Za-z]+) = Target\.Dependency\.target\(name: "([A-Za-z0-9]+)""#))
            .map { (String($0.output[1].substring!), String($0.output[2].substring!)) }
        var targets: [String: Set<String>] = [:]
        for match in manifest.matches(of: declaration) {
            let name = String(match.output[1].substring!)
            if match.output[3].substring!.contains(#"path: "bench/"#) { continue }  // bench/*Bench: one row for all
            let dependencies = match.output[2].substring.map(String.init) ?? ""
            var named = Set(dependencies.matches(of: try Regex(#""([A-Za-z0-9]+)""#)).map { String($0.output[1].substring!) })
            let words = Set(dependencies.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
            for (variable, target) in variables where words.contains(variable) { named.insert(target) }
            targets[name] = named
        }
        return targets
    }

    /// One row of the map: the targets in its first column and the words of its imports column.
    struct Row {
        var targets: [String]
        var imports: String
    }

    static func mapRows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("DEVELOPING.md"), encoding: .utf8)
        let layout = text.components(separatedBy: "## Layout")[1].components(separatedBy: "\n## ")[0]
        return layout.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { return nil }
            let names = cells[1].matches(of: try! Regex("`([^`]+)`")).map { String($0.output[1].substring!) }
            return Row(targets: names.filter { !$0.contains("/") }, imports: cells[3])
        }
    }

    /// The targets an imports cell names: "Models" is ChorusModels; parenthetical remarks and names that are
    /// not the package's targets (GRDB, swift-crypto) are left out.
    static func named(in cell: String, targets: Set<String>) -> Set<String> {
        let plain = cell.replacing(try! Regex(#"\([^)]*\)"#), with: "")
        return Set(plain.split(separator: ",").compactMap { word -> String? in
            let word = word.trimmingCharacters(in: .whitespaces)
            if targets.contains(word) { return word }
            if targets.contains("Chorus" + word) { return "Chorus" + word }
            return nil
        })
    }

    @Test func theMapHasARowForEveryTargetAndNoOther() throws {
        let targets = try Self.packageTargets()
        let mapped = try Self.mapRows().flatMap(\.targets)
        #expect(targets.count > 30, "Package.swift was not read: \(targets.keys.sorted())")
        #expect(Set(targets.keys).subtracting(mapped).isEmpty, "targets without a row: \(Set(targets.keys).subtracting(mapped).sorted())")
        #expect(Set(mapped).subtracting(targets.keys).isEmpty, "rows naming no target: \(Set(mapped).subtracting(targets.keys).sorted())")
    }

    @Test func eachRowSaysWhatItsTargetsImport() throws {
        let targets = try Self.packageTargets()
        let all = Set(targets.keys)
        for row in try Self.mapRows() where !row.targets.isEmpty {
            let declared = row.targets.map { targets[$0] ?? [] }
            let union = declared.reduce(into: Set<String>()) { $0.formUnion($1) }
            if let excluded = row.imports.components(separatedBy: "everything but ").dropFirst().first {
                let named = Self.named(in: excluded, targets: all)
                #expect(!named.isEmpty, "\(row.targets): excludes nothing known in '\(excluded)'")
                #expect(union.isDisjoint(with: named), "\(row.targets) imports \(union.intersection(named).sorted()), which the map excludes")
                continue
            }
            let named = Self.named(in: row.imports, targets: all)
            #expect(named.isSubset(of: union), "\(row.targets): the map names \(named.subtracting(union).sorted()), which Package.swift does not give")
            // "the engines", "everything", "what they measure": more than the row names, so only what it names is checked.
            if ["the engines", "everything", "what they measure"].contains(where: row.imports.contains) { continue }
            for (target, imports) in zip(row.targets, declared) {
                #expect(imports.isSubset(of: named), "\(target) imports \(imports.subtracting(named).sorted()), which the map leaves out")
            }
        }
    }
}
