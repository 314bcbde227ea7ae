import Foundation
import Testing
import GatehouseProtocol

@Suite struct Base64URLTests {
    @Test func encodesWithoutPadding() {
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode("foo") == "Zm9v")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xFE]) == "-__-")
        #expect(Base64URL.encode([250, 251, 252, 253, 254, 255]) == "-vv8_f7_")
    }

    @Test func decodesWithAndWithoutPadding() {
        #expect(Base64URL.decode("Zg") == Data("f".utf8))
        #expect(Base64URL.decode("Zg==") == Data("f".utf8))
        #expect(Base64URL.decode("Zm8") == Data("fo".utf8))
        #expect(Base64URL.decode("Zm8=") == Data("fo".utf8))
        #expect(Base64URL.decode("-__-") == Data([0xFB, 0xFF, 0xFE]))
        #expect(Base64URL.decode("") == Data())
    }

    @Test(arguments: ["Z", "Zg=", "Zg===", "Z=g=", "+__-", "/__-", "Zm9v!", "Zm 9v", "Zm9vZ"])
    func rejectsBadInput(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

@Suite struct FormEncodingTests {
    @Test func encodesLikeFacebook() {
        let encoded = FormEncoding.encode([
            ("error_description", "Permissions error"), ("redirect_uri", "fb123://authorize/"),
            ("state", #"{"a":"b+c"}"#), ("safe", "A-z.0_~"), ("name", "Zoë"),
        ])
        #expect(
            encoded == "error_description=Permissions+error&redirect_uri=fb123%3A%2F%2Fauthorize%2F"
                + "&state=%7B%22a%22%3A%22b%2Bc%22%7D&safe=A-z.0_~&name=Zo%C3%AB")
    }

    @Test func roundTrips() throws {
        let pairs = [("a b", "c&d=e"), ("emoji", "😀"), ("empty", ""), ("a b", "again")]
        let decoded = try #require(FormEncoding.decode(FormEncoding.encode(pairs)))
        #expect(decoded.map(\.0) == pairs.map(\.0))
        #expect(decoded.map(\.1) == pairs.map(\.1))
    }

    @Test func decodesEdgeCases() throws {
        let decoded = try #require(FormEncoding.decode("&a=1&&flag&b=x=y&c=%2b+%41&"))
        #expect(decoded.map(\.0) == ["a", "flag", "b", "c"])
        #expect(decoded.map(\.1) == ["1", "", "x=y", "+ A"])
        #expect(FormEncoding.decode("")?.isEmpty == true)
    }

    /// Raw (unescaped) UTF-8 passes through, and `&` / `=` split on their bytes as browsers do, even when a
    /// combining mark follows them (which Character-wise splitting would glue to the separator).
    @Test func splitsOnBytesAndKeepsRawText() throws {
        let decoded = try #require(FormEncoding.decode("név=Zoë 李&access_token=EAAGabc123&\u{301}k=\u{301}v=w"))
        #expect(decoded.map(\.0) == ["név", "access_token", "\u{301}k"])
        #expect(decoded.map(\.1) == ["Zoë 李", "EAAGabc123", "\u{301}v=w"])
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%C3%28", "%ff=1", "a=%E2%82"])
    func rejectsMalformed(text: String) {
        #expect(FormEncoding.decode(text) == nil)
    }
}
