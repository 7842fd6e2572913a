import ConformCore
import ConformMobileMessaging
import Testing

/// Steps that expect and capture what others do hold one copy of their check groups and captures, however they
/// were built; steps that differ keep their own.
@Suite struct SuiteSharingTests {
    /// Where an array's elements are stored: equal for two arrays that share their storage.
    static func storage<Element>(_ array: [Element]) -> UnsafeRawPointer? {
        array.withUnsafeBufferPointer { $0.baseAddress.map { UnsafeRawPointer($0) } }
    }

    static func exchanges(_ suite: Suite) -> [Exchange] {
        suite.flows.flatMap(\.steps).compactMap {
            if case .exchange(let exchange) = $0.action { return exchange }
            return nil
        }
    }

    @Test(arguments: [false, true])
    func equalChecksAndCapturesAreHeldOnce(onAThread: Bool) throws {
        var loader = SuiteLoader(profile: .mobileMessaging)
        loader.buildsOnAThread = onAThread
        // 300 steps with one expectation; their captures name reg0, reg1 or reg2.
        let suite = try loader.load(bytes: SuiteStreamingTests.longSuite(steps: 300), file: "long.yaml")
        let exchanges = Self.exchanges(suite)
        #expect(exchanges.count == 300)
        #expect(Set(exchanges.map { Self.storage($0.checks) }).count == 1)
        #expect(Set(exchanges.map { Self.storage($0.captures) }).count == 3)
        #expect(exchanges.allSatisfy { $0.checks.count == 1 && $0.captures.count == 1 })
    }

    @Test func stepsThatCheckDifferentBodiesKeepTheirOwn() throws {
        let text = """
            suite: s
            title: T
            steps:
              - name: a
                request: {url: "{{ mobile }}/a"}
                expect: {status: 200, json: {"n": 1}}
              - name: b
                request: {url: "{{ mobile }}/b"}
                expect: {status: 200, json: {"n": 2}}
              - name: c
                request: {url: "{{ mobile }}/c"}
                expect: {status: 200, json: {"n": 1}}
                should: {headers: {ETag: {$type: string}}}
              - name: d
                request: {url: "{{ mobile }}/d"}
                expect: {status: 200, json: {"n": 1}}
            """
        let suite = try SuiteLoader(profile: .mobileMessaging).load(bytes: Array(text.utf8), file: "s.yaml")
        let checks = Self.exchanges(suite).map(\.checks)
        #expect(checks.map(\.count) == [1, 1, 2, 1])
        #expect(checks[0] != checks[1])
        #expect(checks[0] == checks[3])
        #expect(Self.storage(checks[0]) == Self.storage(checks[3]))
        #expect(Set(checks.map { Self.storage($0) }).count == 3)
    }
}
