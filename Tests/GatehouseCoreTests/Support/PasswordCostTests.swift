import Foundation
import GatehouseCore
import Testing

/// The bcrypt cost rule (`PasswordCost`): each mode's default, production's floor, and the cost a hash carries.
@Suite struct PasswordCostTests {
    @Test func eachModeHasItsDefaultAndAConfiguredCostWins() {
        #expect(GatehouseConfiguration(mode: .production).effectivePasswordCost == 11)
        #expect(GatehouseConfiguration(mode: .development).effectivePasswordCost == 4)
        var raised = GatehouseConfiguration(mode: .development)
        raised.passwordCost = 11
        #expect(raised.effectivePasswordCost == 11)
        var production = GatehouseConfiguration(mode: .production)
        production.passwordCost = 12
        #expect(production.effectivePasswordCost == 12)
    }

    @Test func productionRefusesToStartBelowTheFloor() {
        let floorProblem =
            "password_cost 9 is below production's floor of 10: remove it (the default is 11) or set it to at least 10"
        #expect(
            ProductionSafety.problems(ProductionSafetyTests.production { $0.passwordCost = 9 }, facts: .init()) == [
                floorProblem
            ])
        let lowest = ProductionSafety.problems(ProductionSafetyTests.production { $0.passwordCost = 4 }, facts: .init())
        #expect(lowest.count == 1 && lowest[0].hasPrefix("password_cost 4 is below production's floor of 10"))
        #expect(
            ProductionSafety.problems(ProductionSafetyTests.production { $0.passwordCost = 10 }, facts: .init()) == [])
        #expect(ProductionSafety.problems(ProductionSafetyTests.production(), facts: .init()) == [])
        // Development mode may go to bcrypt's minimum (its default).
        var development = GatehouseConfiguration(mode: .development)
        development.passwordCost = 4
        #expect(ProductionSafety.problems(development, facts: .init()) == [])
    }

    @Test func aHashCarriesItsCost() {
        let low = "$2b$04$abcdefghijklmnopqrstuuJ0yJ2b5m1y8Zk0rX2Jb5d5yQ7q1m9XG"
        let production = "$2b$11$abcdefghijklmnopqrstuuJ0yJ2b5m1y8Zk0rX2Jb5d5yQ7q1m9XG"
        #expect(PasswordCost.of(low) == 4)
        #expect(PasswordCost.of(production) == 11)
        #expect(PasswordCost.of("") == nil)
        #expect(PasswordCost.of("not a hash") == nil)
        #expect(PasswordCost.isBelow(low, cost: 11))
        #expect(!PasswordCost.isBelow(production, cost: 11))
        #expect(!PasswordCost.isBelow(production, cost: 10))
        // Something that is not a bcrypt hash is below every cost: it is replaced at the next login.
        #expect(PasswordCost.isBelow("plain", cost: 4))
    }

    @Test func aPersonWithoutAPasswordHasNoHash() {
        var person = UserRecord(
            id: "1", email: "a@example.com", passwordHash: UserRecord.noPassword, firstName: "A", lastName: "B",
            createdAt: Date(timeIntervalSince1970: 0))
        #expect(person.passwordHash == "")
        #expect(!person.hasPassword)
        person.passwordHash = "$2b$04$abcdefghijklmnopqrstuuJ0yJ2b5m1y8Zk0rX2Jb5d5yQ7q1m9XG"
        #expect(person.hasPassword)
    }
}
