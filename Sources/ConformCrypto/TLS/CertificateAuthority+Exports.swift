import Foundation

/// The CA certificate in the forms devices take; never the key.
public enum CertificateExports {
    /// A file written by ``write(_:to:)``: what it is for, and its path.
    public struct File: Sendable, Hashable {
        public var purpose: String
        public var path: String
    }

    /// Writes `conform-ca.pem` (PEM: curl, Python, Java's keytool, browsers), `conform-ca.cer` (DER: Android's
    /// settings), `<subject_hash_old>.0` (PEM named for an Android system store) and `conform-ca.mobileconfig` (an
    /// iOS configuration profile) into `directory`, replacing earlier exports.
    public static func write(_ certificate: Certificate, to directory: String) throws(TLSError) -> [File] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TLSError("cannot create \(directory): \(error.localizedDescription)")
        }
        let files: [(String, String, Data)] = [
            ("PEM", "conform-ca.pem", Data(certificate.pem.utf8)),
            ("DER, Android settings", "conform-ca.cer", Data(certificate.der)),
            ("Android system store", certificate.subjectHashOld + ".0", Data(certificate.pem.utf8)),
            ("iOS profile", "conform-ca.mobileconfig", Data(mobileConfig(certificate).utf8)),
        ]
        var written: [File] = []
        for (purpose, name, data) in files {
            let path = directory + "/" + name
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw TLSError("cannot write \(path): \(error.localizedDescription)")
            }
            written.append(File(purpose: purpose, path: path))
        }
        return written
    }

    /// An unsigned iOS configuration profile with one `com.apple.security.root` payload holding the certificate;
    /// its identifiers and UUIDs follow from the certificate, so exporting again gives the same profile.
    public static func mobileConfig(_ certificate: Certificate) -> String {
        let der = certificate.der
        let digest = SHA256.hash(der)
        func uuid(_ salt: UInt8) -> String {
            var bytes = Array(SHA256.hash(digest + [salt]).prefix(16))
            bytes[6] = (bytes[6] & 0x0F) | 0x50
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let hex = Hex.encode(bytes).uppercased()
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                String(hex.dropFirst(range.lowerBound).prefix(range.count))
            }
            return parts.joined(separator: "-")
        }
        let id = Hex.encode(digest.prefix(8))
        let name = xml(certificate.subject)
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>conform-ca.cer</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>
            \(base64)
            \t\t\t</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>Adds the Conform local CA, which signs the certificates of conform's HTTPS listeners</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(name)</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>dev.conform.ca.\(id).certificate</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(uuid(1))</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>Trust the Conform local CA for testing an app against conform</string>
            \t<key>PayloadDisplayName</key>
            \t<string>\(name)</string>
            \t<key>PayloadIdentifier</key>
            \t<string>dev.conform.ca.\(id)</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(uuid(0))</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
    }

    private static func xml(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
