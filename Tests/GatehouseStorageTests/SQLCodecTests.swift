import Foundation
import GatehouseCore
import Testing
import GatehouseStorage

/// `SQLCodec.list` reads list columns with the house JSON parser; it must read exactly what `JSONDecoder` read,
/// including what `SQLCodec.json` (still `JSONEncoder`) writes, and refuse what `JSONDecoder` refused.
@Suite struct SQLCodecTests {
    static let lists: [[String]] = [
        [],
        ["email"],
        ["public_profile", "email", "user_friends"],
        ["https://app.example/callback", "fb123://authorize/"],
        ["quote \" backslash \\ tab \t newline \n", "ünïcödé 👋", "\u{0001}"],
        ["", " ", "[]", "{}", "null"],
    ]

    @Test(arguments: lists)
    func aWrittenListReadsBackAsJSONDecoderReadsIt(list: [String]) throws {
        let stored = try SQLCodec.json(list)
        #expect(try SQLCodec.list(stored) == list)
        #expect(try SQLCodec.list(stored) == JSONDecoder().decode([String].self, from: Data(stored.utf8)))
    }

    @Test(arguments: [#" [ "a" , "b" ] "#, #"["\u00e9\/x"]"#, #"["\ud83d\udc4b"]"#, "[\n]"])
    func handWrittenJSONReadsAsJSONDecoderReadsIt(text: String) throws {
        #expect(try SQLCodec.list(text) == JSONDecoder().decode([String].self, from: Data(text.utf8)))
    }

    @Test(arguments: ["", "null", "{}", #""a""#, "[1]", #"["a", null]"#, #"["a""#, #"["a"] x"#, "[[]]"])
    func anythingButAnArrayOfStringsIsADecodingErrorAsBefore(text: String) throws {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([String].self, from: Data(text.utf8)) }
        let error = try #require(throws: DecodingError.self) { try SQLCodec.list(text) }
        // What a store reports for it, unchanged.
        #expect(SQLErrorClassifier.sqlite.storageError(error) == .unavailable("stored data could not be decoded"))
    }
}
