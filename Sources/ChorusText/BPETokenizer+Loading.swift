import Foundation

extension BPETokenizer {
    /// Loads a folder holding `vocab.json` and `merges.txt`, as CosyVoice ships its Qwen2 tokenizer.
    ///
    /// A `tokenizer_config.json` beside them, when present, names the tokenizer class
    /// (`Qwen2Tokenizer` or `GPT2Tokenizer`; Qwen2 when absent) and lists `added_tokens_decoder`.
    /// A folder with only a `tokenizer.json` is loaded from that.
    public init(folder: URL) throws {
        let files = FileManager.default
        let vocabularyURL = folder.appendingPathComponent("vocab.json")
        let mergesURL = folder.appendingPathComponent("merges.txt")
        let tokenizerJSON = folder.appendingPathComponent("tokenizer.json")
        if !files.fileExists(atPath: vocabularyURL.path), files.fileExists(atPath: tokenizerJSON.path) {
            try self.init(tokenizerJSON: tokenizerJSON)
            return
        }
        for (url, name) in [(vocabularyURL, "vocab.json"), (mergesURL, "merges.txt")]
        where !files.fileExists(atPath: url.path) {
            throw TokenizerError.missingFile(path: folder.path, expected: name)
        }

        var pattern = PreTokenizer.Pattern.qwen2
        var normalization = UnicodeNormalization.nfc
        var added: [AddedToken] = []
        let configURL = folder.appendingPathComponent("tokenizer_config.json")
        if files.fileExists(atPath: configURL.path) {
            let config = try JSONFile(configURL)
            let root = try config.object(config.root, "the top level")
            switch root["tokenizer_class"] as? String {
            case nil, "Qwen2Tokenizer", "Qwen2TokenizerFast":
                break
            case "GPT2Tokenizer", "GPT2TokenizerFast":
                pattern = .gpt2
                normalization = .none
            case let other?:
                throw TokenizerError.unsupported(
                    path: configURL.path, feature: "tokenizer_class \(other) (supported: Qwen2Tokenizer, GPT2Tokenizer)")
            }
            if let decoder = root["added_tokens_decoder"] {
                for (key, value) in try config.object(decoder, "added_tokens_decoder") {
                    guard let id = Int(key) else {
                        throw TokenizerError.malformedFile(path: configURL.path, reason: "added token id \(key.debugDescription) is not a number")
                    }
                    added.append(try config.addedToken(value, id: id, "added_tokens_decoder[\(key)]"))
                }
                added.sort { $0.id < $1.id }
            }
        }

        try self.init(
            vocabulary: try Self.readVocabulary(vocabularyURL), merges: try Self.readMerges(mergesURL),
            pattern: pattern, normalization: normalization, addedTokens: added, source: folder.path)
    }

    /// Loads a Hugging Face `tokenizer.json` whose model is byte-level BPE.
    ///
    /// Supported: normalizer none or NFC; pre-tokenizer `ByteLevel`, or `Split` with the GPT-2 or
    /// Qwen2 expression followed by `ByteLevel`; `added_tokens`; `TemplateProcessing` for single texts.
    public init(tokenizerJSON url: URL) throws {
        let file = try JSONFile(url)
        let root = try file.object(file.root, "the top level")
        let model = try file.object(root["model"] as Any, "model")
        let type = model["type"] as? String ?? "BPE"
        guard type == "BPE" else {
            throw TokenizerError.unsupported(path: url.path, feature: "model type \(type) (only BPE is byte-level)")
        }
        for key in ["continuing_subword_prefix", "end_of_word_suffix"] {
            if let affix = model[key] as? String, !affix.isEmpty {
                throw TokenizerError.unsupported(path: url.path, feature: "BPE \(key)")
            }
        }
        let vocabulary = try file.vocabulary(model["vocab"] as Any)
        let merges = try file.merges(model["merges"] as Any)

        let normalization = try file.normalization(root["normalizer"])
        let (pattern, addsPrefixSpace) = try file.preTokenizer(root["pre_tokenizer"])

        var added: [AddedToken] = []
        if let list = root["added_tokens"] as? [Any] {
            for (index, entry) in list.enumerated() {
                let fields = try file.object(entry, "added_tokens[\(index)]")
                guard let id = fields["id"] as? Int else {
                    throw TokenizerError.malformedFile(path: url.path, reason: "added_tokens[\(index)] has no integer id")
                }
                added.append(try file.addedToken(entry, id: id, "added_tokens[\(index)]"))
            }
        }

        try self.init(
            vocabulary: vocabulary, merges: merges, pattern: pattern, normalization: normalization,
            addedTokens: added, addsPrefixSpace: addsPrefixSpace,
            ignoresMerges: model["ignore_merges"] as? Bool ?? false, unknownToken: model["unk_token"] as? String,
            template: try file.template(root["post_processor"]), source: url.path)
    }

    static func readVocabulary(_ url: URL) throws -> [String: Int] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TokenizerError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        let fast = data.withUnsafeBytes { raw in FlatVocabularyJSON.parse(raw.bindMemory(to: UInt8.self)) }
        if let fast, fast.values.allSatisfy({ $0 >= 0 }) { return fast }
        // Not the plain shape (or not valid): the general parser reads it or says what is wrong.
        let file = try JSONFile(data: data, path: url.path)
        return try file.vocabulary(file.root)
    }

    /// Reads merges.txt: an optional `#version` line, then one `left right` pair per line.
    static func readMerges(_ url: URL) throws -> [(String, String)] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TokenizerError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        var merges: [(String, String)] = []
        merges.reserveCapacity(data.count / 8)
        var problem: String?
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            var lineNumber = 0
            while lineStart < bytes.count, problem == nil {
                lineNumber += 1
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                let next = lineEnd + 1
                if lineEnd > lineStart, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
                lineStart = next
                if line.isEmpty || (lineNumber == 1 && line.starts(with: "#version".utf8)) { continue }
                guard let space = line.firstIndex(of: 0x20), space > 0, space < line.count - 1,
                      !line[(space + 1)...].contains(0x20),
                      let left = String(validating: UnsafeBufferPointer(rebasing: line[..<space]), as: UTF8.self),
                      let right = String(validating: UnsafeBufferPointer(rebasing: line[(space + 1)...]), as: UTF8.self)
                else {
                    // A short excerpt: a bad line may be megabytes long (a binary file given as merges.txt).
                    let text = String(decoding: line.prefix(60), as: UTF8.self)
                    let shown = (line.count > 60 ? text + "..." : text).debugDescription
                    problem = "line \(lineNumber) (\(shown)) is not two UTF-8 tokens separated by one space"
                    break
                }
                merges.append((left, right))
            }
        }
        if let problem { throw TokenizerError.malformedFile(path: url.path, reason: problem) }
        // Without merges every word would be cut into single bytes: tokens the model never saw.
        guard !merges.isEmpty else {
            throw TokenizerError.malformedFile(path: url.path, reason: "it holds no merges; copy the tokenizer's full merges.txt")
        }
        return merges
    }
}

/// A parsed JSON file, with readers that name the file and the field in their errors.
struct JSONFile {
    let path: String
    let root: Any

    init(_ url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TokenizerError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        try self.init(data: data, path: url.path)
    }

    init(data: Data, path: String) throws {
        self.path = path
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw TokenizerError.malformedFile(path: path, reason: "not valid JSON (\(error.localizedDescription))")
        }
    }

    func object(_ value: Any, _ name: String) throws -> [String: Any] {
        guard let object = value as? [String: Any] else {
            throw TokenizerError.malformedFile(path: path, reason: "\(name) is not a JSON object")
        }
        return object
    }

    func vocabulary(_ value: Any) throws -> [String: Int] {
        let entries = try object(value, "the vocabulary")
        var vocabulary: [String: Int] = [:]
        vocabulary.reserveCapacity(entries.count)
        for (token, id) in entries {
            guard let id = id as? Int, id >= 0 else {
                throw TokenizerError.malformedFile(path: path, reason: "token \(token.debugDescription) has no non-negative integer id")
            }
            vocabulary[token] = id
        }
        return vocabulary
    }

    /// Merges as `"left right"` strings or as `["left", "right"]` pairs (newer tokenizer.json files).
    func merges(_ value: Any) throws -> [(String, String)] {
        guard let list = value as? [Any] else {
            throw TokenizerError.malformedFile(path: path, reason: "model.merges is not a list")
        }
        return try list.enumerated().map { index, entry in
            if let pair = entry as? [String], pair.count == 2 { return (pair[0], pair[1]) }
            if let line = entry as? String {
                let parts = line.split(separator: " ", omittingEmptySubsequences: false)
                if parts.count == 2 { return (String(parts[0]), String(parts[1])) }
            }
            throw TokenizerError.malformedFile(path: path, reason: "model.merges[\(index)] is not a pair of tokens")
        }
    }

    func addedToken(_ value: Any, id: Int, _ name: String) throws -> AddedToken {
        let fields = try object(value, name)
        guard let content = fields["content"] as? String, !content.isEmpty else {
            throw TokenizerError.malformedFile(path: path, reason: "\(name) has no content")
        }
        return AddedToken(
            content: content, id: id, isSpecial: fields["special"] as? Bool ?? false,
            stripsLeft: fields["lstrip"] as? Bool ?? false, stripsRight: fields["rstrip"] as? Bool ?? false,
            isSingleWord: fields["single_word"] as? Bool ?? false)
    }

    func normalization(_ value: Any?) throws -> UnicodeNormalization {
        guard let value, !(value is NSNull) else { return .none }
        let fields = try object(value, "normalizer")
        switch fields["type"] as? String {
        case "NFC":
            return .nfc
        case "Sequence":
            let steps = fields["normalizers"] as? [Any] ?? []
            let kinds = try steps.map { try normalization($0) }
            if kinds.isEmpty { return .none }
            if kinds.count == 1 { return kinds[0] }
            throw TokenizerError.unsupported(path: path, feature: "a normalizer sequence of \(kinds.count) steps")
        case let other:
            throw TokenizerError.unsupported(path: path, feature: "normalizer \(other ?? "without a type")")
        }
    }

    /// The split pattern and whether a prefix space is added.
    func preTokenizer(_ value: Any?) throws -> (PreTokenizer.Pattern, Bool) {
        guard let value, !(value is NSNull) else {
            throw TokenizerError.unsupported(path: path, feature: "no pre_tokenizer (byte-level BPE needs ByteLevel)")
        }
        let fields = try object(value, "pre_tokenizer")
        switch fields["type"] as? String {
        case "ByteLevel":
            guard fields["use_regex"] as? Bool ?? true else {
                throw TokenizerError.unsupported(path: path, feature: "ByteLevel without a split expression")
            }
            return (.gpt2, fields["add_prefix_space"] as? Bool ?? false)
        case "Sequence":
            let steps = try (fields["pretokenizers"] as? [Any] ?? []).map { try object($0, "pre_tokenizer step") }
            guard steps.count == 2, steps[0]["type"] as? String == "Split", steps[1]["type"] as? String == "ByteLevel",
                  steps[1]["use_regex"] as? Bool == false
            else {
                throw TokenizerError.unsupported(path: path, feature: "a pre_tokenizer sequence other than Split then ByteLevel")
            }
            let split = steps[0]
            let expression = (split["pattern"] as? [String: Any])?["Regex"] as? String ?? ""
            guard let pattern = PreTokenizer.Pattern(expression: expression) else {
                throw TokenizerError.unsupported(path: path, feature: "the split expression \(expression.debugDescription)")
            }
            guard (split["behavior"] as? String ?? "Isolated") == "Isolated", split["invert"] as? Bool != true else {
                throw TokenizerError.unsupported(path: path, feature: "a Split behaviour other than Isolated")
            }
            return (pattern, steps[1]["add_prefix_space"] as? Bool ?? false)
        case let other:
            throw TokenizerError.unsupported(path: path, feature: "pre_tokenizer \(other ?? "without a type")")
        }
    }

    /// The ids a `TemplateProcessing` post-processor puts around a single text.
    func template(_ value: Any?) throws -> (prefix: [Int], suffix: [Int]) {
        guard let value, !(value is NSNull) else { return ([], []) }
        let fields = try object(value, "post_processor")
        switch fields["type"] as? String {
        case "ByteLevel":
            return ([], [])
        case "TemplateProcessing":
            let specials = fields["special_tokens"] as? [String: Any] ?? [:]
            var prefix: [Int] = []
            var suffix: [Int] = []
            var seenSequence = false
            for item in fields["single"] as? [Any] ?? [] {
                let piece = try object(item, "post_processor.single item")
                if piece["Sequence"] != nil {
                    seenSequence = true
                } else if let special = piece["SpecialToken"] as? [String: Any], let name = special["id"] as? String {
                    guard let entry = specials[name] as? [String: Any], let ids = entry["ids"] as? [Int] else {
                        throw TokenizerError.malformedFile(path: path, reason: "post_processor names \(name.debugDescription) but does not define it")
                    }
                    if seenSequence { suffix += ids } else { prefix += ids }
                }
            }
            return (prefix, suffix)
        case let other:
            throw TokenizerError.unsupported(path: path, feature: "post_processor \(other ?? "without a type")")
        }
    }
}
