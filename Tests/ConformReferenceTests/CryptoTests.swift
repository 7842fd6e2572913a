import ConformCrypto
import Testing

@Suite struct CryptoTests {
    @Test func sha256KnownVectors() {
        #expect(Hex.encode(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(SHA256.hash(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacRFC4231() {
        // Test case 1
        #expect(
            Hex.encode(HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2
        #expect(
            Hex.encode(HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 3
        #expect(
            Hex.encode(
                HMAC.sha256(key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50)))
                == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        // Test case 6: key longer than the block size
        #expect(
            Hex.encode(
                HMAC.sha256(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMAC.sha256(key: [], message: []).count == 32)
    }

    /// A key made ready once gives RFC 4231's answers and the one-shot's bytes, message after message, also for
    /// messages authenticated from several threads at once.
    @Test func aPreparedKeyAnswersAsTheOneShot() async {
        let jefe = HMAC.SHA256Key(Array("Jefe".utf8))
        #expect(
            Hex.encode(jefe.mac(Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let long = HMAC.SHA256Key([UInt8](repeating: 0xaa, count: 131))
        #expect(
            Hex.encode(long.mac(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        let key = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let prepared = HMAC.SHA256Key(key)
        #expect(prepared.isPrepared)
        let messages = (0..<64).map { n in (0..<(n * 13)).map { UInt8(($0 + n) & 0xFF) } }
        let expected = messages.map { HMAC.sha256(key: key, message: $0) }
        #expect(messages.map(prepared.mac) == expected)
        let concurrent = await withTaskGroup(of: (Int, [UInt8]).self) { group in
            for (i, message) in messages.enumerated() { group.addTask { (i, prepared.mac(message)) } }
            var out = [[UInt8]](repeating: [], count: messages.count)
            for await (i, mac) in group { out[i] = mac }
            return out
        }
        #expect(concurrent == expected)
        #expect(HMAC.SHA256Key([]).mac([]) == HMAC.sha256(key: [], message: []))
    }

    @Test func hexRoundTripAndRejects() {
        #expect(Hex.encode([0x00, 0xff, 0x10]) == "00ff10")
        #expect(Hex.decode("00FF10") == [0x00, 0xff, 0x10])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }

    @Test func base64URLVectors() {
        // RFC 4648 §10 vectors, unpadded and url-safe.
        let cases: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("Zm9v!") == nil)
        #expect(Base64URL.decode("Z") == nil)
    }

    @Test func constantTimeCompare() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(ConstantTime.equals([], []))
    }

    @Test func randomBytesDiffer() {
        #expect(RandomBytes.generate(count: 32).count == 32)
        #expect(RandomBytes.generate(count: 32) != RandomBytes.generate(count: 32))
        let uuid = RandomBytes.uuid()
        #expect(uuid.count == 36 && Array(uuid)[14] == "4")
    }

    @Test func jwtSignsAndVerifies() throws {
        let secret = Array("secret".utf8)
        let token = JWT.signHS256(claims: #"{"sub":"cust-42"}"#, keyID: "k1", secret: secret)
        #expect(token.split(separator: ".").count == 3)
        let decoded = try JWT.verifyHS256(token: token, secret: secret).get()
        #expect(decoded.claims == #"{"sub":"cust-42"}"#)
        #expect(decoded.header == #"{"alg":"HS256","typ":"JWT","kid":"k1"}"#)
        #expect(throws: JWT.Failure.badSignature) {
            try JWT.verifyHS256(token: token, secret: Array("other".utf8)).get()
        }
    }

    @Test func jwtKnownVector() {
        // The widely published jwt.io HS256 example (secret "your-256-bit-secret").
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let claims = #"{"sub":"1234567890","name":"John Doe","iat":1516239022}"#
        let token = JWT.signHS256(header: header, claims: claims, secret: Array("your-256-bit-secret".utf8))
        #expect(
            token
                == "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        )
    }

    @Test func jwtRejectsMalformedAndNone() {
        let secret = Array("s".utf8)
        #expect(throws: JWT.Failure.self) { try JWT.verifyHS256(token: "a.b", secret: secret).get() }
        #expect(throws: JWT.Failure.self) { try JWT.verifyHS256(token: "!!.??.##", secret: secret).get() }
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + "."
        #expect(throws: JWT.Failure.unsupportedAlgorithm("none")) {
            try JWT.verifyHS256(token: none, secret: secret).get()
        }
        let tampered = JWT.signHS256(claims: #"{"sub":"a"}"#, keyID: nil, secret: secret).replacingOccurrences(
            of: Base64URL.encode(Array(#"{"sub":"a"}"#.utf8)), with: Base64URL.encode(Array(#"{"sub":"b"}"#.utf8)))
        #expect(throws: JWT.Failure.badSignature) { try JWT.verifyHS256(token: tampered, secret: secret).get() }
    }
}
