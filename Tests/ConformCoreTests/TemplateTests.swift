import ConformCore
import Testing

@Suite struct TemplateTests {
    @Test func interpolatesVariablesAndPaths() throws {
        let scope = TemplateScope(values: ["user": "ana", "reg": ["id": "r-1", "list": [10, 20]]])
        #expect(
            try scope.renderText(Template(parsing: "u={{user}} id={{ reg.id }} second={{reg.list[1]}}"))
                == "u=ana id=r-1 second=20")
    }

    @Test func aLoneExpressionKeepsItsType() throws {
        let scope = TemplateScope(values: ["n": 42, "obj": ["a": true]])
        #expect(try scope.render(Template(parsing: "{{ n }}")) == 42)
        #expect(try scope.render(Template(parsing: "{{ obj }}")) == ["a": true])
        #expect(try scope.render(Template(parsing: "n={{ n }}")) == "n=42")
    }

    @Test func generatorsProduceFreshValues() throws {
        let scope = TemplateScope()
        let a = try scope.renderText(Template(parsing: "{{ uuid }}"))
        let b = try scope.renderText(Template(parsing: "{{ uuid }}"))
        #expect(a != b)
        #expect(a.count == 36)
        let digits = try scope.renderText(Template(parsing: "{{ digits 12 }}"))
        #expect(digits.count == 12 && digits.allSatisfy(\.isNumber))
        let r = try scope.render(Template(parsing: "{{ random 5 5 }}"))
        #expect(r == 5)
        #expect(try scope.renderText(Template(parsing: "{{ timestamp }}")).hasSuffix("Z"))
        if case .int(let ms) = try scope.render(Template(parsing: "{{ epochMillis }}")) {
            #expect(ms > 1_700_000_000_000)
        } else {
            Issue.record("epochMillis is not an integer")
        }
    }

    @Test func undefinedNamesSuggestTheClosest() throws {
        let scope = TemplateScope(values: ["pushRegId": "x"])
        #expect {
            try scope.render(Template(parsing: "{{ pushRegID }}"))
        } throws: { error in
            guard let e = error as? TemplateError else { return false }
            return e.message == "'pushRegID' is not defined" && e.help.hasPrefix("did you mean 'pushRegId'?")
        }
    }

    @Test func syntaxErrors() {
        #expect(throws: TemplateSyntaxError.self) { try Template(parsing: "{{ user ") }
        #expect(throws: TemplateSyntaxError.self) { try Template(parsing: "{{ }}") }
        #expect(throws: TemplateSyntaxError.self) { try Template(parsing: "{{ jwt sub=\"x }}") }
    }

    @Test func callsTakeQuotedAndNamedArguments() throws {
        var scope = TemplateScope(values: ["who": "ana"])
        scope.functions["greet"] = TemplateFunction(summary: "test") { pos, named in
            .string("\(pos.map(\.text).joined(separator: ",")) to=\(named["to"]?.text ?? "")")
        }
        #expect(try scope.renderText(Template(parsing: "{{ greet 'hello world' 3 to=who }}")) == "hello world,3 to=ana")
        #expect(try Template(parsing: "{{ greet 'x' to=who }}").referencedNames == ["who"])
    }
}
