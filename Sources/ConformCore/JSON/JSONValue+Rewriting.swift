extension JSONValue {
    /// Returns the value with every leaf or subtree rewritten by `transform`, given its concrete path.
    public func rewritten(at path: JSONPath = JSONPath(), _ transform: (JSONPath, JSONValue) -> JSONValue?) -> JSONValue
    {
        if let replaced = transform(path, self) { return replaced }
        switch self {
        case .array(let items):
            return .array(
                items.enumerated().map { $0.element.rewritten(at: path.appending(index: $0.offset), transform) })
        case .object(let object):
            var out = JSONObject()
            for (key, value) in object { out[key] = value.rewritten(at: path.appending(key: key), transform) }
            return .object(out)
        default:
            return self
        }
    }

    /// Visits every node with its concrete path, parents before children.
    public func walk(at path: JSONPath = JSONPath(), _ visit: (JSONPath, JSONValue) -> Void) {
        visit(path, self)
        switch self {
        case .array(let items):
            for (i, item) in items.enumerated() { item.walk(at: path.appending(index: i), visit) }
        case .object(let object):
            for (key, value) in object { value.walk(at: path.appending(key: key), visit) }
        default: break
        }
    }
}
