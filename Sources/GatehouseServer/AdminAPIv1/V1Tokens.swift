import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

struct V1Tokens: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] { [] }
}
