import Foundation
import Testing
import GatehouseProtocol

@Suite struct PermissionTests {
    @Test func namesAreWireStrings() {
        #expect(Permission.publicProfile == "public_profile")
        #expect(Permission.userFriends == "user_friends")
        #expect(Permission.userMessengerContact == "user_messenger_contact")
        #expect(Permission.gamingUserPicture == "gaming_user_picture")
        #expect(Permission.instagramBasic == "instagram_basic")
    }

    @Test func catalogueCoversRequiredNamesOnce() {
        let required = [
            "public_profile", "email", "openid", "user_friends", "user_birthday", "user_gender", "user_link",
            "user_location", "user_hometown", "user_age_range", "user_photos", "user_posts", "user_likes",
            "user_videos", "user_messenger_contact", "gaming_profile", "gaming_user_picture", "pages_show_list",
            "pages_read_engagement", "pages_manage_posts", "publish_actions", "publish_video", "ads_read",
            "business_management", "instagram_basic",
        ]
        for name in required { #expect(Permission.isKnown(name), "\(name)") }
        let names = Permission.catalogue.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy(Permission.isValidName))
        #expect(Permission.catalogue.allSatisfy { !$0.title.isEmpty && $0.reveals.hasSuffix(".") })
    }

    @Test func onlyBasicPermissionsSkipReview() {
        #expect(Permission.catalogue.filter { !$0.needsReview }.map(\.name) == ["public_profile", "email", "openid"])
    }

    @Test func limitedLoginSet() {
        #expect(
            Set(Permission.limitedLoginNames) == [
                "public_profile", "email", "openid", "gaming_profile", "gaming_user_picture", "user_age_range",
                "user_birthday", "user_friends", "user_gender", "user_hometown", "user_link", "user_location",
                "user_messenger_contact",
            ])
    }

    @Test func info() {
        #expect(
            Permission.info("email")
                == PermissionInfo(
                    name: "email", title: "Email address", reveals: "Your primary email address.",
                    needsReview: false, allowedInLimitedLogin: true))
        #expect(Permission.info("user_photos")?.allowedInLimitedLogin == false)
        #expect(Permission.info("user_photos")?.needsReview == true)
        #expect(Permission.info("nope") == nil)
        #expect(!Permission.isKnown("user_action.fitness"))
    }

    @Test func parseScope() {
        #expect(Permission.parseScope("email,public_profile") == ["email", "public_profile"])
        #expect(Permission.parseScope("openid email  profile") == ["openid", "email", "profile"])
        #expect(
            Permission.parseScope(" email, user_friends ,,email\tuser_birthday\n") == [
                "email", "user_friends", "user_birthday",
            ])
        #expect(Permission.parseScope("").isEmpty)
        #expect(Permission.parseScope(" , ").isEmpty)
    }

    @Test func validNames() {
        #expect(Permission.isValidName("user_action.fitness"))
        #expect(Permission.isValidName("read_insights"))
        #expect(Permission.isValidName("v2"))
        #expect(!Permission.isValidName(""))
        #expect(!Permission.isValidName("Email"))
        #expect(!Permission.isValidName("user-friends"))
        #expect(!Permission.isValidName("email "))
        #expect(!Permission.isValidName("émail"))
    }
}

/// Issue 31, item 6: what each permission reveals is the field table's permission column, read by the server's
/// Graph rules, the id_token issuer and the SDK alike.
@Suite struct PermissionFieldTests {
    @Test func eachProfilePermissionUnlocksItsFields() {
        #expect(Permission.fields(unlockedBy: Permission.userHometown).map(\.name) == ["hometown"])
        #expect(Permission.fields(unlockedBy: Permission.userBirthday).map(\.name) == ["birthday"])
        #expect(Permission.fields(unlockedBy: Permission.email).map(\.name) == ["email"])
        #expect(
            Permission.fields(unlockedBy: Permission.publicProfile).map(\.name).starts(with: [
                "id", "name", "first_name",
            ]))
        #expect(Permission.fields(unlockedBy: Permission.openid).isEmpty)
        #expect(Permission.fields(unlockedBy: "no_such_permission").isEmpty)
    }

    @Test func everyFieldsPermissionIsInTheCatalogue() {
        for field in UserField.all { #expect(Permission.isKnown(field.permission), "\(field.name)") }
        #expect(
            Permission.profilePermissions == [
                "email", "user_birthday", "user_gender", "user_link", "user_location", "user_hometown",
                "user_age_range", "user_friends",
            ])
    }
}
