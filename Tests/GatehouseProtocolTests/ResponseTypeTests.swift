import Foundation
import Testing
import GatehouseProtocol

@Suite struct ResponseTypeTests {
    @Test func defaultsToCode() {
        #expect(ResponseType.parse(nil) == ResponseType(code: true))
        #expect(ResponseType.parse("") == ResponseType(code: true))
        #expect(ResponseType.parse(" , ") == ResponseType(code: true))
        #expect(!ResponseType.parse(nil).usesFragment)
    }

    @Test func iOSClassicLogin() {
        let parsed = ResponseType.parse("id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce")
        #expect(
            parsed
                == ResponseType(
                    idToken: true, tokenOrNonce: true, signedRequest: true, graphDomain: true, userTokenNonce: true))
        #expect(parsed.usesFragment)
        #expect(parsed.rawValue == "id_token,token_or_nonce,signed_request,graph_domain,user_token_nonce")
    }

    @Test func iOSLimitedLogin() {
        let parsed = ResponseType.parse("id_token,graph_domain,user_token_nonce")
        #expect(parsed == ResponseType(idToken: true, graphDomain: true, userTokenNonce: true))
        #expect(parsed.usesFragment)
    }

    @Test func androidLists() {
        #expect(
            ResponseType.parse("token,signed_request,graph_domain,granted_scopes")
                == ResponseType(token: true, signedRequest: true, graphDomain: true, grantedScopes: true))
        let codeFlow = ResponseType.parse("code,signed_request,graph_domain")
        #expect(codeFlow == ResponseType(code: true, signedRequest: true, graphDomain: true))
        #expect(!codeFlow.usesFragment)
        #expect(
            ResponseType.parse("id_token,token,signed_request,graph_domain")
                == ResponseType(token: true, idToken: true, signedRequest: true, graphDomain: true))
    }

    @Test func webForms() {
        #expect(ResponseType.parse("code token") == ResponseType(code: true, token: true))
        #expect(ResponseType.parse("code token").usesFragment)
        #expect(ResponseType.parse("token id_token") == ResponseType(token: true, idToken: true))
        let scopes = ResponseType.parse("code granted_scopes")
        #expect(scopes == ResponseType(code: true, grantedScopes: true))
        #expect(!scopes.usesFragment)
    }

    @Test func keepsUnknownAndIsCaseSensitive() {
        let parsed = ResponseType.parse("Code,token, bogus,bogus")
        #expect(parsed == ResponseType(token: true, unknown: ["Code", "bogus"]))
        #expect(parsed.rawValue == "token,Code,bogus")
    }
}

@Suite struct GraphAPIVersionTests {
    @Test func current() {
        #expect(GraphAPIVersion.current == "v27.0")
    }

    @Test(arguments: ["v2.8", "v21.0", "v24.0", "v100.12"])
    func acceptsVersions(segment: String) {
        #expect(GraphAPIVersion.parse(pathSegment: segment) == segment)
    }

    @Test(arguments: ["", "v", "v2", "v2.", "v.2", "V2.8", "2.8", "v2.8.1", "v2.8x", "me", "vx.y", "v٢.٨"])
    func rejectsOthers(segment: String) {
        #expect(GraphAPIVersion.parse(pathSegment: segment) == nil)
    }

    @Test func splitsPaths() {
        let versioned = GraphAPIVersion.split(path: "/v19.0/me/permissions/email")
        #expect(versioned.version == "v19.0")
        #expect(versioned.segments == ["me", "permissions", "email"])
        let bare = GraphAPIVersion.split(path: "/me")
        #expect(bare.version == nil)
        #expect(bare.segments == ["me"])
        #expect(GraphAPIVersion.split(path: "/").segments.isEmpty)
    }
}
