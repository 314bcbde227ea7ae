import GatehouseKit
import Testing

@Suite struct LoginAttemptStateMachineTests {
    @Test func idleLoginBegins() {
        var machine = LoginAttemptStateMachine()
        #expect(machine.state == .idle)
        let step1 = machine.requestLogIn(checksState: true)
        #expect(step1 == .begin(attempt: 1))
        #expect(machine.state == .start)
        #expect(machine.currentAttempt == 1)
    }

    @Test func checkedLoginDuringStartIsDropped() {
        var machine = LoginAttemptStateMachine()
        _ = machine.requestLogIn(checksState: true)
        let step2 = machine.requestLogIn(checksState: true)
        #expect(step2 == .drop)
        #expect(machine.state == .start)
        #expect(machine.currentAttempt == 1)
    }

    @Test func loginDuringPerformingLoginCancelsThePreviousOne() {
        var machine = LoginAttemptStateMachine()
        _ = machine.requestLogIn(checksState: true)
        let step3 = machine.dialogPresented(attempt: 1)
        #expect(step3)
        #expect(machine.state == .performingLogin)
        let step4 = machine.requestLogIn(checksState: true)
        #expect(step4 == .cancelPreviousAndBegin(previous: 1, attempt: 2))
        #expect(machine.state == .start)
        #expect(machine.currentAttempt == 2)
    }

    @Test func uncheckedEntryCancelsEvenDuringStart() {
        var machine = LoginAttemptStateMachine()
        _ = machine.requestLogIn(checksState: true)
        let step5 = machine.requestLogIn(checksState: false)
        #expect(step5 == .cancelPreviousAndBegin(previous: 1, attempt: 2))
        let step6 = machine.requestLogIn(checksState: false)
        #expect(step6 == .cancelPreviousAndBegin(previous: 2, attempt: 3))
    }

    @Test func finishingTheCurrentAttemptReturnsToIdle() {
        var machine = LoginAttemptStateMachine()
        _ = machine.requestLogIn(checksState: true)
        machine.dialogPresented(attempt: 1)
        let step7 = machine.finish(attempt: 1)
        #expect(step7)
        #expect(machine.state == .idle)
        #expect(machine.currentAttempt == nil)
        let step8 = machine.requestLogIn(checksState: true)
        #expect(step8 == .begin(attempt: 2))
    }

    @Test func supersededAttemptsCannotPresentOrFinish() {
        var machine = LoginAttemptStateMachine()
        _ = machine.requestLogIn(checksState: true)
        machine.dialogPresented(attempt: 1)
        _ = machine.requestLogIn(checksState: true)
        let step9 = machine.dialogPresented(attempt: 1)
        #expect(!step9)
        #expect(machine.state == .start)
        let step10 = machine.finish(attempt: 1)
        #expect(!step10)
        #expect(machine.currentAttempt == 2)
        let step11 = machine.finish(attempt: 2)
        #expect(step11)
        let step12 = machine.finish(attempt: 2)
        #expect(!step12)
    }
}
