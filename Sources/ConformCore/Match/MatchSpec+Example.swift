import Foundation

extension MatchSpec {
    /// A value this matcher accepts, for playing the server side of a suite: literals render as written,
    /// operators give a simple example (`$type: string` a fresh id, `$gte: 1` the bound, `$oneOf` its first).
    /// Returns `nil` for what has no value (`$absent`) and where no example can be made (`$regex`, `$not`).
    public func example(in scope: TemplateScope) -> JSONValue? {
        switch self {
        case .literal(let t): return try? t.render(in: scope)
        case .object(let fields, _):
            var out = JSONObject()
            for field in fields {
                if let value = field.value.example(in: scope) { out[field.key] = value }
            }
            return .object(out)
        case .array(let elements), .contains(let elements), .anyOrder(let elements):
            return .array(elements.compactMap { $0.example(in: scope) })
        case .type(let name):
            switch name {
            case "string": return .string(UUID().uuidString.lowercased())
            case "integer", "number": return .int(0)
            case "boolean": return .bool(true)
            case "object": return .object(JSONObject())
            case "array": return .array([])
            default: return .null
            }
        case .any: return .string("any")
        case .oneOf(let alternatives): return alternatives.lazy.compactMap { $0.example(in: scope) }.first
        case .range(let r):
            if let lower = r.lower { return Self.number(r.lowerInclusive ? lower : lower + 1) }
            if let upper = r.upper { return Self.number(r.upperInclusive ? upper : upper - 1) }
            return .int(0)
        case .length(let inner):
            guard case .int(let n)? = inner.example(in: scope), (0...1000).contains(n) else {
                return .array([.string("x")])
            }
            return .array(Array(repeating: .string("x"), count: n))
        case .allOf(let all):
            // The first part's example that satisfies every part.
            let candidates = all.compactMap { $0.example(in: scope) }
            return candidates.first { self.matches($0, in: scope) } ?? candidates.last
        case .statusClass(let c): return .int(c * 100)
        case .not(let inner):
            let candidates: [JSONValue] = [.object(JSONObject()), .array([]), "", 0, .bool(false), .null]
            return candidates.first { !inner.matches($0, in: scope) }
        case .absent, .noValue, .regex: return nil
        }
    }

    private static func number(_ d: Double) -> JSONValue {
        d == d.rounded() && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
    }
}

extension JSONValue {
    /// A copy with `value` at `path`, creating objects (and extending arrays) on the way.
    public func setting(_ path: ArraySlice<JSONPath.Component>, to value: JSONValue) -> JSONValue {
        guard let first = path.first else { return value }
        let rest = path.dropFirst()
        switch first {
        case .key(let key):
            var object = objectValue ?? JSONObject()
            object[key] = (object[key] ?? .null).setting(rest, to: value)
            return .object(object)
        case .index(let i):
            var array = arrayValue ?? []
            guard i >= 0, i <= 1000 else { return self }
            while array.count <= i { array.append(.null) }
            array[i] = array[i].setting(rest, to: value)
            return .array(array)
        }
    }

    /// `other` laid over `self`: objects merge member by member; an array's element merges into the first element it
    /// does not contradict (several groups each asking one fact of the same element, `[{messageCount: 0}]` and
    /// `[{status: …}]`), else the array gains it (several groups each asking for an element); anything else is
    /// replaced.
    public func overlaid(with other: JSONValue) -> JSONValue {
        if case .array(var base) = self, case .array(let top) = other {
            for element in top where !base.contains(element) {
                if let i = base.firstIndex(where: { $0.agrees(with: element) }) {
                    base[i] = base[i].overlaid(with: element)
                } else {
                    base.append(element)
                }
            }
            return .array(base)
        }
        guard case .object(var base) = self, case .object(let top) = other else { return other }
        for (key, value) in top { base[key] = base[key].map { $0.overlaid(with: value) } ?? value }
        return .object(base)
    }

    /// Whether two objects can be one: no member both have differs (recursively); other values never merge.
    func agrees(with other: JSONValue) -> Bool {
        guard case .object(let a) = self, case .object(let b) = other else { return false }
        for (key, value) in b {
            guard let mine = a[key], mine != value else { continue }
            if case .object = mine, mine.agrees(with: value) { continue }
            return false
        }
        return true
    }
}

extension Exchange {
    /// Server role: a response that satisfies this exchange's checks, built from examples of each group
    /// (`expect`, then `should`, then the assumed decisions, then the `until` control, each laid over the one
    /// before: the response the client waits for).
    public func exampleResponse(in scope: TemplateScope) -> HTTPResponse {
        var status = 200
        var fields = HTTPFields()
        var json: JSONValue?
        var text: String?
        let specs = checks.sorted(by: { $0.severity > $1.severity }).map(\.expectation) + (until.map { [$0] } ?? [])
        for spec in specs {
            if let s = spec.status, case .int(let code)? = s.example(in: scope) { status = code }
            for header in spec.headers {
                if let value = header.value.example(in: scope) { fields[header.name] = value.text }
            }
            switch spec.body {
            case .json(let m)?: if let v = m.example(in: scope) { json = json.map { $0.overlaid(with: v) } ?? v }
            case .text(let t)?: text = try? t.renderText(in: scope)
            case nil: break
            }
        }
        // Values the suite captures but does not check are minted here, so later steps can use them.
        for capture in captures {
            guard case .json(let path) = capture.source, json?[path: path] == nil else { continue }
            json = (json ?? .object(JSONObject())).setting(
                path.components[...], to: .string(UUID().uuidString.lowercased()))
        }
        var body = Data()
        if let json {
            body = Data(json.serialized().utf8)
            if fields["Content-Type"] == nil { fields["Content-Type"] = "application/json" }
        } else if let text {
            body = Data(text.utf8)
        }
        fields["Content-Length"] = String(body.count)
        return HTTPResponse(status: HTTPStatus(status), headerFields: fields, body: body)
    }
}
