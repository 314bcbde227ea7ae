import Foundation
import Testing
import GatehouseProtocol

@Suite struct JSONValueSerializationTests {
    @Test func keepsKeyOrderAndWritesCompactly() {
        let value: JSONValue = ["zeta": 1, "alpha": ["b": true, "a": nil], "mid": [1, 2.5, "x"]]
        #expect(value.serialized() == #"{"zeta":1,"alpha":{"b":true,"a":null},"mid":[1,2.5,"x"]}"#)
    }

    @Test func escapesOnlyQuotesBackslashesAndControls() {
        let value: JSONValue = .string("a\"b\\c/d\ne\tf\r\u{08}\u{0C}\u{01}\u{1F}")
        #expect(value.serialized() == #""a\"b\\c/d\ne\tf\r\b\f\u0001\u001f""#)
    }

    @Test func leavesNonASCIIAsUTF8() {
        let value: JSONValue = ["name": "Zoë 李 😀"]
        #expect(value.serialized() == "{\"name\":\"Zoë 李 😀\"}")
        #expect(Array(value.serializedData()) == Array("{\"name\":\"Zoë 李 😀\"}".utf8))
    }

    @Test func writesNumbers() {
        let value: JSONValue = [
            .int(-42), .int(Int64.max), .double(2.0), .double(0.1), .double(1e20), .double(.nan), .double(-.infinity),
        ]
        #expect(value.serialized() == "[-42,9223372036854775807,2.0,0.1,1e+20,null,null]")
    }

    @Test func emptyContainers() {
        #expect(JSONValue.object([:]).serialized() == "{}")
        #expect(JSONValue.array([]).serialized() == "[]")
        #expect(JSONValue.null.serialized() == "null")
    }
}

@Suite struct JSONValueParsingTests {
    @Test func distinguishesBooleansFromNumbers() throws {
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("1") == .int(1))
        #expect(try JSONValue.parse("[true,1,0,false]") == [.bool(true), .int(1), .int(0), .bool(false)])
        #expect(try JSONValue.parse("1").boolValue == nil)
        #expect(try JSONValue.parse("true").intValue == nil)
    }

    @Test func keepsKeyOrderAndRoundTrips() throws {
        let text =
            #"{"id":"1207059","name":"Zoë","picture":{"data":{"height":50,"is_silhouette":false,"url":"https://x/y.png"}},"n":-1.5e3}"#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(value.objectValue?.keys == ["id", "name", "picture", "n"])
        #expect(value["n"] == .double(-1500))
        #expect(
            value.serialized()
                == #"{"id":"1207059","name":"Zoë","picture":{"data":{"height":50,"is_silhouette":false,"url":"https://x/y.png"}},"n":-1500.0}"#
        )
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONValue.parse(#"" \"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#)
        #expect(value == .string(" \"\\/\u{08}\u{0C}\n\r\té😀"))
    }

    @Test func numbersBeyondInt64BecomeDoubles() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try JSONValue.parse("-0") == .int(0))
        #expect(try JSONValue.parse("1E2") == .double(100))
    }

    @Test func duplicateKeysKeepFirstPositionAndLastValue() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.serialized() == #"{"a":3,"b":2}"#)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "\"abc",
        "\"\\x\"", "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"a\nb\"", "[1] x", "{'a':1}", "NaN", "{\"a\" 1}",
    ])
    func rejectsInvalidDocuments(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func reportsWhereParsingStopped() {
        #expect(throws: JSONParseError(offset: 3, reason: "Expected ',' or ']'")) { try JSONValue.parse("[1 2]") }
    }

    @Test func limitsNesting() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(try JSONValue.parse(fine).arrayValue?.count == 1)
    }
}

@Suite struct JSONValueAccessTests {
    @Test func accessors() {
        let value: JSONValue = [
            "s": "x", "i": 7, "d": 5.0, "f": 5.5, "b": false, "a": [1, "two"], "o": ["k": "v"], "n": nil,
        ]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.intValue == 7)
        #expect(value["d"]?.intValue == 5)
        #expect(value["f"]?.intValue == nil)
        #expect(value["f"]?.doubleValue == 5.5)
        #expect(value["i"]?.stringValue == nil)
        #expect(value["b"]?.boolValue == false)
        #expect(value["a"]?[1] == "two")
        #expect(value["a"]?[2] == nil)
        #expect(value["a"]?[-1] == nil)
        #expect(value["o"]?["k"] == "v")
        #expect(value["n"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["k"] == nil)
        #expect(value[0] == nil)
    }

    @Test func objectSubscriptReplacesInPlaceAppendsAndRemoves() {
        var object = JSONObject([("a", 1), ("b", 2)])
        object["a"] = "one"
        object["c"] = true
        #expect(object.serialized() == #"{"a":"one","b":2,"c":true}"#)
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.removeValue(forKey: "a") == "one")
        #expect(object.removeValue(forKey: "zzz") == nil)
        #expect(object.count == 1)
    }

    @Test func objectEqualityIsOrderSensitive() {
        let first: JSONObject = ["a": 1, "b": 2]
        #expect(first == JSONObject([("a", 1), ("b", 2)]))
        #expect(first != JSONObject([("b", 2), ("a", 1)]))
        #expect(first != JSONObject([("a", 1)]))
    }
}

@Suite struct JSONValueCodableTests {
    @Test func decodesThroughJSONDecoderKeepingTypes() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(JSONValue.self, from: Data("true".utf8)) == .bool(true))
        #expect(try decoder.decode(JSONValue.self, from: Data("1".utf8)) == .int(1))
        #expect(try decoder.decode(JSONValue.self, from: Data("1.5".utf8)) == .double(1.5))
        #expect(
            try decoder.decode(JSONValue.self, from: Data(#"[null,"x",{"k":[false]}]"#.utf8))
                == [nil, "x", ["k": [false]]])
    }

    @Test func encodesThroughJSONEncoder() throws {
        let data = try JSONEncoder().encode(JSONValue.array([true, 1, "a", nil]))
        #expect(String(decoding: data, as: UTF8.self) == #"[true,1,"a",null]"#)
    }

    @Test func orderedEncoderFollowsEncodeOrder() throws {
        struct Sample: Encodable {
            var zeta = 1
            var alpha: String? = "a"
            var skipped: Int? = nil
            var nested = ["only": [UInt8(1), 2]]
            var link = URL(string: "https://example.com/a?b=c")!
            var flag = true
            var ratio: Float = 0.1
        }
        let json = try JSONValue(encoding: Sample())
        #expect(
            json.serialized()
                == #"{"zeta":1,"alpha":"a","nested":{"only":[1,2]},"link":"https://example.com/a?b=c","flag":true,"ratio":0.1}"#
        )
    }

    @Test func decodeHelperUsesJSONDecoder() throws {
        struct Pair: Decodable, Equatable { var a: Int; var b: String }
        let value: JSONValue = ["a": 3, "b": "x"]
        #expect(try value.decode(Pair.self) == Pair(a: 3, b: "x"))
    }
}
