import Foundation
import GatehouseProtocol
import Testing
@testable import GatehouseKit

/// Issue 31, item 6: the SDK's `Permission` keeps Facebook's cases, but each case's wire name is the shared
/// vocabulary's (`GatehouseProtocol.Permission`), which the server grants and checks against.
@Suite struct PermissionVocabularyTests {
    static let cases: [GatehouseKit.Permission] = [
        .publicProfile, .email, .userFriends, .userBirthday, .userAgeRange, .userGender, .userHometown, .userLocation,
        .userLink, .userPhotos, .userPosts, .userLikes, .userVideos, .userMessengerContact, .gamingProfile,
        .gamingUserPicture, .pagesShowList, .pagesReadEngagement, .pagesManagePosts, .publishActions, .publishVideo,
        .adsRead, .adsManagement, .businessManagement, .instagramBasic, .openid,
    ]

    @Test func everyCaseIsANameTheServerKnows() {
        for permission in Self.cases {
            #expect(GatehouseProtocol.Permission.isKnown(permission.name), "\(permission)")
            // Reading the name back gives the case, not `.custom`.
            #expect(GatehouseKit.Permission(permission.name) == permission)
            if case .custom = GatehouseKit.Permission(permission.name) {
                Issue.record("\(permission.name) read as custom")
            }
        }
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }

    @Test func wireNamesAreFacebooks() {
        #expect(GatehouseKit.Permission.publicProfile.name == "public_profile")
        #expect(GatehouseKit.Permission.userHometown.name == "user_hometown")
        #expect(GatehouseKit.Permission.userMessengerContact.name == "user_messenger_contact")
        #expect(GatehouseKit.Permission("user_action.fitness") == .custom("user_action.fitness"))
        #expect(GatehouseKit.Permission.custom("email") == .email)
    }

    @Test func casesUnlockTheTablesFields() {
        #expect(GatehouseKit.Permission.userHometown.userFields.map(\.name) == ["hometown"])
        #expect(GatehouseKit.Permission.userAgeRange.userFields.map(\.name) == ["age_range"])
        #expect(GatehouseKit.Permission.userPhotos.userFields.isEmpty)
        // Every permission the field table names is one of Facebook's cases.
        for name in GatehouseProtocol.Permission.profilePermissions {
            if case .custom = GatehouseKit.Permission(name) { Issue.record("\(name) has no case") }
        }
    }

    @Test func theProfileRequestAsksForTheTablesFields() {
        // A permission renamed in the table would otherwise stop the SDK asking for its field, silently.
        for permission in ProfileLoadPolicy.optionalPermissions {
            #expect(!permission.userFields.isEmpty, "\(permission)")
        }
        #expect(
            ProfileLoadPolicy.basicFields.allSatisfy { $0.permission == GatehouseProtocol.Permission.publicProfile })
    }

    @Test func limitedLoginPermissionsAreTheCataloguesLessOpenID() {
        #expect(
            LoginConfiguration.limitedLoginPermissions
                == Set(GatehouseProtocol.Permission.catalogue.filter(\.allowedInLimitedLogin).map(\.name)).subtracting([
                    "openid"
                ]))
    }
}
