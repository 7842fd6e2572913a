internal import CYAML
public import ConformDiagnostics

/// Limits that keep hostile input from crashing the loader or exhausting memory.
public struct YAMLLimits: Sendable, Hashable {
    /// Largest accepted file, in bytes.
    public var maxBytes: Int
    /// Deepest accepted nesting of collections.
    public var maxDepth: Int
    /// Most nodes the document may expand to once aliases are resolved (alias-bomb guard).
    public var maxNodes: Int

    public init(maxBytes: Int = 8 << 20, maxDepth: Int = 200, maxNodes: Int = 1_000_000) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    public static let `default` = YAMLLimits()
}

/// Every problem found in one file; a loader reports them all, not only the first.
public struct YAMLParseFailure: Error, Sendable, Hashable {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// Every diagnostic rendered against `source`, one after another.
    public func rendered(source: String, color: Bool = false) -> String {
        diagnostics.map { $0.rendered(source: source, color: color) }.joined(separator: "\n")
    }
}

/// The entry points of the YAML layer: parse to a tree of ``YAMLNode``, resolve scalars, emit, render diagnostics.
public enum YAML {
    /// Parses the single document in `bytes` (named `file` in diagnostics); `nil` for an empty document.
    ///
    /// Refuses, with every problem it can find listed in file order: files over `limits.maxBytes`, invalid UTF-8,
    /// syntax errors, several documents, duplicate keys, undefined aliases, nesting deeper than `limits.maxDepth`
    /// and documents that expand past `limits.maxNodes` nodes.
    public static func parse(
        _ bytes: [UInt8], file: String, limits: YAMLLimits = .default
    ) throws(YAMLParseFailure) -> YAMLNode? {
        try parse(bytes, file: file, limits: limits, streaming: ItemStream(paths: [])) { _ in }
    }

    /// Parses like ``parse(_:file:limits:)``, but hands each item of the sequences `streaming` names to `take` as
    /// soon as the item is complete, and keeps only an empty scalar with the item's marks in its place: a loader
    /// turns a long list into its own model item by item, and the whole tree is never in memory at once. Items
    /// are handed over in document order, also when the document turns out to have errors.
    public static func parse(
        _ bytes: [UInt8], file: String, limits: YAMLLimits = .default, streaming: ItemStream,
        take: (StreamedItem) -> Void
    ) throws(YAMLParseFailure) -> YAMLNode? {
        let start = SourceMark(line: 1, column: 1)
        guard bytes.count <= limits.maxBytes else {
            throw YAMLParseFailure([
                Diagnostic(
                    .yamlLimit, file: file, mark: start,
                    message: "file is \(bytes.count) bytes, more than the limit of \(limits.maxBytes) bytes",
                    help: "split the file into smaller suites, or raise the size limit")
            ])
        }
        let outcome = bytes.withUnsafeBufferPointer { buffer -> Result<YAMLNode?, YAMLParseFailure> in
            if let bad = InputCheck.firstInvalidUTF8(in: buffer) {
                let byte = String(buffer[bad], radix: 16, uppercase: true)
                return .failure(
                    YAMLParseFailure([
                        Diagnostic(
                            .yamlEncoding, file: file, mark: InputCheck.mark(atOffset: bad, in: buffer),
                            message: "invalid UTF-8 (byte 0x\(byte.count == 1 ? "0" + byte : byte))",
                            help: "save the file as UTF-8; the bytes from here on do not form a UTF-8 character")
                    ]))
            }
            return compose(buffer, file: file, limits: limits, streaming: streaming, take: take)
        }
        return try outcome.get()
    }

    /// Parses `text` like ``parse(_:file:limits:)``.
    public static func parse(
        _ text: String, file: String, limits: YAMLLimits = .default
    ) throws(YAMLParseFailure) -> YAMLNode? {
        try parse(Array(text.utf8), file: file, limits: limits)
    }

    /// Drives libyaml's event parser over the pinned `buffer` and feeds a ``Composer``.
    private static func compose(
        _ buffer: UnsafeBufferPointer<UInt8>, file: String, limits: YAMLLimits, streaming: ItemStream,
        take: (StreamedItem) -> Void
    ) -> Result<YAMLNode?, YAMLParseFailure> {
        var composer = Composer(file: file, limits: limits, streaming: streaming)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            composer.report(
                SourceMark(line: 1, column: 1), "cannot initialise the YAML parser", help: nil, id: .yamlLimit)
            return .failure(YAMLParseFailure(composer.diagnostics))
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .success(nil) }
        yaml_parser_set_input_string(&parser, base, buffer.count)
        var event = yaml_event_t()
        loop: while true {
            guard yaml_parser_parse(&parser, &event) == 1 else {
                composer.reportSyntaxError(parser, in: buffer)
                break
            }
            defer { yaml_event_delete(&event) }
            let mark = SourceMark(event.start_mark)
            let step: Composer.Step
            switch event.type {
            case YAML_STREAM_END_EVENT:
                break loop
            case YAML_DOCUMENT_START_EVENT:
                step = composer.documentStart(mark: mark)
            case YAML_SCALAR_EVENT:
                let data = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
                step = composer.scalar(
                    text, style: .init(data.style), tag: tagName(data.tag), anchor: string(data.anchor), mark: mark,
                    endMark: SourceMark(event.end_mark))
            case YAML_SEQUENCE_START_EVENT:
                let data = event.data.sequence_start
                step = composer.collectionStart(
                    sequence: true, tag: tagName(data.tag), anchor: string(data.anchor), mark: mark)
            case YAML_MAPPING_START_EVENT:
                let data = event.data.mapping_start
                step = composer.collectionStart(
                    sequence: false, tag: tagName(data.tag), anchor: string(data.anchor), mark: mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                step = composer.collectionEnd(endMark: SourceMark(event.end_mark))
            case YAML_ALIAS_EVENT:
                step = composer.alias(
                    string(event.data.alias.anchor) ?? "", mark: mark, endMark: SourceMark(event.end_mark))
            default:
                step = .proceed
            }
            if composer.hasCompletedItems {
                for item in composer.completedItems { take(item) }
                composer.clearCompletedItems()
            }
            if step == .stop { break }
        }
        guard composer.diagnostics.isEmpty else {
            return .failure(YAMLParseFailure(Diagnostic.inSourceOrder(composer.diagnostics)))
        }
        return .success(composer.document)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The tag with the core prefix `tag:yaml.org,2002:` shortened to `!!`.
    private static func tagName(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let tag = string(pointer) else { return nil }
        let core = "tag:yaml.org,2002:"
        return tag.hasPrefix(core) ? "!!" + tag.dropFirst(core.count) : tag
    }
}

extension SourceMark {
    /// Converts libyaml's 0-based mark to a 1-based one; this is the only place the conversion happens.
    init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

extension YAMLNode.ScalarStyle {
    init(_ style: yaml_scalar_style_t) {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: self = .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: self = .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: self = .literal
        case YAML_FOLDED_SCALAR_STYLE: self = .folded
        default: self = .plain
        }
    }
}
