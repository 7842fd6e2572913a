/// One member of an object a suite writes, in order: its key and what stands for its value (a matcher in an
/// expectation, a template in a request or a capture).
public struct ObjectMember<Value: Sendable & Hashable>: Sendable, Hashable {
    public var key: String
    public var value: Value

    public init(key: String, value: Value) {
        self.key = key
        self.value = value
    }
}
