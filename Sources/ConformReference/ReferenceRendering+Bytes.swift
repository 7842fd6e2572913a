import ConformCore
import Foundation

extension ReferenceRendering {
    /// The answer carrying ``installation(_:includePushRegId:explicitNulls:)``, its JSON written straight into bytes:
    /// the same members in the same order, without building the tree first (M1 answers every registration with it).
    static func installationResponse(
        _ i: Installation, includePushRegId: Bool = true, explicitNulls: Bool = false
    ) -> HTTPResponse {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        if includePushRegId {
            key("pushRegId")
            JSONValue.writeString(i.pushRegId, into: &out)
        }
        // Stored fields never hold a managed key, so no member below is written twice.
        for (name, value) in i.fields where !managedInstallationKeys.contains(name) {
            key(name)
            value.writeCompact(into: &out)
        }
        if explicitNulls {
            for name in optionalInstallationFields where i.fields[name] == nil {
                key(name)
                out.append(contentsOf: "null".utf8)
            }
        }
        for (name, flag) in [
            ("regEnabled", i.regEnabled), ("isPrimary", i.isPrimary), ("notificationsEnabled", i.notificationsEnabled),
        ] {
            key(name)
            out.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        }
        key("customAttributes")
        JSONValue.object(i.customAttributes).writeCompact(into: &out)
        out.append(UInt8(ascii: "}"))
        return HTTPResponse(
            status: 200, headerFields: ["Content-Type": "application/json", "Content-Length": String(out.count)],
            body: Data(out))
    }
}
