import ConformDiagnostics

extension YAML {
    /// Byte-level checks that run before libyaml sees the input: UTF-8 validity and offset-to-mark conversion.
    enum InputCheck {
        /// The offset of the first byte that does not start a well-formed UTF-8 sequence, or `nil`.
        static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
            var index = 0
            let count = bytes.count
            while index < count {
                let lead = bytes[index]
                if lead < 0x80 {
                    index += 1
                    continue
                }
                let length: Int
                var lower: UInt8 = 0x80
                var upper: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0:
                    length = 3
                    lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED:
                    length = 3
                    upper = 0x9F
                case 0xF0:
                    length = 4
                    lower = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4:
                    length = 4
                    upper = 0x8F
                default: return index
                }
                guard index + 1 < count, (lower...upper).contains(bytes[index + 1]) else { return index }
                for offset in 2..<length {
                    guard index + offset < count, (0x80...0xBF).contains(bytes[index + offset]) else { return index }
                }
                index += length
            }
            return nil
        }

        /// The 1-based mark of byte `offset`; lines end at `\n`, `\r\n` or `\r`, columns count characters.
        static func mark(atOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourceMark {
            var line = 1
            var column = 1
            var index = 0
            let end = min(offset, bytes.count)
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte == UInt8(ascii: "\r") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                        index += 1
                        if index == end { break }
                    }
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
                index += 1
            }
            return SourceMark(line: line, column: column)
        }
    }
}
