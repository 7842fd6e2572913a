extension HTTPFields {
    /// Sets `Content-Length` to `count` when the fields carry one: a body rewritten (ids remapped, identities made
    /// fresh, secrets redacted) keeps its declared length true.
    public mutating func keepContentLength(_ count: Int) {
        if self["Content-Length"] != nil { self["Content-Length"] = String(count) }
    }
}
