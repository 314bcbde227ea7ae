import GatehouseKitTestSupport
import Testing

/// Tests that replace `GatehouseKitEnvironment.current` or `ErrorRecovery.loginAttempter` (process-wide
/// state) live in suites nested in this one, so they never run at the same time, nor beside the live ones in
/// GatehouseIntegrationTests (`.kitGlobals`).
@Suite(.serialized, .kitGlobals) struct GraphSerialTests {}
