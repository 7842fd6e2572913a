internal import CBrotli
internal import CZlib
internal import CZstd
import Foundation

/// gzip, zlib, raw deflate, brotli and zstd, always with a limit on the output so a small bomb cannot fill memory.
public enum Decompression {
    /// Why bytes could not be decompressed.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        /// Decoding stopped at the output limit (no more than the limit was ever held): the data may be valid.
        public var overLimit = false
        public var description: String { message }

        public init(message: String, overLimit: Bool = false) {
            self.message = message
            self.overLimit = overLimit
        }
    }

    static func overLimit(_ limit: Int) -> Failure {
        Failure(message: "decompresses to more than \(limit) bytes", overLimit: true)
    }

    /// The most any one decompression may produce unless a caller says otherwise: 1 GiB.
    public static let defaultLimit = 1 << 30

    /// Inflates gzip or zlib data (told apart by their headers), or raw deflate when `raw`.
    public static func inflate(_ data: Data, raw: Bool = false, limit: Int = defaultLimit) throws(Failure) -> Data {
        var stream = z_stream()
        guard conform_inflate_init(&stream, raw ? -15 : 15 + 32) == Z_OK else {
            throw Failure(message: "cannot start zlib")
        }
        defer { inflateEnd(&stream) }
        guard data.count <= Int(UInt32.max) else { throw Failure(message: "compressed input over 4 GiB") }
        guard !data.isEmpty else { throw Failure(message: "the compressed data ends early") }
        var output = Data()
        var reserved = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let result: Int32 = data.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = UInt32(input.count)
            while true {
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > limit { return Z_BUF_ERROR - 100 }
                Self.append(chunk[0..<produced], to: &output, reserved: &reserved, limit: limit)
                if status == Z_STREAM_END { return Z_STREAM_END }
                if status != Z_OK { return status }
                if stream.avail_in == 0 && produced == 0 { return Z_DATA_ERROR - 100 }
            }
        }
        switch result {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR - 100: throw overLimit(limit)
        case Z_DATA_ERROR - 100: throw Failure(message: "the compressed data ends early")
        default:
            let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
            throw Failure(message: "not valid \(raw ? "deflate" : "gzip or zlib") data (\(reason))")
        }
    }

    /// Decodes brotli data.
    public static func brotli(_ data: Data, limit: Int = defaultLimit) throws(Failure) -> Data {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw Failure(message: "cannot start the brotli decoder")
        }
        defer { BrotliDecoderDestroyInstance(state) }
        var output = Data()
        var reserved = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let outcome: String? = data.withUnsafeBytes { input in
            var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var availableIn = input.count
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { out in
                    var nextOut = out.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                let produced = chunk.count - availableOut
                if output.count + produced > limit { return Self.overLimitMark }
                Self.append(chunk[0..<produced], to: &output, reserved: &reserved, limit: limit)
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return nil
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return "the compressed data ends early"
                default: return "not valid brotli data"
                }
            }
        }
        if let outcome { throw outcome == Self.overLimitMark ? overLimit(limit) : Failure(message: outcome) }
        return output
    }

    /// Decodes zstd data (one or more frames, as `Content-Encoding: zstd` sends them).
    public static func zstd(_ data: Data, limit: Int = defaultLimit) throws(Failure) -> Data {
        guard let stream = ZSTD_createDStream() else { throw Failure(message: "cannot start the zstd decoder") }
        defer { ZSTD_freeDStream(stream) }
        // A frame may ask for a window up to 2^31 bytes; the decoder refuses windows over 2^27 (128 MiB), as
        // the standard for the HTTP coding (RFC 8878 section 3) lets a receiver do.
        ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, 27)
        var output = Data()
        var reserved = 0
        var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        let outcome: String? = data.withUnsafeBytes { input in
            var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
            var pending = 1  // what the decoder still expects: 0 once a frame ended with nothing held back
            while true {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
                    var target = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    pending = ZSTD_decompressStream(stream, &target, &source)
                    return target.pos
                }
                if ZSTD_isError(pending) != 0 {
                    return "not valid zstd data (\(String(cString: ZSTD_getErrorName(pending))))"
                }
                if output.count + produced > limit { return Self.overLimitMark }
                Self.append(chunk[0..<produced], to: &output, reserved: &reserved, limit: limit)
                // Done when the input is used up and a frame has just ended (0), or the decoder has nothing
                // more to give (a partial chunk) while it still expects input.
                if source.pos == source.size && pending == 0 { return nil }
                if source.pos == source.size && produced < chunk.count { return "the compressed data ends early" }
            }
        }
        if let outcome { throw outcome == Self.overLimitMark ? overLimit(limit) : Failure(message: outcome) }
        return output
    }

    /// Appends decoded bytes, growing the output by doubling but never past `limit`, so what decoding holds stays
    /// within the limit (and one copy while growing) rather than the next power of two above it.
    private static func append(
        _ bytes: ArraySlice<UInt8>, to output: inout Data, reserved: inout Int, limit: Int
    ) {
        let needed = output.count + bytes.count
        if needed > reserved {
            reserved = min(limit, max(needed, output.count * 2))
            output.reserveCapacity(reserved)
        }
        output.append(contentsOf: bytes)
    }

    /// What the brotli and zstd loops return when the output passed its limit.
    private static let overLimitMark = "\u{0}over the limit"

    /// Whether `data` starts like gzip (`1f 8b`) or zlib (a deflate header whose check bits hold).
    public static func looksCompressed(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let a = data[data.startIndex]
        let b = data[data.startIndex + 1]
        if a == 0x1F && b == 0x8B { return true }
        return a & 0x0F == 8 && a >> 4 <= 7 && (UInt16(a) << 8 | UInt16(b)) % 31 == 0
    }
}
