import ConformCore
import Foundation

extension ReferenceRendering {
    /// Starts an object's member `name` in `out`: a comma unless it is the `first`, the name and its colon.
    private static func member(_ name: String, first: inout Bool, into out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        JSONValue.writeString(name, into: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// The answer carrying ``installation(_:includePushRegId:explicitNulls:)``, its JSON written straight into bytes:
    /// the same members in the same order, without building the tree first (M1 answers every registration with it).
    static func installationResponse(
        _ i: Installation, includePushRegId: Bool = true, explicitNulls: Bool = false
    ) -> HTTPResponse {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) { member(name, first: &first, into: &out) }
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
        return jsonResponse(out)
    }

    /// The answer carrying ``user(_:instances:showStale:explicitNulls:)`` without `instances` (personalize, M4 and M5),
    /// its JSON written straight into bytes: the same members in the same order, without building the tree first.
    static func userResponse(_ p: Person, showStale: Bool = false, explicitNulls: Bool = false) -> HTTPResponse {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) { member(name, first: &first, into: &out) }
        func null() { out.append(contentsOf: "null".utf8) }
        func strings(_ values: [String], member: String?) {
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if let member {
                    out.append(UInt8(ascii: "{"))
                    JSONValue.writeString(member, into: &out)
                    out.append(UInt8(ascii: ":"))
                    JSONValue.writeString(value, into: &out)
                    out.append(contentsOf: #","preferred":false}"#.utf8)
                } else {
                    JSONValue.writeString(value, into: &out)
                }
            }
            out.append(UInt8(ascii: "]"))
        }
        if let ext = p.externalUserId ?? (showStale ? p.staleExternalUserId : nil) {
            key("externalUserId")
            JSONValue.writeString(ext, into: &out)
        } else if explicitNulls {
            key("externalUserId")
            null()
        }
        for name in standardAttributes {
            if let value = p.attributes[name] {
                key(name)
                (name == "gender" ? mobileGender(value) : value).writeCompact(into: &out)
            } else if explicitNulls {
                key(name)
                null()
            }
        }
        if !p.phones.isEmpty || explicitNulls {
            key("phones")
            strings(p.phones, member: "number")
        }
        if !p.emails.isEmpty || explicitNulls {
            key("emails")
            strings(p.emails, member: "address")
        }
        if !p.tags.isEmpty || explicitNulls {
            key("tags")
            strings(p.tags, member: nil)
        }
        if !p.customAttributes.isEmpty {
            key("customAttributes")
            JSONValue.object(p.customAttributes).writeCompact(into: &out)
        } else if explicitNulls {
            key("customAttributes")
            null()
        }
        key("type")
        JSONValue.writeString(p.type, into: &out)
        if explicitNulls {
            key("instances")
            null()
        }
        out.append(UInt8(ascii: "}"))
        return jsonResponse(out)
    }

    /// A 200 carrying `json`, with the headers ``HTTPResponse/json(_:_:headers:)`` gives.
    private static func jsonResponse(_ json: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: 200, headerFields: ["Content-Type": "application/json", "Content-Length": String(json.count)],
            body: Data(json))
    }
}
