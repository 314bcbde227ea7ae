import GatehouseProtocol
import Testing

/// The released versions are Facebook's changelog's (issue 41 item 5): every one from v1.0 to v27.0, nothing else.
@Suite struct GraphAPIVersionReleasesTests {
    @Test func theReleasedVersionsAreFacebooksAndTheLastIsCurrent() {
        let released = GraphAPIVersion.released
        #expect(released.count == 42)
        #expect(released.prefix(4) == ["v1.0", "v2.0", "v2.1", "v2.2"])
        #expect(released.contains("v2.12") && released.contains("v3.3") && released.contains("v4.0"))
        #expect(released.suffix(3) == ["v25.0", "v26.0", "v27.0"])
        #expect(GraphAPIVersion.current == "v27.0")
        #expect(Set(released).count == released.count)
    }

    @Test func onlyReleasedVersionsAreReleased() {
        for version in ["v1.0", "v2.8", "v2.12", "v3.0", "v3.3", "v4.0", "v13.0", "v21.0", "v27.0"] {
            #expect(GraphAPIVersion.isReleased(version), "\(version)")
        }
        for text in ["v99.0", "v2.13", "v3.4", "v1.1", "v4.1", "v0.0", "v28.0", "v27.00", "v027.0", "27.0", "v27", ""] {
            #expect(!GraphAPIVersion.isReleased(text), "\(text)")
        }
        // Shape alone is still a version-shaped segment, for the refusal to name.
        #expect(GraphAPIVersion.parse(pathSegment: "v99.0") == "v99.0")
    }

    @Test func theRefusalIsFacebooksUnknownPathAtStatus400() {
        let error = GraphError.unknownVersion("v99.0", rest: ["me", "friends"], method: "GET")
        #expect(error.message == "Unknown path components: /me/friends")
        #expect(error.type == "OAuthException" && error.code == 2500 && error.errorSubcode == nil)
        #expect(error.httpStatus == 400)
        #expect(error.explanation?.hasPrefix("v99.0 is not a Graph API version Facebook released") == true)
        let bare = GraphError.unknownVersion("v2.13", rest: [], method: "GET")
        #expect(bare.code == 100 && bare.errorSubcode == 33 && bare.type == "GraphMethodException")
        #expect(bare.message.hasPrefix("Unsupported get request. Object with ID 'v2.13' does not exist"))
    }
}
