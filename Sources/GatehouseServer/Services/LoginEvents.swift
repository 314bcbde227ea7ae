import GatehouseCore

/// The one place a login's outcome becomes an event: the dialog, `/login` and `/device/signin` (people) and
/// `/console/login` (administrators) all record `login.succeeded` and `login.failed` here, so every login event
/// has the same details.
///
/// `details.account` tells a person's login (`person`, `person_id` set) from a console administrator's (`admin`,
/// `details.admin_id` set, no `person_id`: administrators are not people). A failure's `details.step` says where
/// it stopped (`password`, `account_state`, `login_code`) and `details.reason` is the journal's explanation.
struct LoginEvents: Sendable {
    /// Whose login it was.
    enum Account: String, Sendable {
        case person
        case admin
    }

    let events: any EventRecorder

    /// A session started for `id` (a person's or an administrator's id).
    func succeeded(_ account: Account, id: String) async {
        await events.record(.loginSucceeded, personID: personID(account, id), details(account, id))
    }

    /// A login was refused at `step`; `id` is the account the form named, when there is one.
    func failed(_ account: Account, id: String?, step: String, reason: String) async {
        var details = details(account, id)
        details["step"] = step
        details["reason"] = reason
        await events.record(.loginFailed, personID: personID(account, id), details)
    }

    private func personID(_ account: Account, _ id: String?) -> String? {
        account == .person ? id : nil
    }

    private func details(_ account: Account, _ id: String?) -> [String: String] {
        var details = ["account": account.rawValue]
        if account == .admin, let id { details["admin_id"] = id }
        return details
    }
}

extension GatehouseServices {
    /// Where logins are announced (``LoginEvents``).
    var loginEvents: LoginEvents { LoginEvents(events: events) }
}
