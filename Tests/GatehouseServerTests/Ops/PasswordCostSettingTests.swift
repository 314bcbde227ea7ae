import Foundation
import GatehouseCore
import GatehouseServer
import Testing

/// `password_cost` (issue 43, item 1): auto by default (the mode's cost), a whole bcrypt cost, nothing else.
@Suite struct PasswordCostSettingTests {
    @Test func theSettingIsTheModesCostUnlessGiven() throws {
        let development = try ConfigurationLoader().load()
        #expect(development.configuration.passwordCost == nil)
        #expect(development.configuration.effectivePasswordCost == 4)
        #expect(development.printed().contains("password_cost: 4  # default\n"))
        let production = try ConfigurationLoader(flags: ["mode": "production"]).load()
        #expect(production.configuration.effectivePasswordCost == 11)
        let raised = try ConfigurationLoader(environment: ["GATEHOUSE_PASSWORD_COST": "12"]).load()
        #expect(raised.configuration.passwordCost == 12)
        #expect(raised.printed().contains("password_cost: 12  # GATEHOUSE_PASSWORD_COST\n"))
        let auto = try ConfigurationLoader(environment: ["GATEHOUSE_PASSWORD_COST": "auto"]).load()
        #expect(auto.configuration.passwordCost == nil)
    }

    @Test func aCostOutsideBcryptsRangeIsRefused() {
        for bad in ["3", "32", "eleven"] {
            #expect(
                throws: ConfigurationError(
                    "GATEHOUSE_PASSWORD_COST: must be auto or a bcrypt cost from 4 to 31, not \(bad)")
            ) { try ConfigurationLoader(environment: ["GATEHOUSE_PASSWORD_COST": bad]).load() }
        }
    }
}
